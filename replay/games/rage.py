"""`rage` — bidding with trump changes, Jokers and action cards (RULES.md section 2).

Ten rounds of 10, 9, ... 1 cards. The pile's turned card sets trump (action
cards turned up are skipped); each player bids how many tricks they will win;
+1 per trick, +/-5 per +5/-5 card won, +10 for an exact bid, -5 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cards import Card, CardTable, card_order, hand_cards, hand_of, remove_from_hand
from ..engine import (
    GameInfo,
    GameState,
    RoundDealt,
    check_rounds,
    field_of,
    hands_lines,
    register,
)
from ..errors import RuleError
from ..reader import Event, Header

COLORS = "BGRYPO"
COLOR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow", "P": "purple", "O": "orange"}
ACTIONS = {"JOKER": 2, "NOTRUMP": 4, "CHANGE": 4, "+5": 3, "-5": 3}
VARIANTS = ("plus_minus_one", "hidden_bid", "secret_bid", "marching_through")
MAX_ROUNDS = 10

CARDS = CardTable([Card(f"{c}{v}", c, v, "color") for c in COLORS for v in range(16)]
                  + [Card(a, None, 0, a) for a in ACTIONS])
DECK: dict[Card, int] = {c: (ACTIONS[c.kind] if c.color is None else 1) for c in CARDS}
JOKER, NOTRUMP, CHANGE, PLUS5, MINUS5 = (CARDS[a] for a in ("JOKER", "NOTRUMP", "CHANGE", "+5", "-5"))


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


def hand_size(round_no: int) -> int:
    return 11 - round_no


# ------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class TrumpTurned:
    round: int
    trick: int  # the trick being played (0: before the first trick)
    card: str
    reason: str  # "deal", "change" or "notrump"
    trump: str | None  # the trump once this card is turned (None while only action cards showed)
    line: int


@dataclass(frozen=True, slots=True)
class BidMade:
    round: int
    player: str
    bid: int
    line: int


@dataclass(frozen=True, slots=True)
class RageTrickFinished:
    round: int
    trick: int
    leader: str
    cards: tuple[tuple[str, str, str | None], ...]  # (player, card, Joker's colour)
    led_color: str | None
    trump: str | None  # the trump in force for this trick (None under NOTRUMP)
    notrump: bool
    change: bool
    winner: str
    winning_card: str
    plus5: int
    minus5: int
    line: int


@dataclass(frozen=True, slots=True)
class BidSettled:
    """One player's round: bid against tricks won, with what the analytics need."""

    round: int
    player: str
    hand_size: int
    bid: int
    won: int
    bid_error: int  # won - bid
    exact: bool
    plus5: int
    minus5: int
    trumps_held: int  # trump-colour cards in the hand when bidding
    jokers_held: int
    marching: bool
    score: int


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


class RageState(GameState):
    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=MAX_ROUNDS, maximum=MAX_ROUNDS)

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        v = header.variants
        self.plus_minus_one = "plus_minus_one" in v
        self.secret = "secret_bid" in v
        self.any_order = self.secret or "hidden_bid" in v
        self.marching_through = "marching_through" in v
        self.phase = "deal"
        self.trump_reason = ""
        self.hands: list[dict[Card, int]] = [{} for _ in range(self.n)]
        self.used: dict[Card, int] = {}
        self.trump: str | None = None
        self.hs = 0
        self.bids: list[int | None] = []
        self.bid_count = 0
        self.next_bidder = 0
        self.trick: list[tuple[int, Card, str | None]] = []
        self.led: str | None = None
        self.notrump = False
        self.change = False
        self.trick_trump: str | None = None
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
    def on_deal(self, ev: Event) -> None:
        if self.in_round:
            raise RuleError(self._round_unfinished())
        hands = self.begin_deal(ev)
        self.hs = hs = hand_size(self.round_no)
        used: dict[Card, int] = {}
        for s, name in enumerate(self.players):
            cards = hands[name]
            if len(cards) != hs:
                raise RuleError(f"deal: round {self.round_no} deals {hs} cards each, "
                                f"{name} got {len(cards)}")
            parsed = [CARDS.parse(c, "rage") for c in cards]
            for c in parsed:
                used[c] = used.get(c, 0) + 1
                if used[c] > DECK[c]:
                    raise RuleError(f"deal: {c} is dealt more often than the deck holds it "
                                    f"({DECK[c]})")
            self.hands[s] = hand_of(parsed)
        left = self.left_of(self.dealer)
        if "leader" in ev.data and self.player(ev, "leader") != left:
            raise RuleError(f"round {self.round_no} is led by {self.players[left]}, the player "
                            f"left of the dealer")
        self.used = used
        self.trump = None
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
        self.phase = "trump"
        self.trump_reason = "deal"
        self.facts.append(RoundDealt(
            self.round_no, self.players[self.dealer], self.players[left],
            {p: tuple(c.name for c in hand_cards(self.hands[s])) for s, p in enumerate(self.players)},
            {"hand_size": hs}, ev.line))

    def _round_unfinished(self) -> str:
        if self.trick_no < self.hs:
            return (f"a deal came before round {self.round_no} was finished "
                    f"({self.trick_no} of {self.hs} tricks played)")
        missing = [self.players[s] for s in range(self.n) if self.bids[s] is None]
        return f"a deal came before round {self.round_no}'s bids were all in: " \
               f"{', '.join(missing)} did not bid"

    def on_trump(self, ev: Event) -> None:
        if self.phase != "trump":
            if self.phase == "deal":
                raise RuleError("no trump is turned now: the round has not been dealt")
            raise RuleError("no trump is turned now: trump is turned after the deal, right "
                            "after a CHANGE, and after a trick that held a NOTRUMP")
        card = CARDS.from_event(ev, "rage")
        k = self.used.get(card, 0)
        if k >= DECK[card]:
            where = "is in a player's hand or was already turned up"
            raise RuleError(f"{card} cannot be turned up: every {card} of the deck {where}"
                            if DECK[card] > 1 else f"{card} cannot be turned up: it {where}")
        self.used[card] = k + 1
        reason = self.trump_reason
        if card.color is None:
            self.facts.append(TrumpTurned(self.round_no, self._trick_label(), card.name, reason,
                                          None, ev.line))
            return  # an action card turned up is set aside: the next card is turned
        self.trump = card.color
        self.facts.append(TrumpTurned(self.round_no, self._trick_label(), card.name, reason,
                                      card.color, ev.line))
        if reason == "deal":
            for s in range(self.n):
                h = self.hands[s]
                self.trumps_held[s] = sum(k for c, k in h.items() if c.color == card.color)
                self.jokers_held[s] = h.get(JOKER, 0)
            # secret bids may wait until the round's tricks are over
            self.phase = "bid" if self.bid_count < self.n and not self.secret else "play"
        elif reason == "change":
            self.phase = "play"
            if self.trick_full:
                self._decide_trick(ev.line)
        else:
            self.phase = "play"

    def _trick_label(self) -> int:
        if self.trump_reason == "change":
            return self.trick_no + 1
        return self.trick_no if self.trump_reason == "notrump" else 0

    # ------------------------------------------------------------ bids
    def on_bid(self, ev: Event) -> None:
        s = self.seat_of(ev)
        name = self.players[s]
        bid = field_of(ev, "bid", int, "a number of tricks")
        if self.phase in ("deal", "trump"):
            if self.phase == "deal" or self.trump_reason == "deal":
                raise RuleError(f"{name} bids before the round's trump is turned")
            raise RuleError(f"{name} bids while a trump must be turned")
        if self.bids[s] is not None:
            raise RuleError(f"{name} already bid {self.bids[s]} in round {self.round_no}")
        if self.played_any and not (self.secret and self.phase == "after_tricks"):
            if self.secret:
                raise RuleError(f"{name} bids in the middle of round {self.round_no}: with "
                                f"secret_bid, bids come before the first play or after the last "
                                f"trick")
            raise RuleError(f"{name} bids after the round's first play: all bids come before it")
        if not self.any_order and s != self.next_bidder:
            raise RuleError(f"{name} bids out of turn: {self.players[self.next_bidder]} bids "
                            f"next (bids go clockwise from the dealer's left)")
        if not 0 <= bid <= self.hs:
            raise RuleError(f"{name} bids {bid}: a bid is 0 to {self.hs} in round "
                            f"{self.round_no}")
        self.bids[s] = bid
        self.bid_count += 1
        self.next_bidder = self.left_of(s)
        if self.plus_minus_one and self.bid_count == self.n:
            total = sum(b for b in self.bids if b is not None)
            if total == self.hs:
                raise RuleError(f"with plus_minus_one the bids may not add up to {self.hs}, the "
                                f"number of tricks: {name} may not bid {bid}")
        self.facts.append(BidMade(self.round_no, name, bid, ev.line))
        if self.bid_count == self.n:
            if self.phase == "after_tricks":
                self._score_round(ev.line)
            elif self.phase == "bid":
                self.phase = "play"

    # ------------------------------------------------------------ play
    def on_play(self, ev: Event) -> None:
        if self.phase != "play":
            self._not_now()
        s = self.seat_of(ev)
        name = self.players[s]
        if s != self.turn:
            raise RuleError(f"{name} plays out of turn: it is {self.players[self.turn]}'s turn "
                            f"in trick {self.trick_no + 1}")
        card = CARDS.from_event(ev, "rage")
        hand = self.hands[s]
        if card not in hand:
            raise RuleError(f"{name} cannot play {card}: it is not in {name}'s hand")
        as_color = None
        if card is JOKER:
            raw = ev.data.get("as")
            if type(raw) is not str:
                raise RuleError(f"{name} plays a JOKER without naming its colour ('as': one of "
                                f"{', '.join(COLORS)})" if raw is None else
                                f"play event: 'as' must be a colour letter, got {raw!r}")
            as_color = raw.upper()
            if as_color not in COLORS or len(as_color) != 1:
                raise RuleError(f"{raw!r} is not a colour: a JOKER is named as one of "
                                f"{', '.join(COLORS)}")
        led = self.led
        if led is not None and card.color != led:
            follow = None
            for c in hand:  # any card of the led colour? (no sorting on the hot path)
                if c.color == led:
                    follow = min((h for h in hand if h.color == led), key=card_order)
                    break
            if follow is not None:
                if card.color is None:
                    raise RuleError(f"{name} cannot play {card}: action cards may be played only "
                                    f"by the leader or by a player with no "
                                    f"{COLOR_NAMES[led]} card, and {name} holds {follow}")
                raise RuleError(f"{name} must follow {COLOR_NAMES[led]}: {name} holds {follow} "
                                f"and may not play {card}")
        remove_from_hand(hand, card)
        self.played_any = True
        self.trick.append((s, card, as_color))
        if led is None:
            if card.color is not None:
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
            self.phase = "trump"
            self.trump_reason = "change"
            return
        if full:
            self._decide_trick(ev.line)

    def _not_now(self) -> None:
        if self.phase == "trump":
            why = {"deal": "the round's trump", "change": "the new trump after CHANGE",
                   "notrump": "a new trump after the trick without trump"}[self.trump_reason]
            raise RuleError(f"expected a trump event ({why}) before the next play")
        if self.phase == "bid":
            missing = [self.players[s] for s in range(self.n) if self.bids[s] is None]
            if self.secret:
                raise AssertionError("secret bids never block play")  # pragma: no cover
            raise RuleError(f"no card may be played before every bid is in: "
                            f"{', '.join(missing)} has not bid")
        if self.phase == "after_tricks":
            raise RuleError(f"round {self.round_no} has no tricks left: expected the remaining "
                            f"secret bids")
        if self.round_no == 0:
            raise RuleError("no round has been dealt yet (expected a deal)")
        raise RuleError(f"round {self.round_no} is over (expected the next deal or a claim)")

    def _decide_trick(self, line: int) -> None:
        trick = self.trick
        trump = None if self.notrump else self.trump
        winner_i = winning_index(trick, trump, self.led)
        # with no colour card or Joker at all, the first card played wins
        w, wcard, _ = trick[winner_i]
        p5 = sum(1 for _, c, _ in trick if c is PLUS5)
        m5 = sum(1 for _, c, _ in trick if c is MINUS5)
        self.won[w] += 1
        self.plus5[w] += p5
        self.minus5[w] += m5
        self.trick_no += 1
        self.facts.append(RageTrickFinished(
            self.round_no, self.trick_no, self.players[self.leader],
            tuple((self.players[p], c.name, a) for p, c, a in trick), self.led, trump,
            self.notrump, self.change, self.players[w], wcard.name, p5, m5, line))
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
                self.phase = "after_tricks"
        elif turn_after:
            self.phase = "trump"
            self.trump_reason = "notrump"
        else:
            self.phase = "play"

    def _score_round(self, line: int) -> None:
        scores: dict[str, int] = {}
        derivs: dict[str, str] = {}
        for s, name in enumerate(self.players):
            bid = self.bids[s]
            assert bid is not None
            total, marching, text = score_round(self.won[s], bid, self.plus5[s], self.minus5[s],
                                                self.hs, self.marching_through)
            scores[name] = total
            derivs[name] = text
            self.facts.append(BidSettled(
                self.round_no, name, self.hs, bid, self.won[s], self.won[s] - bid,
                self.won[s] == bid, self.plus5[s], self.minus5[s], self.trumps_held[s],
                self.jokers_held[s], marching, total))
        self.phase = "deal"
        self.finish_round(scores, derivs, {"tricks": self.trick_no}, line)

    def before_claim(self, ev: Event) -> None:
        if self.phase == "trump" and self.trump_reason == "change":
            raise RuleError("expected a trump event (the new trump after CHANGE)")

    # ------------------------------------------------------------ uniform API
    def expects(self) -> str | None:
        if self.over:
            return None
        if self.phase == "deal":
            return "deal"
        return "trump" if self.phase == "trump" else "move"

    def _bidder(self) -> int:
        if not self.any_order:
            return self.next_bidder
        s = self.left_of(self.dealer)
        while self.bids[s] is not None:
            s = self.left_of(s)
        return s

    def _bidding_now(self) -> bool:
        """Whether the next move is a bid (simulated secret bidders bid before playing)."""
        if self.phase in ("bid", "after_tricks"):
            return True
        return self.phase == "play" and not self.played_any and self.bid_count < self.n

    def to_move(self) -> str | None:
        if self._bidding_now():
            return self.players[self._bidder()]
        if self.phase == "play":
            return self.players[self.turn]
        return None

    def legal_bids(self) -> list[int]:
        bids = list(range(self.hs + 1))
        if self.plus_minus_one and self.bid_count == self.n - 1:
            rest = self.hs - sum(b for b in self.bids if b is not None)
            bids = [b for b in bids if b != rest]
        return bids

    def legal_cards(self) -> list[tuple[Card, str | None]]:
        hand = hand_cards(self.hands[self.turn])
        led = self.led
        if led is not None and any(c.color == led for c in hand):
            cards = [c for c in dict.fromkeys(hand) if c.color == led]
        else:
            cards = list(dict.fromkeys(hand))
        out: list[tuple[Card, str | None]] = []
        for c in cards:
            if c is JOKER:
                out.extend((c, col) for col in COLORS)
            else:
                out.append((c, None))
        return out

    def legal_moves(self) -> list[dict[str, Any]]:
        if self._bidding_now():
            p = self.players[self._bidder()]
            return [{"type": "bid", "player": p, "bid": b} for b in self.legal_bids()]
        if self.phase == "play":
            p = self.players[self.turn]
            moves = []
            for c, col in self.legal_cards():
                m = {"type": "play", "player": p, "card": c.name}
                if col is not None:
                    m["as"] = col
                moves.append(m)
            return moves
        return []

    def pile(self) -> list[Card]:
        out = []
        for c, k in DECK.items():
            out.extend([c] * (k - self.used.get(c, 0)))
        return out

    def new_deal(self, rng: Any) -> dict[str, Any]:
        deck = [c for c, k in DECK.items() for _ in range(k)]
        rng.shuffle(deck)
        hs = hand_size(self.round_no + 1)
        hands = {p: [c.name for c in sorted(deck[i * hs:(i + 1) * hs], key=lambda c: c.index)]
                 for i, p in enumerate(self.players)}
        return {"type": "deal", "hands": hands}

    def next_trump(self, rng: Any) -> dict[str, Any]:
        return {"type": "trump", "card": rng.choice(self.pile()).name}


def render_fact(f: Any, players: tuple[str, ...]) -> list[str]:
    """Lines of `replay` for one of this game's facts."""
    out: list[str] = []
    if isinstance(f, RoundDealt):
        out.append(f"== Round {f.round}: {f.dealer} deals {f.extra['hand_size']} cards each, "
                   f"{f.leader} leads")
        out.extend(hands_lines(f))
    elif isinstance(f, TrumpTurned):
        if f.trump is None:
            out.append(f"   turned {f.card}: an action card, set aside")
        else:
            when = {"deal": "trump for the round", "change": "CHANGE: new trump",
                    "notrump": "new trump after the trick without trump"}[f.reason]
            out.append(f"   turned {f.card}: {when} is {COLOR_NAMES[f.trump]}")
    elif isinstance(f, BidMade):
        out.append(f"   {f.player} bids {f.bid}")
    elif isinstance(f, RageTrickFinished):
        plays = ", ".join(f"{p} {c}" + (f" (as {a})" if a else "") for p, c, a in f.cards)
        led = COLOR_NAMES[f.led_color] if f.led_color else "no colour"
        trump = "no trump (NOTRUMP)" if f.notrump else \
            (f"trump {COLOR_NAMES[f.trump]}" if f.trump else "no trump")
        extra = " CHANGE fired;" if f.change else ""
        money = "".join([" +5" * f.plus5, " -5" * f.minus5])
        out.append(f"Trick {f.trick} (line {f.line}): {plays}; led {led}, {trump};{extra} "
                   f"{f.winner} wins with {f.winning_card}{money}")
    elif isinstance(f, BidSettled):
        out.append(f"   {f.player:<10} bid {f.bid}, won {f.won}")
    return out


INFO = register(GameInfo(
    name="rage", title="Rage", min_players=3, max_players=8, state_class=RageState,
    variants=VARIANTS,
    render_fact=render_fact,
))
