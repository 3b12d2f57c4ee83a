"""Rows: how facts become the rows of the database's tables. Each fact goes through its
game's projection (`GameInfo.project`) or the core's, which fills the tables' column
holders of a `RowSink`; ingest turns the holders into Arrow tables."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final

from mypy_extensions import mypyc_attr

from .cards import Card
from .facts import ClaimChecked, Fact, RoundDealt, RoundScored, TrickAbandoned

if TYPE_CHECKING:
    from .info import GameInfo


# ------------------------------------------------------------------- rows
# Rows are kept by column. Each shared table the games fill has a holder class with one list
# per column and an `add` that takes every column by name, none with a default: a projection
# names each column it leaves NULL, a column the table lacks or one left out is a TypeError
# (and a mypy error), and a row costs one call and one append per column, with no dict of
# keywords and no search by column name. A list column (VARCHAR[]) keeps its rows' strings
# end to end with where each row ends, the stacks column the fields of its entries likewise,
# so that the loader builds each Arrow array from flat lists (ingest.batch). A table known
# only as data (a game's own, ingest's log-level ones) gets a `KeywordRows` made from its
# declared columns. ingest checks, when it loads, that every holder has its table's declared
# columns in their order (ingest.rows).


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


Column = list[Any] | StringLists | StackLists


def column_rows(column: Column) -> int:
    return len(column) if isinstance(column, list) else column.rows()


# ingest's own tables (logs, games, ...) are holders of the interpreted ingest package
@mypyc_attr(allow_interpreted_subclasses=True)
class TableRows:
    """One table's rows, by column: a subclass per table says which columns (`columns`,
    in the table's order) and fills them (`add`). `gid` is the game id the rows of the log
    being projected get (RowSink.begin sets it)."""

    def __init__(self) -> None:
        self.gid = ""
        self.first: Column | None = None  # the first column, once asked: what `rows` counts

    def columns(self) -> list[tuple[str, Column]]:
        raise NotImplementedError

    def rows(self) -> int:
        first = self.first
        if first is None:  # columns are never replaced (truncate cuts them in place)
            first = self.first = self.columns()[0][1]
        return column_rows(first)

    def truncate(self, n: int) -> None:
        """Drop every row from the `n`th on (a log that failed half-way)."""
        for _, column in self.columns():
            if isinstance(column, list):
                del column[n:]
            else:
                column.truncate(n)

    def python(self, start: int, end: int) -> dict[str, list[Any]]:
        """Rows start..end by column name, as Python values: what a test, the golden
        snapshot and the search for a value its column cannot hold read."""
        return {name: column[start:end] if isinstance(column, list) else column.python(start, end)
                for name, column in self.columns()}


class RoundsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.dealer: list[str] = []
        self.leader: list[str | None] = []
        self.tricks: list[int | None] = []
        self.ended_early: list[bool | None] = []
        self.early_end_player: list[str | None] = []
        self.early_end_trick: list[int | None] = []
        self.trump: list[str | None] = []
        self.hand_size: list[int | None] = []
        self.turns: list[int | None] = []
        self.ender: list[str | None] = []
        self.end_reason: list[str | None] = []
        self.line: list[int] = []

    def add(self, round: int, dealer: str, leader: str | None, tricks: int | None,
            ended_early: bool | None, early_end_player: str | None, early_end_trick: int | None,
            trump: str | None, hand_size: int | None, turns: int | None, ender: str | None,
            end_reason: str | None, line: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.dealer.append(dealer)
        self.leader.append(leader)
        self.tricks.append(tricks)
        self.ended_early.append(ended_early)
        self.early_end_player.append(early_end_player)
        self.early_end_trick.append(early_end_trick)
        self.trump.append(trump)
        self.hand_size.append(hand_size)
        self.turns.append(turns)
        self.ender.append(ender)
        self.end_reason.append(end_reason)
        self.line.append(line)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("dealer", self.dealer),
                ("leader", self.leader), ("tricks", self.tricks),
                ("ended_early", self.ended_early), ("early_end_player", self.early_end_player),
                ("early_end_trick", self.early_end_trick), ("trump", self.trump),
                ("hand_size", self.hand_size), ("turns", self.turns), ("ender", self.ender),
                ("end_reason", self.end_reason), ("line", self.line)]


# the rounds columns a game's `RoundOutcome.columns` may give (the others are the core's)
OUTCOME_COLUMNS: Final = frozenset({
    "tricks", "ended_early", "early_end_player", "early_end_trick", "trump", "hand_size",
    "turns", "ender", "end_reason"})


class RoundScoresRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.player: list[str] = []
        self.score: list[int] = []
        self.running_total: list[int] = []
        self.derivation: list[str] = []

    def add(self, round: int, player: str, score: int, running_total: int,
            derivation: str) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.player.append(player)
        self.score.append(score)
        self.running_total.append(running_total)
        self.derivation.append(derivation)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("player", self.player),
                ("score", self.score), ("running_total", self.running_total),
                ("derivation", self.derivation)]


class ClaimsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.line: list[int] = []
        self.round: list[int | None] = []
        self.player: list[str] = []
        self.claimed: list[int] = []
        self.computed: list[int] = []
        self.match: list[bool] = []
        self.derivation: list[str] = []

    def add(self, line: int, round: int | None, player: str, claimed: int, computed: int,
            match: bool, derivation: str) -> None:
        self.game_id.append(self.gid)
        self.line.append(line)
        self.round.append(round)
        self.player.append(player)
        self.claimed.append(claimed)
        self.computed.append(computed)
        self.match.append(match)
        self.derivation.append(derivation)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("line", self.line), ("round", self.round),
                ("player", self.player), ("claimed", self.claimed),
                ("computed", self.computed), ("match", self.match),
                ("derivation", self.derivation)]


class TricksRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.trick: list[int] = []
        self.leader: list[str] = []
        self.led_color: list[str | None] = []
        self.cards = StringLists()
        self.players = StringLists()
        self.first_winner: list[str | None] = []
        self.first_card: list[str | None] = []
        self.second_winner: list[str | None] = []
        self.second_card: list[str | None] = []
        self.monochrome: list[bool | None] = []
        self.winner: list[str | None] = []
        self.winning_card: list[str | None] = []
        self.trump: list[str | None] = []
        self.notrump: list[bool | None] = []
        self.change: list[bool | None] = []
        self.plus5: list[int | None] = []
        self.minus5: list[int | None] = []
        self.length: list[int] = []
        self.laps: list[int] = []
        self.closed = StringLists()
        self.next_leader: list[str | None] = []
        self.stacks = StackLists()
        self.line: list[int] = []

    def add(self, round: int, trick: int, leader: str, led_color: str | None,
            cards: Iterable[str], players: Iterable[str], first_winner: str | None,
            first_card: str | None, second_winner: str | None, second_card: str | None,
            monochrome: bool | None, winner: str | None, winning_card: str | None,
            trump: str | None, notrump: bool | None, change: bool | None, plus5: int | None,
            minus5: int | None, length: int, laps: int, closed: Iterable[str] | None,
            next_leader: str | None, stacks: Iterable[Stack] | None, line: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.leader.append(leader)
        self.led_color.append(led_color)
        self.cards.append(cards)
        self.players.append(players)
        self.first_winner.append(first_winner)
        self.first_card.append(first_card)
        self.second_winner.append(second_winner)
        self.second_card.append(second_card)
        self.monochrome.append(monochrome)
        self.winner.append(winner)
        self.winning_card.append(winning_card)
        self.trump.append(trump)
        self.notrump.append(notrump)
        self.change.append(change)
        self.plus5.append(plus5)
        self.minus5.append(minus5)
        self.length.append(length)
        self.laps.append(laps)
        self.closed.append(closed)
        self.next_leader.append(next_leader)
        self.stacks.append(stacks)
        self.line.append(line)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("trick", self.trick),
                ("leader", self.leader), ("led_color", self.led_color), ("cards", self.cards),
                ("players", self.players), ("first_winner", self.first_winner),
                ("first_card", self.first_card), ("second_winner", self.second_winner),
                ("second_card", self.second_card), ("monochrome", self.monochrome),
                ("winner", self.winner), ("winning_card", self.winning_card),
                ("trump", self.trump), ("notrump", self.notrump), ("change", self.change),
                ("plus5", self.plus5), ("minus5", self.minus5), ("length", self.length),
                ("laps", self.laps), ("closed", self.closed),
                ("next_leader", self.next_leader), ("stacks", self.stacks),
                ("line", self.line)]


class PlaysRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.trick: list[int] = []
        self.seq: list[int] = []
        self.player: list[str] = []
        self.card: list[str] = []
        self.joker_as: list[str | None] = []
        self.kind: list[str] = []

    def add(self, round: int, trick: int, seq: int, player: str, card: str,
            joker_as: str | None, kind: str) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.seq.append(seq)
        self.player.append(player)
        self.card.append(card)
        self.joker_as.append(joker_as)
        self.kind.append(kind)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("trick", self.trick),
                ("seq", self.seq), ("player", self.player), ("card", self.card),
                ("joker_as", self.joker_as), ("kind", self.kind)]


class TakesRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.trick: list[int] = []
        self.player: list[str] = []
        self.role: list[str] = []
        self.cards = StringLists()
        self.n_cards: list[int] = []
        self.kept_cards: list[int] = []

    def add(self, round: int, trick: int, player: str, role: str, cards: Iterable[str],
            n_cards: int, kept_cards: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.player.append(player)
        self.role.append(role)
        self.cards.append(cards)
        self.n_cards.append(n_cards)
        self.kept_cards.append(kept_cards)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("trick", self.trick),
                ("player", self.player), ("role", self.role), ("cards", self.cards),
                ("n_cards", self.n_cards), ("kept_cards", self.kept_cards)]


class KeepsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.trick: list[int] = []
        self.player: list[str] = []
        self.colors = StringLists()
        self.discarded: list[int] = []
        self.line: list[int] = []

    def add(self, round: int, trick: int, player: str, colors: Iterable[str], discarded: int,
            line: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.player.append(player)
        self.colors.append(colors)
        self.discarded.append(discarded)
        self.line.append(line)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("trick", self.trick),
                ("player", self.player), ("colors", self.colors),
                ("discarded", self.discarded), ("line", self.line)]


class TrumpsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.trick: list[int] = []
        self.seq: list[int] = []
        self.card: list[str] = []
        self.reason: list[str] = []
        self.trump: list[str | None] = []
        self.line: list[int] = []

    def add(self, round: int, trick: int, seq: int, card: str, reason: str, trump: str | None,
            line: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.seq.append(seq)
        self.card.append(card)
        self.reason.append(reason)
        self.trump.append(trump)
        self.line.append(line)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("trick", self.trick),
                ("seq", self.seq), ("card", self.card), ("reason", self.reason),
                ("trump", self.trump), ("line", self.line)]


class BidsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.player: list[str] = []
        self.hand_size: list[int] = []
        self.bid: list[int] = []
        self.won: list[int] = []
        self.bid_error: list[int] = []
        self.exact: list[bool] = []
        self.plus5: list[int] = []
        self.minus5: list[int] = []
        self.trumps_held: list[int] = []
        self.jokers_held: list[int] = []
        self.marching: list[bool] = []
        self.score: list[int] = []

    def add(self, round: int, player: str, hand_size: int, bid: int, won: int, bid_error: int,
            exact: bool, plus5: int, minus5: int, trumps_held: int, jokers_held: int,
            marching: bool, score: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.player.append(player)
        self.hand_size.append(hand_size)
        self.bid.append(bid)
        self.won.append(won)
        self.bid_error.append(bid_error)
        self.exact.append(exact)
        self.plus5.append(plus5)
        self.minus5.append(minus5)
        self.trumps_held.append(trumps_held)
        self.jokers_held.append(jokers_held)
        self.marching.append(marching)
        self.score.append(score)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("player", self.player),
                ("hand_size", self.hand_size), ("bid", self.bid), ("won", self.won),
                ("bid_error", self.bid_error), ("exact", self.exact), ("plus5", self.plus5),
                ("minus5", self.minus5), ("trumps_held", self.trumps_held),
                ("jokers_held", self.jokers_held), ("marching", self.marching),
                ("score", self.score)]


class TurnsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.round: list[int] = []
        self.seq: list[int] = []
        self.turn: list[int] = []
        self.player: list[str] = []
        self.kind: list[str] = []
        self.cards = StringLists()
        self.stacks = StackLists()
        self.ended: list[bool] = []
        self.line: list[int] = []

    def add(self, round: int, seq: int, turn: int, player: str, kind: str,
            cards: Iterable[str], stacks: Iterable[Stack], ended: bool, line: int) -> None:
        self.game_id.append(self.gid)
        self.round.append(round)
        self.seq.append(seq)
        self.turn.append(turn)
        self.player.append(player)
        self.kind.append(kind)
        self.cards.append(cards)
        self.stacks.append(stacks)
        self.ended.append(ended)
        self.line.append(line)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("round", self.round), ("seq", self.seq),
                ("turn", self.turn), ("player", self.player), ("kind", self.kind),
                ("cards", self.cards), ("stacks", self.stacks), ("ended", self.ended),
                ("line", self.line)]


class KeywordRows(TableRows):
    """A table whose holder is made from its declared columns (`names`): a game's own
    table (`GameInfo.tables`, game_id from the sink) or one of ingest's log-level tables
    (a row or two a log). `add` takes every column by name, checked on each row."""

    def __init__(self, table: str, names: tuple[str, ...], game_id_from_sink: bool) -> None:
        super().__init__()
        self.table = table
        self.names = names
        self.values: list[list[Any]] = [[] for _ in names]
        self.game_id_from_sink = game_id_from_sink
        self.needs = frozenset(names) - {"game_id"} if game_id_from_sink else frozenset(names)

    def add(self, **values: Any) -> None:
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
        for name, column in zip(self.names, self.values):
            column.append(values[name])

    def columns(self) -> list[tuple[str, Column]]:
        return list(zip(self.names, self.values))


class RowSink:
    """Where projections put rows: a holder per table (`sink.tricks.add(...)`, a game's own
    table through `sink.table(name)`), `players` and the id of the game being projected,
    and `notes` one projection leaves for a later one. A loader reuses one sink for a whole
    batch (`begin` starts each log); ingest turns the holders into Arrow tables."""

    def __init__(self, declared: Mapping[str, tuple[str, ...]]) -> None:
        self.game_id = ""
        self.players: tuple[str, ...] = ()
        self.notes: dict[Any, Any] = {}
        self.declared = declared  # every table's columns: a game's own tables are made from it
        self.rounds = RoundsRows()
        self.round_scores = RoundScoresRows()
        self.claims = ClaimsRows()
        self.tricks = TricksRows()
        self.plays = PlaysRows()
        self.takes = TakesRows()
        self.keeps = KeepsRows()
        self.trumps = TrumpsRows()
        self.bids = BidsRows()
        self.turns = TurnsRows()
        self.shared: dict[str, TableRows] = {
            "rounds": self.rounds, "tricks": self.tricks, "plays": self.plays,
            "takes": self.takes, "keeps": self.keeps, "trumps": self.trumps, "bids": self.bids,
            "turns": self.turns, "round_scores": self.round_scores, "claims": self.claims}
        self.own: dict[str, KeywordRows] = {}

    def begin(self, game_id: str, players: tuple[str, ...]) -> None:
        """The rows that follow are the game `game_id`'s."""
        self.game_id = game_id
        self.players = players
        self.notes = {}
        for holder in self.shared.values():
            holder.gid = game_id
        for own in self.own.values():
            own.gid = game_id

    def table(self, name: str) -> KeywordRows:
        """A game's own table (`GameInfo.tables`), by name."""
        own = self.own.get(name)
        if own is None:
            if name in self.shared:
                raise KeyError(f"{name} is a shared table: fill it through sink.{name}.add")
            if name not in self.declared:
                raise KeyError(f"there is no table {name}")
            own = self.own[name] = KeywordRows(name, self.declared[name], True)
            own.gid = self.game_id
        return own

    def tables(self) -> dict[str, TableRows]:
        """Every table's holder, by name."""
        out: dict[str, TableRows] = dict(self.shared)
        out.update(self.own)
        return out


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
    own = f.outcome.columns(P)
    for name in own:
        if name not in OUTCOME_COLUMNS:
            raise KeyError(f"table rounds has no column {name}")
    sink.rounds.add(round=f.round, dealer=P[f.dealer], leader=sink.notes.get(("leader", f.round)),
                    tricks=own.get("tricks"), ended_early=own.get("ended_early"),
                    early_end_player=own.get("early_end_player"),
                    early_end_trick=own.get("early_end_trick"), trump=own.get("trump"),
                    hand_size=own.get("hand_size"), turns=own.get("turns"),
                    ender=own.get("ender"), end_reason=own.get("end_reason"), line=f.line)
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

