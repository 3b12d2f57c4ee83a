"""A fifth game that lives only in the tests: one module, registered, nothing else touched.

`toy_high_card`: 2-4 players, 3 cards each from a 12-card deck (colours A and B, 1-6),
the leader plays any card, the others must follow the led colour when they can, the
highest card of the led colour wins and leads next; a trick won is a point; two rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from replay.cards import Card, CardTable, card_order
from replay.errors import RuleError
from replay.events import Event, Header
from replay.registry import GameInfo, Move, register
from replay.state import (
    Fact,
    GameState,
    RoundDealt,
    RoundOutcome,
    RowSink,
    TrickAbandoned,
    check_rounds,
    plays_rows,
)

NAME = "toy_high_card"
HAND = 3


class ToyCard(Card):
    """The toy's own card class: an interpreted game may subclass the compiled `Card`."""

    __slots__ = ()


CARDS: CardTable[ToyCard] = CardTable(
    (ToyCard(f"{c}{v}", c, v) for c in "AB" for v in range(1, 7)), NAME)


def may_play(card: Card, hand: set[Card], led: str | None) -> bool:
    """Follow the led colour when you can."""
    return led is None or card.color == led or all(c.color != led for c in hand)


@dataclass(frozen=True, slots=True)
class ToyTrickWon(Fact):
    round: int
    trick: int
    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int
    line: int


@dataclass(frozen=True, slots=True)
class ToyRound(RoundOutcome):
    tricks: int

    def summary(self, players: tuple[str, ...]) -> dict[str, int]:
        return {"tricks": self.tricks}

    def columns(self, players: tuple[str, ...]) -> dict[str, object]:
        return {"tricks": self.tricks, "end_reason": "all tricks played"}


class ToyState(GameState):
    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=2)

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.hands: list[set[Card]] = [set() for _ in range(self.n)]
        self.trick: list[tuple[int, Card]] = []
        self.turn = self.leader = 0
        self.trick_no = 0
        self.won = [0] * self.n

    def on_deal(self, ev: Event) -> None:
        hands = self.begin_deal(ev)
        seen: set[Card] = set()
        for s, name in enumerate(self.players):
            cards = [CARDS.parse(c) for c in hands[name]]
            if len(cards) != HAND or seen & set(cards) or len(set(cards)) != HAND:
                raise RuleError(f"deal: {name} must get {HAND} cards of the deck, once each")
            seen |= set(cards)
            self.hands[s] = set(cards)
        self.turn = self.leader = self.left_of(self.dealer)
        self.trick, self.trick_no, self.won = [], 0, [0] * self.n
        self.emit(RoundDealt(self.round_no, self.dealer, self.leader,
                             tuple(tuple(self.hand(s)) for s in range(self.n)), ev.line))

    def on_play(self, ev: Event) -> None:
        if not self.in_round:
            raise RuleError("no round is being played (expected a deal)")
        s = self.seat_of(ev)
        if s != self.turn:
            raise RuleError(f"{self.players[s]} plays out of turn")
        card = CARDS.from_event(ev)
        hand = self.hands[s]
        if card not in hand:
            raise RuleError(f"{self.players[s]} does not hold {card}")
        led = self.trick[0][1].color if self.trick else None
        if not may_play(card, hand, led):
            raise RuleError(f"{self.players[s]} must follow {led}")
        hand.discard(card)
        self.trick.append((s, card))
        self.turn = self.left_of(s)
        if len(self.trick) < self.n:
            return
        led_color = self.trick[0][1].color
        winner = max((c.value, p) for p, c in self.trick if c.color == led_color)[1]
        self.trick_no += 1
        self.won[winner] += 1
        self.emit(ToyTrickWon(self.round_no, self.trick_no, self.leader, tuple(self.trick),
                              winner, ev.line))
        self.trick = []
        self.turn = self.leader = winner
        if not self.hands[winner]:
            self.finish_round(list(self.won), [f"{k} tricks" for k in self.won],
                              ToyRound(self.trick_no), ev.line)

    def close(self) -> None:
        if self.in_round and self.trick:
            self.emit(TrickAbandoned(self.round_no, self.trick_no + 1,
                                     tuple((s, c, None) for s, c in self.trick)))

    def hand(self, seat: int) -> list[Card]:
        return sorted(self.hands[seat], key=card_order)

    def to_move(self) -> str | None:
        return self.players[self.turn] if self.in_round else None

    def legal_moves(self) -> list[Move]:
        if not self.in_round:
            return []
        hand = self.hands[self.turn]
        led = self.trick[0][1].color if self.trick else None
        return [{"type": "play", "player": self.players[self.turn], "card": c.name}
                for c in self.hand(self.turn) if may_play(c, hand, led)]

    def next_chance(self) -> str | None:
        return "deal" if not self.in_round and not self.over else None

    def draw_chance(self, rng: Random) -> Move:
        deck = sorted(CARDS, key=card_order)
        rng.shuffle(deck)
        return {"type": "deal", "hands": {
            p: [c.name for c in sorted(deck[i * HAND:(i + 1) * HAND], key=card_order)]
            for i, p in enumerate(self.players)}}


def _render(f: ToyTrickWon, players: tuple[str, ...]) -> list[str]:
    plays = ", ".join(f"{players[s]} {c}" for s, c in f.cards)
    return [f"Trick {f.trick} (line {f.line}): {plays}; {players[f.winner]} wins"]


def _project(f: ToyTrickWon, sink: RowSink) -> None:
    P = sink.players
    sink.add("tricks", round=f.round, trick=f.trick, leader=P[f.leader],
             led_color=f.cards[0][1].color, cards=[c.name for _, c in f.cards],
             players=[P[s] for s, _ in f.cards], winner=P[f.winner], length=len(f.cards),
             laps=1, next_leader=P[f.winner], line=f.line)
    plays_rows(sink, f.round, f.trick, [(s, c, None) for s, c in f.cards])


def _heuristic(state: ToyState, move: Move) -> float:
    return CARDS[move["card"]].value


INFO = register(GameInfo(
    name=NAME, title="Toy high card", min_players=2, max_players=4, state_class=ToyState,
    cards=CARDS, render={ToyTrickWon: _render}, project={ToyTrickWon: _project},
    heuristic=_heuristic, step_facts=(ToyTrickWon,), events=("deal", "play"), injectable=("play",),
))
