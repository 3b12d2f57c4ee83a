"""Score sheets: a game as the table saw it at the end of each round, checked by the rules.

At a real table nobody writes down every card played; there is a score sheet. A score
sheet log has the same header as a move log and one `sheet` line per round carrying, per
player, the end-of-round facts that decide the score, and optionally the scores the table
wrote down (docs/format.md). It is folded like a move log, through a state:

- `SheetState` (here) does what every game's sheet shares and knows no game: the round's
  number and dealer, one entry per player, the written scores checked as claims, and the
  rule that a log is a move log or a score sheet, never both;
- each game declares its sheet in its own module: a subclass that reads a player's entry,
  checks each end-of-round rule as one predicate of that module (a `RuleError` naming the
  rule), scores with the game's own scoring function and emits its own sheet fact. It is
  found through `GameInfo.sheet_state`.

The engine folds a log through the sheet state when the log's first event is a `sheet`
line (`Log.is_sheet`), so `replay_log`, the verdict, claims and `finish_round` are the
same for both kinds of log. `SheetForm` declares a game's sheet as numbers with their
limits (for a page where a table types it in), and `sheet_line` builds the line from them.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, ClassVar

from mypy_extensions import mypyc_attr

from .cards import Card
from .errors import FormatError, RuleError
from .events import EVENT_TYPES, SHEET_EVENT, Event, Header, field_of, int_dict, kind
from .facts import ClaimChecked, Fact, RoundOutcome, RoundScored
from .info import GameInfo
from .state import GameState, Move

SHEET_END = "score sheet"  # `rounds.end_reason` of a round entered on a score sheet


# ------------------------------------------------------------------- the form


@dataclass(frozen=True)
class SheetField:
    """One number of a sheet line: where it goes (`path`: keys under a player's entry, or
    under the line itself for a round's field), how a form labels it, and its limits."""

    path: tuple[str, ...]
    label: str
    lo: int
    hi: int
    required: bool = False
    help: str = ""


@dataclass(frozen=True)
class SheetForm:
    """A game's sheet for one round, as numbers: one row per player (`players`, and what a
    row holds in words: `about`), numbers that belong to the round (`round`, in words:
    `round_about`), and players named once per round (`pick`: the key and what it means;
    optional, e.g. who ended the game)."""

    players: tuple[SheetField, ...]
    about: str = ""
    round: tuple[SheetField, ...] = ()
    round_about: str = ""
    pick: tuple[tuple[str, str], ...] = ()


def _put(target: dict[str, Any], path: tuple[str, ...], value: int) -> None:
    for key in path[:-1]:
        target = target.setdefault(key, {})
    target[path[-1]] = value


def sheet_line(form: SheetForm, round_no: int, players: Sequence[str],
               values: Mapping[str, Sequence[int | None]],
               round_values: Sequence[int | None] = (),
               picks: Mapping[str, str | None] | None = None,
               written: Mapping[str, int | None] | None = None) -> dict[str, Any]:
    """The `sheet` line of a round from a form's numbers: `values[player][i]` is the number
    of `form.players[i]` (None: left blank, the key is left out), `round_values[i]` of
    `form.round[i]`; `picks` names a player per key of `form.pick`; `written` holds the
    scores the table wrote down (None: nothing written)."""
    line: dict[str, Any] = {"type": SHEET_EVENT, "round": round_no}
    for f, v in zip(form.round, round_values):
        if v is not None:
            _put(line, f.path, int(v))
    for key, _ in form.pick:
        who = (picks or {}).get(key)
        if who is not None:
            line[key] = who
    entries: dict[str, Any] = {}
    for p in players:
        entry: dict[str, Any] = {}
        for f, v in zip(form.players, values.get(p, ())):
            if v is not None:
                _put(entry, f.path, int(v))
        entries[p] = entry
    line["players"] = entries
    scores = {p: int(v) for p, v in (written or {}).items() if v is not None}
    if scores:
        line["scores"] = scores
    return line


# ------------------------------------------------------------------- reading numbers


def number(obj: Mapping[str, Any], key: str, where: str, default: int | None = None) -> int:
    """A count under `key` of `obj`: a whole number, not negative. Absent: `default`, or a
    FormatError when the key is required (`default` None). `where` names `obj` in messages
    ("Ann's entry")."""
    if key not in obj:
        if default is None:
            raise FormatError(f"{where} needs '{key}' (a whole number)")
        return default
    v = obj[key]
    if type(v) is not int:
        raise FormatError(f"{where}: '{key}' must be a whole number, got {kind(v)}")
    if v < 0:
        raise RuleError(f"{where}: '{key}' is {v}, but it counts cards or tricks, so it "
                        f"cannot be negative")
    return v


def letter_counts(obj: Mapping[str, Any], key: str, where: str, letters: Sequence[str],
                  what: str) -> dict[str, int]:
    """An object {letter: count} under `key` (absent: all zero); letters are read
    case-insensitively and must be among `letters` (`what` names them in messages)."""
    out = {letter: 0 for letter in letters}
    if key not in obj:
        return out
    raw = obj[key]
    if type(raw) is not dict:
        raise FormatError(f"{where}: '{key}' must be an object {{letter: count}}, got "
                          f"{kind(raw)}")
    seen: set[str] = set()
    for k in raw:
        up = k.upper()
        if up not in out:
            raise FormatError(f"{where}: {k!r} under '{key}' is not {what} "
                              f"({', '.join(letters)})")
        if up in seen:
            raise FormatError(f"{where}: '{key}' names {up} twice")
        seen.add(up)
        out[up] = number(raw, k, f"{where}, '{key}'")
    return out


# ------------------------------------------------------------------- the state


@mypyc_attr(allow_interpreted_subclasses=True)
class SheetState(GameState):
    """A score sheet folded through the engine. A game's sheet subclasses it in the game's
    module and provides `form`, `score_sheet` and `line_of`; everything else is shared."""

    is_sheet: ClassVar[bool] = True

    @classmethod
    def check_header(cls, header: Header) -> int:
        return cls.info.state_class.check_header(header)

    # -- what a game's sheet declares
    @classmethod
    @abstractmethod
    def form(cls, header: Header, round_no: int) -> SheetForm:
        """The round's sheet as numbers with their limits (for a form a table fills in)."""

    @abstractmethod
    def score_sheet(self, ev: Event, entries: list[dict[str, Any]]
                    ) -> tuple[list[int], list[str], RoundOutcome]:
        """Read every player's entry (by seat) and the line's own keys, check each
        end-of-round rule (a RuleError naming it), emit the game's sheet fact, and return
        the scores and derivations by seat, from the game's scoring function, and the
        round's outcome."""

    @classmethod
    @abstractmethod
    def line_of(cls, facts: Sequence[Fact], scored: RoundScored,
                players: tuple[str, ...]) -> dict[str, Any]:
        """The sheet line's own keys (`players` and the round's keys) for a round replayed
        from its moves: `facts` are that round's facts, from its deal to `scored`."""

    # -- the shared fold
    def on_sheet(self, ev: Event) -> None:
        d = ev.data
        r: int = field_of(ev, "round", int, "the round's number")
        expected = self.round_no + 1
        if r != expected:
            if not 1 <= r <= self.rounds_total:
                raise RuleError(f"sheet for round {r}: the game has rounds "
                                f"1-{self.rounds_total}")
            raise RuleError(f"sheet for round {r}, but round {expected} comes next: one "
                            f"sheet line per round, in order")
        self.round_no = r
        if r > 1:
            self.dealer = self.left_of(self.dealer)
        if "dealer" in d:
            dealer = self.player(ev, "dealer")
            if dealer != self.dealer:
                raise RuleError(f"round {r} is dealt by {self.players[self.dealer]} (the "
                                f"dealer moves one seat left each round), not "
                                f"{self.players[dealer]}")
        entries = self._entries(ev)
        written = int_dict(ev, "scores", "an object {player: score}") if "scores" in d else {}
        for name in written:
            if name not in self.seat:
                raise RuleError(f"the written scores name {name!r}, who is not a player")
        self.in_round = True
        scores, derivations, outcome = self.score_sheet(ev, entries)
        self.finish_round(scores, derivations, outcome, ev.line)
        for name, v in written.items():
            s = self.seat[name]
            fact = ClaimChecked(r, s, v, scores[s], v == scores[s], derivations[s], ev.line)
            self.claims.append(fact)
            self.facts.append(fact)

    def _entries(self, ev: Event) -> list[dict[str, Any]]:
        raw: dict[str, Any] = field_of(ev, "players", dict,
                                       "an object {player: their end-of-round facts}")
        for name in raw:
            if name not in self.seat:
                raise RuleError(f"the sheet has an entry for {name!r}, who is not a player "
                                f"({', '.join(self.players)})")
        out = []
        for name in self.players:
            if name not in raw:
                raise RuleError(f"the sheet for round {self.round_no} has no entry for {name}")
            entry = raw[name]
            if type(entry) is not dict:
                raise FormatError(f"{name}'s entry must be an object of numbers, got "
                                  f"{kind(entry)}")
            out.append(entry)
        return out

    def not_handled(self, ev: Event) -> Exception:
        if ev.type in EVENT_TYPES:  # a move: the sheet and the claim are handled
            return RuleError(f"a '{ev.type}' line cannot stand in a score sheet: this log's "
                             f"first event is a 'sheet', and a log is either a move log or a "
                             f"score sheet, never both")
        return super().not_handled(ev)

    # -- the uniform API: a sheet holds no hands and offers no moves
    def hand(self, seat: int) -> list[Card]:
        return []

    def to_move(self) -> str | None:
        return None

    def legal_moves(self) -> list[Move]:
        return []

    def next_chance(self) -> str | None:
        return None

    def draw_chance(self, rng: Random) -> Move:
        raise RuntimeError("a score sheet has no chance events")


def sheet_class(info: GameInfo) -> type[SheetState] | None:
    """A game's score sheet state (`GameInfo.sheet_state`, which `register` checked is a
    SheetState), or None when the game has none."""
    sheet = info.sheet_state
    if sheet is None:
        return None
    assert issubclass(sheet, SheetState)
    return sheet


# ------------------------------------------------------------------- rendering


def sheet_head(round_no: int, dealer: int, line: int, players: tuple[str, ...]) -> str:
    """The first line of a round entered on a score sheet, as `replay` prints it."""
    return f"== Round {round_no} (score sheet, line {line}): {players[dealer]} deals"


def table_lines(players: tuple[str, ...], columns: Sequence[str],
                rows: Iterable[Sequence[object]]) -> list[str]:
    """A sheet as a text table: one row per player, a column per number."""
    cells = [[str(v) for v in row] for row in rows]
    width = max([6] + [len(p) for p in players]) + 1
    sizes = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    out = ["   " + "player".ljust(width) + "  ".join(c.rjust(w) for c, w in zip(columns, sizes))]
    for p, row in zip(players, cells):
        out.append("   " + p.ljust(width) + "  ".join(v.rjust(w) for v, w in zip(row, sizes)))
    return out
