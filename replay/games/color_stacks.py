"""`color_stacks` — shared colour stacks, the sixth-card end (RULES.md section 3).

Each turn a player puts two cards on the shared stacks; the turn that brings
any stack to six or more ends the game. Cards left in a hand are worth their
stack's size while it is under six; the player who ended the game gets +2.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from random import Random
from typing import Any, Final

from ..cards import Card, CardTable, card_order
from ..errors import FormatError, RuleError
from ..events import Event, Header, optional_str_list, str_list
from ..registry import GameInfo, Move, register
from ..state import (
    Fact,
    GameState,
    RoundDealt,
    RoundOutcome,
    RowSink,
    check_rounds,
    deal_lines,
    plays_rows,
)

# Module constants are Final: compiled, they are read as C statics, not looked up by name.
SUIT_LETTERS: Final = "ROYGBPKW"
SUITS_FOR: Final = {2: 4, 3: 4, 4: 5}
HAND_SIZE: Final = {2: 12, 3: 12, 4: 11}
END_AT: Final = 6
ENDER_BONUS: Final = 2

CARDS: Final[CardTable[Card]] = CardTable((Card(f"{s}{v}", s, v) for s in SUIT_LETTERS
                                    for v in range(1, 10)), "color_stacks")
_DECKS: Final[dict[tuple[str, ...], frozenset[Card]]] = {}


def deck_of(suits: tuple[str, ...]) -> frozenset[Card]:
    """The cards of a game played with `suits` (1-9 of each), built once per process."""
    deck = _DECKS.get(suits)
    if deck is None:
        deck = _DECKS[suits] = frozenset(CARDS[f"{s}{v}"] for s in suits for v in range(1, 10))
    return deck


# ------------------------------------------------------------------- rules


def ends_game(stacks: dict[str, int], cards: list[Card]) -> bool:
    """The turn that brings a stack to six or more ends the game."""
    return any(stacks[c.color] >= END_AT for c in cards)


def draw_due(players: int, turns: int, pile: list[Card]) -> bool:
    """Two players: after every pair of turns the top two pile cards go onto the stacks."""
    return players == 2 and turns % 2 == 0 and bool(pile)


def hand_value(hand: list[Card], stacks: dict[str, int], suits: tuple[str, ...],
               ender: bool) -> tuple[int, tuple[tuple[str, int, int, int], ...], str]:
    """A hand's score, its breakdown by suit, and the derivation text."""
    held = {s: 0 for s in suits}
    for c in hand:
        held[c.color] += 1
    parts = []
    breakdown = []
    total = 0
    for s in suits:
        k = held[s]
        if not k:
            continue
        size = stacks[s]
        pts = k * size if size < END_AT else 0
        total += pts
        breakdown.append((s, k, size, pts))
        parts.append(f"{s}: {k} in hand × stack {size} = {pts}")
    text = ", ".join(parts) if parts else "no cards left"
    if ender:
        total += ENDER_BONUS
        text += f", ender +{ENDER_BONUS}"
    return total, tuple(breakdown), f"{text} -> {total}"


# ------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class PileSet(Fact):
    """What the deal put outside the hands: the two-player pile (top first), the card aside."""

    round: int
    pile: tuple[Card, ...]
    aside: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class TurnTaken(Fact):
    round: int
    turn: int  # place turns so far in the round (a draw keeps the number of the turn before it)
    seq: int  # places and draws so far in the round
    player: int
    kind: str  # "place" or "draw"
    cards: tuple[Card, Card]
    stacks: tuple[tuple[str, int], ...]  # every suit in use, after this turn
    ended: bool
    line: int


@dataclass(frozen=True, slots=True)
class HandScored(Fact):
    round: int
    player: int
    breakdown: tuple[tuple[str, int, int, int], ...]  # (suit, cards held, stack size, points)
    ender_bonus: int
    score: int


@dataclass(frozen=True, slots=True)
class StacksRound(RoundOutcome):
    turns: int
    ender: int
    ended_by: str  # "place" or "draw"

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"turns": self.turns, "ender": players[self.ender]}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {**self.summary(players), "end_reason": f"stack reached six by {self.ended_by}"}


# ------------------------------------------------------------------- state


class ColorStacksState(GameState):
    @classmethod
    def check_header(cls, header: Header) -> int:
        n = len(header.players)
        suits = header.suits
        want = SUITS_FOR[n]
        for s in suits:
            if len(s) != 1 or s not in SUIT_LETTERS:
                raise ValueError(f"suit {s!r} is not a suit letter: expected letters from "
                                 f"{' '.join(SUIT_LETTERS)}")
        if len(set(suits)) != len(suits):
            raise ValueError("'suits' names a suit twice")
        if len(suits) != want:
            raise ValueError(f"{n} players use {want} suits, 'suits' lists {len(suits)}")
        default = 3 if "three_rounds" in header.variants else 1
        return check_rounds(header, default=default)

    @classmethod
    def random_setup(cls, rng: Random, players: int) -> dict[str, Any]:
        return {"suits": rng.sample(SUIT_LETTERS, SUITS_FOR[players])}

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.suits = header.suits
        self.deck = deck_of(self.suits)
        self.hand_size = HAND_SIZE[self.n]
        self.phase = "deal"
        self.hands: list[set[Card]] = [set() for _ in range(self.n)]
        self.stacks: dict[str, int] = {s: 0 for s in self.suits}
        self.pile: list[Card] = []
        self.turn = 0
        self.turns = 0
        self.seq = 0

    def _card(self, raw: str) -> Card:
        c = CARDS.parse(raw)
        if c not in self.deck:
            raise RuleError(f"{c} is not a card of this game (suits {' '.join(self.suits)}, "
                            f"numbered 1-9)")
        return c

    def on_deal(self, ev: Event) -> None:
        if self.in_round:
            raise RuleError(f"a deal came before round {self.round_no} was finished")
        hands = self.begin_deal(ev)
        seen: set[Card] = set()

        def take(raw: str, where: str) -> Card:
            c = self._card(raw)
            if c in seen:
                raise RuleError(f"deal: {c} is dealt twice ({where})")
            seen.add(c)
            return c

        for s, name in enumerate(self.players):
            if len(hands[name]) != self.hand_size:
                raise RuleError(f"deal: with {self.n} players everybody gets {self.hand_size} "
                                f"cards, {name} got {len(hands[name])}")
            self.hands[s] = {take(c, f"{name}'s hand") for c in hands[name]}
        pile_raw = optional_str_list(ev, "pile", "a list of cards, top first")
        aside_raw = optional_str_list(ev, "aside", "a list of one card")
        self.pile = []
        if self.n == 2:
            if pile_raw is None:
                raise FormatError("deal: a two-player game needs 'pile', the other 12 cards "
                                  "listed top first")
            if len(pile_raw) != 12:
                raise RuleError(f"deal: the two-player pile holds 12 cards, got {len(pile_raw)}")
            self.pile = [take(c, "the pile") for c in pile_raw]
        elif pile_raw:
            raise RuleError(f"deal: only a two-player game has a 'pile' ({self.n} players)")
        aside: list[Card] = []
        if self.n == 4:
            if aside_raw is None:
                raise FormatError("deal: a four-player game needs 'aside', the one card left "
                                  "over")
            if len(aside_raw) != 1:
                raise RuleError(f"deal: one card is set aside with four players, got "
                                f"{len(aside_raw)}")
            aside.append(take(aside_raw[0], "aside"))
        elif aside_raw:
            raise RuleError(f"deal: only a four-player game sets a card 'aside' "
                            f"({self.n} players)")
        left = self.left_of(self.dealer)
        named = self.named_leader(ev)
        if named is not None and named != left:
            raise RuleError(f"round {self.round_no} starts with {self.players[left]}, the "
                            f"player left of the dealer")
        self.stacks = {s: 0 for s in self.suits}
        self.turn = left
        self.turns = self.seq = 0
        self.phase = "place"
        self.emit(RoundDealt(self.round_no, self.dealer, left,
                             tuple(tuple(sorted(h, key=card_order)) for h in self.hands),
                             ev.line))
        if self.pile or aside:
            self.emit(PileSet(self.round_no, tuple(self.pile), tuple(aside)))

    def _not_now(self, what: str) -> None:
        if self.phase == "draw":
            raise RuleError(f"{what}: both players have taken a turn, so the top two pile cards "
                            f"must be drawn first (a draw event)")
        if self.round_no == 0:
            raise RuleError(f"{what}: no round has been dealt yet (expected a deal)")
        raise RuleError(f"{what}: round {self.round_no} is over, a stack reached six "
                        f"(expected the next deal or a claim)")

    def _two_cards(self, ev: Event) -> list[Card]:
        raw = str_list(ev, "cards", "a list of two cards")
        if len(raw) != 2:
            raise RuleError(f"a {ev.type} puts exactly two cards on the stacks, got {len(raw)}")
        cards = [self._card(r) for r in raw]
        if cards[0] is cards[1]:
            raise RuleError(f"{cards[0]} is listed twice")
        return cards

    def on_place(self, ev: Event) -> None:
        if self.phase != "place":
            self._not_now("no cards may be placed now")
        s = self.seat_of(ev)
        name = self.players[s]
        if s != self.turn:
            raise RuleError(f"{name} places out of turn: it is {self.players[self.turn]}'s turn")
        cards = self._two_cards(ev)
        hand = self.hands[s]
        for c in cards:
            if c not in hand:
                raise RuleError(f"{name} cannot place {c}: it is not in {name}'s hand")
        for c in cards:
            hand.discard(c)
            self.stacks[c.color] += 1
        self.turns += 1
        self.turn = self.left_of(s)
        ended = ends_game(self.stacks, cards)
        self._turn_fact(s, "place", cards, ended, ev.line)
        if ended:
            self._end(s, "place", ev.line)
        elif draw_due(self.n, self.turns, self.pile):
            self.phase = "draw"

    def on_draw(self, ev: Event) -> None:
        if self.n != 2:
            raise RuleError(f"draws happen only in a two-player game ({self.n} players)")
        s = self.seat_of(ev)
        if self.phase != "draw":
            if self.phase == "place":
                when = "after every pair of turns while the pile has cards"
                raise RuleError(f"no draw is due now: {self.players[s]} may draw only {when}")
            self._not_now("no draw is due now")
        cards = self._two_cards(ev)
        top = self.pile[:2]
        if cards != top:
            raise RuleError(f"the draw must be the pile's top two cards in order, "
                            f"{top[0]} {top[1]}, not {cards[0]} {cards[1]}")
        del self.pile[:2]
        for c in cards:
            self.stacks[c.color] += 1
        ended = ends_game(self.stacks, cards)
        self._turn_fact(s, "draw", cards, ended, ev.line)
        if ended:
            self._end(s, "draw", ev.line)
        else:
            self.phase = "place"

    def _turn_fact(self, s: int, kind: str, cards: list[Card], ended: bool, line: int) -> None:
        self.seq += 1
        self.emit(TurnTaken(self.round_no, self.turns, self.seq, s, kind, (cards[0], cards[1]),
                            tuple(self.stacks.items()), ended, line))

    def _end(self, ender: int, kind: str, line: int) -> None:
        scores: list[int] = []
        derivs: list[str] = []
        for s in range(self.n):
            total, breakdown, text = hand_value(sorted(self.hands[s], key=card_order), self.stacks,
                                                self.suits, s == ender)
            scores.append(total)
            derivs.append(text)
            self.emit(HandScored(self.round_no, s, breakdown, ENDER_BONUS if s == ender else 0,
                                 total))
        self.phase = "deal"
        self.finish_round(scores, derivs, StacksRound(self.turns, ender, kind), line)

    # ------------------------------------------------------------ uniform API
    def hand(self, seat: int) -> list[Card]:
        return sorted(self.hands[seat], key=card_order)

    def to_move(self) -> str | None:
        if self.phase == "place":
            return self.players[self.turn]
        if self.phase == "draw":  # the player who took the last turn draws
            return self.players[(self.turn - 1) % self.n]
        return None

    def legal_moves(self) -> list[Move]:
        if self.phase == "place":
            p = self.players[self.turn]
            hand = sorted(self.hands[self.turn], key=card_order)
            return [{"type": "place", "player": p, "cards": [a.name, b.name]}
                    for a, b in combinations(hand, 2)]
        if self.phase == "draw":  # the rules do not say who turns the cards: either may
            top = [c.name for c in self.pile[:2]]
            drawer = (self.turn - 1) % self.n
            return [{"type": "draw", "player": self.players[s], "cards": top}
                    for s in (drawer, 1 - drawer)]
        return []

    def next_chance(self) -> str | None:
        return "deal" if self.phase == "deal" and not self.over else None

    def draw_chance(self, rng: Random) -> Move:
        deck = sorted(self.deck, key=card_order)
        rng.shuffle(deck)
        hs = self.hand_size
        ev: Move = {"type": "deal", "hands": {
            p: [c.name for c in sorted(deck[i * hs:(i + 1) * hs], key=card_order)]
            for i, p in enumerate(self.players)}}
        rest = deck[self.n * hs:]
        if self.n == 2:
            ev["pile"] = [c.name for c in rest]
        elif self.n == 4:
            ev["aside"] = [rest[0].name]
        return ev


# ------------------------------------------------------------------- the greedy bot
# Value the hand that stays after the turn: each card worth its stack if the
# stack stays under six, +2 for ending the game; cards of colours whose stack
# is at five are at risk and count half.


def heuristic(st: ColorStacksState, m: Move) -> float:
    if m["type"] == "draw":
        return 0.0
    s = st.seat[m["player"]]
    placed = {CARDS[c] for c in m["cards"]}
    stacks = dict(st.stacks)
    for c in placed:
        stacks[c.color] += 1
    ends = any(k >= END_AT for k in stacks.values())
    value = 0.0
    for c in st.hands[s]:
        if c in placed:
            continue
        k = stacks[c.color]
        if k < END_AT:
            value += k if ends or k < END_AT - 1 else k / 2
    return value + (ENDER_BONUS if ends else 0)


# ------------------------------------------------------------------- rendering


def _render_dealt(f: RoundDealt, players: tuple[str, ...]) -> list[str]:
    return deal_lines(f, players, verb="starts")


def _render_pile(f: PileSet, players: tuple[str, ...]) -> list[str]:
    out = []
    if f.pile:
        out.append(f"   pile (top first) {' '.join(c.name for c in f.pile)}")
    if f.aside:
        out.append(f"   aside {' '.join(c.name for c in f.aside)}")
    return out


def step_label(f: TurnTaken) -> str:
    """How `replay` and the viewer name a turn: place turns are counted, draws are not."""
    return f"Turn {f.turn}" if f.kind == "place" else f"Draw after turn {f.turn}"


def _render_turn(f: TurnTaken, players: tuple[str, ...]) -> list[str]:
    stacks = " ".join(f"{s}×{k}" for s, k in f.stacks)
    who = players[f.player]
    verb = "places" if f.kind == "place" else "draws"
    label = step_label(f)
    end = f"  -> a stack reached six: {who} ends the game" if f.ended else ""
    return [f"{label} (line {f.line}): {who} {verb} {f.cards[0]} {f.cards[1]}; "
            f"stacks {stacks}{end}"]


def _render_hand(f: HandScored, players: tuple[str, ...]) -> list[str]:
    return []  # the round's score lines show the same breakdown


# ------------------------------------------------------------------- rows


def _project_pile(f: PileSet, sink: RowSink) -> None:
    """The pile and the card aside are in the log's text; no table holds them."""


def _project_turn(f: TurnTaken, sink: RowSink) -> None:
    P = sink.players
    sink.add("turns", round=f.round, seq=f.seq, turn=f.turn, player=P[f.player], kind=f.kind,
             cards=[c.name for c in f.cards], ended=f.ended, line=f.line,
             stacks=[{"player": None, "stack": suit, "cards": k} for suit, k in f.stacks])
    plays_rows(sink, f.round, f.seq, [(f.player, c, None) for c in f.cards], f.kind)


def _project_hand(f: HandScored, sink: RowSink) -> None:
    """A hand's breakdown is the round score's derivation (round_scores.derivation)."""


INFO = register(GameInfo(
    name="color_stacks", title="Color Stacks", min_players=2, max_players=4,
    state_class=ColorStacksState, cards=CARDS, variants=("three_rounds",), needs_suits=True,
    step="turn",
    render={RoundDealt: _render_dealt, PileSet: _render_pile, TurnTaken: _render_turn,
            HandScored: _render_hand},
    project={PileSet: _project_pile, TurnTaken: _project_turn, HandScored: _project_hand},
    heuristic=heuristic, step_facts=(TurnTaken,), step_label=step_label,
))
