"""`rage` — bidding with trump changes, Jokers and action cards (docs/rules.md section 2).

Ten rounds of 10, 9, ... 1 cards. The pile's turned card sets trump (action
cards turned up are skipped); each player bids how many tricks they will win;
+1 per trick, +/-5 per +5/-5 card won, +10 for an exact bid, -5 otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from random import Random
from typing import Any, ClassVar, Final

from ..cards import (
    CHIP_COLORS,
    Card,
    CardTable,
    card_order,
    deal_hands,
    hand_cards,
    hand_of,
    randbelow,
    remove_from_hand,
)
from ..errors import FormatError, HandRuleError, RuleError
from ..events import Event, Header, field_of, kind
from ..facts import Fact, RoundDealt, RoundOutcome, RoundScored, TrickAbandoned
from ..info import GamePage, NativeCodec
from ..native import codes
from ..registry import GameInfo, Move, register
from ..render import hands_lines
from ..rows import RowSink, RowWriter, Stack, TableRows, plays_rows
from ..sheet import SHEET_END, SheetField, SheetForm, SheetState, number, sheet_head, table_lines
from ..state import GameState, check_rounds
from ..tables import Column, SharedColumns

# Module constants are Final: compiled, they are read as C statics, not looked up by name.
COLORS: Final = "BGRYPO"
COLOR_NAMES: Final = {"B": "blue", "G": "green", "R": "red", "Y": "yellow", "P": "purple", "O": "orange"}
ACTIONS: Final = {"JOKER": 2, "NOTRUMP": 4, "CHANGE": 4, "+5": 3, "-5": 3}
VARIANTS: Final = ("plus_minus_one", "hidden_bid", "secret_bid", "marching_through")
MAX_ROUNDS: Final = 10

CARDS: Final[CardTable[Card]] = CardTable(
    [Card(f"{c}{v}", c, v, "color") for c in COLORS for v in range(16)]
    + [Card(a, "", 0, a) for a in ACTIONS], "rage")
DECK: Final[dict[Card, int]] = {c: (ACTIONS[c.kind] if not c.color else 1) for c in CARDS}
DECK_SIZE: Final = sum(DECK.values())
JOKER: Final = CARDS["JOKER"]
NOTRUMP: Final = CARDS["NOTRUMP"]
CHANGE: Final = CARDS["CHANGE"]
PLUS5: Final = CARDS["+5"]
MINUS5: Final = CARDS["-5"]


# ------------------------------------------------------------------- rules


def hand_size(round_no: int) -> int:
    return 11 - round_no


def may_play(card: Card, colors: dict[str, int], led: str | None) -> bool:
    """The follow rule: a card of the led colour if the hand has one; any card otherwise.
    Action cards (the Joker included) count as not following. `colors` is the hand's count
    of cards per colour (`color_counts`): the check does not scan the hand."""
    if led is None or card.color == led:
        return True
    return not colors.get(led, 0)


def in_deck_order(hand: dict[Card, int]) -> list[Card]:
    """A hand's distinct cards in deck order. A hand keeps the order of its deal, which is
    deck order in every simulated log: then nothing is sorted."""
    cards = list(hand)
    last = -1
    for c in cards:
        if c.index < last:
            cards.sort(key=card_order)
            break
        last = c.index
    return cards


def color_counts(hand: dict[Card, int]) -> dict[str, int]:
    """A hand's number of cards per colour ("" for the action cards)."""
    out: dict[str, int] = {}
    for c, k in hand.items():
        out[c.color] = out.get(c.color, 0) + k
    return out


def bid_in_range(bid: int, tricks: int) -> bool:
    return 0 <= bid <= tricks


def breaks_plus_minus_one(bid: int, others: int, last: bool, tricks: int) -> bool:
    """With plus_minus_one the last bid recorded may not make the bids add up to the tricks."""
    return last and others + bid == tricks


def winning_index(trick: list[tuple[int, Card, str | None]], trump: str | None,
                  led: str | None) -> int:
    """Index of the card that wins `trick` (seat, card, Joker colour) under `trump`.

    The highest trump wins; without one, the highest card of the led colour; a
    Joker tops its named colour, the later Joker above the earlier. With no
    colour card or Joker at all, the first card played wins.
    """
    for target in (trump, led):
        if target is None:
            continue
        best_rank = -1
        best_i = -1
        for i, (_, c, as_c) in enumerate(trick):
            if c.color == target:
                rank = c.value
            elif as_c == target:
                rank = 16 + i
            else:
                continue
            if rank > best_rank:
                best_rank, best_i = rank, i
        if best_i >= 0:
            return best_i
    return 0


def score_round(won: int, bid: int, plus5: int, minus5: int, tricks: int,
                marching_through: bool) -> tuple[int, bool, str]:
    """A player's round score, whether they marched through, and the derivation."""
    marching = marching_through and tricks > 1 and won == tricks
    per = 2 if marching else 1
    base = won * per
    noun = "trick" if won == 1 else "tricks"
    text = f"{won} {noun}" + (" (marching through: 2 each)" if marching else "") + f", bid {bid} -> "
    if won == bid:
        total = base + 10
        text += f"{base} + 10 = {total}"
    else:
        total = base - 5
        text += f"{base} - 5 = {total}"
    for k, sign in ((plus5, "+5"), (minus5, "-5")):
        if k:
            total += 5 * k if sign == "+5" else -5 * k
            text += f", {sign} " + ("card" if k == 1 else f"x{k}") + f" -> {total}"
    return total, marching, text


# ------------------------------------------------------------------- facts


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class TrumpTurned(Fact):
    round: Final[int]
    trick: Final[int]  # the trick being played (0: before the first trick)
    seq: Final[int]  # order of the turned cards within the round
    card: Final[Card]
    reason: Final[str]  # "deal", "change" or "notrump"
    trump: Final[str | None]  # the trump once this card is turned (None while only action cards showed)
    line: Final[int]

    def __init__(self, round: int, trick: int, seq: int, card: Card, reason: str,
                 trump: str | None, line: int) -> None:
        self.round = round
        self.trick = trick
        self.seq = seq
        self.card = card
        self.reason = reason
        self.trump = trump
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class BidMade(Fact):
    round: Final[int]
    player: Final[int]
    bid: Final[int]
    line: Final[int]

    def __init__(self, round: int, player: int, bid: int, line: int) -> None:
        self.round = round
        self.player = player
        self.bid = bid
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RageTrickFinished(Fact):
    round: Final[int]
    trick: Final[int]
    leader: Final[int]
    cards: Final[tuple[tuple[int, Card, str | None], ...]]  # (seat, card, Joker's colour)
    led_color: Final[str | None]
    trump: Final[str | None]  # the trump in force for this trick (None under NOTRUMP)
    notrump: Final[bool]
    change: Final[bool]
    winner: Final[int]
    winning_card: Final[Card]
    plus5: Final[int]
    minus5: Final[int]
    line: Final[int]

    def __init__(self, round: int, trick: int, leader: int,
                 cards: tuple[tuple[int, Card, str | None], ...], led_color: str | None,
                 trump: str | None, notrump: bool, change: bool, winner: int, winning_card: Card,
                 plus5: int, minus5: int, line: int) -> None:
        self.round = round
        self.trick = trick
        self.leader = leader
        self.cards = cards
        self.led_color = led_color
        self.trump = trump
        self.notrump = notrump
        self.change = change
        self.winner = winner
        self.winning_card = winning_card
        self.plus5 = plus5
        self.minus5 = minus5
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class BidSettled(Fact):
    """One player's round: bid against tricks won, with what the analytics need."""

    round: Final[int]
    player: Final[int]
    hand_size: Final[int]
    bid: Final[int]
    won: Final[int]
    bid_error: Final[int]  # won - bid
    exact: Final[bool]
    plus5: Final[int]
    minus5: Final[int]
    trumps_held: Final[int]  # trump-colour cards in the hand when bidding
    jokers_held: Final[int]
    marching: Final[bool]
    score: Final[int]

    def __init__(self, round: int, player: int, hand_size: int, bid: int, won: int, bid_error: int,
                 exact: bool, plus5: int, minus5: int, trumps_held: int, jokers_held: int,
                 marching: bool, score: int) -> None:
        self.round = round
        self.player = player
        self.hand_size = hand_size
        self.bid = bid
        self.won = won
        self.bid_error = bid_error
        self.exact = exact
        self.plus5 = plus5
        self.minus5 = minus5
        self.trumps_held = trumps_held
        self.jokers_held = jokers_held
        self.marching = marching
        self.score = score


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RageRound(RoundOutcome):
    tricks: Final[int]
    trump: Final[str | None]  # the trump turned after the deal
    hand_size: Final[int]

    def __init__(self, tricks: int, trump: str | None, hand_size: int) -> None:
        self.tricks = tricks
        self.trump = trump
        self.hand_size = hand_size

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.tricks}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.tricks, "trump": self.trump, "hand_size": self.hand_size}


# ------------------------------------------------------------------- state


class Phase(Enum):
    """What the round waits for (`self.phase`). A plain `Enum`: compiled, its members are
    read as C statics and compared by identity."""

    DEAL = "deal"  # a deal (the next round, or the first)
    TRUMP = "trump"  # a turned trump (after the deal, a CHANGE or a NOTRUMP trick)
    BID = "bid"  # the bids, before the first play
    PLAY = "play"  # the next card (with hidden or secret bids, bids may come too)
    AFTER_TRICKS = "after_tricks"  # every trick is played: the secret bids still owed


class TrumpReason(Enum):
    """Why a trump is turned (in Phase.TRUMP; a `TrumpTurned` fact keeps its value)."""

    DEAL = "deal"  # the round's trump, after the deal
    CHANGE = "change"  # a CHANGE was played
    NOTRUMP = "notrump"  # the trick just finished held a NOTRUMP


class RageState(GameState):
    plays_only_rounds = True

    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=MAX_ROUNDS, maximum=MAX_ROUNDS)

    @classmethod
    def most_rounds(cls) -> int | None:
        return MAX_ROUNDS  # a round deals one card fewer than the one before

    def names_for(self, card: Card) -> list[str]:
        return list(COLORS) if card is JOKER else []  # a JOKER is played as a colour named

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        v = header.variants
        self.plus_minus_one = "plus_minus_one" in v
        self.secret = "secret_bid" in v
        self.any_order = self.secret or "hidden_bid" in v
        self.marching_through = "marching_through" in v
        self.phase: Phase = Phase.DEAL
        self.trump_reason = TrumpReason.DEAL
        # a hand is counts twice over: per card, and per colour (the follow rule reads those)
        self.hands: list[dict[Card, int]] = [{} for _ in range(self.n)]
        self.colors: list[dict[str, int]] = [{} for _ in range(self.n)]
        self.used: dict[Card, int] = {}
        self.trump: str | None = None
        self.round_trump: str | None = None
        self.trump_seq = 0
        self.hs = 0
        self.bids: list[int | None] = []
        self.bid_count = 0
        self.next_bidder = 0
        self.trick: list[tuple[int, Card, str | None]] = []
        self.led: str | None = None
        self.notrump = False
        self.change = False
        self.trick_no = 0
        self.leader = self.turn = 0
        self.won = [0] * self.n
        self.plus5 = [0] * self.n
        self.minus5 = [0] * self.n
        self.trumps_held = [0] * self.n
        self.jokers_held = [0] * self.n
        self.played_any = False
        self.trick_full = False

    # ------------------------------------------------------------ deal, trump
    def handle(self, ev: Event) -> None:
        # natively called handlers, the most frequent event first (GameState.handle)
        t = ev.type
        if t == "play":
            self.on_play(ev)
        elif t == "bid":
            self.on_bid(ev)
        elif t == "trump":
            self.on_trump(ev)
        elif t == "deal":
            self.on_deal(ev)
        else:
            GameState.handle(self, ev)

    def on_deal(self, ev: Event) -> None:
        hands = self.begin_deal(ev)
        self.hs = hs = hand_size(self.round_no)
        if self.live is not None:
            self.live.dealt = [hs] * self.n
        used: dict[Card, int] = {}
        for s, name in enumerate(self.players):
            cards = hands.get(name, [])
            if len(cards) != hs and not self.inferring and self.live is None:
                raise RuleError(f"deal: round {self.round_no} deals {hs} "
                                f"card{'s' if hs != 1 else ''} each, "
                                f"{name} got {len(cards)}")
            parsed = [CARDS.parse(c) for c in cards]
            for c in parsed:
                used[c] = used.get(c, 0) + 1
                if used[c] > DECK[c]:
                    raise RuleError(f"deal: {c} is dealt more often than the deck holds it "
                                    f"({DECK[c]})")
            self.hands[s] = hand = hand_of(parsed)
            self.colors[s] = color_counts(hand)
        left = self.left_of(self.dealer)
        named = self.named_leader(ev)
        if named is not None and named != left:
            raise RuleError(f"round {self.round_no} is led by {self.players[left]}, the player "
                            f"left of the dealer")
        self.used = used
        self.trump = self.round_trump = None
        self.trump_seq = 0
        self.bids = [None] * self.n
        self.bid_count = 0
        self.next_bidder = left
        self.leader = self.turn = left
        self.trick = []
        self.led = None
        self.notrump = self.change = self.trick_full = False
        self.trick_no = 0
        self.played_any = False
        self.won = [0] * self.n
        self.plus5 = [0] * self.n
        self.minus5 = [0] * self.n
        self.phase = Phase.TRUMP
        self.trump_reason = TrumpReason.DEAL
        self.emit(RoundDealt(self.round_no, self.dealer, left,
                             tuple(tuple(hand_cards(h)) for h in self.hands), ev.line))

    def why_no_deal(self) -> str | None:
        return self._round_unfinished() if self.in_round else None

    def _round_unfinished(self) -> str:
        if self.trick_no < self.hs:
            return (f"a deal came before round {self.round_no} was finished "
                    f"({self.trick_no} of {self.hs} tricks played)")
        missing = [self.players[s] for s in range(self.n) if self.bids[s] is None]
        return f"a deal came before round {self.round_no}'s bids were all in: " \
               f"{', '.join(missing)} did not bid"

    def on_trump(self, ev: Event) -> None:
        if self.phase is not Phase.TRUMP:
            if self.phase is Phase.DEAL:
                raise RuleError("no trump is turned now: the round has not been dealt")
            raise RuleError("no trump is turned now: trump is turned after the deal, right "
                            "after a CHANGE, and after a trick that held a NOTRUMP")
        card = CARDS.from_event(ev)
        k = self.used.get(card, 0)
        if self.live is not None:
            self.live_seen(card, f"{card} cannot be turned up",
                           f"turned up as trump (line {ev.line})")
        elif k >= DECK[card]:
            where = "is in a player's hand or was already turned up"
            raise RuleError(f"{card} cannot be turned up: every {card} of the deck {where}"
                            if DECK[card] > 1 else f"{card} cannot be turned up: it {where}")
        self.used[card] = k + 1
        reason = self.trump_reason
        self.trump_seq += 1
        if not card.color:
            self.emit(TrumpTurned(self.round_no, self._trick_label(), self.trump_seq, card,
                                  reason.value, None, ev.line))
            return  # an action card turned up is set aside: the next card is turned
        self.trump = card.color
        self.emit(TrumpTurned(self.round_no, self._trick_label(), self.trump_seq, card,
                              reason.value,
                              card.color, ev.line))
        if reason is TrumpReason.DEAL:
            self.round_trump = card.color
            for s in range(self.n):
                self.trumps_held[s] = self.colors[s].get(card.color, 0)
                self.jokers_held[s] = self.hands[s].get(JOKER, 0)
            # secret bids may wait until the round's tricks are over
            self.phase = Phase.BID if self.bid_count < self.n and not self.secret else Phase.PLAY
        elif reason is TrumpReason.CHANGE:
            self.phase = Phase.PLAY
            if self.trick_full:
                self._decide_trick(ev.line)
        else:
            self.phase = Phase.PLAY

    def _trick_label(self) -> int:
        if self.trump_reason is TrumpReason.CHANGE:
            return self.trick_no + 1
        return self.trick_no if self.trump_reason is TrumpReason.NOTRUMP else 0

    # ------------------------------------------------------------ bids
    def _bid_window_open(self) -> bool:
        """Whether a bid may come now (given that the trump is set): before the first play,
        or with secret_bid also after the last trick."""
        if self.phase in (Phase.DEAL, Phase.TRUMP):
            return False
        return not self.played_any or (self.secret and self.phase is Phase.AFTER_TRICKS)

    def why_no_bid(self, s: int) -> str | None:
        """Why the player in seat `s` may not bid now, or None when they may: who may bid
        now, for the handler and the legal moves alike."""
        name = self.players[s]
        if self.phase in (Phase.DEAL, Phase.TRUMP):
            if self.phase is Phase.DEAL or self.trump_reason is TrumpReason.DEAL:
                return f"{name} bids before the round's trump is turned"
            return f"{name} bids while a trump must be turned"
        if self.bids[s] is not None:
            return f"{name} already bid {self.bids[s]} in round {self.round_no}"
        if not self._bid_window_open():
            if self.secret:
                return (f"{name} bids in the middle of round {self.round_no}: with "
                        f"secret_bid, bids come before the first play or after the last trick")
            return f"{name} bids after the round's first play: all bids come before it"
        if not self.any_order and s != self.next_bidder:
            return (f"{name} bids out of turn: {self.players[self.next_bidder]} bids "
                    f"next (bids go clockwise from the dealer's left)")
        return None

    def on_bid(self, ev: Event) -> None:
        s = self.seat_of(ev)
        name = self.players[s]
        bid: int = field_of(ev, "bid", int, "a number of tricks")
        why = self.why_no_bid(s)
        if why is not None:
            raise RuleError(why)
        if not bid_in_range(bid, self.hs):
            raise RuleError(f"{name} bids {bid}: a bid is 0 to {self.hs} in round "
                            f"{self.round_no}")
        others = sum(b for b in self.bids if b is not None)
        if self.plus_minus_one and breaks_plus_minus_one(bid, others,
                                                         self.bid_count == self.n - 1, self.hs):
            raise RuleError(f"with plus_minus_one the bids may not add up to {self.hs}, the "
                            f"number of tricks: {name} may not bid {bid}")
        self.bids[s] = bid
        self.bid_count += 1
        self.next_bidder = self.left_of(s)
        self.emit(BidMade(self.round_no, s, bid, ev.line))
        if self.bid_count == self.n:
            if self.phase is Phase.AFTER_TRICKS:
                self._score_round(ev.line)
            elif self.phase is Phase.BID:
                self.phase = Phase.PLAY

    # ------------------------------------------------------------ play
    def on_play(self, ev: Event) -> None:
        if self.phase is not Phase.PLAY:
            self._not_now()
        s, card = self.card_played(ev, self.turn, CARDS, self.hands, "in trick",
                                   self.trick_no + 1)
        name = self.players[s]
        hand = self.hands[s]
        as_color = None
        raw = ev.data.get("as")
        if "as" in ev.data and type(raw) is not str:  # on any card: a known key of the wrong kind
            raise FormatError(f"play event: 'as' must be a colour letter, got {kind(raw)}")
        if card is JOKER:
            if raw is None:
                raise FormatError(f"{name} plays a JOKER without naming its colour ('as': one "
                                  f"of {', '.join(COLORS)})")
            as_color = raw.upper()
            if as_color not in COLORS or len(as_color) != 1:
                raise FormatError(f"{raw!r} is not a colour: a JOKER is named as one of "
                                  f"{', '.join(COLORS)}")
        led = self.led
        colors = self.colors[s]
        if self.live is not None:  # whether they could follow is known once the hands are
            self.live_card(s, card, ev.line, self.trick_no + 1)
        elif not may_play(card, colors, led):
            assert led is not None
            follow = min((h for h in hand if h.color == led), key=card_order)
            lead = f"played {card} on a {COLOR_NAMES[led]} lead"
            if not card.color:
                raise HandRuleError(
                    f"{name} cannot play {card}: action cards may be played only by the "
                    f"leader or by a player with no {COLOR_NAMES[led]} card, and {name} "
                    f"holds {follow}", s, follow.name, lead,
                    f"action cards may be played only by the leader or by a player with no "
                    f"{COLOR_NAMES[led]} card")
            raise HandRuleError(f"{name} must follow {COLOR_NAMES[led]}: {name} holds {follow} "
                                f"and may not play {card}", s, follow.name, lead,
                                "a revoke (a player must follow the led colour)")
        else:
            remove_from_hand(hand, card)
            colors[card.color] -= 1
        self.played_any = True
        self.trick.append((s, card, as_color))
        if led is None:
            if card.color:
                self.led = card.color
            elif as_color is not None:
                self.led = as_color
        full = len(self.trick) == self.n
        self.trick_full = full
        self.turn = self.left_of(s)
        if card is NOTRUMP:
            self.notrump = True
        elif card is CHANGE:
            self.change = True
            self.phase = Phase.TRUMP
            self.trump_reason = TrumpReason.CHANGE
            return
        if full:
            self._decide_trick(ev.line)

    def _not_now(self) -> None:
        if self.phase is Phase.TRUMP:
            why = {TrumpReason.DEAL: "the round's trump",
                   TrumpReason.CHANGE: "the new trump after CHANGE",
                   TrumpReason.NOTRUMP: "a new trump after the trick without trump",
                   }[self.trump_reason]
            raise RuleError(f"expected a trump event ({why}) before the next play")
        if self.phase is Phase.BID:
            missing = [self.players[s] for s in range(self.n) if self.bids[s] is None]
            raise RuleError(f"no card may be played before every bid is in: "
                            f"{', '.join(missing)} has not bid")
        if self.phase is Phase.AFTER_TRICKS:
            raise RuleError(f"round {self.round_no} has no tricks left: expected the remaining "
                            f"secret bids")
        if self.round_no == 0:
            raise RuleError("no round has been dealt yet (expected a deal)")
        raise RuleError(f"round {self.round_no} is over (expected the next deal or a claim)")

    def _decide_trick(self, line: int) -> None:
        trick = self.trick
        trump = None if self.notrump else self.trump
        winner_i = winning_index(trick, trump, self.led)
        w, wcard, _ = trick[winner_i]
        p5 = sum(1 for _, c, _ in trick if c is PLUS5)
        m5 = sum(1 for _, c, _ in trick if c is MINUS5)
        self.won[w] += 1
        self.plus5[w] += p5
        self.minus5[w] += m5
        self.trick_no += 1
        self.emit(RageTrickFinished(
            self.round_no, self.trick_no, self.leader, tuple(trick), self.led, trump,
            self.notrump, self.change, w, wcard, p5, m5, line))
        last = self.trick_no == self.hs
        turn_after = self.notrump and not self.change and not last
        self.trick = []
        self.led = None
        self.notrump = self.change = self.trick_full = False
        self.leader = self.turn = w
        if last:
            if self.bid_count == self.n:
                self._score_round(line)
            else:
                self.phase = Phase.AFTER_TRICKS
        elif turn_after:
            self.phase = Phase.TRUMP
            self.trump_reason = TrumpReason.NOTRUMP
        else:
            self.phase = Phase.PLAY

    def _score_round(self, line: int) -> None:
        scores: list[int] = []
        derivs: list[str] = []
        for s in range(self.n):
            bid = self.bids[s]
            assert bid is not None
            total, marching, text = score_round(self.won[s], bid, self.plus5[s], self.minus5[s],
                                                self.hs, self.marching_through)
            scores.append(total)
            derivs.append(text)
            self.emit(BidSettled(
                self.round_no, s, self.hs, bid, self.won[s], self.won[s] - bid,
                self.won[s] == bid, self.plus5[s], self.minus5[s], self.trumps_held[s],
                self.jokers_held[s], marching, total))
        self.phase = Phase.DEAL
        self.finish_round(scores, derivs, RageRound(self.trick_no, self.round_trump, self.hs),
                          line)
        if self.live is not None:
            self.round_played()

    def check_claim_now(self) -> None:
        if self.phase is Phase.TRUMP and self.trump_reason is TrumpReason.CHANGE:
            raise RuleError("expected a trump event (the new trump after CHANGE)")

    def close(self) -> None:
        if self.in_round and self.trick:
            self.emit(TrickAbandoned(self.round_no, self.trick_no + 1, tuple(self.trick)))

    # ------------------------------------------------------------ plays-only rounds
    def copies(self, card: Card) -> int:
        return DECK.get(card, 0)

    def show(self, seat: int | None, part: str | None, cards: list[Card], line: int) -> None:
        assert seat is not None
        if self.phase is not Phase.DEAL or self.round_no == 0:
            raise RuleError("cards are shown at a round's end, and a rage round ends when "
                            "every card is played")
        self.full_show(seat, None, cards, self.hand(seat))

    # ------------------------------------------------------------ uniform API
    def hand(self, seat: int) -> list[Card]:
        return hand_cards(self.hands[seat])

    def next_chance(self) -> str | None:
        if self.over:
            return None
        if self.phase is Phase.DEAL:
            return "deal"
        return "trump" if self.phase is Phase.TRUMP else None

    def _bidder(self) -> int | None:
        """The seat that bids next at a simulated table, which bids before it plays (secret
        and hidden bids too): the first seat clockwise from the dealer's left that
        `why_no_bid` lets bid now, or None when nobody may."""
        if self.bid_count == self.n:  # while the tricks are played: no seat left to ask
            return None
        if self.phase in (Phase.DEAL, Phase.TRUMP):  # why_no_bid says no to every seat
            return None
        s = self.left_of(self.dealer)
        for _ in range(self.n):
            # a seat that has bid may not bid again: why_no_bid would only word that
            if self.bids[s] is None and self.why_no_bid(s) is None:
                return s
            s = self.left_of(s)
        return None

    def to_move(self) -> str | None:
        bidder = self._bidder()
        if bidder is not None:
            return self.players[bidder]
        if self.phase is Phase.PLAY:
            return self.players[self.turn]
        return None

    def choices(self) -> list[Move]:
        bidder = self._bidder()
        if bidder is not None:
            p = self.players[bidder]
            return [{"type": "bid", "player": p, "bid": b} for b in self.legal_bids()]
        # nobody may bid now: the player to move is the one whose card is due, if any (what
        # GameState.choices would filter out of legal_moves, without the bids' checks)
        if self.phase is Phase.PLAY and not self.over:
            return self._play_moves()
        return []

    def legal_bids(self) -> list[int]:
        """The bids the next bid may be (the same for every player who may bid now)."""
        others = sum(b for b in self.bids if b is not None)
        last = self.bid_count == self.n - 1
        return [b for b in range(self.hs + 1)
                if bid_in_range(b, self.hs)
                and not (self.plus_minus_one and breaks_plus_minus_one(b, others, last, self.hs))]

    def legal_cards(self) -> list[tuple[Card, str | None]]:
        colors = self.colors[self.turn]
        led = self.led
        out: list[tuple[Card, str | None]] = []
        live = self.live
        if live is not None:  # any card not seen as often as the deck holds it
            if not self.cards_left(self.turn):
                return out
            for c, k in DECK.items():
                if live.seen.get(c, 0) < k:
                    if c is JOKER:
                        out.extend((c, col) for col in COLORS)
                    else:
                        out.append((c, None))
            return out
        for c in in_deck_order(self.hands[self.turn]):
            if not may_play(c, colors, led):
                continue
            if c is JOKER:
                out.extend((c, col) for col in COLORS)
            else:
                out.append((c, None))
        return out

    def legal_moves(self) -> list[Move]:
        moves: list[Move] = []
        if self.phase in (Phase.DEAL, Phase.TRUMP) or self.over:
            return moves
        # once every seat has bid nobody may: no need to ask why_no_bid of each
        bidders = ([s for s in range(self.n) if self.why_no_bid(s) is None]
                   if self.bid_count < self.n else [])
        if bidders:
            bids = self.legal_bids()
            for s in bidders:
                moves.extend({"type": "bid", "player": self.players[s], "bid": b} for b in bids)
        if self.phase is Phase.PLAY:
            moves.extend(self._play_moves())
        return moves

    def _play_moves(self) -> list[Move]:
        """The `play` moves of the player whose turn it is (in Phase.PLAY)."""
        p = self.players[self.turn]
        moves: list[Move] = []
        for c, col in self.legal_cards():
            m: Move = {"type": "play", "player": p, "card": c.name}
            if col is not None:
                m["as"] = col
            moves.append(m)
        return moves

    def pile(self) -> list[Card]:
        """The cards neither dealt nor turned up, in deck order (a card's copies together)."""
        out: list[Card] = []
        for c, k in DECK.items():
            out.extend([c] * (k - self.used.get(c, 0)))
        return out

    def chance_outcomes(self) -> list[tuple[Move, int]]:
        """A trump turned inside the round: each colour card of the pile, weighted by its
        copies there. Cards are turned uniformly from the pile (as `draw_chance` turns
        them) and an action card turned up is set aside, so the first colour card turned
        is each colour card with probability copies / colour cards in the pile; the action
        cards set aside change no value (they score nothing, and a later turn's first
        colour card has the same law whichever left the pile), so they are left out."""
        if self.phase is not Phase.TRUMP or self.over:
            return []
        used = self.used
        return [({"type": "trump", "card": c.name}, k - used.get(c, 0))
                for c, k in DECK.items() if c.color and k > used.get(c, 0)]

    def rules_out(self, move: Move) -> frozenset[str]:
        """A play that does not follow the led colour (an action card or another colour)
        shows that the player holds no card of it (`may_play`)."""
        led = self.led
        if move.get("type") != "play" or led is None or self.phase is not Phase.PLAY:
            return frozenset()
        card = CARDS.parse(str(move.get("card")))
        if card.color == led:
            return frozenset()
        return frozenset(c.name for c in DECK if c.color == led)

    def draw_chance(self, rng: Random) -> Move:
        if self.phase is Phase.TRUMP:
            # rng.choice(self.pile()), without making the pile: the r-th card of it
            used = self.used
            r = randbelow(rng, DECK_SIZE - sum(used.values()))
            for c, k in DECK.items():
                r -= k - used.get(c, 0)
                if r < 0:
                    return {"type": "trump", "card": c.name}
            raise AssertionError("the pile is smaller than it counts")
        deck = [c for c, k in DECK.items() for _ in range(k)]
        rng.shuffle(deck)
        return {"type": "deal", "hands": deal_hands(deck, self.players,
                                                     hand_size(self.round_no + 1))}

    # ------------------------------------------------------------ branching
    def clone_into(self, new: Any) -> None:
        """`GameState.clone`'s copy of this game's own attributes (the variants follow
        from the header and are set by `__init__`)."""
        st: RageState = new
        st.phase = self.phase
        st.trump_reason = self.trump_reason
        st.hands = [h.copy() for h in self.hands]
        st.colors = [c.copy() for c in self.colors]
        st.used = self.used.copy()
        st.trump = self.trump
        st.round_trump = self.round_trump
        st.trump_seq = self.trump_seq
        st.hs = self.hs
        st.bids = self.bids.copy()
        st.bid_count = self.bid_count
        st.next_bidder = self.next_bidder
        st.trick = self.trick.copy()
        st.led = self.led
        st.notrump = self.notrump
        st.change = self.change
        st.trick_no = self.trick_no
        st.leader = self.leader
        st.turn = self.turn
        st.won = self.won.copy()
        st.plus5 = self.plus5.copy()
        st.minus5 = self.minus5.copy()
        st.trumps_held = self.trumps_held.copy()
        st.jokers_held = self.jokers_held.copy()
        st.played_any = self.played_any
        st.trick_full = self.trick_full


# ------------------------------------------------------------------- the greedy bot
# Bid the expected tricks of the hand: Jokers and high trumps count fully,
# middling trumps and very high plain cards partly, fewer at a crowded table.
# Then play to hit the bid: while short, the cheapest card that wins the trick
# so far; once there, the highest card that does not win.


def bid_estimate(st: RageState, s: int) -> float:
    trump = st.trump
    est = 0.0
    for c, k in st.hands[s].items():
        if c is JOKER:
            v = 1.0
        elif not c.color:
            v = 0.0
        elif c.color == trump:
            v = 0.9 if c.value >= 11 else 0.5 if c.value >= 6 else 0.25
        else:
            v = 0.6 if c.value >= 14 else 0.25 if c.value >= 12 else 0.0
        est += v * k
    return est * min(1.0, 4.5 / st.n)


def heuristic(st: RageState, m: Move) -> float:
    s = st.seat[m["player"]]
    if m["type"] == "bid":
        return -abs(m["bid"] - bid_estimate(st, s))
    card = CARDS[m["card"]]
    as_c = m.get("as")
    trick = st.trick + [(s, card, as_c)]
    led = st.led
    if led is None:
        led = card.color if card.color else as_c
    trump = None if (st.notrump or card is NOTRUMP) else st.trump
    wins = winning_index(trick, trump, led) == len(trick) - 1
    bid = st.bids[s]
    if bid is None:
        bid = round(bid_estimate(st, s))
    need = st.won[s] < bid
    strength = card.value if card.color else (16 if card is JOKER else 8)
    penalty = 5 if card is MINUS5 and wins else 0
    if need:
        return (100 - strength if wins else -strength) - penalty
    return (-100 if wins else strength) - penalty


# ------------------------------------------------------------------- rendering


def _render_dealt(f: RoundDealt, players: tuple[str, ...]) -> list[str]:
    k = len(f.hands[0])
    return [f"== Round {f.round}: {players[f.dealer]} deals {k} card{'s' if k != 1 else ''} each, "
            f"{players[f.leader]} leads", *hands_lines(f, players)]


TRUMP_WHEN: Final = {"deal": "trump for the round", "change": "CHANGE: new trump",
              "notrump": "new trump after the trick without trump"}


def _render_trump(f: TrumpTurned, players: tuple[str, ...]) -> list[str]:
    if f.trump is None:
        return [f"   turned {f.card}: an action card, set aside"]
    return [f"   turned {f.card}: {TRUMP_WHEN[f.reason]} is {COLOR_NAMES[f.trump]}"]


def _render_bid(f: BidMade, players: tuple[str, ...]) -> list[str]:
    return [f"   {players[f.player]} bids {f.bid}"]


def _render_trick(f: RageTrickFinished, players: tuple[str, ...]) -> list[str]:
    plays = ", ".join(f"{players[p]} {c}" + (f" (as {a})" if a else "") for p, c, a in f.cards)
    led = COLOR_NAMES[f.led_color] if f.led_color else "no colour"
    trump = "no trump (NOTRUMP)" if f.notrump else \
        (f"trump {COLOR_NAMES[f.trump]}" if f.trump else "no trump")
    extra = " CHANGE fired;" if f.change else ""
    money = "".join([" +5" * f.plus5, " -5" * f.minus5])
    return [f"Trick {f.trick} (line {f.line}): {plays}; led {led}, {trump};{extra} "
            f"{players[f.winner]} wins with {f.winning_card}{money}"]


def _render_settled(f: BidSettled, players: tuple[str, ...]) -> list[str]:
    return [f"   {players[f.player]:<10} bid {f.bid}, won {f.won}"]


# ------------------------------------------------------------------- rows
# rage's own tables and its columns of the shared ones (GameInfo.tables and .columns)

TABLES: Final = {
    # every card turned for trump, why, and the trump it made (None: no trump)
    "trumps": (Column("game_id", "VARCHAR"), Column("round", "INTEGER"),
               Column("trick", "INTEGER"), Column("seq", "INTEGER"), Column("card", "VARCHAR"),
               Column("reason", "VARCHAR"), Column("trump", "VARCHAR", null=True),
               Column("line", "INTEGER")),
    # every settled bid: what was bid and won, the score, and what the hand held
    "bids": (Column("game_id", "VARCHAR"), Column("round", "INTEGER"),
             Column("player", "VARCHAR"), Column("hand_size", "INTEGER"),
             Column("bid", "INTEGER"), Column("won", "INTEGER"), Column("bid_error", "INTEGER"),
             Column("exact", "BOOLEAN"), Column("plus5", "INTEGER"), Column("minus5", "INTEGER"),
             Column("trumps_held", "INTEGER"), Column("jokers_held", "INTEGER"),
             Column("marching", "BOOLEAN"), Column("score", "INTEGER")),
}
COLUMNS: Final = (
    # a trick's trump in force (None under NOTRUMP), its action cards and +5/-5 cards
    SharedColumns("tricks", after="winning_card", columns=(
        Column("trump", "VARCHAR", null=True), Column("notrump", "BOOLEAN"),
        Column("change", "BOOLEAN"), Column("plus5", "INTEGER"), Column("minus5", "INTEGER"))),
    # a round's last trump and its hand size
    SharedColumns("rounds", after="tricks", columns=(
        Column("trump", "VARCHAR", null=True), Column("hand_size", "INTEGER", null=True))),
)


# --- generated by `python -m trickledger.replay.rowgen` from the declared tables: do not edit


class TrumpsRows(RowWriter):
    """Rows of `trumps` as rage fills them (generated)."""

    TABLE: ClassVar[str] = "trumps"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "seq", "card", "reason",
                                          "trump", "line")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.trick = rows.values("trick")
        self.seq = rows.values("seq")
        self.card = rows.values("card")
        self.reason = rows.values("reason")
        self.trump = rows.values("trump")
        self.line = rows.values("line")

    def add(self, round: int, trick: int, seq: int, card: str, reason: str, trump: str | None,
            line: int) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.seq.append(seq)
        self.card.append(card)
        self.reason.append(reason)
        self.trump.append(trump)
        self.line.append(line)


class BidsRows(RowWriter):
    """Rows of `bids` as rage fills them (generated)."""

    TABLE: ClassVar[str] = "bids"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "player", "hand_size", "bid", "won",
                                          "bid_error", "exact", "plus5", "minus5", "trumps_held",
                                          "jokers_held", "marching", "score")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.player = rows.values("player")
        self.hand_size = rows.values("hand_size")
        self.bid = rows.values("bid")
        self.won = rows.values("won")
        self.bid_error = rows.values("bid_error")
        self.exact = rows.values("exact")
        self.plus5 = rows.values("plus5")
        self.minus5 = rows.values("minus5")
        self.trumps_held = rows.values("trumps_held")
        self.jokers_held = rows.values("jokers_held")
        self.marching = rows.values("marching")
        self.score = rows.values("score")

    def add(self, round: int, player: str, hand_size: int, bid: int, won: int, bid_error: int,
            exact: bool, plus5: int, minus5: int, trumps_held: int, jokers_held: int,
            marching: bool, score: int) -> None:
        self.game_id.append(self.rows.gid)
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


class TricksRows(RowWriter):
    """Rows of `tricks` as rage fills them (generated)."""

    TABLE: ClassVar[str] = "tricks"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "leader", "led_color",
                                          "cards", "players", "winner", "winning_card", "trump",
                                          "notrump", "change", "plus5", "minus5", "length", "laps",
                                          "next_leader", "stacks", "line")

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
        self.trump = rows.values("trump")
        self.notrump = rows.values("notrump")
        self.change = rows.values("change")
        self.plus5 = rows.values("plus5")
        self.minus5 = rows.values("minus5")
        self.length = rows.values("length")
        self.laps = rows.values("laps")
        self.next_leader = rows.values("next_leader")
        self.stacks = rows.stacks("stacks")
        self.line = rows.values("line")

    def add(self, round: int, trick: int, leader: str, led_color: str | None, cards: Iterable[str],
            players: Iterable[str], winner: str | None, winning_card: str | None, trump: str | None,
            notrump: bool, change: bool, plus5: int, minus5: int, length: int, laps: int,
            next_leader: str | None, stacks: Iterable[Stack] | None, line: int) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.leader.append(leader)
        self.led_color.append(led_color)
        self.cards.append(cards)
        self.players.append(players)
        self.winner.append(winner)
        self.winning_card.append(winning_card)
        self.trump.append(trump)
        self.notrump.append(notrump)
        self.change.append(change)
        self.plus5.append(plus5)
        self.minus5.append(minus5)
        self.length.append(length)
        self.laps.append(laps)
        self.next_leader.append(next_leader)
        self.stacks.append(stacks)
        self.line.append(line)
        self.pad()


# --- end of the generated code


def _project_trump(f: TrumpTurned, sink: RowSink) -> None:
    sink.rows(TrumpsRows).add(round=f.round, trick=f.trick, seq=f.seq, card=f.card.name,
                              reason=f.reason, trump=f.trump, line=f.line)


def _project_bid(f: BidMade, sink: RowSink) -> None:
    """A bid as made: its outcome is stored once the round is settled (BidSettled)."""


def _project_trick(f: RageTrickFinished, sink: RowSink) -> None:
    P = sink.players
    cards = [c.name for _, c, _ in f.cards]
    sink.rows(TricksRows).add(
        round=f.round, trick=f.trick, leader=P[f.leader], led_color=f.led_color, cards=cards,
        players=[P[s] for s, _, _ in f.cards], winner=P[f.winner],
        winning_card=f.winning_card.name, trump=f.trump, notrump=f.notrump, change=f.change,
        plus5=f.plus5, minus5=f.minus5, length=len(f.cards), laps=1, next_leader=P[f.winner],
        stacks=None, line=f.line)
    plays_rows(sink, f.round, f.trick, f.cards)
    sink.takes.add(round=f.round, trick=f.trick, player=P[f.winner], role="whole_trick",
                   cards=cards, n_cards=len(cards), kept_cards=len(cards))


def _project_settled(f: BidSettled, sink: RowSink) -> None:
    sink.rows(BidsRows).add(round=f.round, player=sink.players[f.player],
                            hand_size=f.hand_size, bid=f.bid, won=f.won, bid_error=f.bid_error,
                            exact=f.exact, plus5=f.plus5, minus5=f.minus5,
                            trumps_held=f.trumps_held, jokers_held=f.jokers_held,
                            marching=f.marching, score=f.score)


# ------------------------------------------------------------------- analytics
# rage's statistics in the database: every settled bid with how it was bid, its accuracy, and
# the bid against what the hand could take (the hand estimates of `trickledger analyse`).
# Created after the core's analytics objects, whose macros (`ratio`, `wilson_low`,
# `counted_ids`, ...) they use (GameInfo.analytics; ingest.analytics). The bids with how they
# were bid are a "summary", made once per game into the table `bid_round_rows`
# (ingest.summaries).

ANALYTICS: Final = (
    # ---------------------------------------------------------------- bids
    # every settled bid with how it was bid: `bidding` is open (in turn, seeing the
    # earlier bids), hidden or secret; `bid_position` 1 bids first (the dealer's left)
    ("summary", "bid_round_rows", """
        SELECT b.*, g.n_players,
               CASE WHEN list_contains(g.variants, 'secret_bid') THEN 'secret'
                    WHEN list_contains(g.variants, 'hidden_bid') THEN 'hidden'
                    ELSE 'open' END AS bidding,
               list_contains(g.variants, 'plus_minus_one') AS plus_minus_one,
               CAST((ps.seat - pd.seat - 1 + 2 * g.n_players) % g.n_players + 1 AS INTEGER)
                   AS bid_position
        FROM bids b JOIN games g USING (game_id) JOIN rounds r USING (game_id, round)
        JOIN players ps ON ps.game_id = b.game_id AND ps.player = b.player
        JOIN players pd ON pd.game_id = b.game_id AND pd.player = r.dealer
        WHERE b.game_id IN (SELECT unnest(ids))"""),
    ("macro", "bid_rounds_of(ids)", """
        SELECT * FROM bid_round_rows WHERE game_id IN (SELECT unnest(ids))"""),
    ("view", "bid_rounds", "SELECT * FROM bid_rounds_of(counted_ids())"),
    ("macro", "bid_accuracy_of(ids)", """
        SELECT player, count(*) AS rounds, count(*) FILTER (WHERE exact) AS exact,
               ratio(count(*) FILTER (WHERE exact), count(exact), 4) AS exact_rate,
               round(wilson_low(count(*) FILTER (WHERE exact), count(*)), 4) AS exact_rate_low,
               round(wilson_high(count(*) FILTER (WHERE exact), count(*)), 4)
                   AS exact_rate_high,
               ratio(sum(bid_error), count(bid_error), 3) AS mean_bid_error,
               ratio(sum(abs(bid_error)), count(bid_error), 3) AS mean_abs_error,
               count(*) FILTER (WHERE bid_error < 0) AS overbids,
               count(*) FILTER (WHERE bid_error > 0) AS underbids,
               ratio(sum(score), count(score), 2) AS mean_round_score
        FROM bid_rounds_of(ids)
        GROUP BY player"""),
    ("view", "bid_accuracy", "SELECT * FROM bid_accuracy_of(counted_ids())"),
    ("macro", "bid_vs_hand_of(ids)", """
        SELECT br.game_id, br.round, br.player, br.bid, br.won,
               round(h.expected_tricks, 3) AS expected_tricks,
               round(h.expected_sd, 3) AS expected_sd,
               round(h.expected_sd / sqrt(h.playouts), 3) AS expected_se,
               round(br.bid - h.expected_tricks, 3) AS bidding_error,
               round(br.won - h.expected_tricks, 3) AS play_error,
               ratio(coalesce(h.tricks_seen[br.bid + 1], 0), h.playouts, 3) AS bid_made_share,
               h.playouts, h.tricks_seen, br.hand_size, br.bidding, br.plus_minus_one,
               br.bid_position, h.method
        FROM bid_rounds_of(ids) br JOIN games g USING (game_id)
        JOIN hand_estimates h ON h.sha256 = g.sha256 AND h.round = br.round
             AND h.player = br.player"""),
    ("view", "bid_vs_hand", "SELECT * FROM bid_vs_hand_of(counted_ids())"),
)


# the questions the SQL console offers about the game (GameInfo.examples; docs/sql.md)
EXAMPLES: Final = (
    ('Who overbids when holding many trumps?',
     """SELECT player, count(*) AS rounds, ratio(sum(bid_error), count(bid_error), 2) AS mean_bid_error
FROM bid_rounds
WHERE trumps_held >= 3
GROUP BY player
HAVING count(*) >= 5
ORDER BY mean_bid_error ASC, player
LIMIT 10;"""),
    ('Who are the most accurate bidders (at least 20 rounds)?',
     """SELECT player, rounds, exact_rate, exact_rate_low, exact_rate_high, mean_abs_error
FROM bid_accuracy
WHERE rounds >= 20
ORDER BY exact_rate DESC, mean_abs_error ASC, player
LIMIT 10;"""),
    ('Are bids more accurate when they are hidden, secret or under plus_minus_one?',
     """SELECT bidding, plus_minus_one, count(*) AS bids,
       ratio(count(*) FILTER (WHERE exact), count(*), 3) AS exact_rate,
       ratio(sum(bid_error), count(bid_error), 2) AS mean_bid_error
FROM bid_rounds
GROUP BY bidding, plus_minus_one
ORDER BY bidding, plus_minus_one;"""),
    ('Did they bid badly or play badly?',
     """SELECT player, count(*) AS bids,
       ratio(sum(CAST(bidding_error * 1000 AS BIGINT)), 1000 * count(*), 2)
           AS bid_minus_expected,
       ratio(sum(CAST(play_error * 1000 AS BIGINT)), 1000 * count(*), 2)
           AS won_minus_expected
FROM bid_vs_hand
GROUP BY player
HAVING count(*) >= 10
ORDER BY abs(bid_minus_expected) DESC, player
LIMIT 10;"""),
)


# =================================================================== the score sheet
# A round on a score sheet (replay/sheet.py): per player the bid, the tricks won and the
# +5 and -5 cards in them. Each end-of-round rule is one predicate below (with
# `bid_in_range` and `breaks_plus_minus_one` above); the score is `score_round()`.


def tricks_add_up(won: list[int], tricks: int) -> bool:
    """Every trick of the round has exactly one winner."""
    return sum(won) == tricks


def action_cards_fit(taken: int, card: str) -> bool:
    """No more +5 (or -5) cards taken than the deck holds."""
    return taken <= ACTIONS[card]


def action_cards_won(won: int, plus5: int, minus5: int, players: int) -> bool:
    """+5 and -5 cards count only in tricks won, and a trick holds one card per player."""
    return plus5 + minus5 <= won * players


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RageSheetEntered(Fact):
    """A round as the score sheet gives it: per seat the bid, tricks won, +5 and -5 cards."""

    round: Final[int]
    dealer: Final[int]
    bids: Final[tuple[int, ...]]
    won: Final[tuple[int, ...]]
    plus5: Final[tuple[int, ...]]
    minus5: Final[tuple[int, ...]]
    scores: Final[tuple[int, ...]]
    line: Final[int]

    def __init__(self, round: int, dealer: int, bids: tuple[int, ...], won: tuple[int, ...],
                 plus5: tuple[int, ...], minus5: tuple[int, ...], scores: tuple[int, ...],
                 line: int) -> None:
        self.round = round
        self.dealer = dealer
        self.bids = bids
        self.won = won
        self.plus5 = plus5
        self.minus5 = minus5
        self.scores = scores
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RageSheetOutcome(RoundOutcome):
    hand_size: Final[int]  # cards each, so tricks in the round

    def __init__(self, hand_size: int) -> None:
        self.hand_size = hand_size

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.hand_size}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"tricks": self.hand_size, "hand_size": self.hand_size, "end_reason": SHEET_END}


class RageSheet(SheetState):
    @classmethod
    def form(cls, header: Header, round_no: int) -> SheetForm:
        hs = hand_size(round_no)
        return SheetForm(players=(
            SheetField(("bid",), "bid", 0, hs, required=True, help="tricks the player bid"),
            SheetField(("won",), "won", 0, hs, required=True, help="tricks the player won"),
            SheetField(("plus5",), "+5", 0, ACTIONS["+5"], help="+5 cards in the tricks won"),
            SheetField(("minus5",), "-5", 0, ACTIONS["-5"], help="-5 cards in the tricks won"),
        ), about=f"Each player's bid, tricks won ({hs} in all) and the +5 and -5 cards in them")

    def score_sheet(self, ev: Event, entries: list[dict[str, Any]]
                    ) -> tuple[list[int], list[str], RoundOutcome]:
        r = self.round_no
        hs = hand_size(r)
        bids: list[int] = []
        won: list[int] = []
        plus5: list[int] = []
        minus5: list[int] = []
        for s, entry in enumerate(entries):
            name = self.players[s]
            where = f"{name}'s entry"
            bid = number(entry, "bid", where)
            w = number(entry, "won", where)
            p5 = number(entry, "plus5", where, default=0)
            m5 = number(entry, "minus5", where, default=0)
            if not bid_in_range(bid, hs):
                raise RuleError(f"{name} bids {bid}: a bid is 0 to {hs} in round {r}")
            if not action_cards_won(w, p5, m5, self.n):
                cards = " and ".join(f"{k} {c} card{'s' if k != 1 else ''}"
                                     for k, c in ((p5, "+5"), (m5, "-5")) if k)
                raise RuleError(f"{name} took {cards} in {w} trick{'s' if w != 1 else ''} "
                                f"won: +5 and -5 cards count only in tricks won, and a trick "
                                f"holds {self.n} cards")
            bids.append(bid)
            won.append(w)
            plus5.append(p5)
            minus5.append(m5)
        if not tricks_add_up(won, hs):
            raise RuleError(f"the tricks won add up to {sum(won)}, but round {r} has {hs} "
                            f"trick{'s' if hs != 1 else ''} ({hs} card{'s' if hs != 1 else ''} "
                            f"each) and every trick has one winner")
        for card, taken in (("+5", plus5), ("-5", minus5)):
            if not action_cards_fit(sum(taken), card):
                raise RuleError(f"the {card} cards taken add up to {sum(taken)}, but the deck "
                                f"holds {ACTIONS[card]}")
        if "plus_minus_one" in self.header.variants and \
                breaks_plus_minus_one(bids[-1], sum(bids[:-1]), True, hs):
            raise RuleError(f"with plus_minus_one the bids may not add up to {hs}, the number "
                            f"of tricks in round {r}: {' + '.join(map(str, bids))} = {hs}")
        marching_through = "marching_through" in self.header.variants
        scores: list[int] = []
        derivations: list[str] = []
        for s in range(self.n):
            total, _, text = score_round(won[s], bids[s], plus5[s], minus5[s], hs,
                                         marching_through)
            scores.append(total)
            derivations.append(text)
        self.emit(RageSheetEntered(r, self.dealer, tuple(bids), tuple(won), tuple(plus5),
                                   tuple(minus5), tuple(scores), ev.line))
        return scores, derivations, RageSheetOutcome(hs)

    @classmethod
    def line_of(cls, facts: Sequence[Fact], scored: RoundScored,
                players: tuple[str, ...]) -> dict[str, Any]:
        entries: dict[str, Any] = {}
        for f in facts:
            if isinstance(f, BidSettled):
                entry = {"bid": f.bid, "won": f.won}
                if f.plus5:
                    entry["plus5"] = f.plus5
                if f.minus5:
                    entry["minus5"] = f.minus5
                entries[players[f.player]] = entry
        return {"players": {p: entries[p] for p in players}}


def _render_sheet(f: RageSheetEntered, players: tuple[str, ...]) -> list[str]:
    return [sheet_head(f.round, f.dealer, f.line, players),
            *table_lines(players, ("bid", "won", "+5", "-5", "score"),
                         zip(f.bids, f.won, f.plus5, f.minus5, f.scores))]


def _project_sheet(f: RageSheetEntered, sink: RowSink) -> None:
    """A sheet's round is stored as its rounds and round_scores rows (from RoundScored); its
    bids are in the log's text (the `bids` table holds rounds replayed from their moves)."""


def trick_winner(f: Fact) -> int | None:
    """The seat that won the trick `f` closes (None for any other fact)."""
    return f.winner if isinstance(f, RageTrickFinished) else None



# =================================================================== the native engine
# The rest of a round as the native analysis engine's position (replay/native/rage.hpp reads
# these numbers in this order), and moves as its codes.

NATIVE_PHASE: Final = {Phase.TRUMP: 0, Phase.BID: 1, Phase.PLAY: 2, Phase.AFTER_TRICKS: 3,
                       Phase.DEAL: 4}
NATIVE_REASON: Final = {TrumpReason.DEAL: 0, TrumpReason.CHANGE: 1, TrumpReason.NOTRUMP: 2}
ACTION_ORDER: Final = tuple(ACTIONS)  # JOKER NOTRUMP CHANGE +5 -5: the deck's order


def _colour_number(colour: str | None) -> int:
    return -1 if colour is None else COLORS.index(colour)


def native_position(st: RageState) -> list[int]:
    """players, hand size, variants (bits: plus_minus_one, secret_bid, hidden or secret
    bids in any order, marching_through), dealer, phase, why a trump is due, trump (-1:
    none), bids made, next bidder, tricks played, leader, turn, led colour (-1: none),
    NOTRUMP and CHANGE in the trick, the trick full, a card played this round; per seat the
    hand (a bit set of values per colour B G R Y P O, then the count of each action card);
    the pile (colour cards per colour, then each action card); per seat the bids (-1: none),
    tricks won, +5 and -5 cards won; the trick as (seat, card, a Joker's colour or -1)."""
    flags = (int(st.plus_minus_one) | int(st.secret) << 1 | int(st.any_order) << 2
             | int(st.marching_through) << 3)
    out = [st.n, st.hs, flags, st.dealer, NATIVE_PHASE[st.phase], NATIVE_REASON[st.trump_reason],
           _colour_number(st.trump), st.bid_count, st.next_bidder, st.trick_no, st.leader,
           st.turn, _colour_number(st.led), int(st.notrump), int(st.change), int(st.trick_full),
           int(st.played_any)]
    for s in range(st.n):
        masks = [0, 0, 0, 0, 0, 0]
        actions = [0, 0, 0, 0, 0]
        for c, k in st.hands[s].items():
            if c.color:
                masks[COLORS.index(c.color)] |= 1 << c.value
            else:
                actions[ACTION_ORDER.index(c.kind)] += k
        out.extend(masks)
        out.extend(actions)
    pile_colours = [16, 16, 16, 16, 16, 16]
    pile_actions = [ACTIONS[a] for a in ACTION_ORDER]
    for c, k in st.used.items():
        if c.color:
            pile_colours[COLORS.index(c.color)] -= k
        else:
            pile_actions[ACTION_ORDER.index(c.kind)] -= k
    out.extend(pile_colours)
    out.extend(pile_actions)
    out.extend(-1 if b is None else b for b in st.bids)
    out.extend(st.won)
    out.extend(st.plus5)
    out.extend(st.minus5)
    out.append(len(st.trick))
    for s, c, as_colour in st.trick:
        out.append(s)
        out.append(c.index)
        out.append(_colour_number(as_colour))
    return out


def native_move_code(st: RageState, m: Move) -> int:
    kind = m["type"]
    if kind == "trump":  # a chance card: its colour, or 6 + the action card
        card = CARDS.parse(m["card"])
        turned = COLORS.index(card.color) if card.color else 6 + ACTION_ORDER.index(card.kind)
        return codes.pack(codes.TURN, 0, turned)
    seat = st.seat[m["player"]]
    if kind == "bid":
        return codes.pack(codes.BID, seat, m["bid"])
    if kind == "play":
        card = CARDS.parse(m["card"])
        named = m.get("as")
        joker = _colour_number(named.upper()) + 1 if card is JOKER and isinstance(named, str) else 0
        return codes.pack(codes.PLAY, seat, card.index | joker << 8)
    raise ValueError(f"rage has no {kind!r} move")


def native_move_of(st: RageState, code: int) -> Move:
    kind, seat, payload = codes.kind_of(code), codes.seat_of(code), codes.payload_of(code)
    player = st.players[seat]
    if kind == codes.BID:
        return {"type": "bid", "player": player, "bid": payload}
    if kind == codes.PLAY:
        m: Move = {"type": "play", "player": player,
                   "card": CARDS.deck_order[payload & 0xFF].name}
        if payload >> 8:
            m["as"] = COLORS[(payload >> 8) - 1]
        return m
    raise ValueError(f"{code} is not a rage move code")

INFO = register(GameInfo(
    name="rage", title="Rage", min_players=3, max_players=8, state_class=RageState,
    cards=CARDS, variants=VARIANTS,
    render={RoundDealt: _render_dealt, TrumpTurned: _render_trump, BidMade: _render_bid,
            RageTrickFinished: _render_trick, BidSettled: _render_settled,
            RageSheetEntered: _render_sheet},
    project={TrumpTurned: _project_trump, BidMade: _project_bid,
             RageTrickFinished: _project_trick, BidSettled: _project_settled,
             RageSheetEntered: _project_sheet},
    heuristic=heuristic, step_facts=(RageTrickFinished,), sheet_state=RageSheet,
    events=("deal", "trump", "bid", "play"), exact_numbers=("bid",), injectable=("bid", "play"),
    deck=DECK, trick_winner=trick_winner,
    # secret bids are revealed after the round's last trick; the turned trump is seen by all
    deferrable={"secret_bid": "bid"}, seen_after_deal=("trump",),
    tables=TABLES, columns=COLUMNS, analytics=ANALYTICS,
    pages=(GamePage("Bidding", "trickledger.dashboard.games.rage_bidding", ":material/target:",
                    "bidding"),),
    dashboard="trickledger.dashboard.games.rage",
    estimated_hands="SELECT game_id, round, player, won FROM bids",
    # a round scores about -5..+20 (a missed bid costs 15)
    bands=(2.0, 5.0, 10.0),
    colors={c: CHIP_COLORS[name] for c, name in COLOR_NAMES.items()},
    color_names=COLOR_NAMES,
    examples=EXAMPLES,
    native=NativeCodec("rage", native_position, native_move_code, native_move_of,
                       solve_cards=12, endgame_cards=8),
))
