"""Reading trickledger/1 logs: bytes -> header + events, every event keeping its line.

The reader knows the format (docs/format.md), not the games: it checks the header's
generic keys and asks the registry whether the game, player count, edition
and variants exist. Malformed event lines are reported lazily, in file order,
so that a replay can report the rounds finished before the bad line.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import stat
import unicodedata
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .errors import IllegalLine, UnreadableLog
from .events import EXACT_NUMBER_EVENTS, SHEET_EVENT, Event, Header, kind
from .registry import lookup_game, registry

FORMAT: Final = "trickledger/1"
# Limits on what one log may cost, the same wherever a log is read (CLI, ingest, the
# dashboard's Verify and Upload pages). A real game is well under 100 KB and 1,000 lines.
MAX_LOG_BYTES: Final = 64 * 1024 * 1024  # the log's text, after gunzip (and the file read)
MAX_LINES: Final = 100_000
MAX_NAME_CHARS: Final = 64  # a player's name
READ_IDLE_S: Final = 10.0  # a pipe or device that sends nothing for this long is given up
# A gzip member costs a few microseconds even when empty; a log has no use for more members
# than lines, and 64 MiB of empty members (3 million) would cost seconds.
MAX_GZIP_MEMBERS: Final = MAX_LINES
_GZIP_PIECE: Final = 4096
_BOM: Final = b"\xef\xbb\xbf"
_JSON_WHERE: Final = re.compile(r": line \d+ column (\d+) \(char \d+\)$")
# the parser of every line: compiled, a static read once, not the module's attribute per line
_loads: Final = orjson.loads


@dataclass(init=False, repr=False, eq=True, slots=True)
class Log:
    """A log whose header was read; `events()` yields the rest lazily. Read-only (`Final`
    fields, an explicit `__init__`), so that a compiled engine builds it natively."""

    name: Final[str]
    sha256: Final[str]
    header: Final[Header]
    lines: Final[list[bytes]]  # not in the repr
    body_start: Final[int]  # index into `lines` of the first line after the header

    def __init__(self, name: str, sha256: str, header: Header, lines: list[bytes],
                 body_start: int = 0) -> None:
        self.name = name
        self.sha256 = sha256
        self.header = header
        self.lines = lines
        self.body_start = body_start

    def __repr__(self) -> str:
        # the dataclass repr without `lines` (a `field(repr=False)` cannot be `Final`)
        return (f"Log(name={self.name!r}, sha256={self.sha256!r}, header={self.header!r}, "
                f"body_start={self.body_start!r})")

    def events(self) -> Iterator[Event]:
        return iter_events(self.name, self.lines, self.body_start)

    def is_sheet(self) -> bool:
        """Whether this log is a score sheet: its first event other than a claim is a
        `sheet` line. Anything else (a move, a malformed line, no event) makes a move log;
        a log is one or the other, and a line of the other kind is illegal where it stands."""
        lines = self.lines
        for i in range(self.body_start, min(len(lines), MAX_LINES)):  # no copy of the list
            raw = lines[i]
            # a line that names neither type, even escaped, is a move (or malformed):
            # answered without parsing the log's longest line, the deal, twice
            if (b"claim" not in raw and b"sheet" not in raw and b"\\" not in raw
                    and not is_comment(raw)):
                return False
            try:
                obj = _loads(raw)
            except (orjson.JSONDecodeError, RecursionError):
                if is_comment(raw):
                    continue
                return False
            if type(obj) is not dict:
                return False
            etype = obj.get("type")
            if etype != "claim":
                return etype == SHEET_EVENT
        return False


def mib(n: int) -> str:
    return f"{n / (1024 * 1024):g} MiB"


def decompress(data: bytes, name: str, max_bytes: int | None = None) -> bytes:
    """Gunzip `data` when it is gzip (by its magic bytes, not its name), never inflating
    more than the cap (MAX_LOG_BYTES unless `max_bytes` is smaller). Every member is read,
    as `gzip -d` reads them: a log appended to with `gzip >>` or joined with `cat` is one
    text, so no line can hide in a member after the first."""
    cap = min(max_bytes or MAX_LOG_BYTES, MAX_LOG_BYTES)
    if data[:2] != b"\x1f\x8b":
        if len(data) > cap:
            raise UnreadableLog(name, None, f"the log is larger than {mib(cap)}; refused")
        return data
    # Fed in small pieces: zlib copies what follows a member's end (unused_data), and
    # with the whole rest of the file that copy would make many members cost quadratic time.
    view = memoryview(data)
    out = bytearray()
    pos = members = 0
    while pos < len(data):
        if data[pos:pos + 2] != b"\x1f\x8b":
            raise UnreadableLog(name, None, f"not a valid gzip file (bytes at offset {pos:,}, "
                                            f"after gzip member {members}, are not gzip)")
        members += 1
        if members > MAX_GZIP_MEMBERS:
            raise UnreadableLog(name, None, f"holds more than {MAX_GZIP_MEMBERS:,} gzip "
                                            f"members; refused")
        d = zlib.decompressobj(wbits=31)
        while not d.eof:
            if pos >= len(data):
                raise UnreadableLog(name, None, "gzip file is truncated")
            piece = view[pos:pos + _GZIP_PIECE]
            pos += len(piece)
            try:
                out += d.decompress(piece, cap + 1 - len(out))
            except zlib.error as e:
                raise UnreadableLog(name, None, f"not a valid gzip file ({e})") from None
            if len(out) > cap or d.unconsumed_tail:
                raise UnreadableLog(name, None, f"decompresses to more than {mib(cap)}; "
                                                f"refused (a gzip bomb?)")
        pos -= len(d.unused_data)
    return bytes(out)


def is_comment(raw: bytes) -> bool:
    s = raw.strip()
    return not s or s[:1] == b"#"


def _reject_constant(word: str) -> Any:
    raise ValueError(f"{word} is not a JSON value")


def exact_loads(raw: bytes) -> Any:
    """Parse a line keeping integers of any size exact (orjson gives floats beyond 64 bits)."""
    return json.loads(raw, parse_constant=_reject_constant)


def has_float(value: Any) -> bool:
    """Whether orjson gave a float anywhere in `value`: it reads an integer beyond 64 bits
    as one, so only such a line is parsed again, by the standard library, which keeps
    integers of any size exact."""
    t = type(value)
    if t is float:
        return True
    if t is dict:
        return any(has_float(v) for v in value.values())
    if t is list:
        return any(has_float(v) for v in value)
    return False


def _not_utf8(raw: bytes) -> str:
    """Why a line is not UTF-8 text, with the first bad byte, its column, and what to do: a
    log saved by an editor in Windows-1252 (Latin-1) is the usual case, so the character
    the byte is there is named."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = raw[e.start]
        column = len(raw[:e.start].decode("utf-8", "replace")) + 1
        try:
            char = bytes([bad]).decode("cp1252")
        except UnicodeDecodeError:
            char = ""
        seen = ("" if not char else f" ('{char}' in Windows-1252)"
                if char.isprintable() and not char.isspace()
                else f" (U+{ord(char):04X} in Windows-1252)")
        return (f"line is not valid UTF-8 text: byte 0x{bad:02X} at column {column}{seen}; "
                f"save the log as UTF-8 (in most editors: Save as, encoding UTF-8)")
    return "line is not valid UTF-8 text (a lone surrogate); save the log as UTF-8"


def _json_line(name: str, lineno: int, raw: bytes, error: type) -> Any:
    """Parse one line, or raise `error` saying (in one line, with this line's number only)
    why it is not a JSON value."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        msg = str(e)
        low = msg.lower()
        if "utf-8" in low or "utf8" in low or "surrogate" in low:
            raise error(name, lineno, _not_utf8(raw)) from None
        where = _JSON_WHERE.search(msg)
        if where:  # the decoder counts within the line: keep its column, not its "line 1"
            msg = msg[:where.start()] + f" at column {where.group(1)}"
        raise error(name, lineno, f"line is not valid JSON ({msg})") from None
    except RecursionError:
        raise error(name, lineno, "line is nested too deeply to be a log event") from None
    if has_float(obj):
        try:
            return exact_loads(raw)
        except (ValueError, RecursionError):
            pass  # orjson read it; keep that reading
    return obj


def event_object(name: str, lineno: int, raw: bytes, into: Event | None = None
                 ) -> dict[str, Any] | None:
    """The JSON object of one event line, with a string `type`; None for a comment or blank
    line; IllegalLine for anything else (a line beyond MAX_LINES included). With `into`, an
    event line also becomes that `Event`'s line, type and data (the engine's one per log)."""
    if lineno > MAX_LINES:
        raise IllegalLine(name, lineno, f"a log holds at most {MAX_LINES:,} lines; "
                                        f"the rest of this one is not read")
    try:
        obj = _loads(raw)
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
    if etype in EXACT_NUMBER_EVENTS and has_float(obj):
        obj = _json_line(name, lineno, raw, IllegalLine)  # numbers that count, kept exact
    if into is not None:
        into.line = lineno
        into.type = etype
        into.data = obj
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
    return read_text(decompress(data, name, max_bytes), name,
                     hashlib.sha256(data).hexdigest())


def read_text(text: bytes, name: str, sha: str) -> Log:
    """Read a log from its decompressed bytes `text`, `sha` the SHA-256 of the bytes as
    stored. Raises UnreadableLog when there is no valid header."""
    if text.startswith(_BOM):
        text = text[len(_BOM):]
    # never more than MAX_LINES + 1 pieces, however many newlines (a bomb of blank lines)
    lines = text.split(b"\n", MAX_LINES + 1)
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
    info = lookup_game(game)
    if info is None:
        raise bad(f"unknown game {game!r}: expected one of {', '.join(sorted(registry()))}")
    players = obj.get("players")
    if type(players) is not list or not all(type(p) is str for p in players):
        raise bad("'players' must be a list of player names (strings), in seating order")
    if any(not p.strip() for p in players):
        raise bad("'players' holds an empty name")
    for p in players:
        why = bad_name(p)
        if why:
            raise bad(f"player name {p!r}: {why}")
    if len(set(players)) != len(players):
        dup = next(p for p in players if players.count(p) > 1)
        raise bad(f"'players' names {dup!r} twice: names must be unique")
    alike = names_alike(players)
    if alike:
        raise bad(f"player names {alike[0]!r} and {alike[1]!r} look alike: names must be "
                  f"told apart")
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


# Characters a reader cannot see, or that change how the text around them shows: controls
# (C0, DEL, C1), format characters (Unicode's Cf: text-direction marks and isolates, zero
# widths, the soft hyphen, tags), line and paragraph separators, and the rest of Unicode's
# Default_Ignorable_Code_Point (combining grapheme joiner, Hangul and halfwidth fillers,
# Mongolian selectors, variation selectors), plus symbols drawn as nothing or as a stand-in
# box: the Braille blank (U+2800), the Khitan small script filler (U+16FE4), the musical null
# notehead (U+1D159) and the object replacement character (U+FFFC).
# tests/units/test_invisible.py checks that every Cc, Cf, Zl and Zp character of the running
# Python's Unicode is among them.
INVISIBLE_RANGES: Final = (
    (0x00, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x34F, 0x34F), (0x600, 0x605),
    (0x61C, 0x61C), (0x6DD, 0x6DD), (0x70F, 0x70F), (0x890, 0x891), (0x8E2, 0x8E2),
    (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F),
    (0x2028, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFFC),
    (0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
    (0x16FE4, 0x16FE4), (0x1D159, 0x1D159), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


def char_class(ranges: Iterable[tuple[int, int]]) -> re.Pattern[str]:
    """A pattern matching one character of any of the inclusive code-point `ranges`."""
    return re.compile("[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "")
                                    for a, b in ranges) + "]")


INVISIBLE: Final = char_class(INVISIBLE_RANGES)


def _names_alike(name: str) -> str:
    """The form two names that a reader cannot tell apart share: NFKC folds composed and
    decomposed accents, full-width and compatibility letters into one spelling, and a
    letter of another script that looks like a Latin one (Cyrillic А) is that one."""
    folded = unicodedata.normalize("NFKC", name)
    if folded.isascii():
        return folded
    from .lookalike import seen_as  # the confusables table, loaded for such names only

    return seen_as(folded)


def names_alike(names: list[str]) -> tuple[str, str] | None:
    """Two of `names` that look the same (equal, or equal once normalised), or None."""
    seen: dict[str, str] = {}
    for n in names:
        key = _names_alike(n)
        if key in seen:
            return seen[key], n
        seen[key] = n
    return None


def bad_name(name: str, limit: int = MAX_NAME_CHARS) -> str | None:
    """Why `name` cannot be a player's (or a file's) name, or None: a name is plain text of
    at most `limit` characters that a reader can see: no control, format, text-direction or
    otherwise invisible character (which could rewrite what a terminal or a page shows, or
    make two names look alike), no space but the plain one and none at either end, and at
    least one letter, digit, punctuation mark or symbol."""
    if not name.strip():
        return "a name cannot be empty"
    if len(name) > limit:
        return f"a name has at most {limit} characters, this one {len(name)}"
    # printable ASCII (nearly every name) holds no control, format or invisible character and
    # no space but the plain one: the check of every character below cannot fail for it
    for ch in ("" if name.isascii() and name.isprintable() else name):
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Zl", "Zp", "Cs", "Co"):
            return f"a name cannot hold the control character U+{ord(ch):04X}"
        if INVISIBLE.match(ch):
            return f"a name cannot hold U+{ord(ch):04X}, a character that shows as nothing"
        if cat == "Zs" and ch != " ":
            return f"a name cannot hold the space character U+{ord(ch):04X} (only a plain space)"
    if name != name.strip():
        return "a name cannot begin or end with a space"
    if not any(unicodedata.category(ch)[0] in "LNPS" for ch in name):
        return "a name needs a letter, digit, punctuation mark or symbol that shows"
    return None


def read_file(path: str, name: str | None = None, cap: int = MAX_LOG_BYTES,
              idle_s: float = READ_IDLE_S) -> bytes:
    """The bytes of the file at `path`, read incrementally and never more than `cap`
    (UnreadableLog beyond it). A pipe or device is read as it comes, and given up when it
    sends nothing for `idle_s` seconds; a FIFO without a writer reads as empty."""
    label = name or path
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableLog(label, None, "is a folder, not a log file")
        regular = stat.S_ISREG(info.st_mode)
        if regular and info.st_size > cap:
            raise UnreadableLog(label, None, f"the file is {info.st_size:,} bytes, more than "
                                             f"{mib(cap)}; refused")
        fd = os.open(path, os.O_RDONLY | (0 if regular else os.O_NONBLOCK))
    except OSError as e:
        raise UnreadableLog(label, None, f"cannot read the file ({e.strerror or e})") from None
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, cap + 1 - size))
            except BlockingIOError:  # a pipe with a writer and nothing to read yet
                ready, _, _ = select.select([fd], [], [], idle_s)
                if not ready:
                    raise UnreadableLog(label, None, f"nothing arrived for {idle_s:g} s; "
                                                     f"gave up reading") from None
                continue
            if not chunk:  # the end (a FIFO without a writer ends at once)
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                raise UnreadableLog(label, None, f"the file holds more than {mib(cap)}; "
                                                 f"refused")
    except OSError as e:
        raise UnreadableLog(label, None, f"cannot read the file ({e.strerror or e})") from None
    finally:
        os.close(fd)
    return b"".join(chunks)
