"""`color_stacks` — shared colour stacks, the sixth-card end (docs/rules.md section 3).

Each turn a player puts two cards on the shared stacks; the turn that brings
any stack to six or more ends the game. Cards left in a hand are worth their
stack's size while it is under six; the player who ended the game gets +2.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import combinations, permutations
from random import Random
from typing import Any, ClassVar, Final

from ..cards import CHIP_COLORS, Card, CardTable, card_order, deal_hands
from ..errors import FormatError, RuleError
from ..events import Event, Header, optional_str_list, str_list
from ..facts import Fact, RoundDealt, RoundOutcome, RoundScored
from ..info import NativeCodec
from ..native import codes
from ..registry import GameInfo, Move, register
from ..render import deal_lines
from ..rows import RowSink, RowWriter, Stack, TableRows, plays_rows
from ..sheet import (
    SHEET_END,
    SheetField,
    SheetForm,
    SheetState,
    letter_counts,
    sheet_head,
    table_lines,
)
from ..state import GameState, LiveRound, check_rounds
from ..tables import STACKS, Column, SharedColumns

# Module constants are Final: compiled, they are read as C statics, not looked up by name.
SUIT_LETTERS: Final = "ROYGBPKW"
SUIT_COLORS: Final = {"R": "red", "O": "orange", "Y": "yellow", "G": "green", "B": "blue",
                      "P": "purple", "K": "black", "W": "white"}
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


def draw_due(players: int, turns: int, pile_cards: int) -> bool:
    """Two players: after every pair of turns the top two pile cards go onto the stacks."""
    return players == 2 and turns % 2 == 0 and pile_cards > 0


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


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class PileSet(Fact):
    """What the deal put outside the hands: the two-player pile (top first), the card aside."""

    round: Final[int]
    pile: Final[tuple[Card, ...]]
    aside: Final[tuple[Card, ...]]

    def __init__(self, round: int, pile: tuple[Card, ...], aside: tuple[Card, ...]) -> None:
        self.round = round
        self.pile = pile
        self.aside = aside


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class TurnTaken(Fact):
    round: Final[int]
    turn: Final[int]  # place turns so far in the round (a draw keeps the number of the turn before it)
    seq: Final[int]  # places and draws so far in the round
    player: Final[int]
    kind: Final[str]  # "place" or "draw"
    cards: Final[tuple[Card, Card]]
    stacks: Final[tuple[tuple[str, int], ...]]  # every suit in use, after this turn
    ended: Final[bool]
    line: Final[int]

    def __init__(self, round: int, turn: int, seq: int, player: int, kind: str,
                 cards: tuple[Card, Card], stacks: tuple[tuple[str, int], ...], ended: bool,
                 line: int) -> None:
        self.round = round
        self.turn = turn
        self.seq = seq
        self.player = player
        self.kind = kind
        self.cards = cards
        self.stacks = stacks
        self.ended = ended
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class HandScored(Fact):
    round: Final[int]
    player: Final[int]
    breakdown: Final[tuple[tuple[str, int, int, int], ...]]  # (suit, cards held, stack size, points)
    ender_bonus: Final[int]
    score: Final[int]

    def __init__(self, round: int, player: int, breakdown: tuple[tuple[str, int, int, int], ...],
                 ender_bonus: int, score: int) -> None:
        self.round = round
        self.player = player
        self.breakdown = breakdown
        self.ender_bonus = ender_bonus
        self.score = score


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class StacksRound(RoundOutcome):
    turns: Final[int]
    ender: Final[int]
    ended_by: Final[str]  # "place" or "draw"

    def __init__(self, turns: int, ender: int, ended_by: str) -> None:
        self.turns = turns
        self.ender = ender
        self.ended_by = ended_by

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"turns": self.turns, "ender": players[self.ender]}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {**self.summary(players), "end_reason": f"stack reached six by {self.ended_by}"}


# ------------------------------------------------------------------- state


class Phase(Enum):
    """What the round waits for (`self.phase`). A plain `Enum`: compiled, its members are
    read as C statics and compared by identity."""

    DEAL = "deal"  # a deal (the next round, or the first)
    PLACE = "place"  # the player to move places cards
    DRAW = "draw"  # the player who took the last turn draws


class ColorStacksState(GameState):
    plays_only_rounds = True
    shown_parts = ("pile", "aside")

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
        self.phase: Phase = Phase.DEAL
        self.hands: list[set[Card]] = [set() for _ in range(self.n)]
        self.stacks: dict[str, int] = {s: 0 for s in self.suits}
        self.pile: list[Card] = []
        self.aside: list[Card] = []
        self.pile_left = 0  # a plays-only round's pile: how many cards it still holds
        self.turn = 0
        self.turns = 0
        self.seq = 0

    def _card(self, raw: str) -> Card:
        c = CARDS.parse(raw)
        if c not in self.deck:
            raise RuleError(f"{c} is not a card of this game (suits {' '.join(self.suits)}, "
                            f"numbered 1-9)")
        return c

    def handle(self, ev: Event) -> None:
        # natively called handlers, the most frequent event first (GameState.handle)
        t = ev.type
        if t == "place":
            self.on_place(ev)
        elif t == "draw":
            self.on_draw(ev)
        elif t == "deal":
            self.on_deal(ev)
        else:
            GameState.handle(self, ev)

    def on_deal(self, ev: Event) -> None:
        hands = self.begin_deal(ev)
        live = self.live
        if live is not None:
            live.dealt = [self.hand_size] * self.n
            self.pile_left = left_over(self.n) if self.n == 2 else 0
        inferred = self.inferring or live is not None  # counts as far as they are known
        seen: set[Card] = set()
        for s, name in enumerate(self.players):
            if name not in hands:
                self.hands[s] = set()
                continue
            if len(hands[name]) != self.hand_size and not inferred:
                raise RuleError(f"deal: with {self.n} players everybody gets {self.hand_size} "
                                f"cards, {name} got {len(hands[name])}")
            where = f"{name}'s hand"
            self.hands[s] = {self._dealt_once(c, where, seen) for c in hands[name]}
        pile_raw = optional_str_list(ev, "pile", "a list of cards, top first")
        aside_raw = optional_str_list(ev, "aside", "a list of one card")
        self.pile = []
        if self.n == 2 and live is None:
            if pile_raw is None:
                raise FormatError("deal: a two-player game needs 'pile', the other 12 cards "
                                  "listed top first")
            if len(pile_raw) != 12 and not inferred:
                raise RuleError(f"deal: the two-player pile holds 12 cards, got {len(pile_raw)}")
            self.pile = [self._dealt_once(c, "the pile", seen) for c in pile_raw]
        elif pile_raw:
            raise RuleError(f"deal: only a two-player game has a 'pile' ({self.n} players)")
        aside: list[Card] = []
        if self.n == 4 and live is None:
            if aside_raw is None and not inferred:
                raise FormatError("deal: a four-player game needs 'aside', the one card left "
                                  "over")
            if aside_raw is not None and len(aside_raw) != 1 and not inferred:
                raise RuleError(f"deal: one card is set aside with four players, got "
                                f"{len(aside_raw)}")
            aside.extend(self._dealt_once(c, "aside", seen) for c in aside_raw or ())
        elif aside_raw:
            raise RuleError(f"deal: only a four-player game sets a card 'aside' "
                            f"({self.n} players)")
        left = self.left_of(self.dealer)
        named = self.named_leader(ev)
        if named is not None and named != left:
            raise RuleError(f"round {self.round_no} starts with {self.players[left]}, the "
                            f"player left of the dealer")
        self.aside = aside
        self.stacks = {s: 0 for s in self.suits}
        self.turn = left
        self.turns = self.seq = 0
        self.phase = Phase.PLACE
        self.emit(RoundDealt(self.round_no, self.dealer, left,
                             tuple(tuple(CARDS.in_order(h)) for h in self.hands),
                             ev.line))
        if self.pile or aside:
            self.emit(PileSet(self.round_no, tuple(self.pile), tuple(aside)))

    def _dealt_once(self, raw: str, where: str, seen: set[Card]) -> Card:
        """The card `raw` of a deal, not dealt before (`seen`, which it joins): a method, not
        a closure, so that the compiled engine calls it natively."""
        c = self._card(raw)
        if c in seen:
            raise RuleError(f"deal: {c} is dealt twice ({where})")
        seen.add(c)
        return c

    def _not_now(self, what: str) -> None:
        if self.phase is Phase.DRAW:
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
        if self.phase is not Phase.PLACE:
            self._not_now("no cards may be placed now")
        s = self.seat_of(ev)
        name = self.players[s]
        if s != self.turn:
            raise RuleError(f"{name} places out of turn: it is {self.players[self.turn]}'s turn")
        cards = self._two_cards(ev)
        hand = self.hands[s]
        if self.live is not None:
            for c in cards:
                self.live_card(s, c, ev.line, self.turns + 1)
        else:
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
        elif draw_due(self.n, self.turns,
                      len(self.pile) if self.live is None else self.pile_left):
            self.phase = Phase.DRAW

    def on_draw(self, ev: Event) -> None:
        if self.n != 2:
            raise RuleError(f"draws happen only in a two-player game ({self.n} players)")
        s = self.seat_of(ev)
        if self.phase is not Phase.DRAW:
            if self.phase is Phase.PLACE:
                when = "after every pair of turns while the pile has cards"
                raise RuleError(f"no draw is due now: {self.players[s]} may draw only {when}")
            self._not_now("no draw is due now")
        cards = self._two_cards(ev)
        if self.live is not None:  # the pile is not known: two cards not seen yet
            for c in cards:
                self.live_seen(c, f"{c} cannot be drawn", f"drawn from the pile (line {ev.line})")
            self.pile_left -= 2
        else:
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
            self.phase = Phase.PLACE

    def _turn_fact(self, s: int, kind: str, cards: list[Card], ended: bool, line: int) -> None:
        self.seq += 1
        self.emit(TurnTaken(self.round_no, self.turns, self.seq, s, kind, (cards[0], cards[1]),
                            tuple(self.stacks.items()), ended, line))

    def _end(self, ender: int, kind: str, line: int) -> None:
        if self.live is not None:  # the hands left score it: known once shown
            self.phase = Phase.DEAL
            self.round_played()
            return
        scores: list[int] = []
        derivs: list[str] = []
        for s in range(self.n):
            total, breakdown, text = hand_value(CARDS.in_order(self.hands[s]), self.stacks,
                                                self.suits, s == ender)
            scores.append(total)
            derivs.append(text)
            self.emit(HandScored(self.round_no, s, breakdown, ENDER_BONUS if s == ender else 0,
                                 total))
        self.phase = Phase.DEAL
        self.finish_round(scores, derivs, StacksRound(self.turns, ender, kind), line)

    # ------------------------------------------------------------ uniform API
    def hand(self, seat: int) -> list[Card]:
        return sorted(self.hands[seat], key=card_order)

    def to_move(self) -> str | None:
        if self.phase is Phase.PLACE:
            return self.players[self.turn]
        if self.phase is Phase.DRAW:  # the player who took the last turn draws
            return self.players[(self.turn - 1) % self.n]
        return None

    def legal_moves(self) -> list[Move]:
        live = self.live
        if live is not None:
            return self._live_moves(live)
        if self.phase is Phase.PLACE:
            p = self.players[self.turn]
            hand = sorted(self.hands[self.turn], key=card_order)
            return [{"type": "place", "player": p, "cards": [a.name, b.name]}
                    for a, b in combinations(hand, 2)]
        if self.phase is Phase.DRAW:  # the rules do not say who turns the cards: either may
            top = [c.name for c in self.pile[:2]]
            drawer = (self.turn - 1) % self.n
            return [{"type": "draw", "player": self.players[s], "cards": top}
                    for s in (drawer, 1 - drawer)]
        return []

    def _live_moves(self, live: LiveRound) -> list[Move]:
        """A plays-only round's moves: any two cards nobody has shown yet (a draw: in
        either order, by either player)."""
        unseen = [c for c in CARDS.in_order(self.deck) if not live.seen.get(c)]
        if self.phase is Phase.PLACE and self.cards_left(self.turn) >= 2:
            p = self.players[self.turn]
            return [{"type": "place", "player": p, "cards": [a.name, b.name]}
                    for a, b in combinations(unseen, 2)]
        if self.phase is Phase.DRAW:
            return [{"type": "draw", "player": p, "cards": [a.name, b.name]}
                    for p in self.players for a, b in permutations(unseen, 2)]
        return []

    # ------------------------------------------------------------ plays-only rounds
    def copies(self, card: Card) -> int:
        return 1 if card in self.deck else 0

    def not_in_deck(self) -> str:
        return f"is not a card of this game (suits {' '.join(self.suits)}, numbered 1-9)"

    def show(self, seat: int | None, part: str | None, cards: list[Card], line: int) -> None:
        if self.phase is not Phase.DEAL or self.round_no == 0:
            raise RuleError("cards are shown at a round's end: the hands left when a stack "
                            "reached six score it")
        live = self.live
        if part == "aside" and self.n != 4:
            raise RuleError(f"only a four-player game sets a card aside ({self.n} players)")
        if part == "pile" and self.n != 2:
            raise RuleError(f"only a two-player game has a pile ({self.n} players)")
        if live is None:
            held = (self.hand(seat) if seat is not None else
                    self.pile if part == "pile" else self.aside)
            self.full_show(seat, part, cards, held)
            return
        expected = (self.cards_left(seat) if seat is not None else
                    self.pile_left if part == "pile" else 1)
        self.live_show(seat, part, cards, line, expected)

    def parts_to_show(self) -> dict[str, int]:
        live = self.live
        assert live is not None
        out: dict[str, int] = {}
        if self.pile_left and "pile" not in live.parts:
            out["pile"] = self.pile_left
        if self.n == 4 and "aside" not in live.parts:
            out["aside"] = 1
        return out

    def why_unscored(self) -> str | None:
        return "the hands left score the round"

    def parts_left(self) -> dict[str, list[Card]]:
        return {k: v for k, v in (("pile", self.pile), ("aside", self.aside)) if v}

    def why_unsettled(self) -> str | None:
        live = self.live
        assert live is not None
        missing = [f"{self.players[s]} ({self.cards_left(s)})" for s in range(self.n)
                   if self.cards_left(s) and live.shown[s] is None]
        if not missing:
            return None
        return (f"round {live.round} is scored by the cards left in the hands, so they must "
                f"be shown first (a shown event each): {', '.join(missing)}")

    def inferred_deal(self, live: LiveRound, upto: int | None) -> dict[str, Any]:
        data = GameState.inferred_deal(self, live, upto)
        drawn = [c for c, _ in live.outside]  # the draws, in order: the pile's top
        if self.n == 2:
            data["pile"] = [c.name for c in drawn + live.parts.get("pile", [])]
        if self.n == 4:
            aside = live.parts.get("aside")
            known = sum(len(h) for h in data["hands"].values())
            if aside is None and upto is None and known == self.n * self.hand_size:
                held = {n for h in data["hands"].values() for n in h}
                aside = [c for c in CARDS.in_order(self.deck) if c.name not in held]
            if aside is not None:
                data["aside"] = [c.name for c in aside]
        return data

    def unknown_cards(self, live: LiveRound) -> list[str]:
        out = GameState.unknown_cards(self, live)
        if self.n == 2 and self.pile_left and "pile" not in live.parts:
            out.append(f"the pile's last {self.pile_left} cards were not shown")
        return out

    def next_chance(self) -> str | None:
        return "deal" if self.phase is Phase.DEAL and not self.over else None

    def draw_chance(self, rng: Random) -> Move:
        deck = sorted(self.deck, key=card_order)
        rng.shuffle(deck)
        hs = self.hand_size
        ev: Move = {"type": "deal", "hands": deal_hands(deck, self.players, hs)}
        rest = deck[self.n * hs:]
        if self.n == 2:
            ev["pile"] = [c.name for c in rest]
        elif self.n == 4:
            ev["aside"] = [rest[0].name]
        return ev

    # ------------------------------------------------------------ branching
    def clone_into(self, new: Any) -> None:
        """`GameState.clone`'s copy of this game's own attributes (suits, deck and hand
        size follow from the header and are set by `__init__`)."""
        st: ColorStacksState = new
        st.phase = self.phase
        st.hands = [set(h) for h in self.hands]
        st.stacks = self.stacks.copy()
        st.pile = self.pile.copy()
        st.aside = self.aside.copy()
        st.pile_left = self.pile_left
        st.turn = self.turn
        st.turns = self.turns
        st.seq = self.seq


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
# color_stacks' own table and its columns of the shared ones (GameInfo.tables and .columns)

TABLES: Final = {
    # every turn: what was placed or drawn, the stacks after it, whether it ended the round
    "turns": (Column("game_id", "VARCHAR"), Column("round", "INTEGER"),
              Column("seq", "INTEGER"), Column("turn", "INTEGER"), Column("player", "VARCHAR"),
              Column("kind", "VARCHAR"), Column("cards", "VARCHAR[]"), Column("stacks", STACKS),
              Column("ended", "BOOLEAN"), Column("line", "INTEGER")),
}
COLUMNS: Final = (
    # a round's number of turns and who ended it
    SharedColumns("rounds", before="end_reason", columns=(
        Column("turns", "INTEGER", null=True), Column("ender", "VARCHAR", null=True))),
)


# --- generated by `python -m trickledger.replay.rowgen` from the declared tables: do not edit


class TurnsRows(RowWriter):
    """Rows of `turns` as color_stacks fills them (generated)."""

    TABLE: ClassVar[str] = "turns"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "seq", "turn", "player", "kind",
                                          "cards", "stacks", "ended", "line")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.seq = rows.values("seq")
        self.turn = rows.values("turn")
        self.player = rows.values("player")
        self.kind = rows.values("kind")
        self.cards = rows.strings("cards")
        self.stacks = rows.stacks("stacks")
        self.ended = rows.values("ended")
        self.line = rows.values("line")

    def add(self, round: int, seq: int, turn: int, player: str, kind: str, cards: Iterable[str],
            stacks: Iterable[Stack], ended: bool, line: int) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.seq.append(seq)
        self.turn.append(turn)
        self.player.append(player)
        self.kind.append(kind)
        self.cards.append(cards)
        self.stacks.append(stacks)
        self.ended.append(ended)
        self.line.append(line)


# --- end of the generated code



def _project_pile(f: PileSet, sink: RowSink) -> None:
    """The pile and the card aside are in the log's text; no table holds them."""


def _project_turn(f: TurnTaken, sink: RowSink) -> None:
    P = sink.players
    sink.rows(TurnsRows).add(round=f.round, seq=f.seq, turn=f.turn, player=P[f.player],
                             kind=f.kind, cards=[c.name for c in f.cards],
                             stacks=[(None, suit, k) for suit, k in f.stacks], ended=f.ended,
                             line=f.line)
    plays_rows(sink, f.round, f.seq, [(f.player, c, None) for c in f.cards], f.kind)


def _project_hand(f: HandScored, sink: RowSink) -> None:
    """A hand's breakdown is the round score's derivation (round_scores.derivation)."""


# ------------------------------------------------------------------- analytics
# the questions the SQL console offers about the game (GameInfo.examples; docs/sql.md)
EXAMPLES: Final = (
    ('In color_stacks, does ending the game pay off?',
     """SELECT r.ender AS player, count(*) AS games_ended,
       ratio(sum(s.score), count(s.score), 2) AS mean_score_when_ending
FROM rounds r
JOIN round_scores s ON s.game_id = r.game_id AND s.round = r.round AND s.player = r.ender
JOIN game_counting c ON c.game_id = r.game_id
WHERE c.counted_as IN ('complete', 'disputed', 'sheet')
GROUP BY r.ender
ORDER BY games_ended DESC, player
LIMIT 10;"""),
)


# =================================================================== the score sheet
# A round on a score sheet (replay/sheet.py): the size of each shared stack at the end, per
# player the cards of each suit left in hand, and who ended the game. Each end-of-round rule
# is one predicate below (with `draw_due` above); the score is `hand_value()`.

SUIT_SIZE = 9


def left_over(players: int) -> int:
    """Cards the deal puts in no hand: the two-player pile, the four-player card aside."""
    return SUITS_FOR[players] * SUIT_SIZE - players * HAND_SIZE[players]


def suit_fits_deck(on_stack: int, in_hands: int) -> bool:
    """No more cards of a suit on its stack and in the hands than the suit has."""
    return on_stack + in_hands <= SUIT_SIZE


def round_over(stacks: dict[str, int]) -> bool:
    """A round is over once a turn (or a draw) has brought a stack to six or more."""
    return any(k >= END_AT for k in stacks.values())


def last_turn_fits(stacks: dict[str, int]) -> bool:
    """Before the turn that ended the game every stack held at most five cards, and a turn
    puts down two: at most two cards lie above five."""
    return sum(k - (END_AT - 1) for k in stacks.values() if k >= END_AT) <= 2


def hand_fits_turns(players: int, held: int) -> bool:
    """A hand starts with HAND_SIZE cards and loses two each turn."""
    return held <= HAND_SIZE[players] and (HAND_SIZE[players] - held) % 2 == 0


def turns_in_order(turns: list[int], start: int, last: int) -> bool:
    """Turns go clockwise from `start`, and `last` took the last one: the players from
    `start` to `last` have taken one turn more than the others (all the same when `last`
    sits right of `start`)."""
    n = len(turns)
    order = [(start + i) % n for i in range(n)]
    k = order.index(last) + 1
    most = turns[last]
    return most >= 1 and all(turns[s] == (most if i < k else most - 1)
                             for i, s in enumerate(order))


def draws_made(players: int, place_turns: int, ended_by_draw: bool) -> int:
    """Two players: the draws made in a round of `place_turns` turns (a draw is due after
    every pair of turns while the pile lasts; none follows the turn that ended the game)."""
    pile_cards = left_over(players)
    draws = 0
    for t in range(1, place_turns + (1 if ended_by_draw else 0)):
        if draw_due(players, t, pile_cards):
            pile_cards -= 2
            draws += 1
    return draws


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class StacksSheetEntered(Fact):
    """A round as the score sheet gives it: the stacks, each hand by suit, the ender."""

    round: Final[int]
    dealer: Final[int]
    stacks: Final[tuple[tuple[str, int], ...]]  # every suit in use
    hands: Final[tuple[tuple[int, ...], ...]]  # per seat: cards held of each suit, in suit order
    ender: Final[int]
    scores: Final[tuple[int, ...]]
    line: Final[int]

    def __init__(self, round: int, dealer: int, stacks: tuple[tuple[str, int], ...],
                 hands: tuple[tuple[int, ...], ...], ender: int, scores: tuple[int, ...],
                 line: int) -> None:
        self.round = round
        self.dealer = dealer
        self.stacks = stacks
        self.hands = hands
        self.ender = ender
        self.scores = scores
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class StacksSheetOutcome(RoundOutcome):
    turns: Final[int]  # place turns, known from the hands
    ender: Final[int]

    def __init__(self, turns: int, ender: int) -> None:
        self.turns = turns
        self.ender = ender

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"turns": self.turns, "ender": players[self.ender]}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {**self.summary(players), "end_reason": SHEET_END}


class ColorStacksSheet(SheetState):
    @classmethod
    def form(cls, header: Header, round_no: int) -> SheetForm:
        hs = HAND_SIZE[len(header.players)]
        return SheetForm(
            players=tuple(SheetField(("hand", s), s, 0, min(SUIT_SIZE, hs),
                                     help=f"{s} cards left in the player's hand")
                          for s in header.suits),
            about="Cards of each suit left in each hand",
            round=tuple(SheetField(("stacks", s), s, 0, SUIT_SIZE,
                                   help=f"cards on the {s} stack") for s in header.suits),
            round_about="Stacks on the table (cards in each)",
            pick=(("ender", "ended the game"),))

    def score_sheet(self, ev: Event, entries: list[dict[str, Any]]
                    ) -> tuple[list[int], list[str], RoundOutcome]:
        suits = self.header.suits
        n = self.n
        what = "a suit of this game"
        stacks = letter_counts(ev.data, "stacks", "the sheet", suits, what)
        hands = [letter_counts(e, "hand", f"{self.players[s]}'s entry", suits, what)
                 for s, e in enumerate(entries)]
        for suit in suits:
            in_hands = sum(h[suit] for h in hands)
            if not suit_fits_deck(stacks[suit], in_hands):
                raise RuleError(f"{suit}: {stacks[suit]} on the stack and {in_hands} in hands "
                                f"make {stacks[suit] + in_hands}, but the suit has {SUIT_SIZE} "
                                f"cards")
        shown = " ".join(f"{s}×{k}" for s, k in stacks.items())
        if not round_over(stacks):
            raise RuleError(f"no stack holds {END_AT} cards ({shown}): a round ends only with "
                            f"the turn that brings a stack to {END_AT}")
        if "ender" not in ev.data:
            raise RuleError(f"a stack holds {END_AT} or more cards ({shown}), so a player "
                            f"ended the game: the sheet must name the 'ender'")
        ender = self.player(ev, "ender")
        if not last_turn_fits(stacks):
            above = sum(k - END_AT + 1 for k in stacks.values() if k >= END_AT)
            raise RuleError(f"the stacks hold {above} cards above five ({shown}), but the turn "
                            f"that ended the game put two cards on stacks of at most five")
        hs = HAND_SIZE[n]
        held = [sum(h.values()) for h in hands]
        for s, k in enumerate(held):
            if not hand_fits_turns(n, k):
                raise RuleError(f"{self.players[s]} holds {k} cards: every player starts with "
                                f"{hs} and puts down two a turn, so a hand holds "
                                f"{hs}, {hs - 2}, {hs - 4}, ...")
        turns = [(hs - k) // 2 for k in held]
        place_turns = sum(turns)
        start = self.left_of(self.dealer)
        by_place = turns_in_order(turns, start, ender)
        # two players: a draw after a pair of turns may have ended it (either may draw)
        by_draw = n == 2 and turns[0] == turns[1] >= 1 and \
            draws_made(n, place_turns, True) > draws_made(n, place_turns, False)
        if not (by_place or by_draw):
            order = [self.players[(start + i) % n] for i in range(n)]
            k = order.index(self.players[ender]) + 1
            rule = ("so every player has taken as many turns as the others"
                    if k == n else
                    f"so {_names(order[:k])} {'has' if k == 1 else 'have'} taken one turn "
                    f"more than {_names(order[k:])} (two cards fewer in hand)")
            hands_text = ", ".join(f"{p} {held[self.seat[p]]}" for p in order)
            raise RuleError(f"the hands do not fit the order of turns: turns go clockwise "
                            f"from {order[0]} (left of the dealer "
                            f"{self.players[self.dealer]}) and {self.players[ender]} took the "
                            f"last one, {rule}; the hands hold {hands_text}")
        have = sum(stacks.values()) + sum(held)
        missing = SUITS_FOR[n] * SUIT_SIZE - have
        outside = {end: left_over(n) - 2 * draws_made(n, place_turns, end)
                   for end, possible in ((False, by_place), (True, by_draw)) if possible}
        if missing not in outside.values():
            deck = SUITS_FOR[n] * SUIT_SIZE
            pile = next(iter(outside.values()))
            why = {3: "with three players every card is in a hand or on a stack",
                   4: "with four players only the card set aside is in neither"}.get(
                n, f"with two players the rest is the pile not yet drawn, which after "
                   f"{place_turns} turns holds {pile} cards")
            raise RuleError(f"the stacks and hands hold {have} of the {deck} cards; {why}")
        scores: list[int] = []
        derivations: list[str] = []
        for s, h in enumerate(hands):
            cards = [CARDS[f"{suit}{v}"] for suit in suits for v in range(1, h[suit] + 1)]
            total, _, text = hand_value(cards, stacks, suits, s == ender)
            scores.append(total)
            derivations.append(text)
        self.emit(StacksSheetEntered(self.round_no, self.dealer, tuple(stacks.items()),
                                     tuple(tuple(h[suit] for suit in suits) for h in hands),
                                     ender, tuple(scores), ev.line))
        return scores, derivations, StacksSheetOutcome(place_turns, ender)

    @classmethod
    def line_of(cls, facts: Sequence[Fact], scored: RoundScored,
                players: tuple[str, ...]) -> dict[str, Any]:
        stacks: dict[str, int] = {}
        hands: dict[str, dict[str, int]] = {p: {} for p in players}
        for f in facts:
            if isinstance(f, TurnTaken):
                stacks = dict(f.stacks)
            elif isinstance(f, HandScored):
                hands[players[f.player]] = {suit: k for suit, k, _, _ in f.breakdown}
        outcome = scored.outcome
        assert isinstance(outcome, StacksRound)
        return {"stacks": stacks, "ender": players[outcome.ender],
                "players": {p: {"hand": hands[p]} for p in players}}


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _render_sheet(f: StacksSheetEntered, players: tuple[str, ...]) -> list[str]:
    suits = [suit for suit, _ in f.stacks]
    stacks = " ".join(f"{suit}×{k}" for suit, k in f.stacks)
    return [sheet_head(f.round, f.dealer, f.line, players),
            f"   stacks {stacks}; {players[f.ender]} ended the game",
            *table_lines(players, (*suits, "score"),
                         [(*h, sc) for h, sc in zip(f.hands, f.scores)])]


def _project_sheet(f: StacksSheetEntered, sink: RowSink) -> None:
    """A sheet's round is stored as its rounds and round_scores rows (from RoundScored);
    its stacks and hands are in the log's text (no turn-level table holds them)."""



# =================================================================== the native engine
# The rest of a round as the native analysis engine's position (replay/native/color_stacks.hpp
# reads these numbers in this order), and moves as its codes.

NATIVE_PHASE: Final = {Phase.PLACE: 0, Phase.DRAW: 1, Phase.DEAL: 2}


def native_position(st: ColorStacksState) -> list[int]:
    """players, phase, turn, place turns taken, the player who ended the round (-1: not
    over), the number of suits, the suits (places in ROYGBPKW, in that order), their stacks
    in the same order; per seat the hand's size and cards; the pile's size and cards, top
    first. A card is its number in the game's deck (Card.index)."""
    ender = -1
    if st.phase is Phase.DEAL and st.rounds:
        outcome = st.rounds[-1].outcome
        if isinstance(outcome, StacksRound):
            ender = outcome.ender
    suits = sorted(st.suits, key=SUIT_LETTERS.index)
    out = [st.n, NATIVE_PHASE[st.phase], st.turn, st.turns, ender, len(suits)]
    out.extend(SUIT_LETTERS.index(x) for x in suits)
    out.extend(st.stacks[x] for x in suits)
    for s in range(st.n):
        hand = CARDS.in_order(st.hands[s])
        out.append(len(hand))
        out.extend(c.index for c in hand)
    out.append(len(st.pile))
    out.extend(c.index for c in st.pile)
    return out


def native_move_code(st: ColorStacksState, m: Move) -> int:
    seat = st.seat[m["player"]]
    kind = m["type"]
    if kind == "place":
        a, b = sorted(CARDS.parse(c).index for c in m["cards"])
        return codes.pack(codes.PLACE, seat, a | b << 8)
    if kind == "draw":
        return codes.pack(codes.DRAW, seat, 0)
    raise ValueError(f"color_stacks has no {kind!r} move")


def native_move_of(st: ColorStacksState, code: int) -> Move:
    kind, seat, payload = codes.kind_of(code), codes.seat_of(code), codes.payload_of(code)
    player = st.players[seat]
    if kind == codes.PLACE:
        order = CARDS.deck_order
        return {"type": "place", "player": player,
                "cards": [order[payload & 0xFF].name, order[payload >> 8].name]}
    if kind == codes.DRAW:
        return {"type": "draw", "player": player, "cards": [c.name for c in st.pile[:2]]}
    raise ValueError(f"{code} is not a color_stacks move code")

INFO = register(GameInfo(
    name="color_stacks", title="Color Stacks", min_players=2, max_players=4,
    state_class=ColorStacksState, cards=CARDS, variants=("three_rounds",), needs_suits=True,
    step="turn",
    render={RoundDealt: _render_dealt, PileSet: _render_pile, TurnTaken: _render_turn,
            HandScored: _render_hand, StacksSheetEntered: _render_sheet},
    project={PileSet: _project_pile, TurnTaken: _project_turn, HandScored: _project_hand,
             StacksSheetEntered: _project_sheet},
    heuristic=heuristic, step_facts=(TurnTaken,), step_label=step_label,
    sheet_state=ColorStacksSheet, events=("deal", "place", "draw"), injectable=("place",),
    tables=TABLES, columns=COLUMNS, step_rows=("turns", "seq"),
    bands=(2.0, 4.0, 8.0),  # a hand is worth a few tens
    colors={c: CHIP_COLORS[name] for c, name in SUIT_COLORS.items()},
    color_names=SUIT_COLORS,
    # the card set aside at the deal (4 players) and the 2-player pile below its drawn top:
    # nobody sees them (a drawn card of the pile is seen from its draw on)
    face_down=("aside", "pile"),
    examples=EXAMPLES,
    native=NativeCodec("color_stacks", native_position, native_move_code, native_move_of,
                       solve_cards=30, endgame_cards=22),
))
