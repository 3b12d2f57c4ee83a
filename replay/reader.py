"""Reading trickledger/1 logs: bytes -> header + events, every event keeping its line.

The reader knows the format (FORMAT.md), not the games: it checks the header's
generic keys and asks the registry whether the game, player count, edition
and variants exist. Malformed event lines are reported lazily, in file order,
so that a replay can report the rounds finished before the bad line.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from .errors import IllegalLine, UnreadableLog
from .events import Event, Header, kind
from .registry import game_info, registry

FORMAT: Final = "trickledger/1"
# A gzip bomb must not exhaust memory: decompressed logs above this are refused.
MAX_DECOMPRESSED_BYTES: Final = 256 * 1024 * 1024
_BOM: Final = b"\xef\xbb\xbf"


@dataclass(slots=True)
class Log:
    """A log whose header was read; `events()` yields the rest lazily."""

    name: str
    sha256: str
    header: Header
    lines: list[bytes] = field(repr=False)
    body_start: int = 0  # index into `lines` of the first line after the header

    def events(self) -> Iterator[Event]:
        return iter_events(self.name, self.lines, self.body_start)


def decompress(data: bytes, name: str, max_bytes: int | None = None) -> bytes:
    """Gunzip `data` when it is gzip (by its magic bytes, not its name), with a size cap."""
    cap = max_bytes or MAX_DECOMPRESSED_BYTES
    if data[:2] != b"\x1f\x8b":
        if len(data) > cap:
            raise UnreadableLog(name, None, f"the log is larger than {cap // (1024 * 1024)} "
                                            f"MiB; refused")
        return data
    d = zlib.decompressobj(wbits=31)
    try:
        out = d.decompress(data, cap + 1)
    except zlib.error as e:
        raise UnreadableLog(name, None, f"not a valid gzip file ({e})") from None
    if len(out) > cap or d.unconsumed_tail:
        raise UnreadableLog(name, None, f"decompresses to more than {cap // (1024 * 1024)} "
                                        f"MiB; refused (a gzip bomb?)")
    if not d.eof:
        raise UnreadableLog(name, None, "gzip file is truncated")
    return out


def is_comment(raw: bytes) -> bool:
    s = raw.strip()
    return not s or s[:1] == b"#"


def _json_line(name: str, lineno: int, raw: bytes, error: type) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        msg = str(e)
        if "utf-8" in msg.lower() or "utf8" in msg.lower() or "surrogate" in msg.lower():
            raise error(name, lineno, "line is not valid UTF-8 text") from None
        raise error(name, lineno, f"line is not valid JSON ({msg})") from None
    except RecursionError:
        raise error(name, lineno, "line is nested too deeply to be a log event") from None


def event_object(name: str, lineno: int, raw: bytes) -> dict[str, Any] | None:
    """The JSON object of one event line, with a string `type`; None for a comment or blank
    line; IllegalLine for anything else."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        if is_comment(raw):
            return None
        _json_line(name, lineno, raw, IllegalLine)  # raises with the reason
        raise AssertionError("unreachable") from None  # pragma: no cover
    except RecursionError:
        raise IllegalLine(name, lineno, "line is nested too deeply to be a log event") from None
    if type(obj) is not dict:
        raise IllegalLine(name, lineno, f"expected a JSON object, got {kind(obj)}")
    etype = obj.get("type")
    if type(etype) is not str:
        if etype is None:
            raise IllegalLine(name, lineno, "event has no 'type'")
        raise IllegalLine(name, lineno, f"'type' must be a string, got {kind(etype)}")
    return obj


def iter_events(name: str, lines: list[bytes], start: int) -> Iterator[Event]:
    """Yield the event lines from index `start`; a malformed line raises IllegalLine.
    (The engine's own loop, `replay.engine.replay_log`, reads the lines without making an
    Event of each.)"""
    for i in range(start, len(lines)):
        obj = event_object(name, i + 1, lines[i])
        if obj is not None:
            yield Event(i + 1, obj["type"], obj)


def read_bytes(data: bytes, name: str, max_bytes: int | None = None) -> Log:
    """Read a log from bytes. Raises UnreadableLog when there is no valid header."""
    sha = hashlib.sha256(data).hexdigest()
    text = decompress(data, name, max_bytes)
    if text.startswith(_BOM):
        text = text[len(_BOM):]
    lines = text.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, raw in enumerate(lines):
        if is_comment(raw):
            continue
        header = parse_header(name, i + 1, raw, sha)
        return Log(name=name, sha256=sha, header=header, lines=lines, body_start=i + 1)
    raise UnreadableLog(name, None, "the file holds no header line (it is empty or all comments)")


def parse_header(name: str, lineno: int, raw: bytes, sha: str) -> Header:
    def bad(msg: str) -> UnreadableLog:
        return UnreadableLog(name, lineno, msg)

    obj = _json_line(name, lineno, raw, UnreadableLog)
    if type(obj) is not dict:
        raise bad(f"the header must be a JSON object, got {kind(obj)}")
    fmt = obj.get("format")
    if fmt != FORMAT:
        if fmt is None:
            raise bad(f"the header has no 'format' (expected \"{FORMAT}\")")
        raise bad(f"unknown format {fmt!r}: expected \"{FORMAT}\"")
    game = obj.get("game")
    if type(game) is not str:
        raise bad("the header's 'game' must be a string naming the game"
                  f" ({', '.join(sorted(registry()))})")
    info = game_info(game)
    if info is None:
        raise bad(f"unknown game {game!r}: expected one of {', '.join(sorted(registry()))}")
    players = obj.get("players")
    if type(players) is not list or not all(type(p) is str for p in players):
        raise bad("'players' must be a list of player names (strings), in seating order")
    if any(not p.strip() for p in players):
        raise bad("'players' holds an empty name")
    if len(set(players)) != len(players):
        dup = next(p for p in players if players.count(p) > 1)
        raise bad(f"'players' names {dup!r} twice: names must be unique")
    game = info.name
    if not info.min_players <= len(players) <= info.max_players:
        raise bad(f"{game} is for {info.min_players}-{info.max_players} players, "
                  f"the header lists {len(players)}")
    dealer = obj.get("dealer", players[-1])
    if type(dealer) is not str or dealer not in players:
        raise bad(f"'dealer' must be one of the players, got {dealer!r}")
    edition = obj.get("edition")
    if info.editions:
        if edition is None:
            edition = info.editions[0]
        elif edition not in info.editions:
            raise bad(f"unknown edition {edition!r} for {game}: expected one of "
                      f"{', '.join(info.editions)}")
    elif edition is not None:
        raise bad(f"{game} has no editions (got {edition!r})")
    variants = obj.get("variants", [])
    if type(variants) is not list or not all(type(v) is str for v in variants):
        raise bad("'variants' must be a list of strings")
    for v in variants:
        if v not in info.variants:
            known = ", ".join(info.variants) or "none"
            raise bad(f"unknown variant {v!r} for {game}: expected one of {known}")
    suits: tuple[str, ...] = ()
    if info.needs_suits:
        raw_suits = obj.get("suits")
        if type(raw_suits) is not list or not all(type(s) is str for s in raw_suits):
            raise bad(f"{game} needs 'suits': a list of suit letters")
        suits = tuple(s.upper() for s in raw_suits)
    meta = obj.get("meta", {})
    if type(meta) is not dict:
        raise bad(f"'meta' must be an object, got {kind(meta)}")
    gid = obj.get("id", sha)
    if type(gid) is not str or not gid:
        raise bad("'id' must be a non-empty string")
    header_no_rounds = Header(game, tuple(players), dealer, edition, frozenset(variants), 0,
                              suits, gid, meta, lineno, obj)
    try:
        rounds = info.state_class.check_header(header_no_rounds)
    except ValueError as e:
        raise bad(str(e)) from None
    return Header(game, tuple(players), dealer, edition, frozenset(variants), rounds,
                  suits, gid, meta, lineno, obj)
