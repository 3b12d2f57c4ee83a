"""Rows: how facts become the rows of the database's tables. Each fact goes through its
game's projection (`GameInfo.project`) or the core's, which fills the tables of a `RowSink`;
ingest turns them into Arrow tables.

Rows are kept by column. Each table the sink holds is a `TableRows`, made from its declared
columns (replay.tables): one list per column; a list column (VARCHAR[]) keeps its rows'
strings end to end with where each row ends (`StringLists`), the stacks column the fields of
its entries likewise (`StackLists`), so that the loader builds each Arrow array from flat
lists (ingest.batch). A projection fills a table through a typed writer, a `RowWriter`
generated from the table's declaration (replay.rowgen): its `add` takes every column the
writer's game declares (and the core's) by name, none with a default, so a projection names
each column it leaves NULL, and a column the table lacks or one left out is a TypeError (and
a mypy error); a row costs one native call and one append per column, with no dict of
keywords and no search by column name. The core's writers are below (`sink.tricks`,
`sink.plays`, ...), a game's are in its module (`sink.rows(KeepsRows)`). A table without a
generated writer (a plugin game's, ingest's log-level ones) is filled by keyword through
`TableRows.add`, checked on each row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeVar, cast

from mypy_extensions import mypyc_attr

from .cards import Card
from .facts import ClaimChecked, Fact, RoundDealt, RoundScored, TrickAbandoned
from .tables import ROUND_CORE, SHARED, STACKS, Column

if TYPE_CHECKING:
    from .info import GameInfo


class StringLists:
    """A VARCHAR[] column: every row's strings end to end, and where each row ends."""

    def __init__(self) -> None:
        self.values: list[str] = []
        self.ends: list[int] = [0]  # row i is values[ends[i]:ends[i + 1]]
        self.nulls: list[int] = []  # the NULL rows (few): kept apart, not a flag per row

    def append(self, items: Iterable[str] | None) -> None:
        if items is None:
            self.nulls.append(len(self.ends) - 1)
        else:
            self.values.extend(items)
        self.ends.append(len(self.values))

    def rows(self) -> int:
        return len(self.ends) - 1

    def truncate(self, n: int) -> None:
        del self.values[self.ends[n]:]
        del self.ends[n + 1:]
        self.nulls = [i for i in self.nulls if i < n]

    def python(self, start: int, end: int) -> list[Any]:
        """Rows start..end as Python lists (None for NULL)."""
        nulls = set(self.nulls)
        ends = self.ends
        values = self.values
        return [None if i in nulls else values[ends[i]:ends[i + 1]] for i in range(start, end)]


Stack = tuple[str | None, str, int]  # (player, or None for a shared stack; stack; cards)


class StackLists:
    """The stacks column (schema STACKS, a list of structs): the fields of every row's
    entries end to end, and where each row ends."""

    def __init__(self) -> None:
        self.player: list[str | None] = []
        self.stack: list[str] = []
        self.cards: list[int] = []
        self.ends: list[int] = [0]
        self.nulls: list[int] = []

    def append(self, entries: Iterable[Stack] | None) -> None:
        if entries is None:
            self.nulls.append(len(self.ends) - 1)
        else:
            for player, stack, cards in entries:
                self.player.append(player)
                self.stack.append(stack)
                self.cards.append(cards)
        self.ends.append(len(self.stack))

    def rows(self) -> int:
        return len(self.ends) - 1

    def truncate(self, n: int) -> None:
        end = self.ends[n]
        del self.player[end:]
        del self.stack[end:]
        del self.cards[end:]
        del self.ends[n + 1:]
        self.nulls = [i for i in self.nulls if i < n]

    def python(self, start: int, end: int) -> list[Any]:
        """Rows start..end as Python lists of {player, stack, cards} (None for NULL)."""
        nulls = set(self.nulls)
        out: list[Any] = []
        for i in range(start, end):
            if i in nulls:
                out.append(None)
                continue
            out.append([{"player": self.player[j], "stack": self.stack[j], "cards": self.cards[j]}
                        for j in range(self.ends[i], self.ends[i + 1])])
        return out


ColumnValues = list[Any] | StringLists | StackLists


def column_rows(column: ColumnValues) -> int:
    return len(column) if isinstance(column, list) else column.rows()


def new_column(sql_type: str) -> ColumnValues:
    """The holder of a column of this SQL type."""
    if sql_type == "VARCHAR[]":
        return StringLists()
    if sql_type == STACKS:
        return StackLists()
    return []


class TableRows:
    """One table's rows, by column, made from its declared columns (in the table's order).
    `gid` is the game id the rows of the log being projected get (RowSink.begin sets it) when
    `game_id_from_sink`. A generated writer appends to the columns directly; `add` fills a row
    by keyword (a plugin game's table, ingest's log-level tables)."""

    def __init__(self, table: str, columns: Sequence[Column], game_id_from_sink: bool) -> None:
        self.table = table
        self.gid = ""
        self.names: tuple[str, ...] = tuple(c.name for c in columns)
        self.held: list[ColumnValues] = [new_column(c.type) for c in columns]
        self.by_name: dict[str, ColumnValues] = dict(zip(self.names, self.held))
        self.game_id_from_sink = game_id_from_sink
        self.needs = (frozenset(self.names) - {"game_id"} if game_id_from_sink
                      else frozenset(self.names))

    def columns(self) -> list[tuple[str, ColumnValues]]:
        return list(zip(self.names, self.held))

    def rows(self) -> int:
        return column_rows(self.held[0]) if self.held else 0

    def truncate(self, n: int) -> None:
        """Drop every row from the `n`th on (a log that failed half-way)."""
        for column in self.held:
            if isinstance(column, list):
                del column[n:]
            else:
                column.truncate(n)

    def python(self, start: int, end: int) -> dict[str, list[Any]]:
        """Rows start..end by column name, as Python values: what a test, the golden
        snapshot and the search for a value its column cannot hold read."""
        return {name: column[start:end] if isinstance(column, list) else column.python(start, end)
                for name, column in self.columns()}

    def add(self, **values: Any) -> None:
        """One row, every column by name (None for NULL; `game_id` from the sink when the
        sink fills it): a column the table lacks or one left out is a TypeError."""
        if values.keys() != self.needs:
            # (sets made here: compiled, `frozenset - dict_keys` is typed a frozenset but
            # Python gives a set)
            given = set(values)
            unknown = sorted(given - self.needs)
            missing = sorted(self.needs - given)
            what = [f"has no column {', '.join(unknown)}"] if unknown else []
            what += [f"needs {', '.join(missing)} (None for NULL)"] if missing else []
            raise TypeError(f"table {self.table} {' and '.join(what)}")
        if self.game_id_from_sink:
            values["game_id"] = self.gid
        for name, column in zip(self.names, self.held):
            column.append(values[name])

    def column(self, name: str) -> ColumnValues:
        found = self.by_name.get(name)
        if found is None:
            raise KeyError(f"table {self.table} has no column {name}")
        return found

    def values(self, name: str) -> list[Any]:
        """The column `name`'s values (a column of one value a row)."""
        found = self.column(name)
        if not isinstance(found, list):
            raise TypeError(f"column {name} of {self.table} is a list column")
        return found

    def strings(self, name: str) -> StringLists:
        """The VARCHAR[] column `name`."""
        found = self.column(name)
        if not isinstance(found, StringLists):
            raise TypeError(f"column {name} of {self.table} is not a VARCHAR[] column")
        return found

    def stacks(self, name: str) -> StackLists:
        """The stacks column `name`."""
        found = self.column(name)
        if not isinstance(found, StackLists):
            raise TypeError(f"column {name} of {self.table} is not a stacks column")
        return found


# A plugin game (interpreted) may generate writers of its own tables too
@mypyc_attr(allow_interpreted_subclasses=True)
class RowWriter:
    """Typed rows of one table, fast: a subclass per table, generated from its declaration
    (replay.rowgen), takes the columns `COLUMNS` of `TABLE` (its game's and the core's) and
    appends to them; every other column of the table (another game's) gets NULL in its rows
    (`pad`)."""

    TABLE: ClassVar[str] = ""
    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, rows: TableRows) -> None:
        self.rows = rows
        names = type(self).COLUMNS
        for name in names:
            rows.column(name)  # a KeyError now, when the writer is stale, not on a row
        self.pad_values: list[list[Any]] = []
        self.pad_strings: list[StringLists] = []
        self.pad_stacks: list[StackLists] = []
        for name, column in rows.columns():
            if name in names:
                continue
            if isinstance(column, list):
                self.pad_values.append(column)
            elif isinstance(column, StringLists):
                self.pad_strings.append(column)
            else:
                self.pad_stacks.append(column)

    def pad(self) -> None:
        """NULL in the columns this writer does not fill, for the row just added."""
        for values in self.pad_values:
            values.append(None)
        for strings in self.pad_strings:
            strings.append(None)
        for stacks in self.pad_stacks:
            stacks.append(None)


W = TypeVar("W", bound=RowWriter)


class RoundsRows:
    """The rounds table: the core's columns (`ROUND_CORE`) from the scored round, every
    other from the game's `RoundOutcome.columns` (the core's `tricks` and `end_reason`, and
    the game's own), NULL where it gives none; a name the table lacks is a KeyError."""

    def __init__(self, rows: TableRows) -> None:
        self.rows = rows
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.dealer = rows.values("dealer")
        self.leader = rows.values("leader")
        self.line = rows.values("line")
        self.outcome = {name: column for name, column in rows.columns()
                        if name not in ROUND_CORE}

    def add(self, round: int, dealer: str, leader: str | None, line: int,
            outcome: dict[str, Any]) -> None:
        known = self.outcome
        for name in outcome:
            if name not in known:
                raise KeyError(f"table rounds has no column {name}")
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.dealer.append(dealer)
        self.leader.append(leader)
        self.line.append(line)
        for name, column in known.items():
            column.append(outcome.get(name))


# --- generated by `python -m trickledger.replay.rowgen` from the declared tables: do not edit


class TricksRows(RowWriter):
    """Rows of `tricks` as the core fills them (generated)."""

    TABLE: ClassVar[str] = "tricks"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "leader", "led_color",
                                          "cards", "players", "winner", "winning_card", "length",
                                          "laps", "next_leader", "stacks", "line")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.trick = rows.values("trick")
        self.leader = rows.values("leader")
        self.led_color = rows.values("led_color")
        self.cards = rows.strings("cards")
        self.players = rows.strings("players")
        self.winner = rows.values("winner")
        self.winning_card = rows.values("winning_card")
        self.length = rows.values("length")
        self.laps = rows.values("laps")
        self.next_leader = rows.values("next_leader")
        self.stacks = rows.stacks("stacks")
        self.line = rows.values("line")

    def add(self, round: int, trick: int, leader: str, led_color: str | None, cards: Iterable[str],
            players: Iterable[str], winner: str | None, winning_card: str | None, length: int,
            laps: int, next_leader: str | None, stacks: Iterable[Stack] | None, line: int) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.leader.append(leader)
        self.led_color.append(led_color)
        self.cards.append(cards)
        self.players.append(players)
        self.winner.append(winner)
        self.winning_card.append(winning_card)
        self.length.append(length)
        self.laps.append(laps)
        self.next_leader.append(next_leader)
        self.stacks.append(stacks)
        self.line.append(line)
        self.pad()


class PlaysRows(RowWriter):
    """Rows of `plays` as the core fills them (generated)."""

    TABLE: ClassVar[str] = "plays"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "seq", "player", "card",
                                          "joker_as", "kind")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.trick = rows.values("trick")
        self.seq = rows.values("seq")
        self.player = rows.values("player")
        self.card = rows.values("card")
        self.joker_as = rows.values("joker_as")
        self.kind = rows.values("kind")

    def add(self, round: int, trick: int, seq: int, player: str, card: str, joker_as: str | None,
            kind: str) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.seq.append(seq)
        self.player.append(player)
        self.card.append(card)
        self.joker_as.append(joker_as)
        self.kind.append(kind)
        self.pad()


class TakesRows(RowWriter):
    """Rows of `takes` as the core fills them (generated)."""

    TABLE: ClassVar[str] = "takes"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "player", "role", "cards",
                                          "n_cards", "kept_cards")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.trick = rows.values("trick")
        self.player = rows.values("player")
        self.role = rows.values("role")
        self.cards = rows.strings("cards")
        self.n_cards = rows.values("n_cards")
        self.kept_cards = rows.values("kept_cards")

    def add(self, round: int, trick: int, player: str, role: str, cards: Iterable[str],
            n_cards: int, kept_cards: int) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.player.append(player)
        self.role.append(role)
        self.cards.append(cards)
        self.n_cards.append(n_cards)
        self.kept_cards.append(kept_cards)
        self.pad()


class RoundScoresRows(RowWriter):
    """Rows of `round_scores` as the core fills them (generated)."""

    TABLE: ClassVar[str] = "round_scores"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "player", "score", "running_total",
                                          "derivation")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.player = rows.values("player")
        self.score = rows.values("score")
        self.running_total = rows.values("running_total")
        self.derivation = rows.values("derivation")

    def add(self, round: int, player: str, score: int, running_total: int, derivation: str) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.player.append(player)
        self.score.append(score)
        self.running_total.append(running_total)
        self.derivation.append(derivation)
        self.pad()


class ClaimsRows(RowWriter):
    """Rows of `claims` as the core fills them (generated)."""

    TABLE: ClassVar[str] = "claims"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "line", "round", "player", "claimed",
                                          "computed", "match", "derivation")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.line = rows.values("line")
        self.round = rows.values("round")
        self.player = rows.values("player")
        self.claimed = rows.values("claimed")
        self.computed = rows.values("computed")
        self.match = rows.values("match")
        self.derivation = rows.values("derivation")

    def add(self, line: int, round: int | None, player: str, claimed: int, computed: int,
            match: bool, derivation: str) -> None:
        self.game_id.append(self.rows.gid)
        self.line.append(line)
        self.round.append(round)
        self.player.append(player)
        self.claimed.append(claimed)
        self.computed.append(computed)
        self.match.append(match)
        self.derivation.append(derivation)
        self.pad()


# --- end of the generated code


class RowSink:
    """Where projections put rows: a `TableRows` per table (from the declared `tables`, the
    games' own included), the core's writers (`sink.tricks.add(...)`), a game's generated
    writers (`sink.rows(KeepsRows).add(...)`), a table without one by keyword
    (`sink.table(name).add(...)`), `players` and the id of the game being projected, and
    `notes` one projection leaves for a later one. A loader reuses one sink for a whole batch
    (`begin` starts each log); ingest turns the tables into Arrow tables."""

    def __init__(self, tables: Mapping[str, Sequence[Column]]) -> None:
        self.game_id = ""
        self.players: tuple[str, ...] = ()
        self.notes: dict[Any, Any] = {}
        self.held: dict[str, TableRows] = {name: TableRows(name, columns, True)
                                           for name, columns in tables.items()}
        self.rounds = RoundsRows(self.held["rounds"])
        self.round_scores = RoundScoresRows(self.held["round_scores"])
        self.claims = ClaimsRows(self.held["claims"])
        self.tricks = TricksRows(self.held["tricks"])
        self.plays = PlaysRows(self.held["plays"])
        self.takes = TakesRows(self.held["takes"])
        self.writers: dict[type, RowWriter] = {}

    def begin(self, game_id: str, players: tuple[str, ...]) -> None:
        """The rows that follow are the game `game_id`'s."""
        self.game_id = game_id
        self.players = players
        self.notes = {}
        for held in self.held.values():
            held.gid = game_id

    def rows(self, writer: type[W]) -> W:
        """The sink's writer of this generated class (a game's table, or its view of a
        shared one), made on first use."""
        found = self.writers.get(writer)
        if found is None:
            held = self.held.get(writer.TABLE)
            if held is None:
                raise KeyError(f"there is no table {writer.TABLE}")
            found = self.writers[writer] = writer(held)
        return cast(W, found)

    def table(self, name: str) -> TableRows:
        """A game's own table (`GameInfo.tables`), by name, to fill by keyword."""
        held = self.held.get(name)
        if held is None:
            raise KeyError(f"there is no table {name}")
        if name in SHARED:
            raise KeyError(f"{name} is a shared table: fill it through sink.{name}, or the "
                           f"game's generated writer")
        return held

    def tables(self) -> dict[str, TableRows]:
        """Every table's rows, by name."""
        return dict(self.held)


def plays_rows(sink: RowSink, round_no: int, trick: int,
               cards: Iterable[tuple[int, Card, str | None]], kind: str = "play") -> None:
    """One `plays` row per card, in play order (`trick` is the turn for turn games)."""
    P = sink.players
    plays = sink.plays
    for seq, (s, c, joker_as) in enumerate(cards, 1):
        plays.add(round=round_no, trick=trick, seq=seq, player=P[s], card=c.name,
                  joker_as=joker_as, kind=kind)


def _project_dealt(f: RoundDealt, sink: RowSink) -> None:
    sink.notes[("leader", f.round)] = sink.players[f.leader]


def _project_scored(f: RoundScored, sink: RowSink) -> None:
    P = sink.players
    sink.rounds.add(round=f.round, dealer=P[f.dealer], leader=sink.notes.get(("leader", f.round)),
                    line=f.line, outcome=f.outcome.columns(P))
    running = sink.notes.setdefault("running", [0] * len(P))
    scores = sink.round_scores
    for s, p in enumerate(P):
        running[s] += f.scores[s]
        scores.add(round=f.round, player=p, score=f.scores[s], running_total=running[s],
                   derivation=f.derivations[s])


def _project_claim(f: ClaimChecked, sink: RowSink) -> None:
    sink.claims.add(line=f.line, round=f.round, player=sink.players[f.player],
                    claimed=f.claimed, computed=f.computed, match=f.match,
                    derivation=f.derivation)


def _project_abandoned(f: TrickAbandoned, sink: RowSink) -> None:
    plays_rows(sink, f.round, f.trick, f.cards)


CORE_PROJECT: Final[dict[type, Callable[[Any, RowSink], None]]] = {
    RoundDealt: _project_dealt, RoundScored: _project_scored, ClaimChecked: _project_claim,
    TrickAbandoned: _project_abandoned,
}


def project(info: GameInfo, facts: Iterable[Fact], sink: RowSink) -> None:
    """Every fact into rows, through its game's projection (or the core's)."""
    own = info.project
    for f in facts:
        t = type(f)
        fn = own.get(t) or CORE_PROJECT.get(t)
        if fn is None:
            raise TypeError(f"{info.name}: no projection for fact type {t.__name__}")
        fn(f, sink)

