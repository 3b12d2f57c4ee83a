"""Replaying a log: read it, fold its events through its game's state, give the verdict.

`replay_log()` folds a log's events through `GameState.apply` (replay.state); the
outcome is a `Replay` with the state, its facts and the error that stopped it, if any.
`verdict()` is the object of docs/format.md, "The verdict".
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .errors import FormatError, IllegalLine, LogError, RuleError, UnreadableLog
from .events import Event, Header, Status
from .facts import ClaimChecked, Fact
from .reader import Log, decompress, event_object, read_file, read_text
from .registry import lookup_game
from .render import render
from .state import FoldWatcher, GameState

# ------------------------------------------------------------------ replay


@dataclass(init=False, eq=True, slots=True)
class Replay:
    """The outcome of replaying one log: built once, read many times. Read-only (`Final`
    fields, an explicit `__init__`), so that a compiled engine builds it natively."""

    file: Final[str]
    sha256: Final[str | None]
    header: Final[Header | None]
    state: Final[GameState | None]
    status: Final[Status]
    error: Final[LogError | None]
    events: Final[int]
    lines: Final[int]

    def __init__(self, file: str, sha256: str | None, header: Header | None,
                 state: GameState | None, status: Status, error: LogError | None,
                 events: int = 0, lines: int = 0) -> None:
        self.file = file
        self.sha256 = sha256
        self.header = header
        self.state = state
        self.status = status
        self.error = error
        self.events = events
        self.lines = lines

    @property
    def facts(self) -> list[Fact]:
        return self.state.facts if self.state else []

    def render(self) -> list[str]:
        st = self.state
        return render(st.info, st.facts, st.players) if st is not None else []

    def mismatched_claims(self) -> list[ClaimChecked]:
        return [c for c in self.state.claims if not c.match] if self.state else []


def new_state(header: Header, sheet: bool = False) -> GameState:
    """A fresh state for a log of this header: the game's own, or its score sheet's (a game
    without a sheet then refuses the sheet's first line)."""
    info = lookup_game(header.game)
    if info is None:
        raise KeyError(header.game)
    if sheet and info.sheet_state is not None:
        return info.sheet_state(header)
    return info.state_class(header)


def replay_log(log: Log, watcher: FoldWatcher | None = None) -> Replay:
    """Fold every event line of `log` through its game's state. The hot loop: each line is
    parsed into its dict, and one `Event` per log is pointed at it in turn (handlers read
    the event during their call only), so no object is made per line. A `watcher` (the
    step viewer, `replay.timeline`) is told of every event before and after it is applied."""
    state = new_state(log.header, log.is_sheet())
    name = log.name
    lines = log.lines
    ev = Event(0, "", {})
    count = 0
    line: int | None = None  # the line being applied
    error: LogError | None = None
    try:
        for i in range(log.body_start, len(lines)):
            if event_object(name, i + 1, lines[i], ev) is None:
                continue
            line = i + 1
            if watcher is not None:
                watcher.before(state, ev)
            state.apply(ev)
            if watcher is not None:
                watcher.after(state, ev)
            count += 1
    except (RuleError, FormatError) as rule:
        error = IllegalLine(name, line, str(rule))
    except IllegalLine as bad_line:
        error = bad_line
    except Exception as bug:  # a bug of ours must still give a verdict, not a traceback
        error = IllegalLine(name, line, f"internal error while replaying this line "
                                        f"({type(bug).__name__}: {bug}); please report it")
    state.close()
    if error is not None:
        return Replay(name, log.sha256, log.header, state, "illegal", error, count,
                      len(lines))
    status: Status = "complete" if state.is_over() else "incomplete"
    return Replay(name, log.sha256, log.header, state, status, None, count, len(lines))


def replay_bytes(data: bytes, name: str, max_bytes: int | None = None) -> Replay:
    """Replay a log given as bytes; `max_bytes` caps its decompressed size."""
    return replay_bytes_text(data, name, max_bytes)[0]


def replay_bytes_text(data: bytes, name: str, max_bytes: int | None = None,
                      sha256: str | None = None) -> tuple[Replay, bytes | None]:
    """Replay a log given as bytes, and give the decompressed text its lines were read
    from (None when it could not be decompressed): the loader stores that text and keys
    the log by `sha256`, the SHA-256 of `data` if it has it already, so that neither is
    computed twice per log."""
    sha = sha256 if sha256 is not None else hashlib.sha256(data).hexdigest()
    try:
        text = decompress(data, name, max_bytes)
    except UnreadableLog as e:
        return Replay(name, sha, None, None, "unreadable", e), None
    try:
        log = read_text(text, name, sha)
    except UnreadableLog as e:
        return Replay(name, sha, None, None, "unreadable", e), text
    return replay_log(log), text


def replay_path(path: str, name: str | None = None) -> Replay:
    """Replay the log at `path` (a file, a pipe or `/dev/stdin`), read within the caps."""
    label = name or str(path)
    try:
        data = read_file(path, label)
    except UnreadableLog as e:
        return Replay(label, None, None, None, "unreadable", e)
    return replay_bytes(data, label)


# ----------------------------------------------------------------- verdict


def winners(r: Replay) -> list[str]:
    """The winners of a complete game (ties share the win); [] otherwise."""
    st = r.state
    if st is None or r.status != "complete":
        return []
    best = (min if st.info.lowest_wins else max)(st.totals)
    return [p for p, t in zip(st.players, st.totals) if t == best]


def verdict(r: Replay) -> dict[str, Any]:
    """The verdict object of docs/format.md (plus `id` and `sha256` to tie it to the bytes)."""
    st = r.state
    err = None
    if r.error is not None:
        err = {"line": r.error.line, "message": r.error.message}
    rounds = []
    claims = []
    totals: dict[str, int] = {}
    if st is not None:
        players = st.players
        for rs in st.rounds:
            entry: dict[str, Any] = {"round": rs.round, "dealer": players[rs.dealer]}
            entry.update(rs.outcome.summary(players))
            entry["scores"] = dict(zip(players, rs.scores))
            rounds.append(entry)
        totals = st.scores()
        claims = [{"round": c.round, "player": players[c.player], "claimed": c.claimed,
                   "computed": c.computed, "match": c.match} for c in st.claims]
    h = r.header
    return {
        "file": r.file,
        "kind": ("sheet" if st.is_sheet else "moves") if st is not None else None,
        "game": h.game if h else None,
        "players": list(h.players) if h else [],
        "id": h.id if h else None,
        "sha256": r.sha256,
        "status": r.status,
        "error": err,
        "rounds": rounds,
        "totals": totals,
        "winners": winners(r),
        "claims": claims,
    }


# orjson writes integers of at most 64 bits; a claim may be any size (FORMAT.md)
_INT_MIN: Final = -(1 << 63)
_INT_MAX: Final = (1 << 64) - 1


def _exact(value: Any) -> Any:
    if type(value) is int:
        return value if _INT_MIN <= value <= _INT_MAX else orjson.Fragment(str(value))
    if type(value) is dict:
        return {k: _exact(v) for k, v in value.items()}
    if type(value) is list:
        return [_exact(v) for v in value]
    return value


def exact_json(value: Any, option: int = 0) -> bytes:
    """`value` as JSON, every integer written exactly: a log's `meta` and its other fields
    may hold integers of any size (FORMAT.md: kept, never interpreted)."""
    try:
        return orjson.dumps(value, option=option)
    except TypeError:  # an integer beyond 64 bits: the rare slow path
        return orjson.dumps(_exact(value), option=option)


def verdict_json(payload: Any) -> bytes:
    """A verdict (or a list of them) as indented JSON, every integer written exactly."""
    return exact_json(payload, orjson.OPT_INDENT_2)


def exit_status(r: Replay) -> int:
    if r.status == "unreadable":
        return 2
    if r.status == "illegal":
        return 1
    if r.state is not None and any(not c.match for c in r.state.claims):
        return 1
    return 0
