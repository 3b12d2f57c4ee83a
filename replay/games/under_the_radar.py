"""`under_the_radar` — trick avoidance with Singles and Completes (docs/rules.md section 4).

A trick goes round the table while players can play an acceptable card; the
player who cannot plays any card and takes the trick (one point, and points
are bad). `why_unacceptable()` is the whole acceptability rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from random import Random
from typing import Any, ClassVar, Final

from ..cards import CHIP_COLORS, Card, CardTable, deal_hands, hand_cards, hand_of, remove_from_hand
from ..errors import HandRuleError, RuleError
from ..events import Event, Header, optional_str_list
from ..facts import Fact, RoundDealt, RoundOutcome, RoundScored, TrickAbandoned
from ..info import NativeCodec
from ..native import codes
from ..registry import GameInfo, Move, register
from ..rows import RowSink, RowWriter, Stack, TableRows, plays_rows
from ..sheet import SHEET_END, SheetField, SheetForm, SheetState, number, sheet_head, table_lines
from ..state import GameState, LiveRound, check_rounds
from ..tables import Column, SharedColumns

# Categories in the order a Complete is written: pattern-colour-shape.
# Module constants are Final: compiled, they are read as C statics, not looked up by name.
CATEGORIES: Final = ("pattern", "colour", "shape")
VALUES: Final = (("filled", "hollow", "partial"), ("red", "green", "blue"),
          ("triangle", "square", "circle"))
SINGLE_COPIES: Final = 4
HAND_SIZE: Final = {3: 21, 4: 15, 5: 12, 6: 10, 7: 9}
REMOVED: Final = {3: 0, 4: 3, 5: 3, 6: 3, 7: 0}
COMPLETE: Final = -1  # the `cat` of a Complete: it shows all three categories


class UCard(Card):
    """A Single shows one value (`cat` is its category, the other values are ""); a
    Complete shows all three (`cat` is COMPLETE). Its `color` is its colour value ("red",
    "green", "blue"; "" for a Single of pattern or shape): what the dashboard paints it."""

    __slots__ = ("cat", "values")

    def __init__(self, name: str, cat: int, values: tuple[str, str, str]) -> None:
        super().__init__(name, values[1], 0, "single" if cat != COMPLETE else "complete")
        self.cat = cat
        # declared of any length: compiled, a fixed-length tuple is stored unboxed and is
        # boxed anew each time it is indexed by a variable (the rule's every check does)
        self.values: tuple[str, ...] = values


def _single(cat: int, v: str) -> UCard:
    vals = ["", "", ""]
    vals[cat] = v
    return UCard(v, cat, (vals[0], vals[1], vals[2]))


SINGLES: Final = [_single(i, v) for i in range(3) for v in VALUES[i]]
COMPLETES: Final = [UCard(f"{p}-{c}-{s}", COMPLETE, (p, c, s))
             for p in VALUES[0] for c in VALUES[1] for s in VALUES[2]]
CARDS: Final[CardTable[UCard]] = CardTable(SINGLES + COMPLETES, "under_the_radar", upper=False)
FULL_DECK: Final[dict[UCard, int]] = {**{c: SINGLE_COPIES for c in SINGLES}, **{c: 1 for c in COMPLETES}}


# ------------------------------------------------------------ the trick and its rule


class Trick:
    """What a trick has shown so far: the only input of the acceptability rule."""

    __slots__ = ("shown", "completes", "closed", "single_categories")

    def __init__(self) -> None:
        self.shown: tuple[set[str], ...] = (set(), set(), set())  # any length: see UCard
        self.completes: list[UCard] = []
        self.closed: set[int] = set()
        self.single_categories: set[int] = set()

    def add(self, card: UCard) -> None:
        if card.cat != COMPLETE:
            self.shown[card.cat].add(card.values[card.cat])
            self.single_categories.add(card.cat)
            return
        for other in self.completes:
            for i in range(3):
                if other.values[i] != card.values[i]:
                    self.closed.add(i)
        for i in range(3):
            self.shown[i].add(card.values[i])
        self.completes.append(card)

    def describe(self) -> str:
        parts = []
        for i, name in enumerate(CATEGORIES):
            vals = "/".join(sorted(self.shown[i])) or "-"
            parts.append(f"{name} {vals}" + (" (closed)" if i in self.closed else ""))
        return ", ".join(parts)

    def copy(self) -> Trick:
        """A copy that can take cards without changing this one (`clone_into`)."""
        new = Trick()
        new.shown = (set(self.shown[0]), set(self.shown[1]), set(self.shown[2]))
        new.completes = self.completes.copy()
        new.closed = set(self.closed)
        new.single_categories = set(self.single_categories)
        return new


def only_differing_category(a: UCard, b: UCard) -> int | None:
    """The one category in which two Completes differ, or None unless exactly one differs."""
    differing: int | None = None
    for i in range(3):
        if a.values[i] != b.values[i]:
            if differing is not None:
                return None
            differing = i
    return differing


def tricks_score(taken: int) -> tuple[int, str]:
    """A round's score: one point per trick taken (the lowest total wins)."""
    return taken, f"{taken} trick{'s' if taken != 1 else ''} taken -> {taken}"


def acceptable_cards(hand: dict[UCard, int], trick: Trick, led: bool) -> list[UCard]:
    """The distinct cards of `hand` that may continue the trick (all of them to lead)."""
    cards = list(dict.fromkeys(hand_cards(hand)))
    if not led:
        return cards
    return [c for c in cards if why_unacceptable(c, trick) is None]


def count_dealt(counts: dict[UCard, int], c: UCard, where: str) -> None:
    """Count one more copy of `c` dealt (`where`: the hand, or the removed Completes); more
    copies than the deck holds is an error. A function, not a closure in `on_deal`: the
    compiled engine calls it natively."""
    counts[c] = counts.get(c, 0) + 1
    if counts[c] > FULL_DECK[c]:
        what = "a Complete" if c.kind == "complete" else f"{SINGLE_COPIES} copies"
        raise RuleError(f"deal: {c} appears more often than the deck holds it "
                        f"({what}; {where})")


def shows_only(shown: set[str], value: str) -> bool:
    """Whether `shown` holds nothing but `value` (`shown <= {value}`, without making a set
    for every card judged)."""
    return not shown or len(shown) == 1 and value in shown


def why_unacceptable(card: UCard, trick: Trick) -> str | None:
    """Which part of the acceptability rule `card` breaks by continuing `trick`, or None
    when it may (the leader's card is not judged). The whole rule: the handler, the legal
    moves and the rendering of a trick all ask it."""
    if card.cat != COMPLETE:
        # A Single: its category is open and shows nothing but this value so far.
        name = CATEGORIES[card.cat]
        if card.cat in trick.closed:
            return f"{name} is closed"
        if not shows_only(trick.shown[card.cat], card.values[card.cat]):
            return f"the trick already shows {name} {'/'.join(sorted(trick.shown[card.cat]))}"
        return None
    if not trick.completes:
        # The first Complete must match every value shown by the Singles so far.
        for i in range(3):
            if not shows_only(trick.shown[i], card.values[i]):
                return f"it does not match {CATEGORIES[i]} {'/'.join(sorted(trick.shown[i]))}"
        return None
    # A later Complete matches each Complete in exactly two categories, and the third
    # category holds no Single.
    for other in trick.completes:
        d = only_differing_category(card, other)
        if d is None:
            return f"it does not match {other} in exactly two categories"
        if d in trick.single_categories:
            return f"a {CATEGORIES[d]} Single was played, so {CATEGORIES[d]} cannot clash"
    return None


# ------------------------------------------------------------------- facts


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class CompletesRemoved(Fact):
    """The three Completes taken out of the deck before a 4-6 player deal."""

    round: Final[int]
    removed: Final[tuple[UCard, ...]]

    def __init__(self, round: int, removed: tuple[UCard, ...]) -> None:
        self.round = round
        self.removed = removed


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class UTRTrickFinished(Fact):
    round: Final[int]
    trick: Final[int]
    leader: Final[int]
    cards: Final[tuple[tuple[int, UCard], ...]]  # (seat, card) in play order
    laps: Final[int]  # the most cards any one player put on this trick
    closed: Final[tuple[str, ...]]
    taker: Final[int | None]  # None: nobody had cards left, the trick was discarded
    line: Final[int]

    def __init__(self, round: int, trick: int, leader: int, cards: tuple[tuple[int, UCard], ...],
                 laps: int, closed: tuple[str, ...], taker: int | None, line: int) -> None:
        self.round = round
        self.trick = trick
        self.leader = leader
        self.cards = cards
        self.laps = laps
        self.closed = closed
        self.taker = taker
        self.line = line

    @property
    def taking_card(self) -> UCard | None:
        return self.cards[-1][1] if self.taker is not None else None


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class UTRRoundEnded(Fact):
    round: Final[int]
    how: Final[str]  # "last card" (a trick taken with the taker's last card) or "no cards"
    player: Final[int | None]
    tricks_taken: Final[tuple[int, ...]]
    line: Final[int]

    def __init__(self, round: int, how: str, player: int | None, tricks_taken: tuple[int, ...],
                 line: int) -> None:
        self.round = round
        self.how = how
        self.player = player
        self.tricks_taken = tricks_taken
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RadarRound(RoundOutcome):
    tricks: Final[int]
    how: Final[str]

    def __init__(self, tricks: int, how: str) -> None:
        self.tricks = tricks
        self.how = how

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.tricks}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.tricks,
                "end_reason": ("trick taken with the last card" if self.how == "last card"
                               else "nobody has cards left")}


def first_leader(players: int, dealer: int, totals: list[int], previous: int | None) -> int:
    """Who leads a round's first trick. The first round (`previous` is None): the player left
    of `dealer`. Later: the highest total, ties to the nearest clockwise from the previous
    round's first leader, that leader counted last."""
    if previous is None:
        return (dealer + 1) % players
    best = max(totals)
    s = previous
    for _ in range(players):
        s = (s + 1) % players
        if totals[s] == best:
            return s
    raise AssertionError("unreachable")  # pragma: no cover


# ------------------------------------------------------------------- state


class Phase(Enum):
    """What the round waits for (`self.phase`). A plain `Enum`: compiled, its members are
    read as C statics and compared by identity."""

    DEAL = "deal"  # a deal (the next round, or the first)
    PLAY = "play"  # the next card of the trick


class UnderTheRadarState(GameState):
    plays_only_rounds = True
    shown_parts = ("removed",)

    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=1)

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.hand_size = HAND_SIZE[self.n]
        self.removed_count = REMOVED[self.n]
        self.phase: Phase = Phase.DEAL
        self.hands: list[dict[UCard, int]] = [{} for _ in range(self.n)]
        self.trick = Trick()
        self.trick_cards: list[tuple[int, UCard]] = []
        self.taken = [0] * self.n
        self.turn = 0
        self.leader = 0
        self.round_leader: int | None = None  # the first leader of the last round dealt
        self.trick_no = 0
        self.removed: list[UCard] = []

    def next_round_leader(self) -> int:
        return first_leader(self.n, self.dealer, self.totals, self.round_leader)

    def handle(self, ev: Event) -> None:
        # natively called handlers, the most frequent event first (GameState.handle)
        t = ev.type
        if t == "play":
            self.on_play(ev)
        elif t == "deal":
            self.on_deal(ev)
        else:
            GameState.handle(self, ev)

    def on_deal(self, ev: Event) -> None:
        leader = self.next_round_leader()
        hands = self.begin_deal(ev)
        if self.round_no == 1:
            leader = self.left_of(self.dealer)
        live = self.live
        if live is not None:
            live.dealt = [self.hand_size] * self.n
        inferred = self.inferring or live is not None  # counts as far as they are known
        counts: dict[UCard, int] = {}
        for s, name in enumerate(self.players):
            cards = [CARDS.parse(c) for c in hands.get(name, [])]
            if len(cards) != self.hand_size and not inferred:
                raise RuleError(f"deal: with {self.n} players everybody gets {self.hand_size} "
                                f"cards, {name} got {len(cards)}")
            where = f"{name}'s hand"
            for c in cards:
                count_dealt(counts, c, where)
            self.hands[s] = hand_of(cards)
        removed_raw = optional_str_list(ev, "removed", "a list of Completes") or []
        if len(removed_raw) != self.removed_count and not inferred:
            if self.removed_count:
                raise RuleError(f"deal: with {self.n} players three different Completes are "
                                f"removed ('removed'), got {len(removed_raw)}")
            raise RuleError(f"deal: with {self.n} players every Complete is used, so 'removed' "
                            f"must be empty")
        removed: list[UCard] = []
        for raw in removed_raw:
            c = CARDS.parse(raw)
            if c.kind != "complete":
                raise RuleError(f"deal: only Completes are removed, {c} is a Single")
            count_dealt(counts, c, "removed")
            removed.append(c)
        named = self.named_leader(ev)
        if named is not None and named != leader:
            why = ("the player left of the dealer leads the first round"
                   if self.round_no == 1 else
                   "the player with the highest total leads (ties: nearest clockwise from "
                   "the last round's first leader)")
            raise RuleError(f"round {self.round_no} is led by {self.players[leader]}, not "
                            f"{self.players[named]}: {why}")
        self.removed = removed
        self.round_leader = leader
        self.leader = self.turn = leader
        self.taken = [0] * self.n
        self.trick = Trick()
        self.trick_cards = []
        self.trick_no = 0
        self.phase = Phase.PLAY
        self.emit(RoundDealt(self.round_no, self.dealer, leader,
                             tuple(tuple(self.hand(s)) for s in range(self.n)), ev.line))
        if removed:
            self.emit(CompletesRemoved(self.round_no, tuple(removed)))

    def on_play(self, ev: Event) -> None:
        if self.phase is not Phase.PLAY:
            if self.round_no == 0:
                raise RuleError("no card may be played now: no round has been dealt yet")
            raise RuleError(f"no card may be played now: round {self.round_no} is over "
                            f"(expected the next deal or a claim)")
        s = self.seat_of(ev)
        name = self.players[s]
        live = self.live
        if s != self.turn:
            if not self.hands[s] if live is None else not self.cards_left(s):
                raise RuleError(f"{name} has no cards left and is skipped: it is "
                                f"{self.players[self.turn]}'s turn")
            raise RuleError(f"{name} plays out of turn: it is {self.players[self.turn]}'s turn")
        card = CARDS.from_event(ev)
        hand = self.hands[s]
        trick = self.trick
        why = why_unacceptable(card, trick) if self.trick_cards else None
        if live is not None:  # whether they held a card the trick takes: known later
            self.live_card(s, card, ev.line, self.trick_no + 1)
        elif card not in hand:
            raise RuleError(f"{name} cannot play {card}: it is not in {name}'s hand")
        elif why is not None:
            held = next((c for c in hand if why_unacceptable(c, trick) is None), None)
            if held is not None:
                raise HandRuleError(
                    f"{name} cannot play {card}: it is not acceptable ({why}), and {name} "
                    f"holds {held}, which is", s, held.name,
                    f"played {card}, which trick {self.trick_no + 1} does not take ({why}),",
                    "a player who holds a card the trick takes must play one")
        remove_from_hand(hand, card)
        self.trick_cards.append((s, card))
        if why is not None:
            self._take(s, ev.line)
            return
        trick.add(card)
        nxt = self._next_with_cards(s)
        if nxt is None:
            self._finish_trick(None, ev.line)
            self._end_round("no cards", None, ev.line)
        else:
            self.turn = nxt

    def _next_with_cards(self, s: int) -> int | None:
        live = self.live
        for k in range(1, self.n + 1):
            t = (s + k) % self.n
            if self.hands[t] if live is None else self.cards_left(t):
                return t
        return None

    def _finish_trick(self, taker: int | None, line: int) -> None:
        cards = self.trick_cards
        per_seat: dict[int, int] = {}
        for p, _ in cards:
            per_seat[p] = per_seat.get(p, 0) + 1
        if taker is not None:
            self.trick_no += 1
        self.emit(UTRTrickFinished(
            self.round_no, self.trick_no if taker is not None else self.trick_no + 1,
            self.leader, tuple(cards), max(per_seat.values()),
            tuple(CATEGORIES[i] for i in sorted(self.trick.closed)), taker, line))
        self.trick = Trick()
        self.trick_cards = []

    def _take(self, s: int, line: int) -> None:
        self.taken[s] += 1
        self._finish_trick(s, line)
        if not self.hands[s] if self.live is None else not self.cards_left(s):
            self._end_round("last card", s, line)
        else:
            self.leader = self.turn = s

    def _end_round(self, how: str, player: int | None, line: int) -> None:
        scored = [tricks_score(k) for k in self.taken]
        scores = [k for k, _ in scored]
        derivs = [text for _, text in scored]
        self.emit(UTRRoundEnded(self.round_no, how, player, tuple(scores), line))
        self.phase = Phase.DEAL
        self.finish_round(scores, derivs, RadarRound(self.trick_no, how), line)
        if self.live is not None:
            self.round_played()

    def close(self) -> None:
        if self.in_round and self.trick_cards:
            self.emit(TrickAbandoned(self.round_no, self.trick_no + 1,
                                     tuple((s, c, None) for s, c in self.trick_cards)))

    # ------------------------------------------------------------ uniform API
    def hand(self, seat: int) -> list[Card]:
        cards: list[UCard] = hand_cards(self.hands[seat])
        return list(cards)

    def to_move(self) -> str | None:
        return self.players[self.turn] if self.phase is Phase.PLAY else None

    def legal_moves(self) -> list[Move]:
        if self.phase is not Phase.PLAY:
            return []
        live = self.live
        if live is not None:  # any card not seen as often as the deck holds it
            return [{"type": "play", "player": self.players[self.turn], "card": c.name}
                    for c, k in FULL_DECK.items() if live.seen.get(c, 0) < k]
        p = self.players[self.turn]
        hand = self.hands[self.turn]
        cards = (acceptable_cards(hand, self.trick, bool(self.trick_cards))
                 or acceptable_cards(hand, self.trick, False))
        return [{"type": "play", "player": p, "card": c.name} for c in cards]

    def rules_out(self, move: Move) -> frozenset[str]:
        """A card played that does not continue the trick shows that the player holds no
        card that would (`why_unacceptable`): they took the trick because they had to."""
        if move.get("type") != "play" or self.phase is not Phase.PLAY or not self.trick_cards:
            return frozenset()
        trick = self.trick
        if why_unacceptable(CARDS.parse(str(move.get("card"))), trick) is None:
            return frozenset()
        return frozenset(c.name for c in FULL_DECK if why_unacceptable(c, trick) is None)

    def next_chance(self) -> str | None:
        return "deal" if self.phase is Phase.DEAL and not self.over else None

    # ------------------------------------------------------------ plays-only rounds
    def copies(self, card: Card) -> int:
        return FULL_DECK.get(card, 0)  # type: ignore[call-overload]

    def show(self, seat: int | None, part: str | None, cards: list[Card], line: int) -> None:
        if self.phase is not Phase.DEAL or self.round_no == 0:
            raise RuleError("cards are shown at a round's end: this round is still being "
                            "played")
        if part is not None and not self.removed_count:
            raise RuleError(f"with {self.n} players no Complete is removed")
        live = self.live
        if live is None:
            held: list[Card] = list(self.hand(seat) if seat is not None else self.removed)
            self.full_show(seat, part, cards, held)
            return
        if part is not None and any(c.kind != "complete" for c in cards):
            raise RuleError("only Completes are removed before the deal")
        self.live_show(seat, part, cards, line,
                       self.cards_left(seat) if seat is not None else self.removed_count)

    def parts_left(self) -> dict[str, list[Card]]:
        return {"removed": list(self.removed)} if self.removed else {}

    def parts_to_show(self) -> dict[str, int]:
        live = self.live
        assert live is not None
        if self.removed_count and "removed" not in live.parts:
            return {"removed": self.removed_count}
        return {}

    def inferred_deal(self, live: LiveRound, upto: int | None) -> dict[str, Any]:
        data = GameState.inferred_deal(self, live, upto)
        removed = live.parts.get("removed")
        known = sum(len(h) for h in data["hands"].values())
        if removed is None and upto is None and known == self.n * self.hand_size:
            held = {n for h in data["hands"].values() for n in h}
            removed = [c for c in COMPLETES if c.name not in held]
        if removed is not None and self.removed_count:
            data["removed"] = [c.name for c in removed]
        return data

    def unknown_cards(self, live: LiveRound) -> list[str]:
        out = GameState.unknown_cards(self, live)
        if out and self.removed_count and "removed" not in live.parts:
            out.append("the three removed Completes, which the cards left in hand leave open")
        return out

    def draw_chance(self, rng: Random) -> Move:
        completes = list(COMPLETES)
        rng.shuffle(completes)
        removed = completes[:REMOVED[self.n]]
        deck = [c for c in SINGLES for _ in range(SINGLE_COPIES)] + completes[REMOVED[self.n]:]
        rng.shuffle(deck)
        ev: Move = {"type": "deal", "hands": deal_hands(deck, self.players, self.hand_size)}
        if removed:
            ev["removed"] = [c.name for c in removed]
        return ev

    # ------------------------------------------------------------ branching
    def clone_into(self, new: Any) -> None:
        """`GameState.clone`'s copy of this game's own attributes (hand size and removed
        count follow from the header and are set by `__init__`)."""
        st: UnderTheRadarState = new
        st.phase = self.phase
        st.hands = [h.copy() for h in self.hands]
        st.trick = self.trick.copy()
        st.trick_cards = self.trick_cards.copy()
        st.taken = self.taken.copy()
        st.turn = self.turn
        st.leader = self.leader
        st.round_leader = self.round_leader
        st.trick_no = self.trick_no
        st.removed = self.removed.copy()


# ------------------------------------------------------------------- the greedy bot
# When a card is acceptable, prefer Completes (they are the hardest to get rid
# of), then Singles we hold several of, keeping many different values for
# later. When forced to take the trick, give away a Complete if we can.


def heuristic(st: UnderTheRadarState, m: Move) -> float:
    s = st.seat[m["player"]]
    card = CARDS[m["card"]]
    copies = st.hands[s].get(card, 0)
    return 10.0 if card.cat == COMPLETE else float(copies)


# ------------------------------------------------------------------- rendering


def _render_removed(f: CompletesRemoved, players: tuple[str, ...]) -> list[str]:
    return [f"   removed {' '.join(c.name for c in f.removed)}"]


def _render_trick(f: UTRTrickFinished, players: tuple[str, ...]) -> list[str]:
    out = [f"Trick {f.trick} led by {players[f.leader]}:"]
    trick = Trick()
    for i, (s, c) in enumerate(f.cards):
        p = players[s]
        if i and f.taker is not None and i == len(f.cards) - 1:
            out.append(f"   {p} plays {c}: not acceptable "
                       f"({why_unacceptable(c, trick)}) -> {p} takes the trick "
                       f"(line {f.line})")
            break
        trick.add(c)
        out.append(f"   {p} plays {c}; shown: {trick.describe()}")
    if f.taker is None:
        out.append(f"   nobody has cards left: the trick is discarded (line {f.line})")
    out.append(f"   {len(f.cards)} cards, {f.laps} lap(s)"
               + (f", closed: {', '.join(f.closed)}" if f.closed else ""))
    return out


def _render_ended(f: UTRRoundEnded, players: tuple[str, ...]) -> list[str]:
    if f.how == "last card" and f.player is not None:
        return [f"Round {f.round} ends: {players[f.player]} took a trick with their last card"]
    return [f"Round {f.round} ends: nobody has cards left"]


# ------------------------------------------------------------------- rows
# under_the_radar's columns of the shared tables (GameInfo.columns)

COLUMNS: Final = (
    # the categories a trick closed (its taking card's category, once it was judged)
    SharedColumns("tricks", after="laps", columns=(Column("closed", "VARCHAR[]"),)),
)


# --- generated by `python -m trickledger.replay.rowgen` from the declared tables: do not edit


class TricksRows(RowWriter):
    """Rows of `tricks` as under_the_radar fills them (generated)."""

    TABLE: ClassVar[str] = "tricks"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "leader", "led_color",
                                          "cards", "players", "winner", "winning_card", "length",
                                          "laps", "closed", "next_leader", "stacks", "line")

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
        self.closed = rows.strings("closed")
        self.next_leader = rows.values("next_leader")
        self.stacks = rows.stacks("stacks")
        self.line = rows.values("line")

    def add(self, round: int, trick: int, leader: str, led_color: str | None, cards: Iterable[str],
            players: Iterable[str], winner: str | None, winning_card: str | None, length: int,
            laps: int, closed: Iterable[str], next_leader: str | None,
            stacks: Iterable[Stack] | None, line: int) -> None:
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
        self.closed.append(closed)
        self.next_leader.append(next_leader)
        self.stacks.append(stacks)
        self.line.append(line)
        self.pad()


# --- end of the generated code



def _project_removed(f: CompletesRemoved, sink: RowSink) -> None:
    """The removed Completes are in the log's text; no table holds them."""


def _project_trick(f: UTRTrickFinished, sink: RowSink) -> None:
    P = sink.players
    taker = P[f.taker] if f.taker is not None else None
    card = f.taking_card
    cards = [c.name for _, c in f.cards]
    sink.rows(TricksRows).add(
        round=f.round, trick=f.trick, leader=P[f.leader], led_color=None, cards=cards,
        players=[P[s] for s, _ in f.cards], winner=taker,
        winning_card=card.name if card is not None else None, length=len(f.cards),
        laps=f.laps, closed=f.closed, next_leader=taker, stacks=None, line=f.line)
    plays_rows(sink, f.round, f.trick, [(s, c, None) for s, c in f.cards])
    if taker is not None:
        sink.takes.add(round=f.round, trick=f.trick, player=taker, role="whole_trick",
                       cards=cards, n_cards=len(cards), kept_cards=len(cards))


def _project_ended(f: UTRRoundEnded, sink: RowSink) -> None:
    """How the round ended is a column of `rounds` (the round's outcome)."""


# ------------------------------------------------------------------- analytics
# the questions the SQL console offers about the game (GameInfo.examples; docs/sql.md)
EXAMPLES: Final = (
    ('Which under_the_radar tricks went round the table the most?',
     """SELECT t.game_id, t.round, t.trick, t.length, t.laps, t.closed, t.winner AS taker
FROM tricks t JOIN games g USING (game_id)
WHERE g.game = 'under_the_radar'
ORDER BY t.laps DESC, t.length DESC, t.game_id, t.round, t.trick
LIMIT 10;"""),
)


# =================================================================== the score sheet
# A round on a score sheet (replay/sheet.py): per player the tricks taken. Each
# end-of-round rule is one predicate below; the score is `tricks_score()`.


def most_taken(players: int) -> int:
    """The most tricks one player can take in a round. A take costs the taker two cards of
    their hand — the card that took it and the lead of the next trick — except a take with
    the last card of the hand, which ends the game: so at most (hand size + 1) // 2."""
    return (HAND_SIZE[players] + 1) // 2


def taken_fits_hand(players: int, taken: int) -> bool:
    """No more tricks than a hand can pay for (see `most_taken`)."""
    return taken <= most_taken(players)


def enders_fit(players: int, taken: list[int]) -> bool:
    """With an odd hand size, reaching `most_taken` needs the game-ending take (the last
    card of the hand): only one player can do that."""
    hs = HAND_SIZE[players]
    return hs % 2 == 0 or sum(1 for k in taken if k == most_taken(players)) <= 1


def most_taken_by_first_leader(players: int) -> int:
    """The most tricks the round's first leader can take. They lay the first lead before any
    trick is taken, so on top of `most_taken`'s two cards per take (one per take with the
    last card) their hand pays one more card: at most hand size // 2 — one fewer than
    `most_taken` when the hand size is odd (3, 4 and 7 players)."""
    return HAND_SIZE[players] // 2


def some_trick_taken(taken: list[int]) -> bool:
    """Somebody takes a trick in every round. With no take, every card of the round would
    lie in its first trick, but all 36 Singles are dealt, so a red and a green Single would
    both be played in it: whichever came later was judged (only the lead is not) against
    the other colour already shown, and was unacceptable, so its player took the trick."""
    return sum(taken) > 0


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RadarSheetEntered(Fact):
    """A round as the score sheet gives it: per seat the tricks taken."""

    round: Final[int]
    dealer: Final[int]
    taken: Final[tuple[int, ...]]
    line: Final[int]

    def __init__(self, round: int, dealer: int, taken: tuple[int, ...], line: int) -> None:
        self.round = round
        self.dealer = dealer
        self.taken = taken
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RadarSheetOutcome(RoundOutcome):
    tricks: Final[int]  # tricks taken in all

    def __init__(self, tricks: int) -> None:
        self.tricks = tricks

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.tricks}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.tricks, "end_reason": SHEET_END}


class RadarSheet(SheetState):
    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.round_leader: int | None = None  # the first leader of the last round entered

    @classmethod
    def form(cls, header: Header, round_no: int) -> SheetForm:
        top = most_taken(len(header.players))
        return SheetForm(players=(SheetField(("taken",), "tricks", 0, top, required=True,
                                             help="tricks the player took"),),
                         about="Tricks each player took (fewest wins)")

    def score_sheet(self, ev: Event, entries: list[dict[str, Any]]
                    ) -> tuple[list[int], list[str], RoundOutcome]:
        n = self.n
        hs = HAND_SIZE[n]
        taken: list[int] = []
        for s, entry in enumerate(entries):
            name = self.players[s]
            k = number(entry, "taken", f"{name}'s entry")
            if not taken_fits_hand(n, k):
                raise RuleError(f"{name} took {k} tricks, but with {n} players a hand holds "
                                f"{hs} cards and each take costs two of them (the card that "
                                f"took it and the next lead), except a last take with the "
                                f"last card: at most {most_taken(n)} tricks")
            taken.append(k)
        if not enders_fit(n, taken):
            who = ", ".join(self.players[s] for s, k in enumerate(taken) if k == most_taken(n))
            raise RuleError(f"{who} each took {most_taken(n)} tricks, which with {hs} cards "
                            f"needs the game-ending take with the last card of the hand: only "
                            f"one player can make it")
        leader = first_leader(n, self.dealer, self.totals, self.round_leader)
        if taken[leader] > most_taken_by_first_leader(n):
            raise RuleError(f"{self.players[leader]} took {taken[leader]} tricks, but as the "
                            f"first leader of round {self.round_no} "
                            f"{self.players[leader]} laid the first lead before any take: with "
                            f"{hs} cards that leaves at most {most_taken_by_first_leader(n)} "
                            f"tricks (two cards a take, one for a take with the last card)")
        if not some_trick_taken(taken):
            raise RuleError(f"nobody took a trick in round {self.round_no}, but every round has "
                            f"a take: all the Singles are dealt, and once a red Single is shown a "
                            f"green one is unacceptable (and the other way round), so the later "
                            f"of the two takes the trick")
        self.round_leader = leader
        scored = [tricks_score(k) for k in taken]
        self.emit(RadarSheetEntered(self.round_no, self.dealer, tuple(taken), ev.line))
        return [k for k, _ in scored], [text for _, text in scored], \
            RadarSheetOutcome(sum(taken))

    @classmethod
    def line_of(cls, facts: Sequence[Fact], scored: RoundScored,
                players: tuple[str, ...]) -> dict[str, Any]:
        ended = next(f for f in facts if isinstance(f, UTRRoundEnded))
        return {"players": {p: {"taken": k} for p, k in zip(players, ended.tricks_taken)}}


def _render_sheet(f: RadarSheetEntered, players: tuple[str, ...]) -> list[str]:
    return [sheet_head(f.round, f.dealer, f.line, players),
            *table_lines(players, ("tricks", "score"), [(k, k) for k in f.taken])]


def _project_sheet(f: RadarSheetEntered, sink: RowSink) -> None:
    """A sheet's round is stored as its rounds and round_scores rows (from RoundScored)."""



# =================================================================== the native engine
# The rest of a round as the native analysis engine's position
# (replay/native/under_the_radar.hpp reads these numbers in this order), and moves as its
# codes. A card is its number in the game's deck (Card.index): the nine Singles, then the 27
# Completes.

NATIVE_PHASE: Final = {Phase.PLAY: 0, Phase.DEAL: 1}


def native_position(st: UnderTheRadarState) -> list[int]:
    """players, phase, turn, leader, tricks taken in all; per seat the tricks taken; per
    seat the hand (the copies of each Single, then the Completes as a bit set); the cards in
    the trick, the values it shows per category (bits), its closed categories (bits), the
    categories of the Singles in it (bits) and its Completes (a bit set)."""
    out = [st.n, NATIVE_PHASE[st.phase], st.turn, st.leader, st.trick_no]
    out.extend(st.taken)
    for s in range(st.n):
        singles = [0] * len(SINGLES)
        completes = 0
        for c, k in st.hands[s].items():
            if c.cat == COMPLETE:
                completes |= 1 << (c.index - len(SINGLES))
            else:
                singles[c.index] = k
        out.extend(singles)
        out.append(completes)
    trick = st.trick
    out.append(len(st.trick_cards))
    for i in range(3):
        shown = 0
        for v in trick.shown[i]:
            shown |= 1 << VALUES[i].index(v)
        out.append(shown)
    out.append(sum(1 << i for i in trick.closed))
    out.append(sum(1 << i for i in trick.single_categories))
    out.append(sum(1 << (c.index - len(SINGLES)) for c in trick.completes))
    return out


def native_move_code(st: UnderTheRadarState, m: Move) -> int:
    if m["type"] != "play":
        raise ValueError(f"under_the_radar has no {m['type']!r} move")
    return codes.pack(codes.PLAY, st.seat[m["player"]], CARDS.parse(m["card"]).index)


def native_move_of(st: UnderTheRadarState, code: int) -> Move:
    if codes.kind_of(code) != codes.PLAY:
        raise ValueError(f"{code} is not an under_the_radar move code")
    return {"type": "play", "player": st.players[codes.seat_of(code)],
            "card": CARDS.deck_order[codes.payload_of(code)].name}

INFO = register(GameInfo(
    name="under_the_radar", title="Under the Radar", min_players=3, max_players=7,
    state_class=UnderTheRadarState, cards=CARDS, lowest_wins=True,
    render={CompletesRemoved: _render_removed, UTRTrickFinished: _render_trick,
            UTRRoundEnded: _render_ended, RadarSheetEntered: _render_sheet},
    project={CompletesRemoved: _project_removed, UTRTrickFinished: _project_trick,
             UTRRoundEnded: _project_ended, RadarSheetEntered: _project_sheet},
    heuristic=heuristic, step_facts=(UTRTrickFinished,), sheet_state=RadarSheet,
    events=("deal", "play"), injectable=("play",), columns=COLUMNS,
    # a round scores the tricks taken, in the low single digits (lower is better)
    bands=(0.5, 1.0, 2.0),
    colors={v: CHIP_COLORS[v] for v in VALUES[1]},  # the colour words
    color_names={v: v for v in VALUES[1]},
    face_down=("removed",),  # the Completes taken out before the deal: nobody sees them
    examples=EXAMPLES,
    native=NativeCodec("under_the_radar", native_position, native_move_code, native_move_of,
                       solve_cards=16, endgame_cards=12),
))
