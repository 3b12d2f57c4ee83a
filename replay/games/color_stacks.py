"""`color_stacks` — shared colour stacks, the sixth-card end (RULES.md section 3).

Each turn a player puts two cards on the shared stacks; the turn that brings
any stack to six or more ends the game. Cards left in a hand are worth their
stack's size while it is under six; the player who ended the game gets +2.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..cards import Card, CardTable, card_order
from ..engine import (
    GameInfo,
    GameState,
    RoundDealt,
    check_rounds,
    hands_lines,
    register,
    str_list,
)
from ..errors import RuleError
from ..reader import Event, Header

SUIT_LETTERS = "ROYGBPKW"
SUITS_FOR = {2: 4, 3: 4, 4: 5}
HAND_SIZE = {2: 12, 3: 12, 4: 11}
END_AT = 6
ENDER_BONUS = 2

CARDS = CardTable(Card(f"{s}{v}", s, v) for s in SUIT_LETTERS for v in range(1, 10))


@dataclass(frozen=True, slots=True)
class TurnTaken:
    round: int
    turn: int  # place turns so far in the round (a draw keeps the number of the turn before it)
    player: str
    kind: str  # "place" or "draw"
    cards: tuple[str, str]
    stacks: tuple[tuple[str, int], ...]  # every suit in use, after this turn
    ended: bool
    line: int


@dataclass(frozen=True, slots=True)
class HandScored:
    round: int
    player: str
    breakdown: tuple[tuple[str, int, int, int], ...]  # (suit, cards held, stack size, points)
    ender_bonus: int
    score: int


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
        parts.append(f"{s} x{k} (stack {size}) = {pts}")
    text = ", ".join(parts) if parts else "no cards left"
    if ender:
        total += ENDER_BONUS
        text += f", ender +{ENDER_BONUS}"
    return total, tuple(breakdown), f"{text} -> {total}"


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

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.suits = header.suits
        self.deck = frozenset(CARDS[f"{s}{v}"] for s in self.suits for v in range(1, 10))
        self.hand_size = HAND_SIZE[self.n]
        self.phase = "deal"
        self.hands: list[set[Card]] = [set() for _ in range(self.n)]
        self.stacks: dict[str, int] = {s: 0 for s in self.suits}
        self.pile: list[Card] = []
        self.turn = 0
        self.turns = 0

    def _card(self, raw: str) -> Card:
        c = CARDS.parse(raw, "color_stacks")
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
        pile_raw = ev.data.get("pile")
        aside_raw = ev.data.get("aside")
        self.pile = []
        if self.n == 2:
            if pile_raw is None:
                raise RuleError("deal: a two-player game needs 'pile', the other 12 cards "
                                "listed top first")
            pile_raw = str_list(ev, "pile", "a list of cards, top first")
            if len(pile_raw) != 12:
                raise RuleError(f"deal: the two-player pile holds 12 cards, got {len(pile_raw)}")
            self.pile = [take(c, "the pile") for c in pile_raw]
        elif pile_raw:
            raise RuleError(f"deal: only a two-player game has a 'pile' ({self.n} players)")
        if self.n == 4:
            if aside_raw is None:
                raise RuleError("deal: a four-player game needs 'aside', the one card left "
                                "over")
            aside_raw = str_list(ev, "aside", "a list of one card")
            if len(aside_raw) != 1:
                raise RuleError(f"deal: one card is set aside with four players, got "
                                f"{len(aside_raw)}")
            take(aside_raw[0], "aside")
        elif aside_raw:
            raise RuleError(f"deal: only a four-player game sets a card 'aside' "
                            f"({self.n} players)")
        left = self.left_of(self.dealer)
        if "leader" in ev.data and self.player(ev, "leader") != left:
            raise RuleError(f"round {self.round_no} starts with {self.players[left]}, the "
                            f"player left of the dealer")
        self.stacks = {s: 0 for s in self.suits}
        self.turn = left
        self.turns = 0
        self.phase = "place"
        extra: dict[str, Any] = {}
        if self.pile:
            extra["pile"] = tuple(c.name for c in self.pile)
        if aside_raw:
            extra["aside"] = (self._card(aside_raw[0]).name,)
        self.facts.append(RoundDealt(
            self.round_no, self.players[self.dealer], self.players[left],
            {p: tuple(c.name for c in sorted(self.hands[s], key=card_order))
             for s, p in enumerate(self.players)}, extra, ev.line))

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
        ended = any(self.stacks[c.color] >= END_AT for c in cards)
        self._turn_fact(name, "place", cards, ended, ev.line)
        if ended:
            self._end(s, ev.line)
        elif self.n == 2 and self.turns % 2 == 0 and self.pile:
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
        ended = any(self.stacks[c.color] >= END_AT for c in cards)
        self._turn_fact(self.players[s], "draw", cards, ended, ev.line)
        if ended:
            self._end(s, ev.line)
        else:
            self.phase = "place"

    def _turn_fact(self, name: str, kind: str, cards: list[Card], ended: bool, line: int) -> None:
        self.facts.append(TurnTaken(self.round_no, self.turns, name, kind,
                                    (cards[0].name, cards[1].name),
                                    tuple(self.stacks.items()), ended, line))

    def _end(self, ender: int, line: int) -> None:
        scores: dict[str, int] = {}
        derivs: dict[str, str] = {}
        for s, name in enumerate(self.players):
            total, breakdown, text = hand_value(sorted(self.hands[s], key=card_order), self.stacks,
                                                self.suits, s == ender)
            scores[name] = total
            derivs[name] = text
            self.facts.append(HandScored(self.round_no, name, breakdown,
                                         ENDER_BONUS if s == ender else 0, total))
        self.phase = "deal"
        self.finish_round(scores, derivs, {"turns": self.turns, "ender": self.players[ender]},
                          line)

    def before_claim(self, ev: Event) -> None:
        return None

    # ------------------------------------------------------------ uniform API
    def to_move(self) -> str | None:
        if self.phase == "place":
            return self.players[self.turn]
        if self.phase == "draw":  # the player who took the last turn draws
            return self.players[(self.turn - 1) % self.n]
        return None

    def legal_moves(self) -> list[dict[str, Any]]:
        if self.phase == "place":
            p = self.players[self.turn]
            hand = sorted(self.hands[self.turn], key=card_order)
            return [{"type": "place", "player": p, "cards": [a.name, b.name]}
                    for a, b in combinations(hand, 2)]
        if self.phase == "draw":
            return [{"type": "draw", "player": self.to_move(),
                     "cards": [c.name for c in self.pile[:2]]}]
        return []

    def new_deal(self, rng: Any) -> dict[str, Any]:
        deck = sorted(self.deck, key=card_order)
        rng.shuffle(deck)
        hs = self.hand_size
        ev: dict[str, Any] = {"type": "deal", "hands": {
            p: [c.name for c in sorted(deck[i * hs:(i + 1) * hs], key=card_order)]
            for i, p in enumerate(self.players)}}
        rest = deck[self.n * hs:]
        if self.n == 2:
            ev["pile"] = [c.name for c in rest]
        elif self.n == 4:
            ev["aside"] = [rest[0].name]
        return ev


def render_fact(f: Any, players: tuple[str, ...]) -> list[str]:
    """Lines of `replay` for one of this game's facts."""
    out: list[str] = []
    if isinstance(f, RoundDealt):
        out.append(f"== Round {f.round}: {f.dealer} deals, {f.leader} starts")
        out.extend(hands_lines(f))
        if "pile" in f.extra:
            out.append(f"   pile (top first) {' '.join(f.extra['pile'])}")
        if "aside" in f.extra:
            out.append(f"   aside {' '.join(f.extra['aside'])}")
    elif isinstance(f, TurnTaken):
        stacks = " ".join(f"{s}{k}" for s, k in f.stacks)
        verb = "places" if f.kind == "place" else "draws"
        label = f"Turn {f.turn}" if f.kind == "place" else "Draw"
        end = f"  -> a stack reached six: {f.player} ends the game" if f.ended else ""
        out.append(f"{label} (line {f.line}): {f.player} {verb} {' '.join(f.cards)}; "
                   f"stacks {stacks}{end}")
    return out



INFO = register(GameInfo(
    name="color_stacks", title="Color Stacks", min_players=2, max_players=4,
    state_class=ColorStacksState, variants=("three_rounds",), needs_suits=True,
    render_fact=render_fact,
))
