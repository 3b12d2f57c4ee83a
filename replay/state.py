"""The game contract and the engine's shared machinery. It knows no game.

A game module subclasses `GameState`, declares its metadata and parts as a `GameInfo`
and registers it (`replay.registry`). The state is folded from events by
`GameState.apply` and emits derived facts (small read-only dataclasses, named in the past
tense, carrying seats and cards rather than names) into `state.facts`. Claims, round
bookkeeping, rendering and the projection of facts into rows are shared here so that
every game reports them the same way; `replay.engine` runs a log through it.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .cards import Card, CardTable
from .errors import FormatError, RuleError
from .events import EVENT_TYPES, SHEET_EVENT, Event, Header, field_of, int_dict, kind

Move = dict[str, Any]
Renderer = Callable[[Any, tuple[str, ...]], list[str]]
Projection = Callable[[Any, "RowSink"], None]
Heuristic = Callable[[Any, Move], float]


@dataclass(frozen=True)
class GameInfo:
    """A game's metadata and the parts that the generic layers need, declared as data.

    - `render`: for each of the game's fact types, the lines `trickledger replay` prints
      (a game may also render the core `RoundDealt` its own way);
    - `project`: for each of the game's fact types, how it becomes rows of the database
      tables (by column name);
    - `heuristic`: the greedy bot's score of a legal move (higher is better);
    - `cards`: every card name of the game (the conformance test tries them all);
    - `step`: what the viewer steps through ("trick" or "turn"), `step_facts`: the fact
      types that close one, and `step_label`: how one is named from its closing fact
      (default "Trick 3"), the same in `replay` and the viewer;
    - `sheet_state`: the state a score sheet of the game is folded through (a
      `replay.sheet.SheetState` declared in the game's module), or None when the game has
      no score sheet;
    - `events`: the event types of the game's move logs beside the shared `claim` (each
      handled by the state's `on_<type>`: `register` refuses a handler for a type not
      declared and a type declared without a handler), and `exact_numbers` those of them
      whose integers count (read exactly even beyond 64 bits, as claims are);
    - `injectable`: the move types `simulate --illegal` may change (player or card) to
      break a rule;
    - `tables`: the game's own database tables, by name, as (column, SQL type) pairs; the
      schema creates them beside the shared ones (ingest.schema);
    - `deck`: every card of the game with its number of copies, and `trick_winner`: the
      seat that won the trick a fact closes, or None for any other fact (the hand
      estimates of bidding games, ingest.hands, need both);
    - `deferrable`: by variant, the move type that variant lets wait until after the
      round's last trick (rage's `secret_bid` lets the `bid`s come then): a simulated game
      of that variant writes them there half of the time (`replay.simulate`);
    - `seen_after_deal`: the chance event types that may follow a deal and show their
      `card` to every player before anyone moves (rage's turned `trump`): ingest.hands
      counts those cards as seen;
    - `native`: how the native analysis engine (replay/native) plays the rest of one of the
      game's rounds (a `NativeCodec`), or None: a game it does not know is judged in Python.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    state_class: type[GameState]
    cards: CardTable[Any]
    render: Mapping[type, Renderer]
    project: Mapping[type, Projection]
    heuristic: Heuristic
    variants: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    needs_suits: bool = False
    lowest_wins: bool = False
    step: str = "trick"
    step_facts: tuple[type, ...] = ()
    step_label: Callable[[Any], str] | None = None
    aliases: tuple[str, ...] = field(default=())
    # a replay.sheet.SheetState (register checks it; replay.sheet.sheet_class reads it as one)
    sheet_state: type[GameState] | None = None
    events: tuple[str, ...] = ()
    exact_numbers: tuple[str, ...] = ()
    injectable: tuple[str, ...] = ()
    tables: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    deck: Mapping[Card, int] | None = None
    trick_winner: Callable[[Any], int | None] | None = None
    deferrable: Mapping[str, str] = field(default_factory=dict)
    seen_after_deal: tuple[str, ...] = ()
    native: NativeCodec | None = None


@dataclass(frozen=True)
class NativeCodec:
    """What the native analysis engine needs of a game, declared in the game's module: which
    of the engine's rule sets plays it (`rules`, one of `replay.native.rules()`), and three
    translations between the Python state and the engine's position, all for a state in the
    middle of a round:

    - `position(state)`: the numbers the engine's position of that game is made from (the
      layout is the engine's, written down beside the encoder);
    - `move_code(state, move)`: a legal move (an event of the log) as the engine's move code;
    - `move_of(state, code)`: a move code back as the event.
    """

    rules: str
    position: Callable[[Any], list[int]]
    move_code: Callable[[Any, Move], int]
    move_of: Callable[[Any, int], Move]



# ------------------------------------------------------------------- facts


@mypyc_attr(allow_interpreted_subclasses=True)
class Fact:
    """Base of every derived fact. Facts are read-only dataclasses (slots, `Final` fields,
    an explicit `__init__`, so that a compiled engine builds them natively; past tense) that
    carry seats (0-based, clockwise) and `Card`s; names are looked up when a fact is
    rendered, projected into rows or turned into a verdict."""

    __slots__ = ()

    # a fact is an immutable value: a copy of a game state shares its facts
    def __copy__(self) -> Fact:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Fact:
        return self


@mypyc_attr(allow_interpreted_subclasses=True)
class RoundOutcome:
    """What a game says about a finished round beyond its scores (a frozen dataclass per
    game): `summary` gives the verdict's keys, `columns` the `rounds` table's columns."""

    __slots__ = ()

    def __copy__(self) -> RoundOutcome:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> RoundOutcome:
        return self

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {}


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RoundDealt(Fact):
    """A round was dealt: who dealt, who leads (or starts), every hand in deck order."""

    round: Final[int]
    dealer: Final[int]
    leader: Final[int]
    hands: Final[tuple[tuple[Card, ...], ...]]  # by seat
    line: Final[int]

    def __init__(self, round: int, dealer: int, leader: int, hands: tuple[tuple[Card, ...], ...],
                 line: int) -> None:
        self.round = round
        self.dealer = dealer
        self.leader = leader
        self.hands = hands
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RoundScored(Fact):
    """A round finished and was scored: per-seat scores with their derivations."""

    round: Final[int]
    dealer: Final[int]
    scores: Final[tuple[int, ...]]
    derivations: Final[tuple[str, ...]]
    outcome: Final[RoundOutcome]
    line: Final[int]

    def __init__(self, round: int, dealer: int, scores: tuple[int, ...],
                 derivations: tuple[str, ...], outcome: RoundOutcome, line: int) -> None:
        self.round = round
        self.dealer = dealer
        self.scores = scores
        self.derivations = derivations
        self.outcome = outcome
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class ClaimChecked(Fact):
    """One claimed score of a `claim` line, checked against the computed one."""

    round: Final[int | None]  # None: a totals claim
    player: Final[int]
    claimed: Final[int]
    computed: Final[int]
    match: Final[bool]
    derivation: Final[str]
    line: Final[int]

    def __init__(self, round: int | None, player: int, claimed: int, computed: int, match: bool,
                 derivation: str, line: int) -> None:
        self.round = round
        self.player = player
        self.claimed = claimed
        self.computed = computed
        self.match = match
        self.derivation = derivation
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class TrickAbandoned(Fact):
    """The log ended, or broke, with a trick unfinished: its cards were played all the same."""

    round: Final[int]
    trick: Final[int]
    cards: Final[tuple[tuple[int, Card, str | None], ...]]  # (seat, card, a Joker's colour)

    def __init__(self, round: int, trick: int, cards: tuple[tuple[int, Card, str | None], ...]) -> None:
        self.round = round
        self.trick = trick
        self.cards = cards


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


# ------------------------------------------------------------------- state


# Compiled with mypyc, the contract's classes are native classes: a game defined outside
# the compiled engine (a new module, the tests' toy game) subclasses them interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class GameState(ABC):
    """The state of one game, folded from events by `apply`.

    A game implements `on_<type>` for each event type it takes (the dispatch table is
    built from those names; a compiled game also switches to them in `handle`), the
    uniform API below, and calls `finish_round` when a
    round is scored. Handlers raise `FormatError` for a malformed field and `RuleError`
    for a broken rule; each legality rule is one predicate that both the handler and
    `legal_moves` use.

    The engine may be compiled with mypyc (docs/games.md, "The compiled engine"): a
    handler must not keep the `Event` it is given, which the engine reuses for every line
    of a log (keep `ev.line` or values read from `ev.data`); a game module outside
    `replay/games/` runs interpreted, and may subclass `GameState`, `Fact`,
    `RoundOutcome`, `Card` and `SheetState`, which allow it, but no other class of the
    engine.
    """

    info: ClassVar[GameInfo]
    # built from the on_<type> methods when the game registers (see `handler_table`)
    handlers: ClassVar[dict[str, Callable[[Any, Event], None]]] = {}
    is_sheet: ClassVar[bool] = False  # a score sheet's state (replay.sheet) says True

    def __init__(self, header: Header) -> None:
        self.header = header
        self.players = header.players
        self.n = len(header.players)
        self.seat = {p: i for i, p in enumerate(header.players)}
        self.rounds_total = header.rounds
        self.round_no = 0
        self.dealer = self.seat[header.dealer]  # dealer of the current (or first) round
        self.rounds: list[RoundScored] = []
        self.totals = [0] * self.n
        self.claims: list[ClaimChecked] = []
        self.facts: list[Fact] = []
        self.over = False
        self.in_round = False
        self.dispatch = type(self).handlers  # read once per event: an attribute, not a lookup

    # -- what every game declares
    @classmethod
    @abstractmethod
    def check_header(cls, header: Header) -> int:
        """Validate the game's own header keys; return the number of rounds (ValueError)."""

    @classmethod
    def random_setup(cls, rng: Random, players: int) -> dict[str, Any]:
        """Header keys a simulated game of this many players needs beyond the generic ones."""
        return {}

    @abstractmethod
    def hand(self, seat: int) -> list[Card]:
        """The cards a player holds now, in deck order."""

    @abstractmethod
    def to_move(self) -> str | None:
        """The player whose decision comes next (None while a chance event is due or the
        game is over). Others may have legal moves too (hidden bids, a second keep)."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every move event (any player's) that `apply` accepts now; [] when a chance
        event is due or the game is over. Claims are not moves."""

    def choices(self) -> list[Move]:
        """The moves the player to move chooses among when the table is simulated: by
        default their legal moves (a game may keep to a canonical order, such as bids
        before plays)."""
        who = self.to_move()
        return [m for m in self.legal_moves() if m.get("player") == who]

    @abstractmethod
    def next_chance(self) -> str | None:
        """The chance event due next ('deal', or a game's own such as rage's 'trump'), or
        None when a player moves next or the game is over."""

    @abstractmethod
    def draw_chance(self, rng: Random) -> Move:
        """The chance event due now, drawn from `rng` (a shuffled deal, a turned card)."""

    def close(self) -> None:
        """The log ended here (complete, incomplete or at an illegal line): emit facts for
        what is still open, such as the cards of an unfinished trick."""
        return None  # a game without tricks leaves nothing open

    def check_claim_now(self) -> None:
        """Raise RuleError when a claim cannot come now (e.g. a keep is owed)."""
        return None  # by default a claim may come between any two events

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        """A copy to try moves on (the conformance test, a bot's look-ahead): a fresh state
        of the same game with a deep copy of every attribute; cards, facts and the header
        are immutable and shared. (A compiled state has no __dict__, and its __new__ needs
        the header, so the default copy does not work for it.)"""
        new = type(self)(self.header)
        memo[id(self)] = new
        for name, value in self._attributes().items():
            setattr(new, name, copy.deepcopy(value, memo))
        return new

    # -- branching: a cheap copy to try moves on (playouts, the judge, the search)
    def clone(self) -> GameState:
        """A copy that can diverge from this state: the core's mutable containers are
        copied one level (their items, facts and scored rounds, are immutable and shared),
        then `clone_into` copies the game's own. Far cheaper than `copy.deepcopy`, which
        walks every card and fact."""
        new = type(self)(self.header)
        new.round_no = self.round_no
        new.dealer = self.dealer
        new.rounds = self.rounds.copy()
        new.totals = self.totals.copy()
        new.claims = self.claims.copy()
        new.facts = self.facts.copy()
        new.over = self.over
        new.in_round = self.in_round
        self.clone_into(new)
        return new

    def clone_into(self, new: Any) -> None:
        """Copy the game's own attributes into `new` (a fresh state of the same game, the
        core's attributes already copied). A game overrides this with a hand-written copy;
        this default copies every container it finds, nested lists, sets and dicts
        included, and shares everything else (cards and facts are immutable)."""
        core = _CORE_ATTRIBUTES
        for name, value in self._attributes().items():
            if name not in core:
                setattr(new, name, _copy_containers(value))

    def _attributes(self) -> dict[str, Any]:
        names: tuple[str, ...] | None = getattr(type(self), "__mypyc_attrs__", None)
        if names is None:  # interpreted
            return dict(vars(self))
        out = {n: getattr(self, n) for n in names if n != "__dict__" and hasattr(self, n)}
        out.update(getattr(self, "__dict__", {}))  # an interpreted subclass's own attributes
        return out

    # -- the uniform API
    def apply(self, ev: Event) -> None:
        d = ev.data
        # A move log's lines rarely carry 't' or 'note' and the game is over only at its
        # end: the checks, in their order (the type first), run only when one may fail.
        if self.over or "t" in d or "note" in d:
            if ev.type not in self.dispatch:
                raise self.not_handled(ev)
            if "t" in d and type(d["t"]) is not str:
                raise FormatError(f"'t' must be a timestamp string, got {kind(d['t'])}")
            if "note" in d and type(d["note"]) is not str:
                raise FormatError(f"'note' must be a string, got {kind(d['note'])}")
            if self.over and ev.type != "claim":
                played = ("its only round was played" if self.rounds_total == 1 else
                          f"all {self.rounds_total} rounds were played")
                raise RuleError(f"the game is over ({played}): "
                                f"no '{ev.type}' may follow")
        self.handle(ev)

    def handle(self, ev: Event) -> None:
        """Call the `on_<type>` handler of `ev` (its type known or not: `apply` has checked
        the rest). This one looks the handler up in the dispatch table, a call through
        Python's generic path; a compiled game overrides it with a switch on the type that
        calls its handlers natively, falling back to this one for any other type (a claim,
        an unknown type). docs/games.md, "The compiled engine", says how."""
        fn = self.dispatch.get(ev.type)
        if fn is None:
            raise self.not_handled(ev)
        fn(self, ev)

    def not_handled(self, ev: Event) -> Exception:
        """The error for an event this log cannot take: an unknown type, a type the game does
        not use, or a score sheet's line in a move log."""
        if ev.type == SHEET_EVENT:
            if self.info.sheet_state is None:
                return RuleError(f"{self.info.name} has no score sheet: its games are "
                                 f"checked from their moves only")
            return RuleError("a 'sheet' line cannot stand in a move log: this log's first "
                             "event is a move, and a log is either a move log or a score "
                             "sheet, never both")
        if ev.type in EVENT_TYPES:
            return FormatError(f"'{ev.type}' events are not part of {self.info.name}")
        return FormatError(f"unknown event type {ev.type!r}")

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> dict[str, int]:
        return dict(zip(self.players, self.totals))

    # -- helpers for games
    def emit(self, fact: Fact) -> None:
        self.facts.append(fact)

    def seat_of(self, ev: Event) -> int:
        """The seat of `ev`'s player when valid, else `player()` says what is wrong. The few
        names are compared in turn: the line's name is a fresh string, which a lookup in
        `self.seat` would first have to hash."""
        name: Any = ev.data.get("player")
        if type(name) is str:
            wanted: str = name
            players = self.players
            for s in range(self.n):
                if players[s] == wanted:
                    return s
        return self.player(ev)

    def player(self, ev: Event, key: str = "player") -> int:
        name = field_of(ev, key, str, "a player's name")
        s = self.seat.get(name)
        if s is None:
            raise RuleError(f"{ev.type} event names {name!r}, who is not a player "
                            f"({', '.join(self.players)})")
        return s

    def left_of(self, s: int) -> int:
        return (s + 1) % self.n

    def card_played(self, ev: Event, turn: int, cards: CardTable[Any], hands: Sequence[Any],
                    trick_words: str, trick: int) -> tuple[int, Card]:
        """The seat and card of a `play` to a trick: it is the player's turn (`turn`; the
        message says "it is Ann's turn {trick_words} {trick}") and they hold the card
        (`hands[seat]` holds it)."""
        s = self.seat_of(ev)
        name = self.players[s]
        if s != turn:
            raise RuleError(f"{name} plays out of turn: it is {self.players[turn]}'s turn "
                            f"{trick_words} {trick}")
        card: Card = cards.from_event(ev)
        if card not in hands[s]:
            raise RuleError(f"{name} cannot play {card}: it is not in {name}'s hand")
        return s, card

    def why_no_deal(self) -> str | None:
        """Why a deal cannot come now (the round is not finished), or None when it may. A game
        may say more (which trick is being played, whose bid is missing)."""
        if self.in_round:
            return f"a deal came before round {self.round_no} was finished"
        return None

    def begin_deal(self, ev: Event) -> dict[str, list[str]]:
        """Common checks of a `deal`: that one may come now (`why_no_deal`), round number,
        dealer, hands keyed by every player."""
        why = self.why_no_deal()
        if why is not None:
            raise RuleError(why)
        self.round_no += 1
        if self.round_no > 1:
            self.dealer = self.left_of(self.dealer)
        if "dealer" in ev.data:
            d = self.player(ev, "dealer")
            if d != self.dealer:
                raise RuleError(f"round {self.round_no} is dealt by {self.players[self.dealer]} "
                                f"(the dealer moves one seat left each round), "
                                f"not {self.players[d]}")
        hands: dict[str, Any] = field_of(ev, "hands", dict, "an object {player: [cards]}")
        for name in hands:
            if name not in self.seat:
                raise RuleError(f"deal gives a hand to {name!r}, who is not a player")
        for name in self.players:
            if name not in hands:
                raise RuleError(f"deal has no hand for {name}")
            if type(hands[name]) is not list:
                raise FormatError(f"deal: {name}'s hand must be a list of cards, "
                                  f"got {kind(hands[name])}")
            for c in hands[name]:
                if type(c) is not str:
                    raise FormatError(f"deal: {name}'s hand holds {kind(c)}, expected card names")
        self.in_round = True
        return hands

    def named_leader(self, ev: Event) -> int | None:
        """The seat a deal names as `leader`, or None when it names none."""
        if "leader" not in ev.data:
            return None
        return self.player(ev, "leader")

    def finish_round(self, scores: list[int], derivations: list[str], outcome: RoundOutcome,
                     line: int) -> None:
        fact = RoundScored(self.round_no, self.dealer, tuple(scores), tuple(derivations),
                           outcome, line)
        self.rounds.append(fact)
        self.facts.append(fact)
        totals = self.totals
        for s, v in enumerate(scores):
            totals[s] += v
        self.in_round = False
        if self.round_no >= self.rounds_total:
            self.over = True

    def on_claim(self, ev: Event) -> None:
        self.check_claim_now()
        d = ev.data
        round_no: int | None
        if "round" in d:
            if "totals" in d:
                raise RuleError("a claim has either 'round' with 'scores' or 'totals', not both")
            r: int = field_of(ev, "round", int, "a round number")
            claimed = int_dict(ev, "scores", "an object {player: score}")
            if not 1 <= r <= len(self.rounds):
                if 1 <= r <= self.rounds_total:
                    raise RuleError(f"claim for round {r}, which has not finished "
                                    f"({len(self.rounds)} finished so far)")
                has = ("round 1 only" if self.rounds_total == 1 else
                       f"rounds 1-{self.rounds_total}")
                raise RuleError(f"claim for round {r}: the game has {has}")
            rs = self.rounds[r - 1]
            computed, derivs = rs.scores, rs.derivations
            round_no = r
        elif "totals" in d:
            claimed = int_dict(ev, "totals", "an object {player: total}")
            computed = tuple(self.totals)
            derivs = tuple(totals_derivation(self.rounds, s) for s in range(self.n))
            round_no = None
        else:
            raise FormatError("claim event needs 'round' and 'scores', or 'totals'")
        for name in claimed:
            if name not in self.seat:
                raise RuleError(f"claim names {name!r}, who is not a player")
        for name, v in claimed.items():
            s = self.seat[name]
            c = computed[s]
            fact = ClaimChecked(round_no, s, v, c, v == c, derivs[s], ev.line)
            self.claims.append(fact)
            self.facts.append(fact)


_CORE_ATTRIBUTES: Final = frozenset({
    "header", "players", "n", "seat", "rounds_total", "round_no", "dealer", "rounds",
    "totals", "claims", "facts", "over", "in_round", "dispatch"})


def _copy_containers(value: Any) -> Any:
    """`value` with every list, set, dict and tuple in it copied, and every other object
    shared: the default `clone_into`'s copy."""
    t = type(value)
    if t is list:
        return [_copy_containers(v) for v in value]
    if t is dict:
        return {k: _copy_containers(v) for k, v in value.items()}
    if t is set:
        return set(value)
    if t is tuple:
        return tuple(_copy_containers(v) for v in value)
    return value


def handler_table(cls: type[GameState], types: Iterable[str]
                  ) -> dict[str, Callable[[Any, Event], None]]:
    """A state's dispatch table: each of its event `types` -> its `on_<type>` method (built
    when the game registers, which checks that the two agree, rather than in
    `__init_subclass__`, which mypyc does not combine with copying a native state)."""
    return {t: getattr(cls, f"on_{t}") for t in types}


def handled_types(cls: type[GameState]) -> set[str]:
    """The event types a state class has an `on_<type>` method for."""
    return {name[3:] for name in dir(cls)
            if name.startswith("on_") and callable(getattr(cls, name, None))}


def totals_derivation(rounds: Iterable[RoundScored], seat: int) -> str:
    parts = [r.scores[seat] for r in rounds]
    if not parts:
        return "no round finished -> 0"
    return " + ".join(str(x) for x in parts) + f" = {sum(parts)}"


def check_rounds(header: Header, default: int, maximum: int | None = None) -> int:
    r = header.raw.get("rounds", default)
    if type(r) is not int or r < 1:
        raise ValueError(f"'rounds' must be a positive integer, got {r!r}")
    if maximum is not None and r > maximum:
        raise ValueError(f"'rounds' may be at most {maximum} for {header.game}, got {r}")
    return r


@mypyc_attr(allow_interpreted_subclasses=True)
class FoldWatcher:
    """Told of every event the engine's fold (`replay.engine.replay_log`) applies, just
    before and just after `GameState.apply`: a reader of the state between moves (the step
    viewer, `replay.timeline`) watches the one fold instead of running its own. An event
    that breaks a rule gets `before` and no `after`."""

    def before(self, state: GameState, ev: Event) -> None:
        return None

    def after(self, state: GameState, ev: Event) -> None:
        return None


# --------------------------------------------------------------- rendering


def claim_text(c: ClaimChecked, players: tuple[str, ...]) -> str:
    what = f"round {c.round}" if c.round is not None else "totals"
    who = players[c.player]
    if c.match:
        return f"   claim (line {c.line}): {who} {what} {c.claimed} - matches"
    return (f"   claim (line {c.line}): {who} {what}: {c.derivation}, "
            f"sheet says {c.claimed}  ** MISMATCH **")


def hands_lines(f: RoundDealt, players: tuple[str, ...]) -> list[str]:
    return [f"   {p:<10} {' '.join(c.name for c in hand)}" for p, hand in zip(players, f.hands)]


def deal_lines(f: RoundDealt, players: tuple[str, ...], verb: str = "leads") -> list[str]:
    """The usual rendering of a deal: who deals and who leads, then every hand."""
    return [f"== Round {f.round}: {players[f.dealer]} deals, {players[f.leader]} {verb}",
            *hands_lines(f, players)]


def _render_scored(f: RoundScored, players: tuple[str, ...]) -> list[str]:
    return [f"   {p:<10} {d}" for p, d in zip(players, f.derivations)]


def _render_claim(f: ClaimChecked, players: tuple[str, ...]) -> list[str]:
    return [claim_text(f, players)]


def _render_nothing(f: Fact, players: tuple[str, ...]) -> list[str]:
    return []


CORE_RENDER: Final[dict[type, Callable[[Any, tuple[str, ...]], list[str]]]] = {
    RoundDealt: deal_lines, RoundScored: _render_scored, ClaimChecked: _render_claim,
    TrickAbandoned: _render_nothing,
}


def render(info: GameInfo, facts: Iterable[Fact], players: tuple[str, ...]) -> list[str]:
    """The replay as a person reads it: every fact through its game's renderer (a game may
    render a core fact its own way)."""
    out: list[str] = []
    own = info.render
    for f in facts:
        t = type(f)
        fn = own.get(t) or CORE_RENDER[t]
        out.extend(fn(f, players))
    return out


