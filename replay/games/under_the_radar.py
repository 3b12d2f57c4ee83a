"""`under_the_radar` — trick avoidance with Singles and Completes (RULES.md section 4).

A trick goes round the table while players can play an acceptable card; the
player who cannot plays any card and takes the trick (one point, and points
are bad). `acceptable()` is the whole acceptability rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cards import Card, CardTable, hand_cards, hand_of, remove_from_hand
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

# Categories in the order a Complete is written: pattern-colour-shape.
CATEGORIES = ("pattern", "colour", "shape")
VALUES = (("filled", "hollow", "partial"), ("red", "green", "blue"),
          ("triangle", "square", "circle"))
SINGLE_COPIES = 4
HAND_SIZE = {3: 21, 4: 15, 5: 12, 6: 10, 7: 9}
REMOVED = {3: 0, 4: 3, 5: 3, 6: 3, 7: 0}


class UCard(Card):
    """A Single has one value (`cat` is its category); a Complete has all three."""

    __slots__ = ("cat", "values")

    def __init__(self, name: str, cat: int | None, values: tuple[str | None, str | None, str | None]):
        super().__init__(name, None, 0, "single" if cat is not None else "complete")
        self.cat = cat
        self.values = values


def _single(cat: int, v: str) -> UCard:
    vals: list[str | None] = [None, None, None]
    vals[cat] = v
    return UCard(v, cat, (vals[0], vals[1], vals[2]))


SINGLES = [_single(i, v) for i in range(3) for v in VALUES[i]]
COMPLETES = [UCard(f"{p}-{c}-{s}", None, (p, c, s))
             for p in VALUES[0] for c in VALUES[1] for s in VALUES[2]]
CARDS = CardTable(SINGLES + COMPLETES, upper=False)
FULL_DECK: dict[Card, int] = {**{c: SINGLE_COPIES for c in SINGLES}, **{c: 1 for c in COMPLETES}}


# ------------------------------------------------------------ the trick and its rule


class Trick:
    """What a trick has shown so far: the only input of the acceptability rule."""

    __slots__ = ("shown", "completes", "closed", "single_categories")

    def __init__(self) -> None:
        self.shown: tuple[set[str], set[str], set[str]] = (set(), set(), set())
        self.completes: list[UCard] = []
        self.closed: set[int] = set()
        self.single_categories: set[int] = set()

    def add(self, card: UCard) -> None:
        if card.cat is not None:
            self.shown[card.cat].add(card.values[card.cat])  # type: ignore[arg-type]
            self.single_categories.add(card.cat)
            return
        for other in self.completes:
            for i in range(3):
                if other.values[i] != card.values[i]:
                    self.closed.add(i)
        for i in range(3):
            self.shown[i].add(card.values[i])  # type: ignore[arg-type]
        self.completes.append(card)

    def describe(self) -> str:
        parts = []
        for i, name in enumerate(CATEGORIES):
            vals = "/".join(sorted(self.shown[i])) or "-"
            parts.append(f"{name} {vals}" + (" (closed)" if i in self.closed else ""))
        return ", ".join(parts)


def only_differing_category(a: UCard, b: UCard) -> int | None:
    """The one category in which two Completes differ, or None unless exactly one differs."""
    diff = [i for i in range(3) if a.values[i] != b.values[i]]
    return diff[0] if len(diff) == 1 else None


def acceptable(card: UCard, trick: Trick) -> bool:
    """Whether `card` may continue `trick` (the leader's card is not judged)."""
    if card.cat is not None:
        # A Single: its category is open and shows nothing but this value so far.
        cat = card.cat
        return cat not in trick.closed and trick.shown[cat] <= {card.values[cat]}
    if not trick.completes:
        # The first Complete must match every value shown by the Singles so far.
        return all(trick.shown[i] <= {card.values[i]} for i in range(3))
    # A later Complete matches each Complete in exactly two categories, and the
    # third category holds no Single.
    for other in trick.completes:
        d = only_differing_category(card, other)
        if d is None or d in trick.single_categories:
            return False
    return True


def why_unacceptable(card: UCard, trick: Trick) -> str:
    """A sentence saying which part of the rule `card` breaks on `trick`."""
    if card.cat is not None:
        name = CATEGORIES[card.cat]
        if card.cat in trick.closed:
            return f"{name} is closed"
        return f"the trick already shows {name} {'/'.join(sorted(trick.shown[card.cat]))}"
    if not trick.completes:
        for i in range(3):
            if not trick.shown[i] <= {card.values[i]}:
                return f"it does not match {CATEGORIES[i]} {'/'.join(sorted(trick.shown[i]))}"
    for other in trick.completes:
        d = only_differing_category(card, other)
        if d is None:
            return f"it does not match {other} in exactly two categories"
        if d in trick.single_categories:
            return f"a {CATEGORIES[d]} Single was played, so {CATEGORIES[d]} cannot clash"
    return "it is acceptable"  # pragma: no cover


# ------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class UTRTrickFinished:
    round: int
    trick: int
    leader: str
    cards: tuple[tuple[str, str], ...]  # (player, card) in play order
    length: int
    laps: int  # the most cards any one player put on this trick
    closed: tuple[str, ...]
    taker: str | None  # None: nobody had cards left, the trick was discarded
    taking_card: str | None
    line: int


@dataclass(frozen=True, slots=True)
class UTRRoundEnded:
    round: int
    how: str  # "last card" (a trick taken with the taker's last card) or "no cards"
    player: str | None
    tricks_taken: dict[str, int]
    line: int


class UnderTheRadarState(GameState):
    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=1)

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.hand_size = HAND_SIZE[self.n]
        self.removed_count = REMOVED[self.n]
        self.phase = "deal"
        self.hands: list[dict[Card, int]] = [{} for _ in range(self.n)]
        self.trick = Trick()
        self.trick_cards: list[tuple[int, UCard]] = []
        self.taken = [0] * self.n
        self.turn = 0
        self.leader = 0
        self.round_leader: int | None = None  # the first leader of the last round dealt
        self.trick_no = 0

    def next_round_leader(self) -> int:
        """Round 1: left of the dealer. Later: highest total, ties to the nearest clockwise
        from the previous round's first leader, that leader counted last."""
        if self.round_leader is None:
            return self.left_of(self.dealer)
        best = max(self.totals.values())
        s = self.round_leader
        for _ in range(self.n):
            s = self.left_of(s)
            if self.totals[self.players[s]] == best:
                return s
        raise AssertionError("unreachable")  # pragma: no cover

    def on_deal(self, ev: Event) -> None:
        if self.in_round:
            raise RuleError(f"a deal came before round {self.round_no} was finished")
        leader = self.next_round_leader()
        hands = self.begin_deal(ev)
        if self.round_no == 1:
            leader = self.left_of(self.dealer)
        counts: dict[Card, int] = {}

        def count(c: Card, where: str) -> None:
            counts[c] = counts.get(c, 0) + 1
            if counts[c] > FULL_DECK[c]:
                what = "a Complete" if c.kind == "complete" else f"{SINGLE_COPIES} copies"
                raise RuleError(f"deal: {c} appears more often than the deck holds it "
                                f"({what}; {where})")

        for s, name in enumerate(self.players):
            cards = [CARDS.parse(c, "under_the_radar") for c in hands[name]]
            if len(cards) != self.hand_size:
                raise RuleError(f"deal: with {self.n} players everybody gets {self.hand_size} "
                                f"cards, {name} got {len(cards)}")
            for c in cards:
                count(c, f"{name}'s hand")
            self.hands[s] = hand_of(cards)
        removed_raw = str_list(ev, "removed", "a list of Completes") \
            if ev.data.get("removed") is not None else []
        if len(removed_raw) != self.removed_count:
            if self.removed_count:
                raise RuleError(f"deal: with {self.n} players three different Completes are "
                                f"removed ('removed'), got {len(removed_raw)}")
            raise RuleError(f"deal: with {self.n} players every Complete is used, so 'removed' "
                            f"must be empty")
        for raw in removed_raw:
            c = CARDS.parse(raw, "under_the_radar")
            if c.kind != "complete":
                raise RuleError(f"deal: only Completes are removed, {c} is a Single")
            count(c, "removed")
        if "leader" in ev.data:
            named = self.player(ev, "leader")
            if named != leader:
                why = ("the player left of the dealer leads the first round"
                       if self.round_no == 1 else
                       "the player with the highest total leads (ties: nearest clockwise from "
                       "the last round's first leader)")
                raise RuleError(f"round {self.round_no} is led by {self.players[leader]}, not "
                                f"{self.players[named]}: {why}")
        self.round_leader = leader
        self.leader = self.turn = leader
        self.taken = [0] * self.n
        self.trick = Trick()
        self.trick_cards = []
        self.trick_no = 0
        self.phase = "play"
        self.facts.append(RoundDealt(
            self.round_no, self.players[self.dealer], self.players[leader],
            {p: tuple(c.name for c in hand_cards(self.hands[s])) for s, p in enumerate(self.players)},
            {"removed": tuple(CARDS.parse(r, "under_the_radar").name for r in removed_raw)},
            ev.line))

    def on_play(self, ev: Event) -> None:
        if self.phase != "play":
            if self.round_no == 0:
                raise RuleError("no card may be played now: no round has been dealt yet")
            raise RuleError(f"no card may be played now: round {self.round_no} is over "
                            f"(expected the next deal or a claim)")
        s = self.seat_of(ev)
        name = self.players[s]
        if s != self.turn:
            if not self.hands[s]:
                raise RuleError(f"{name} has no cards left and is skipped: it is "
                                f"{self.players[self.turn]}'s turn")
            raise RuleError(f"{name} plays out of turn: it is {self.players[self.turn]}'s turn")
        card = CARDS.from_event(ev, "under_the_radar")
        hand = self.hands[s]
        if card not in hand:
            raise RuleError(f"{name} cannot play {card}: it is not in {name}'s hand")
        trick = self.trick
        ok = not self.trick_cards or acceptable(card, trick)  # type: ignore[arg-type]
        if not ok:
            held = next((c for c in hand if acceptable(c, trick)), None)  # type: ignore[arg-type]
            if held is not None:
                raise RuleError(f"{name} cannot play {card}: it is not acceptable "
                                f"({why_unacceptable(card, trick)}), and {name} holds {held}, "
                                f"which is")
        remove_from_hand(hand, card)
        self.trick_cards.append((s, card))  # type: ignore[arg-type]
        if not ok:
            self._take(s, card, ev.line)
            return
        trick.add(card)  # type: ignore[arg-type]
        nxt = self._next_with_cards(s)
        if nxt is None:
            self._finish_trick(None, None, ev.line)
            self._end_round("no cards", None, ev.line)
        else:
            self.turn = nxt

    def _next_with_cards(self, s: int) -> int | None:
        for k in range(1, self.n + 1):
            t = (s + k) % self.n
            if self.hands[t]:
                return t
        return None

    def _finish_trick(self, taker: int | None, card: UCard | None, line: int) -> None:
        cards = self.trick_cards
        per_seat: dict[int, int] = {}
        for p, _ in cards:
            per_seat[p] = per_seat.get(p, 0) + 1
        if taker is not None:
            self.trick_no += 1
        self.facts.append(UTRTrickFinished(
            self.round_no, self.trick_no if taker is not None else self.trick_no + 1,
            self.players[self.leader], tuple((self.players[p], c.name) for p, c in cards),
            len(cards), max(per_seat.values()),
            tuple(CATEGORIES[i] for i in sorted(self.trick.closed)),
            self.players[taker] if taker is not None else None,
            card.name if card is not None else None, line))
        self.trick = Trick()
        self.trick_cards = []

    def _take(self, s: int, card: UCard, line: int) -> None:
        self.taken[s] += 1
        self._finish_trick(s, card, line)
        if not self.hands[s]:
            self._end_round("last card", s, line)
        else:
            self.leader = self.turn = s

    def _end_round(self, how: str, player: int | None, line: int) -> None:
        scores = {p: self.taken[s] for s, p in enumerate(self.players)}
        derivs = {p: f"{k} trick{'s' if k != 1 else ''} taken -> {k}" for p, k in scores.items()}
        self.facts.append(UTRRoundEnded(self.round_no, how,
                                        self.players[player] if player is not None else None,
                                        scores, line))
        self.phase = "deal"
        self.finish_round(scores, derivs, {"tricks": self.trick_no}, line)

    # ------------------------------------------------------------ uniform API
    def to_move(self) -> str | None:
        return self.players[self.turn] if self.phase == "play" else None

    def acceptable_cards(self) -> list[UCard]:
        hand = hand_cards(self.hands[self.turn])
        if not self.trick_cards:
            return list(dict.fromkeys(hand))  # type: ignore[arg-type]
        return [c for c in dict.fromkeys(hand) if acceptable(c, self.trick)]  # type: ignore[arg-type]

    def legal_moves(self) -> list[dict[str, Any]]:
        if self.phase != "play":
            return []
        p = self.players[self.turn]
        cards = self.acceptable_cards() or list(dict.fromkeys(hand_cards(self.hands[self.turn])))
        return [{"type": "play", "player": p, "card": c.name} for c in cards]

    def new_deal(self, rng: Any) -> dict[str, Any]:
        completes = list(COMPLETES)
        rng.shuffle(completes)
        removed = completes[:REMOVED[self.n]]
        deck = [c for c in SINGLES for _ in range(SINGLE_COPIES)] + completes[REMOVED[self.n]:]
        rng.shuffle(deck)
        hs = self.hand_size
        ev: dict[str, Any] = {"type": "deal", "hands": {
            p: [c.name for c in sorted(deck[i * hs:(i + 1) * hs], key=lambda c: c.index)]
            for i, p in enumerate(self.players)}}
        if removed:
            ev["removed"] = [c.name for c in removed]
        return ev


def render_fact(f: Any, players: tuple[str, ...]) -> list[str]:
    """Lines of `replay` for one of this game's facts."""
    out: list[str] = []
    if isinstance(f, RoundDealt):
        out.append(f"== Round {f.round}: {f.dealer} deals, {f.leader} leads")
        out.extend(hands_lines(f))
        if f.extra.get("removed"):
            out.append(f"   removed {' '.join(f.extra['removed'])}")
    elif isinstance(f, UTRTrickFinished):
        out.append(f"Trick {f.trick} led by {f.leader}:")
        trick = Trick()
        for i, (p, name) in enumerate(f.cards):
            c = CARDS[name]
            if i and f.taker is not None and i == len(f.cards) - 1:
                out.append(f"   {p} plays {name}: not acceptable "
                           f"({why_unacceptable(c, trick)}) -> {p} takes the trick "
                           f"(line {f.line})")
                break
            trick.add(c)
            out.append(f"   {p} plays {name}; shown: {trick.describe()}")
        if f.taker is None:
            out.append(f"   nobody has cards left: the trick is discarded (line {f.line})")
        out.append(f"   {f.length} cards, {f.laps} lap(s)"
                   + (f", closed: {', '.join(f.closed)}" if f.closed else ""))
    elif isinstance(f, UTRRoundEnded):
        if f.how == "last card":
            out.append(f"Round {f.round} ends: {f.player} took a trick with their last card")
        else:
            out.append(f"Round {f.round} ends: nobody has cards left")
    return out


INFO = register(GameInfo(
    name="under_the_radar", title="Under the Radar", min_players=3, max_players=7,
    state_class=UnderTheRadarState, lowest_wins=True,
    render_fact=render_fact,
))
