"""Facts: what the engine derives from a log. A game's state emits them into `state.facts`
(small read-only dataclasses, named in the past tense, carrying seats and cards rather than
names); the core facts every game shares are here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .cards import Card


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

