"""`plotters` — Plotters, Inc. / Mit List und Tücke (docs/rules.md section 1).

Split tricks: the highest card of the led colour picks ceil(n/2) cards, the
lowest card of another colour gets the rest and leads next. A trick holds at
most three colours; a player left with only the fourth colour ends the
round at once. Collected cards score (largest x second largest open stack)
// (all other collected cards).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import combinations
from random import Random
from typing import Any, ClassVar, Final

from ..cards import CHIP_COLORS, Card, CardTable, card_order, deal_hands, names
from ..errors import EarlierLineError, FormatError, RuleError
from ..events import Event, Header, str_list
from ..facts import Fact, RoundDealt, RoundOutcome, RoundScored, TrickAbandoned
from ..info import GamePage, NativeCodec
from ..native import codes
from ..registry import GameInfo, Move, register
from ..rows import RowSink, RowWriter, Stack, TableRows, plays_rows
from ..sheet import (
    SHEET_END,
    SheetField,
    SheetForm,
    SheetState,
    letter_counts,
    number,
    sheet_head,
    table_lines,
)
from ..state import GameState, check_rounds
from ..tables import Column, SharedColumns

# Module constants are Final: compiled, they are read as C statics, not looked up by name.
COLORS: Final = "BGRY"
COLOR_NAMES: Final = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
HAND_SIZE: Final = 14
EDITIONS: Final = ("mit-list-und-tuecke", "plotters-inc")
# Highest number per colour, by player count.
DECK_TOP: Final = {4: {"B": 14, "G": 14, "R": 14, "Y": 14},
            5: {"B": 17, "G": 17, "R": 18, "Y": 18},
            6: {"B": 21, "G": 21, "R": 21, "Y": 21}}

CARDS: Final[CardTable[Card]] = CardTable((Card(f"{c}{v}", c, v) for c in COLORS for v in range(1, 22)),
                                   "plotters")
COLOR_INDEX: Final = {c: i for i, c in enumerate(COLORS)}
DECKS: Final = {n: frozenset(CARDS[f"{c}{v}"] for c in COLORS for v in range(1, top[c] + 1))
         for n, top in DECK_TOP.items()}


# ------------------------------------------------------------------- rules


def pick_size(players: int) -> int:
    """How many cards the first winner picks: half the trick, rounded up."""
    return (players + 1) // 2


def fits_trick(card: Card, trick_colors: set[str]) -> bool:
    """The three-colour rule: a trick never holds a fourth colour."""
    return len(trick_colors) < 3 or card.color in trick_colors


def keepable(open_stacks: list[int]) -> list[str]:
    """The colours a player may keep: those they have collected."""
    return [COLORS[i] for i in range(4) if open_stacks[i]]


def among(card: Card, cards: list[Card]) -> bool:
    """Whether `card` is one of `cards`: cards are singletons, so a loop of identity checks
    (`in` asks the card's type for == at every other card)."""
    for c in cards:
        if c is card:
            return True
    return False


def score(open_stacks: list[int], discards: int) -> tuple[int, str]:
    """The round score of one player and its derivation, e.g. 'open G×5 R×6, other 3 -> ...'."""
    # the two largest stacks (ties: colour order), shown in colour order
    first = second = -1  # the colours of the two largest stacks, found in one pass
    held = total = 0
    for i, k in enumerate(open_stacks):
        if k:
            held += 1
            total += k
            if first < 0 or k > open_stacks[first]:
                first, second = i, first
            elif second < 0 or k > open_stacks[second]:
                second = i
    if held < 2:
        shown = f"{COLORS[first]}×{open_stacks[first]}" if held else "nothing"
        return 0, f"open {shown} -> fewer than two colours = 0"
    ia, ib = min(first, second), max(first, second)
    a, b = open_stacks[ia], open_stacks[ib]
    ca, cb = COLORS[ia], COLORS[ib]
    others = total - a - b + discards
    product = a * b
    if others == 0:
        return product, f"open {ca}×{a} {cb}×{b}, other 0 -> {a}×{b}={product}"
    result = product // others
    return result, (f"open {ca}×{a} {cb}×{b}, other {others} -> {a}×{b}={product} // {others} "
                    f"= {result}")


# ------------------------------------------------------------------- facts


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class TrickFinished(Fact):
    round: Final[int]
    trick: Final[int]
    leader: Final[int]
    cards: Final[tuple[tuple[int, Card], ...]]  # (seat, card) in play order
    first_winner: Final[int]
    second_winner: Final[int | None]  # None: every card had the led colour (monochrome)
    first_pick: Final[tuple[Card, ...]]
    rest: Final[tuple[Card, ...]]  # to the second winner, or discarded when monochrome
    next_leader: Final[int]
    stacks: Final[tuple[tuple[int, int, int, int, int], ...]]  # per seat: open B G R Y, discards
    kept_cards: Final[tuple[int, int]]  # cards of the pick / the rest that landed on open stacks
    line: Final[int]

    def __init__(self, round: int, trick: int, leader: int, cards: tuple[tuple[int, Card], ...],
                 first_winner: int, second_winner: int | None, first_pick: tuple[Card, ...],
                 rest: tuple[Card, ...], next_leader: int,
                 stacks: tuple[tuple[int, int, int, int, int], ...], kept_cards: tuple[int, int],
                 line: int) -> None:
        self.round = round
        self.trick = trick
        self.leader = leader
        self.cards = cards
        self.first_winner = first_winner
        self.second_winner = second_winner
        self.first_pick = first_pick
        self.rest = rest
        self.next_leader = next_leader
        self.stacks = stacks
        self.kept_cards = kept_cards
        self.line = line

    @property
    def led_color(self) -> str:
        return self.cards[0][1].color

    def card_of(self, seat: int) -> Card:
        return next(c for s, c in self.cards if s == seat)


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class ColorsKept(Fact):
    round: Final[int]
    trick: Final[int]
    player: Final[int]
    colors: Final[tuple[str, str]]
    discarded: Final[int]  # cards turned face down by this choice
    line: Final[int]

    def __init__(self, round: int, trick: int, player: int, colors: tuple[str, str],
                 discarded: int, line: int) -> None:
        self.round = round
        self.trick = trick
        self.player = player
        self.colors = colors
        self.discarded = discarded
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class RoundEnded(Fact):
    round: Final[int]
    tricks: Final[int]
    early_end_player: Final[int | None]  # the player who could not play; None: all tricks played
    unfinished: Final[tuple[tuple[int, Card], ...]]
    leader: Final[int]
    line: Final[int]

    def __init__(self, round: int, tricks: int, early_end_player: int | None,
                 unfinished: tuple[tuple[int, Card], ...], leader: int, line: int) -> None:
        self.round = round
        self.tricks = tricks
        self.early_end_player = early_end_player
        self.unfinished = unfinished
        self.leader = leader
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class PlottersRound(RoundOutcome):
    tricks: Final[int]
    early_end_player: Final[int | None]
    early_end_trick: Final[int | None]

    def __init__(self, tricks: int, early_end_player: int | None, early_end_trick: int | None) -> None:
        self.tricks = tricks
        self.early_end_player = early_end_player
        self.early_end_trick = early_end_trick

    def summary(self, players: tuple[str, ...]) -> dict[str, Any]:
        early = self.early_end_player
        return {"tricks": self.tricks, "ended_early": early is not None,
                "early_end_player": players[early] if early is not None else None}

    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        early = self.early_end_player is not None
        return {**self.summary(players), "early_end_trick": self.early_end_trick,
                "end_reason": "early end" if early else "all tricks played"}


# ------------------------------------------------------------------- state


class Phase(Enum):
    """What the round waits for (`self.phase`). A plain `Enum`: compiled, its members are
    read as C statics and compared by identity."""

    DEAL = "deal"  # a deal (the next round, or the first)
    PLAY = "play"  # the next card of the trick
    TAKE = "take"  # the trick is full: its winners take their picks
    KEEP = "keep"  # a player who collected a fourth colour keeps two


class PlottersState(GameState):
    plays_only_rounds = True

    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=len(header.players))

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.deck = DECKS[self.n]
        self.pick_size = pick_size(self.n)
        self.phase: Phase = Phase.DEAL
        self.hands: list[set[Card]] = [set() for _ in range(self.n)]
        self.open: list[list[int]] = [[0, 0, 0, 0] for _ in range(self.n)]
        self.discards = [0] * self.n
        self.kept: list[tuple[int, int] | None] = [None] * self.n
        self.trick: list[tuple[int, Card]] = []
        self.trick_colors: set[str] = set()
        self.trick_no = 0
        self.leader = 0
        self.turn = 0
        self.keep_owed: list[int] = []
        self.first_winner = -1
        self.second_winner: int | None = None
        self.round_leader = 0

    # ------------------------------------------------------------ events
    def why_no_deal(self) -> str | None:
        if self.phase in (Phase.PLAY, Phase.TAKE):
            return (f"a deal came before round {self.round_no} was finished "
                    f"(trick {self.trick_no + 1} is being played)")
        return super().why_no_deal()

    def handle(self, ev: Event) -> None:
        # natively called handlers, the most frequent event first (GameState.handle)
        t = ev.type
        if t == "play":
            self.on_play(ev)
        elif t == "take":
            self.on_take(ev)
        elif t == "keep":
            self.on_keep(ev)
        elif t == "deal":
            self.on_deal(ev)
        else:
            GameState.handle(self, ev)

    def on_deal(self, ev: Event) -> None:
        if self.phase is Phase.KEEP:
            self._missing_keep()
        if self.live is not None and self.phase is Phase.PLAY and len(self.trick_colors) == 3:
            # a plays-only round whose trick stopped at three colours: it ended early (the
            # next player held only the fourth), which its replay with the hands checks
            self._live_early_end()
            self.settle()
        hands = self.begin_deal(ev)
        if self.live is not None:
            self.live.dealt = [HAND_SIZE] * self.n
        seen: set[Card] = set()
        for s, name in enumerate(self.players):
            cards = hands.get(name, [])
            if len(cards) != HAND_SIZE and not self.inferring and self.live is None:
                raise RuleError(f"deal: {name} must get {HAND_SIZE} cards, got {len(cards)}")
            hand = set()
            for raw in cards:
                c = CARDS.parse(raw)
                if c not in self.deck:
                    raise RuleError(f"deal: {c} is not in the {self.n}-player deck "
                                    f"({self._deck_text()})")
                if c in seen:
                    raise RuleError(f"deal: {c} is dealt twice")
                seen.add(c)
                hand.add(c)
            self.hands[s] = hand
        default_leader = self.left_of(self.dealer)
        leader = default_leader
        named = self.named_leader(ev)
        if named is not None:
            leader = named
            elected = self._elected(self.round_no)
            if leader != default_leader and not elected:
                why = ("only the first round of plotters-inc may be led by an elected player"
                       if self.header.edition == "plotters-inc"
                       else "in mit-list-und-tuecke the player left of the dealer leads")
                raise RuleError(f"round {self.round_no} is led by "
                                f"{self.players[default_leader]}, not "
                                f"{self.players[leader]}: {why}")
        self.open = [[0, 0, 0, 0] for _ in range(self.n)]
        self.discards = [0] * self.n
        self.kept = [None] * self.n
        self.trick = []
        self.trick_colors = set()
        self.trick_no = 0
        self.leader = self.turn = self.round_leader = leader
        self.phase = Phase.PLAY
        self.emit(RoundDealt(self.round_no, self.dealer, leader,
                             tuple(tuple(CARDS.in_order(h)) for h in self.hands),
                             ev.line))

    def _deck_text(self) -> str:
        top = DECK_TOP[self.n]
        return ", ".join(f"{c}1-{top[c]}" for c in COLORS)

    def _not_now(self, what: str) -> None:
        if self.phase is Phase.KEEP:
            self._missing_keep()
        if self.phase is Phase.TAKE:
            raise RuleError(f"{what}: the trick is finished and "
                            f"{self.players[self.first_winner]} must first take their pick "
                            f"(a take of {self.pick_size} cards)")
        if self.phase is Phase.DEAL:
            if self.round_no == 0:
                raise RuleError(f"{what}: no round has been dealt yet (expected a deal)")
            raise RuleError(f"{what}: round {self.round_no} is over "
                            f"(expected the next deal or a claim)")

    def _missing_keep(self) -> None:
        s = self.keep_owed[0]
        have = "".join(keepable(self.open[s]))
        raise RuleError(f"{self.players[s]} holds collected cards of all four colours ({have}) "
                        f"and must choose two to keep: expected a keep event")

    def on_play(self, ev: Event) -> None:
        if self.phase is not Phase.PLAY:
            self._not_now("no card may be played now")
        if self.live is not None:
            self._live_play(ev)
            return
        s, card = self.card_played(ev, self.turn, CARDS, self.hands, "to play to trick",
                                   self.trick_no + 1)
        name = self.players[s]
        hand = self.hands[s]
        colors = self.trick_colors
        if not fits_trick(card, colors):
            legal = next(c for c in sorted(hand, key=card_order) if fits_trick(c, colors))
            shown = list(dict.fromkeys(c.color for _, c in self.trick))
            held = f"{shown[0]}, {shown[1]} and {shown[2]}"
            raise RuleError(f"{name} cannot play {card}: the trick already holds {held} "
                            f"(a trick holds at most three colours), and {name} holds {legal}")
        hand.discard(card)
        self.trick.append((s, card))
        colors.add(card.color)
        if len(self.trick) == self.n:
            self._decide_trick()
            return
        nxt = self.left_of(s)
        self.turn = nxt
        if len(colors) == 3 and not any(fits_trick(c, colors) for c in self.hands[nxt]):
            self._end_round(ev.line, early_player=nxt)

    def _live_play(self, ev: Event) -> None:
        """A play of a plays-only round: the turn, the deck, each card once and the
        three-colour rule (a fourth colour is never playable: a player who holds only the
        fourth ends the round before their turn). Whether the round ended early is known
        only from what follows the play (`_live_early_end`)."""
        s = self.seat_of(ev)
        name = self.players[s]
        if s != self.turn:
            raise RuleError(f"{name} plays out of turn: it is {self.players[self.turn]}'s turn "
                            f"to play to trick {self.trick_no + 1}")
        card = CARDS.from_event(ev)
        why = self.why_not_fits(card)
        if why is not None:
            raise RuleError(f"{name} cannot play {card}: {why}")
        self.live_card(s, card, ev.line, self.trick_no + 1)
        self.trick.append((s, card))
        self.trick_colors.add(card.color)
        if len(self.trick) == self.n:
            self._decide_trick()
            return
        self.turn = self.left_of(s)

    def why_not_fits(self, card: Card) -> str | None:
        """Why `card` cannot go on the trick whatever the hand (the three-colour rule), or
        None when it may."""
        colors = self.trick_colors
        if fits_trick(card, colors):
            return None
        shown = list(dict.fromkeys(c.color for _, c in self.trick))
        return (f"the trick already holds {shown[0]}, {shown[1]} and {shown[2]} (a trick "
                f"holds at most three colours)")

    def _live_early_end(self) -> None:
        """A plays-only round ends early: its trick holds three colours and what follows is
        no play (a shown, the next deal). The player to play held only the fourth colour,
        which the replay with the hands checks."""
        live = self.live
        assert live is not None
        last = max(line for cards in live.played for _, line, _ in cards)
        self._end_round(last, early_player=self.turn)

    def _decide_trick(self) -> None:
        led = self.trick[0][1].color
        # the highest card of the led colour (of equal values the later seat, as the
        # largest (value, seat) pair would be), in a loop rather than max() over tuples
        top = first = -1
        for s, c in self.trick:
            if c.color == led and (c.value > top or c.value == top and s > first):
                top, first = c.value, s
        self.first_winner = first
        second = None
        best = 99
        for s, c in self.trick:  # the first played of equal lowest values wins
            if c.color != led and c.value < best:
                best, second = c.value, s
        self.second_winner = second
        self.phase = Phase.TAKE

    def _collect(self, s: int, cards: list[Card]) -> int:
        kept = self.kept[s]
        landed = 0
        for c in cards:
            i = COLOR_INDEX[c.color]
            if kept is None or i in kept:
                self.open[s][i] += 1
                landed += 1
            else:
                self.discards[s] += 1
        op = self.open[s]
        if kept is None and op[0] and op[1] and op[2] and op[3]:  # all four colours
            self.keep_owed.append(s)
        return landed

    def on_take(self, ev: Event) -> None:
        if self.phase is not Phase.TAKE:
            if self.phase is Phase.PLAY:
                raise RuleError(f"no trick is waiting to be split: trick {self.trick_no + 1} "
                                f"holds {len(self.trick)} of {self.n} cards")
            self._not_now("no take is due now")
        s = self.seat_of(ev)
        fw = self.first_winner
        if s != fw:
            raise RuleError(f"{self.players[s]} cannot take: {self.players[fw]} played the "
                            f"highest {COLOR_NAMES[self.trick[0][1].color]} card and picks first")
        raw = str_list(ev, "cards", "a list of card names")
        if len(raw) != self.pick_size:
            raise RuleError(f"{self.players[s]} must take {self.pick_size} cards of the trick "
                            f"(half of {self.n}, rounded up), not {len(raw)}")
        trick = self.trick
        in_trick = [c for _, c in trick]
        by_name = CARDS.by_name
        pick: list[Card] = []
        for r in raw:
            c = by_name.get(r) or CARDS.parse(r)
            if not among(c, in_trick):
                raise RuleError(f"{self.players[s]} cannot take {c}: it is not in the trick "
                                f"({names(c for _, c in self.trick)})")
            if among(c, pick):
                raise RuleError(f"{self.players[s]} takes {c} twice")
            pick.append(c)
        rest = [c for c in in_trick if not among(c, pick)]
        second = self.second_winner
        self.keep_owed = []
        landed_first = self._collect(s, pick)
        landed_rest = 0
        if second is not None:
            landed_rest = self._collect(second, rest)
            nxt = second
        else:
            nxt = s
        self.trick_no += 1
        self.emit(TrickFinished(
            self.round_no, self.trick_no, self.leader, tuple(trick), s, second, tuple(pick),
            tuple(rest), nxt, self._stacks(), (landed_first, landed_rest), ev.line))
        self.trick = []
        self.trick_colors = set()
        self.leader = self.turn = nxt
        if self.keep_owed:
            self.phase = Phase.KEEP
        else:
            self._after_trick(ev.line)

    def _stacks(self) -> tuple[tuple[int, int, int, int, int], ...]:
        o, d = self.open, self.discards
        return tuple((o[s][0], o[s][1], o[s][2], o[s][3], d[s]) for s in range(self.n))

    def _after_trick(self, line: int) -> None:
        if not self.hands[self.turn] if self.live is None else not self.cards_left(self.turn):
            self._end_round(line, early_player=None)
        else:
            self.phase = Phase.PLAY

    def on_keep(self, ev: Event) -> None:
        s = self.seat_of(ev)
        name = self.players[s]
        if self.phase is not Phase.KEEP or s not in self.keep_owed:
            kept = self.kept[s]
            if kept is not None:
                raise RuleError(f"{name} already chose to keep "
                                f"{''.join(COLORS[i] for i in kept)}")
            raise RuleError(f"{name} cannot choose colours now: a keep comes right after the "
                            f"take that brought a player's fourth colour, and {name} holds "
                            f"collected cards of {len(keepable(self.open[s]))} colours")
        colors = str_list(ev, "colors", "a list of two colour letters")
        up = [c.upper() for c in colors]
        if len(up) != 2 or up[0] == up[1]:
            raise RuleError(f"{name} must keep exactly two different colours, got {colors}")
        allowed = keepable(self.open[s])
        idx = []
        for c in up:
            if c not in COLOR_INDEX:
                raise FormatError(f"{c!r} is not a colour: expected two of B, G, R, Y")
            if c not in allowed:
                raise RuleError(f"{name} cannot keep {c}: {name} has collected no "
                                f"{COLOR_NAMES[c]} card")
            idx.append(COLOR_INDEX[c])
        i0, i1 = idx
        op = self.open[s]
        moved = 0
        for i in range(4):
            if i not in idx:
                moved += op[i]
                self.discards[s] += op[i]
                op[i] = 0
        self.kept[s] = (i0, i1)
        self.keep_owed.remove(s)
        self.emit(ColorsKept(self.round_no, self.trick_no, s, (up[0], up[1]), moved, ev.line))
        if not self.keep_owed:
            self._after_trick(ev.line)

    # ------------------------------------------------------------ plays-only rounds
    def copies(self, card: Card) -> int:
        return 1 if card in self.deck else 0

    def not_in_deck(self) -> str:
        return f"is not in the {self.n}-player deck ({self._deck_text()})"

    def show(self, seat: int | None, part: str | None, cards: list[Card], line: int) -> None:
        assert seat is not None  # plotters has no parts beside the hands
        live = self.live
        if live is None:
            if self.phase is not Phase.DEAL or self.round_no == 0:
                raise RuleError(self._show_when())
            self.full_show(seat, None, cards, self.hand(seat))
            return
        if not live.over:
            if self.phase is Phase.PLAY and len(self.trick_colors) == 3:
                self._live_early_end()
            else:
                raise RuleError(self._show_when())
        self.live_show(seat, None, cards, line, self.cards_left(seat))

    def not_ended(self, replayed: GameState, live: Any) -> EarlierLineError:
        outcome = self.rounds[-1].outcome if self.rounds else None
        early = outcome.early_end_player if isinstance(outcome, PlottersRound) else None
        assert isinstance(replayed, PlottersState)
        st = replayed
        if early is None or live.shown[early] is None:
            return GameState.not_ended(self, replayed, live)
        name = self.players[early]
        fits = next(c for c in CARDS.in_order(live.shown[early]) if fits_trick(c, st.trick_colors))
        shown = list(dict.fromkeys(c.color for _, c in st.trick))
        return EarlierLineError(live.shown_line[early], (
            f"the round cannot end early here: {name} shows {fits}, and the trick holds "
            f"{', '.join(shown)}, so {name} could play it (a round ends early only when the "
            f"player to play holds nothing but the fourth colour)"))

    def _elected(self, round_no: int) -> bool:
        """Whether round `round_no` may be led by a player the table elects (plotters-inc's
        first round)."""
        return self.header.edition == "plotters-inc" and round_no == 1

    def leader_elected(self) -> bool:
        return self.next_chance() == "deal" and self._elected(self.round_no + 1)

    def ends_if_shown(self) -> str | None:
        if self.live is None or self.phase is not Phase.PLAY or len(self.trick_colors) != 3:
            return None
        fourth = next(c for c in COLORS if c not in self.trick_colors)
        return (f"{self.players[self.turn]} holds only {COLOR_NAMES[fourth]} (the fourth "
                f"colour): the round ends early")

    def claim_ends_round(self) -> None:
        if self.phase is Phase.PLAY and len(self.trick_colors) == 3:
            self._live_early_end()

    def _show_when(self) -> str:
        if self.round_no == 0:
            return "no round has been dealt yet: cards are shown at a round's end"
        return (f"cards are shown at a round's end: round {self.round_no} is being played "
                f"(trick {self.trick_no + 1}), and its trick does not hold three colours, "
                f"so it cannot end early here")

    def unknown_cards(self, live: Any) -> list[str]:
        out = GameState.unknown_cards(self, live)
        outcome = self.rounds[-1].outcome if self.rounds else None
        early = outcome.early_end_player if isinstance(outcome, PlottersRound) else None
        if early is not None and live.shown[early] is None:
            out.append(f"that {self.players[early]} held only the fourth colour when the "
                       f"round ended early is not checked")
        return out

    def check_claim_now(self) -> None:
        if self.phase is Phase.KEEP:
            self._missing_keep()
        if self.phase is Phase.TAKE:
            self._not_now("a claim cannot come now")

    def close(self) -> None:
        if self.in_round and self.trick:
            self.emit(TrickAbandoned(self.round_no, self.trick_no + 1,
                                     tuple((s, c, None) for s, c in self.trick)))

    # ------------------------------------------------------------ round end
    def _end_round(self, line: int, early_player: int | None) -> None:
        early = early_player is not None
        self.emit(RoundEnded(self.round_no, self.trick_no, early_player, tuple(self.trick),
                             self.round_leader, line))
        scores: list[int] = []
        derivs: list[str] = []
        for s in range(self.n):
            points, text = score(self.open[s], self.discards[s])
            scores.append(points)
            derivs.append(text)
        self.trick = []
        self.trick_colors = set()
        self.phase = Phase.DEAL
        self.finish_round(scores, derivs, PlottersRound(
            self.trick_no, early_player, self.trick_no + 1 if early else None), line)
        if self.live is not None:
            self.round_played()

    # ------------------------------------------------------------ uniform API
    def hand(self, seat: int) -> list[Card]:
        return sorted(self.hands[seat], key=card_order)

    def to_move(self) -> str | None:
        if self.phase is Phase.PLAY:
            return self.players[self.turn]
        if self.phase is Phase.TAKE:
            return self.players[self.first_winner]
        if self.phase is Phase.KEEP:
            return self.players[self.keep_owed[0]]
        return None

    def legal_moves(self) -> list[Move]:
        if self.phase is Phase.PLAY:
            s = self.turn
            colors = self.trick_colors
            live = self.live
            if live is not None:  # any card nobody has shown yet that the trick takes
                if not self.cards_left(s):
                    return []
                cards = [c for c in CARDS.in_order(self.deck)
                         if not live.seen.get(c) and fits_trick(c, colors)]
            else:
                cards = [c for c in sorted(self.hands[s], key=card_order)
                         if fits_trick(c, colors)]
            return [{"type": "play", "player": self.players[s], "card": c.name} for c in cards]
        if self.phase is Phase.TAKE:
            trick = [c.name for _, c in self.trick]
            return [{"type": "take", "player": self.players[self.first_winner], "cards": list(p)}
                    for p in combinations(trick, self.pick_size)]
        if self.phase is Phase.KEEP:  # either owed player may choose first
            return [{"type": "keep", "player": self.players[s], "colors": list(p)}
                    for s in self.keep_owed for p in combinations(keepable(self.open[s]), 2)]
        return []

    def next_chance(self) -> str | None:
        return "deal" if self.phase is Phase.DEAL and not self.over else None

    def draw_chance(self, rng: Random) -> Move:
        deck = sorted(self.deck, key=card_order)
        rng.shuffle(deck)
        return {"type": "deal", "hands": deal_hands(deck, self.players, HAND_SIZE)}

    # ------------------------------------------------------------ branching
    def clone_into(self, new: Any) -> None:
        """`GameState.clone`'s copy of this game's own attributes (the deck and the pick
        size follow from the header and are set by `__init__`)."""
        st: PlottersState = new
        st.phase = self.phase
        st.hands = [set(h) for h in self.hands]
        st.open = [o.copy() for o in self.open]
        st.discards = self.discards.copy()
        st.kept = self.kept.copy()
        st.trick = self.trick.copy()
        st.trick_colors = set(self.trick_colors)
        st.trick_no = self.trick_no
        st.leader = self.leader
        st.turn = self.turn
        st.keep_owed = self.keep_owed.copy()
        st.first_winner = self.first_winner
        st.second_winner = self.second_winner
        st.round_leader = self.round_leader


# ------------------------------------------------------------------- the greedy bot
# Collect two colours: the two largest open stacks (ties: the colour held most
# in hand). Win first pick with a high card of the led colour; otherwise dump
# a high card of an unwanted colour and stay out of the second winner's seat,
# unless the leftovers would be in our colours. Pick our colours; keep the
# two largest stacks.


def _targets(st: PlottersState, s: int) -> set[str]:
    kept = st.kept[s]
    if kept is not None:
        return {COLORS[i] for i in kept}
    in_hand = [0, 0, 0, 0]
    for card in st.hands[s]:
        in_hand[COLOR_INDEX[card.color]] += 1
    # The two largest (open stack, held) in colour order, ties to the earlier colour: what
    # a stable descending sort's first two are, without sorting (the greedy bot asks this
    # for every legal move, and it was most of a playout's time).
    opened = st.open[s]
    first, second = -1, -1
    for i in range(4):
        key = (opened[i], in_hand[i])
        if first < 0 or key > (opened[first], in_hand[first]):
            first, second = i, first
        elif second < 0 or key > (opened[second], in_hand[second]):
            second = i
    return {COLORS[first], COLORS[second]}


def heuristic(st: PlottersState, m: Move) -> float:
    s = st.seat[m["player"]]
    targets = _targets(st, s)
    if m["type"] == "keep":
        return sum(st.open[s][COLOR_INDEX[c]] for c in m["colors"])
    if m["type"] == "take":
        return sum(3 if CARDS[c].color in targets else -2 for c in m["cards"])
    card = CARDS[m["card"]]
    if not st.trick:
        return 50 + card.value if card.color in targets else card.value / 10
    led = st.trick[0][1].color
    best_led = max(c.value for _, c in st.trick if c.color == led)
    wanted = sum(1 for _, c in st.trick if c.color in targets)
    if card.color == led:
        if card.value > best_led:
            return 60 + 5 * wanted - card.value / 10
        return 30 - card.value / 10
    lowest = min((c.value for _, c in st.trick if c.color != led), default=99)
    if card.value < lowest:  # we would be second winner for now
        return 10 * wanted - 20
    return 20 + card.value / 10 + (10 if card.color not in targets else 0)


# ------------------------------------------------------------------- rendering


def stacks_text(st: tuple[int, int, int, int, int]) -> str:
    shown = " ".join(f"{COLORS[i]}×{st[i]}" for i in range(4) if st[i])
    if st[4]:  # the player's discard pile; "discarded" alone is a trick's rest (RULES.md)
        shown += f" (+{st[4]} face down)"
    return shown or "-"


def _render_trick(f: TrickFinished, players: tuple[str, ...]) -> list[str]:
    led = COLOR_NAMES[f.led_color]
    plays = ", ".join(f"{players[p]} {c}" for p, c in f.cards)
    out = [f"Trick {f.trick} (line {f.line}): {plays}; led {led}",
           f"   first winner {players[f.first_winner]} ({f.card_of(f.first_winner)}) picks "
           f"{names(f.first_pick)}"]
    if f.second_winner is None:
        out.append(f"   all {led}: no second winner, {names(f.rest)} discarded; "
                   f"{players[f.next_leader]} leads next")
    else:
        out.append(f"   second winner {players[f.second_winner]} ({f.card_of(f.second_winner)}) "
                   f"gets {names(f.rest)} and leads next")
    out.append("   stacks: " + "; ".join(
        f"{p} {stacks_text(st)}" for p, st in zip(players, f.stacks)))
    return out


def _render_kept(f: ColorsKept, players: tuple[str, ...]) -> list[str]:
    return [f"   {players[f.player]} keeps {f.colors[0]} and {f.colors[1]} "
            f"({f.discarded} cards turned face down)"]


def _render_ended(f: RoundEnded, players: tuple[str, ...]) -> list[str]:
    if f.early_end_player is not None:
        unfinished = ", ".join(f"{players[p]} {c}" for p, c in f.unfinished)
        return [f"Round {f.round} ends early in trick {f.tricks + 1} (line {f.line}): "
                f"{players[f.early_end_player]} holds only the fourth colour; {unfinished} and "
                f"all hands are discarded"]
    return [f"Round {f.round} ends after {f.tricks} tricks"]


# ------------------------------------------------------------------- rows
# plotters' own table and its columns of the shared ones (GameInfo.tables and .columns)

TABLES: Final = {
    # a player kept two colours, and how many cards they turned face down
    "keeps": (Column("game_id", "VARCHAR"), Column("round", "INTEGER"),
              Column("trick", "INTEGER"), Column("player", "VARCHAR"),
              Column("colors", "VARCHAR[]"), Column("discarded", "INTEGER"),
              Column("line", "INTEGER")),
}
COLUMNS: Final = (
    # a trick's two winners: the first picks, the second gets the rest (none: monochrome)
    SharedColumns("tricks", after="players", columns=(
        Column("first_winner", "VARCHAR"), Column("first_card", "VARCHAR"),
        Column("second_winner", "VARCHAR", null=True),
        Column("second_card", "VARCHAR", null=True), Column("monochrome", "BOOLEAN"))),
    # a round that ended early: who held only the fourth colour, in which trick
    SharedColumns("rounds", after="tricks", columns=(
        Column("ended_early", "BOOLEAN", null=True),
        Column("early_end_player", "VARCHAR", null=True),
        Column("early_end_trick", "INTEGER", null=True))),
)

# The face-down stack is a player's discard pile (the colours not kept). It is not called
# "discarded": in the rules that word is for cards that leave the game, the rest of a
# trick without a second winner and an early end's cards, which are in nobody's stacks.
FACE_DOWN: Final = "face down"
STACK_LABELS: Final = tuple(enumerate((*COLORS, FACE_DOWN)))


# --- generated by `python -m trickledger.replay.rowgen` from the declared tables: do not edit


class KeepsRows(RowWriter):
    """Rows of `keeps` as plotters fills them (generated)."""

    TABLE: ClassVar[str] = "keeps"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "player", "colors",
                                          "discarded", "line")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.trick = rows.values("trick")
        self.player = rows.values("player")
        self.colors = rows.strings("colors")
        self.discarded = rows.values("discarded")
        self.line = rows.values("line")

    def add(self, round: int, trick: int, player: str, colors: Iterable[str], discarded: int,
            line: int) -> None:
        self.game_id.append(self.rows.gid)
        self.round.append(round)
        self.trick.append(trick)
        self.player.append(player)
        self.colors.append(colors)
        self.discarded.append(discarded)
        self.line.append(line)


class TricksRows(RowWriter):
    """Rows of `tricks` as plotters fills them (generated)."""

    TABLE: ClassVar[str] = "tricks"
    COLUMNS: ClassVar[tuple[str, ...]] = ("game_id", "round", "trick", "leader", "led_color",
                                          "cards", "players", "first_winner", "first_card",
                                          "second_winner", "second_card", "monochrome", "winner",
                                          "winning_card", "length", "laps", "next_leader", "stacks",
                                          "line")

    def __init__(self, rows: TableRows) -> None:
        super().__init__(rows)
        self.game_id = rows.values("game_id")
        self.round = rows.values("round")
        self.trick = rows.values("trick")
        self.leader = rows.values("leader")
        self.led_color = rows.values("led_color")
        self.cards = rows.strings("cards")
        self.players = rows.strings("players")
        self.first_winner = rows.values("first_winner")
        self.first_card = rows.values("first_card")
        self.second_winner = rows.values("second_winner")
        self.second_card = rows.values("second_card")
        self.monochrome = rows.values("monochrome")
        self.winner = rows.values("winner")
        self.winning_card = rows.values("winning_card")
        self.length = rows.values("length")
        self.laps = rows.values("laps")
        self.next_leader = rows.values("next_leader")
        self.stacks = rows.stacks("stacks")
        self.line = rows.values("line")

    def add(self, round: int, trick: int, leader: str, led_color: str | None, cards: Iterable[str],
            players: Iterable[str], first_winner: str, first_card: str, second_winner: str | None,
            second_card: str | None, monochrome: bool, winner: str | None, winning_card: str | None,
            length: int, laps: int, next_leader: str | None, stacks: Iterable[Stack] | None,
            line: int) -> None:
        self.game_id.append(self.rows.gid)
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
        self.length.append(length)
        self.laps.append(laps)
        self.next_leader.append(next_leader)
        self.stacks.append(stacks)
        self.line.append(line)
        self.pad()


# --- end of the generated code


def _project_trick(f: TrickFinished, sink: RowSink) -> None:
    P = sink.players
    second = f.second_winner
    sink.rows(TricksRows).add(
        round=f.round, trick=f.trick, leader=P[f.leader], led_color=f.led_color,
        cards=[c.name for _, c in f.cards], players=[P[s] for s, _ in f.cards],
        first_winner=P[f.first_winner], first_card=f.card_of(f.first_winner).name,
        second_winner=P[second] if second is not None else None,
        second_card=f.card_of(second).name if second is not None else None,
        monochrome=second is None, winner=None, winning_card=None, length=len(f.cards), laps=1,
        next_leader=P[f.next_leader],
        stacks=[(p, label, st[i]) for p, st in zip(P, f.stacks) for i, label in STACK_LABELS],
        line=f.line)
    plays_rows(sink, f.round, f.trick, [(s, c, None) for s, c in f.cards])
    sink.takes.add(round=f.round, trick=f.trick, player=P[f.first_winner], role="first_pick",
                   cards=[c.name for c in f.first_pick], n_cards=len(f.first_pick),
                   kept_cards=f.kept_cards[0])
    if second is not None:
        sink.takes.add(round=f.round, trick=f.trick, player=P[second], role="second",
                       cards=[c.name for c in f.rest], n_cards=len(f.rest),
                       kept_cards=f.kept_cards[1])


def _project_kept(f: ColorsKept, sink: RowSink) -> None:
    sink.rows(KeepsRows).add(round=f.round, trick=f.trick, player=sink.players[f.player],
                             colors=f.colors, discarded=f.discarded, line=f.line)


def _project_ended(f: RoundEnded, sink: RowSink) -> None:
    if f.unfinished:
        plays_rows(sink, f.round, f.tricks + 1, [(s, c, None) for s, c in f.unfinished])


# ------------------------------------------------------------------- analytics
# plotters' statistics in the database: the split tricks and takes (who picks first, who gets
# the rest, what a take brings home) and the early ends (who could not play, who caused it,
# who pays). Created after the core's analytics objects, whose macros (`ratio`, `wilson_low`,
# `counted_ids`, ...) they use (GameInfo.analytics; ingest.analytics). The "summary" objects
# are made once per game into tables of their name (ingest.summaries), and the statistics
# sum them instead of joining every trick and play again.

ANALYTICS: Final = (
    # ---------------------------------------------------------------- splits
    # every finished trick of a split game, one row per player who played to it
    ("macro", "split_tricks_of(ids)", """
        WITH t AS (SELECT * FROM tricks WHERE game_id IN (SELECT unnest(ids))),
        tk AS (SELECT * FROM takes WHERE game_id IN (SELECT unnest(ids))
                                     AND role IN ('first_pick', 'second'))
        SELECT t.game_id, t.round, t.trick, g.n_players, u.player,
               u.player = f.player AS took_first,
               coalesce(u.player = s.player, false) AS took_second,
               s.player IS NOT NULL AS split
        FROM t
        JOIN games g USING (game_id)
        JOIN tk f ON f.game_id = t.game_id AND f.round = t.round AND f.trick = t.trick
             AND f.role = 'first_pick'
        LEFT JOIN tk s ON s.game_id = t.game_id AND s.round = t.round AND s.trick = t.trick
             AND s.role = 'second'
        CROSS JOIN (SELECT unnest(t.players) AS player) u"""),
    ("view", "split_tricks", "SELECT * FROM split_tricks_of(all_ids())"),
    # every take of a split game with what became of its cards: `placed_open` landed on
    # an open stack at the take (the engine's count, before any keep it triggered);
    # `kept_cards` end up scoring: on one of the two stacks multiplied when the round
    # is scored (NULL while the round is unfinished)
    ("macro", "split_takes_of(ids)", """
        WITH tk AS (
            SELECT * FROM takes WHERE game_id IN (SELECT unnest(ids))
                                  AND role IN ('first_pick', 'second')
        ), tr AS (
            SELECT * FROM tricks WHERE game_id IN (SELECT unnest(ids))
        ), rd AS (
            SELECT * FROM rounds WHERE game_id IN (SELECT unnest(ids))
        ), split_rounds AS (
            SELECT DISTINCT game_id, round FROM tk
        ), last_trick AS (
            SELECT t.game_id, t.round, max(t.trick) AS trick
            FROM tr t JOIN split_rounds USING (game_id, round) GROUP BY t.game_id, t.round
        ), final_stacks AS (
            SELECT t.game_id, t.round, unnest(t.stacks) AS s
            FROM tr t JOIN last_trick USING (game_id, round, trick)
            JOIN rd r USING (game_id, round)
        ), final_open AS (
            SELECT f.game_id, f.round, f.s.player AS player, f.s.stack AS color,
                   f.s.cards AS cards
            FROM final_stacks f
            LEFT JOIN keeps k ON k.game_id = f.game_id AND k.round = f.round
                 AND k.player = f.s.player AND k.game_id IN (SELECT unnest(ids))
            -- not the face-down stack (`discarded` in a database loaded before its rename)
            WHERE f.s.stack NOT IN ('face down', 'discarded') AND f.s.cards > 0
              AND (k.colors IS NULL OR list_contains(k.colors, f.s.stack))
        ), scoring AS (
            SELECT game_id, round, player, color FROM (
                SELECT *, row_number() OVER (PARTITION BY game_id, round, player
                                             ORDER BY cards DESC, color) AS place,
                       count(*) OVER (PARTITION BY game_id, round, player) AS open_colors
                FROM final_open)
            WHERE place <= 2 AND open_colors >= 2
        ), take_cards AS (
            SELECT game_id, round, trick, player, role, unnest(cards) AS card FROM tk
        ), per_take AS (
            SELECT c.game_id, c.round, c.trick, c.player, c.role, count(sc.color) AS kept
            FROM take_cards c LEFT JOIN scoring sc ON sc.game_id = c.game_id
                 AND sc.round = c.round AND sc.player = c.player AND sc.color = left(c.card, 1)
            GROUP BY ALL
        )
        SELECT tk.game_id, tk.round, tk.trick, tk.player, tk.role, tk.n_cards,
               tk.kept_cards AS placed_open,
               CASE WHEN r.round IS NOT NULL THEN coalesce(pt.kept, 0) END AS kept_cards
        FROM tk
        LEFT JOIN per_take pt USING (game_id, round, trick, player, role)
        LEFT JOIN rd r USING (game_id, round)"""),
    ("view", "split_takes", "SELECT * FROM split_takes_of(all_ids())"),
    # per game and player: the parts of the split statistics, summed over games below
    ("summary", "split_games", """
        WITH sp AS (
            SELECT game_id, player, count(*) AS tricks_played,
                   count(*) FILTER (WHERE took_first) AS first_picks,
                   sum(27720 // n_players) AS expected_first,
                   count(*) FILTER (WHERE split) AS splits_played,
                   count(*) FILTER (WHERE took_second) AS second_halves,
                   coalesce(sum(27720 // n_players) FILTER (WHERE split), 0) AS expected_second
            FROM split_tricks_of(ids) GROUP BY game_id, player
        ), tk AS (
            SELECT game_id, player,
                   sum(n_cards) FILTER (WHERE role = 'first_pick') AS first_cards,
                   sum(kept_cards) FILTER (WHERE role = 'first_pick') AS first_kept,
                   sum(n_cards) FILTER (WHERE role = 'second') AS second_cards,
                   sum(kept_cards) FILTER (WHERE role = 'second') AS second_kept
            FROM split_takes_of(ids) GROUP BY game_id, player
        ), unfinished AS (
            -- cards played to tricks that never finished, in games with a finished trick
            -- (every player plays every finished trick: each such player is in `sp`)
            SELECT p.game_id, p.player, count(*) AS unfinished_tricks
            FROM plays p
            WHERE p.game_id IN (SELECT unnest(ids)) AND p.kind = 'play'
              AND p.game_id IN (SELECT game_id FROM takes WHERE role = 'first_pick'
                                AND game_id IN (SELECT unnest(ids)))
              AND NOT EXISTS (SELECT 1 FROM tricks t WHERE t.game_id = p.game_id
                              AND t.round = p.round AND t.trick = p.trick)
            GROUP BY p.game_id, p.player
        )
        SELECT sp.game_id, sp.player, sp.tricks_played, sp.first_picks, sp.expected_first,
               sp.splits_played, sp.second_halves, sp.expected_second, tk.first_cards,
               tk.first_kept, tk.second_cards, tk.second_kept,
               coalesce(u.unfinished_tricks, 0) AS unfinished_tricks
        FROM sp LEFT JOIN tk USING (game_id, player) LEFT JOIN unfinished u
             USING (game_id, player)"""),
    # per game and take: what the takes of finished rounds brought home (the Splits page)
    ("summary", "split_take_sums", """
        SELECT game_id, role, count(*) AS takes, sum(n_cards) AS cards,
               sum(placed_open) AS placed_open, sum(kept_cards) AS kept
        FROM split_takes_of(ids) WHERE kept_cards IS NOT NULL GROUP BY game_id, role"""),
    ("macro", "split_stats_of(ids)", """
        WITH sp AS (
            SELECT player, count(*) AS games,
                   CAST(sum(tricks_played) AS BIGINT) AS tricks_played,
                   CAST(sum(first_picks) AS BIGINT) AS first_picks,
                   sum(expected_first) AS expected_first,
                   CAST(sum(splits_played) AS BIGINT) AS splits_played,
                   CAST(sum(second_halves) AS BIGINT) AS second_halves,
                   sum(expected_second) AS expected_second,
                   sum(first_cards) AS first_cards, sum(first_kept) AS first_kept,
                   sum(second_cards) AS second_cards, sum(second_kept) AS second_kept,
                   CAST(sum(unfinished_tricks) AS BIGINT) AS unfinished_tricks
            FROM split_games WHERE game_id IN (SELECT unnest(ids)) GROUP BY player
        )
        SELECT sp.player, sp.games, sp.tricks_played, sp.first_picks,
               ratio(sp.expected_first, 27720, 2) AS expected_first_picks,
               ratio(sp.first_picks, sp.tricks_played, 4) AS first_share,
               ratio(sp.expected_first, 27720 * sp.tricks_played, 4) AS first_baseline,
               sp.splits_played, sp.second_halves,
               ratio(sp.expected_second, 27720, 2) AS expected_second_halves,
               ratio(sp.second_halves, sp.splits_played, 4) AS second_share,
               ratio(sp.expected_second, 27720 * sp.splits_played, 4) AS second_baseline,
               round(wilson_low(sp.second_halves, sp.splits_played), 4) AS second_share_low,
               round(wilson_high(sp.second_halves, sp.splits_played), 4) AS second_share_high,
               sp.unfinished_tricks,
               coalesce(sp.first_cards, 0) AS first_cards,
               coalesce(sp.first_kept, 0) AS first_kept,
               coalesce(sp.second_cards, 0) AS second_cards,
               coalesce(sp.second_kept, 0) AS second_kept
        FROM sp"""),
    ("view", "split_stats", "SELECT * FROM split_stats_of(counted_ids())"),

    # ---------------------------------------------------------------- early ends
    # rounds of games that can end early; the causing card is the last card played to
    # the unfinished trick, and its player caused the end
    ("summary", "early_end_rounds", """
        WITH rd AS (
            SELECT * FROM rounds
            WHERE game_id IN (SELECT unnest(ids)) AND ended_early IS NOT NULL
        ), cause AS (
            SELECT p.game_id, p.round, arg_max(p.player, p.seq) AS caused_by,
                   arg_max(p.card, p.seq) AS causing_card, count(*) AS cards_in_trick
            FROM plays p JOIN rd r ON r.game_id = p.game_id AND r.round = p.round
                 AND r.ended_early AND p.trick = r.early_end_trick
            WHERE p.game_id IN (SELECT unnest(ids))
            GROUP BY p.game_id, p.round
        )
        SELECT r.game_id, g.n_players, r.round, r.dealer, r.leader, r.tricks, r.ended_early,
               r.early_end_trick, r.early_end_player AS could_not_play, c.caused_by,
               c.causing_card, c.cards_in_trick, g.played_on
        FROM rd r JOIN games g USING (game_id) LEFT JOIN cause c USING (game_id, round)"""),
    ("macro", "early_ends_of(ids)", """
        SELECT * FROM early_end_rounds WHERE game_id IN (SELECT unnest(ids))"""),
    ("view", "early_ends", "SELECT * FROM early_ends_of(counted_ids())"),
    ("summary", "early_end_player_games", """
        SELECT e.game_id, s.player, count(*) AS rounds,
               count(*) FILTER (WHERE e.could_not_play = s.player) AS could_not_play,
               count(*) FILTER (WHERE e.caused_by = s.player) AS caused,
               sum(27720 // e.n_players) FILTER (WHERE e.ended_early) AS expected_each,
               sum(s.score) FILTER (WHERE e.ended_early) AS early_points,
               count(s.score) FILTER (WHERE e.ended_early) AS early_scored,
               sum(s.score) FILTER (WHERE NOT e.ended_early) AS full_points,
               count(s.score) FILTER (WHERE NOT e.ended_early) AS full_scored,
               count(*) FILTER (WHERE e.ended_early) AS early_rounds
        FROM early_end_rounds_by_game(ids) e
        JOIN round_scores s ON s.game_id = e.game_id AND s.round = e.round
        WHERE s.game_id IN (SELECT unnest(ids))
        GROUP BY e.game_id, s.player"""),
    ("macro", "early_end_players_of(ids)", """
        WITH sat AS (
            SELECT player, CAST(sum(rounds) AS BIGINT) AS rounds,
                   CAST(sum(could_not_play) AS BIGINT) AS could_not_play,
                   CAST(sum(caused) AS BIGINT) AS caused,
                   sum(expected_each) AS expected_each, sum(early_points) AS early_points,
                   sum(early_scored) AS early_scored, sum(full_points) AS full_points,
                   sum(full_scored) AS full_scored,
                   CAST(sum(early_rounds) AS BIGINT) AS early_rounds
            FROM early_end_player_games WHERE game_id IN (SELECT unnest(ids))
            GROUP BY player
        )
        SELECT player, rounds, early_rounds, could_not_play, caused,
               ratio(coalesce(expected_each, 0), 27720, 2) AS expected_each,
               ratio(could_not_play, rounds, 4) AS could_not_play_rate,
               ratio(caused, rounds, 4) AS caused_rate,
               ratio(early_points, early_scored, 2) AS mean_when_early,
               ratio(full_points, full_scored, 2) AS mean_when_full,
               -- the difference of the two exact means, as one fraction
               ratio(full_points * early_scored - early_points * full_scored,
                     full_scored * early_scored, 2) AS points_lost
        FROM sat"""),
    ("view", "early_end_players", "SELECT * FROM early_end_players_of(counted_ids())"),
)


# the questions the SQL console offers about the game (GameInfo.examples; docs/sql.md)
EXAMPLES: Final = (
    ('Who gets stuck with the rest most often, against chance?',
     """SELECT player, games, splits_played, second_halves,
       expected_second_halves AS by_chance,
       round(second_halves / expected_second_halves, 2) AS times_chance
FROM split_stats
WHERE games >= 5
ORDER BY times_chance DESC, player
LIMIT 10;"""),
    ('Who could not play when a plotters round ended early, and whose card caused it?',
     """SELECT player, rounds, early_rounds, could_not_play, caused, expected_each
FROM early_end_players
ORDER BY could_not_play DESC, caused DESC, player
LIMIT 10;"""),
    ('How often do plotters rounds end early at each table size, and when?',
     """SELECT n_players,
       count(*) AS rounds,
       ratio(count(*) FILTER (WHERE ended_early), count(*), 3) AS early_share,
       ratio(sum(early_end_trick), count(early_end_trick), 1) AS mean_early_trick
FROM early_ends
GROUP BY n_players
ORDER BY n_players;"""),
    ('Who loses most points when a plotters round ends early?',
     """SELECT player, early_rounds, mean_when_early, mean_when_full, points_lost
FROM early_end_players
WHERE early_rounds >= 3
ORDER BY points_lost DESC, player
LIMIT 10;"""),
    ('Is first pick worth more than the rest?',
     """SELECT role, count(*) AS takes, ratio(sum(n_cards), count(n_cards), 2) AS cards,
       ratio(sum(placed_open), count(placed_open), 2) AS placed_open,
       ratio(sum(kept_cards), count(kept_cards), 2) AS kept
FROM split_takes JOIN game_counting USING (game_id)
WHERE counted_as IN ('complete', 'disputed', 'sheet')
GROUP BY role
ORDER BY role;"""),
)


# =================================================================== the score sheet
# A round on a score sheet (replay/sheet.py): per player the cards in each open colour
# stack and the number of face-down cards. Each end-of-round rule is one predicate below;
# the score is `score()`, as in a replayed round.


def open_colours_allowed(open_stacks: list[int]) -> bool:
    """At most three open colours: the fourth colour makes a player keep two at once."""
    return sum(1 for k in open_stacks if k) < 4


def face_down_after_keep(open_stacks: list[int], face_down: int) -> bool:
    """Cards go face down only by a keep, which leaves exactly the two kept colours open."""
    return face_down == 0 or sum(1 for k in open_stacks if k) == 2


def keep_turns_two(face_down: int) -> bool:
    """A keep turns at least one card of each of the two colours not kept face down."""
    return face_down == 0 or face_down >= 2


def take_splits(players: int, cards: int) -> list[tuple[int, int]]:
    """The ways one player's `cards` collected cards split into first picks and second
    halves: every trick gives its first winner `pick_size` cards and its second winner the
    rest, and a round has at most HAND_SIZE tricks."""
    first = pick_size(players)
    second = players - first
    return [(a, (cards - first * a) // second) for a in range(HAND_SIZE + 1)
            if first * a <= cards and (cards - first * a) % second == 0
            and a + (cards - first * a) // second <= HAND_SIZE]


def collectable(players: int, cards: int) -> bool:
    """Whether one player can have collected `cards` cards in a round (see `take_splits`)."""
    return bool(take_splits(players, cards))


def trick_splits(players: int, totals: list[int]) -> set[tuple[int, int]]:
    """The ways the players' collected cards can come from one round's tricks, as (tricks,
    tricks with a second winner). Each finished trick gives `pick_size` cards to its first
    winner and the rest to at most one second winner (none when every card has the led
    colour); a round has at most HAND_SIZE tricks; and a player's second halves come from
    tricks that somebody else picked first from (the two winners played different cards),
    so nobody has more second halves than the other players have first picks."""
    # (first picks, second halves, the most first picks + second halves of one player)
    sums = {(0, 0, 0)}
    for cards in totals:
        ways = take_splits(players, cards)
        sums = {(f + a, g + b, max(m, a + b)) for f, g, m in sums for a, b in ways
                if f + a <= HAND_SIZE and g + b <= HAND_SIZE}
        if not sums:
            return set()
    # Hall's condition: g <= f over all, and each player's a + b <= f
    return {(f, g) for f, g, m in sums if g <= f and m <= f}


def shares_fit_tricks(players: int, totals: list[int]) -> bool:
    """Whether the players' collected cards can come from one round's tricks together (see
    `trick_splits`). (At 5 players 3 and 2 cards differ: five players with 2 cards each had
    no first winner, so no trick.)"""
    return bool(trick_splits(players, totals))


def colours_fit_tricks(players: int, totals: list[int], colours: int) -> bool:
    """Whether the round's tricks can hold `colours` colours: a trick holds at most three
    colours, and one whose cards all have the led colour (no second winner) holds one, so
    t tricks of which s have a second winner hold at most (t - s) + 3s colours."""
    return any(colours <= f + 2 * g for f, g in trick_splits(players, totals))


def colours_collected(opens: list[list[int]], downs: list[int]) -> int:
    """How many colours the round's collected cards show at least: every open colour, and
    all four when a player kept two (a keep happens only once a player holds all four)."""
    if any(downs):
        return len(COLORS)
    return sum(1 for i in range(len(COLORS)) if any(o[i] for o in opens))


def one_colour_tricks(players: int, colour: str) -> int:
    """The most tricks of one colour only (every card the led colour) a round can hold in
    `colour`: each takes one card of it from every player, and the deck of this table size
    has DECK_TOP of it (4 players: 14 // 4 = 3; 5: 17 // 5 or 18 // 5 = 3; 6: 21 // 6 = 3)."""
    return DECK_TOP[players][colour] // players


def lone_collector_fits(players: int, stacks: list[int], face_down: int) -> bool:
    """When a player is the only one to collect in a round, no trick had a second winner
    (that share would be another player's), so every finished trick had one colour and gave
    them `pick_size` cards of it: each open stack and the face-down cards come in picks, a
    colour in at most `one_colour_tricks` picks, and a keep turned at least one pick of each
    of the two other colours face down (and at most all their tricks' picks)."""
    return lone_collector_problem(players, stacks, face_down) is None


def lone_collector_problem(players: int, stacks: list[int], face_down: int) -> str | None:
    """What makes a lone collector's stacks impossible (see `lone_collector_fits`), in
    words; None when a round can give them."""
    pick = pick_size(players)
    if any(k % pick for k in stacks) or face_down % pick:
        return (f"each pick is {pick} cards of one colour, so every open stack and the "
                f"face-down cards come in {pick}s")
    for i, k in enumerate(stacks):
        colour = COLORS[i]
        most = one_colour_tricks(players, colour)
        if k > pick * most:
            return (f"a trick of {COLOR_NAMES[colour]} only takes a {COLOR_NAMES[colour]} card "
                    f"from each of the {players} players, and the {players}-player deck's "
                    f"{DECK_TOP[players][colour]} {COLOR_NAMES[colour]} cards make at most "
                    f"{most} such tricks: at most {pick * most} {COLOR_NAMES[colour]} cards "
                    f"for one player")
    if face_down:
        if face_down < 2 * pick:
            return (f"a keep turns at least one pick of each of the two colours not kept face "
                    f"down: at least {2 * pick} face down")
        # a keep leaves exactly the two kept colours open (face_down_after_keep): the
        # face-down cards are the other two colours'
        hidden = [COLORS[i] for i in range(4) if not stacks[i]]
        most = pick * sum(one_colour_tricks(players, c) for c in hidden)
        if face_down > most:
            words = " and ".join(COLOR_NAMES[c] for c in hidden)
            return (f"the face-down cards are {words}, of which the {players}-player deck makes "
                    f"at most {most // pick} one-colour tricks: at most {most} face down")
    # (so at most 4 x 3 = 12 tricks: within a round's 14 at every table size)
    return None


def least_of_colour(colour: str, opens: list[list[int]], downs: list[int]) -> int:
    """The fewest cards of `colour` the players can hold: its open cards, and one face-down
    card for each player who kept two other colours (a keep happens only once a player
    holds all four, and turns the two not kept face down)."""
    i = COLORS.index(colour)
    return sum(o[i] for o in opens) + sum(1 for o, d in zip(opens, downs) if d and not o[i])


def colour_fits_deck(players: int, colour: str, cards: int) -> bool:
    """No more cards of a colour than the deck of this table size holds."""
    return cards <= DECK_TOP[players][colour]


def table_fits_deck(players: int, cards: int) -> bool:
    """No more cards collected in all than the round deals."""
    return cards <= players * HAND_SIZE


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class PlottersSheetEntered(Fact):
    """A round as the score sheet gives it: per seat the open stacks and face-down cards."""

    round: Final[int]
    dealer: Final[int]
    open: Final[tuple[tuple[int, int, int, int], ...]]  # per seat: open B G R Y
    face_down: Final[tuple[int, ...]]
    scores: Final[tuple[int, ...]]
    line: Final[int]

    def __init__(self, round: int, dealer: int, open: tuple[tuple[int, int, int, int], ...],
                 face_down: tuple[int, ...], scores: tuple[int, ...], line: int) -> None:
        self.round = round
        self.dealer = dealer
        self.open = open
        self.face_down = face_down
        self.scores = scores
        self.line = line


@dataclass(init=False, eq=True, unsafe_hash=True, slots=True)
class PlottersSheetOutcome(RoundOutcome):
    """A sheet does not say how the round ended (early or not) nor how many tricks."""


    def columns(self, players: tuple[str, ...]) -> dict[str, Any]:
        return {"end_reason": SHEET_END}


def _shown(stacks: list[int]) -> str:
    return " ".join(f"{COLORS[i]}×{k}" for i, k in enumerate(stacks) if k) or "nothing"


class PlottersSheet(SheetState):
    @classmethod
    def form(cls, header: Header, round_no: int) -> SheetForm:
        n = len(header.players)
        top = DECK_TOP[n]
        opens = tuple(SheetField(("open", c), c, 0, top[c],
                                 help=f"cards in the player's open {COLOR_NAMES[c]} stack")
                      for c in COLORS)
        down = SheetField(("face_down",), "down", 0, HAND_SIZE * pick_size(n),
                          help="face-down cards: the colours not kept, and later cards of them")
        return SheetForm(players=(*opens, down),
                         about="Each player's open stacks (cards per colour) and face-down "
                               "cards")

    def score_sheet(self, ev: Event, entries: list[dict[str, Any]]
                    ) -> tuple[list[int], list[str], RoundOutcome]:
        n = self.n
        opens: list[list[int]] = []
        downs: list[int] = []
        for s, entry in enumerate(entries):
            name = self.players[s]
            where = f"{name}'s entry"
            counts = letter_counts(entry, "open", where, COLORS, "a plotters colour")
            down = number(entry, "face_down", where, default=0)
            stacks = [counts[c] for c in COLORS]
            if not open_colours_allowed(stacks):
                raise RuleError(f"{name} has open stacks of all four colours "
                                f"({_shown(stacks)}): a player who collects the fourth "
                                f"colour keeps two at once and turns the other two face down")
            if not face_down_after_keep(stacks, down):
                k = sum(1 for x in stacks if x)
                raise RuleError(f"{name} has {down} face-down cards but {k} open "
                                f"colour{'s' if k != 1 else ''} ({_shown(stacks)}): cards go "
                                f"face down only when a player keeps two colours, and from "
                                f"then on exactly those two stacks are open")
            if not keep_turns_two(down):
                raise RuleError(f"{name} has 1 face-down card: the keep turns the two colours "
                                f"not kept face down, at least one card of each")
            total = sum(stacks) + down
            if not collectable(n, total):
                first = pick_size(n)
                second = n - first
                how = (f"so a player's cards come in {'twos' if first == 2 else 'threes'}, "
                       f"at most {HAND_SIZE * first}" if first == second else
                       f"a player is at most one of them, and a round has at most "
                       f"{HAND_SIZE} tricks")
                raise RuleError(f"{name} collected {total} cards (open and face down), which "
                                f"no round can give: with {n} players a trick gives {first} "
                                f"cards to its first winner and {second} to its second, {how}")
            opens.append(stacks)
            downs.append(down)
        for i, c in enumerate(COLORS):
            held = least_of_colour(c, opens, downs)
            if not colour_fits_deck(n, c, held):
                top = DECK_TOP[n][c]
                opened = sum(o[i] for o in opens)
                hidden = held - opened
                more = (f" and at least {hidden} face down (a player who kept two other "
                        f"colours turned at least one {COLOR_NAMES[c]} card face down)"
                        if hidden else "")
                raise RuleError(f"the players hold {opened} {COLOR_NAMES[c]} cards in open "
                                f"stacks{more}, {held} in all, but the {n}-player deck has "
                                f"{top} {COLOR_NAMES[c]} cards ({c}1-{c}{top})")
        total = sum(map(sum, opens)) + sum(downs)
        if not table_fits_deck(n, total):
            raise RuleError(f"the players collected {total} cards in all (open and face down), "
                            f"but a {n}-player round deals only {n * HAND_SIZE}")
        totals = [sum(o) + d for o, d in zip(opens, downs)]
        collectors = [s for s, t in enumerate(totals) if t]
        if len(collectors) == 1:
            s = collectors[0]
            problem = lone_collector_problem(n, opens[s], downs[s])
            if problem is not None:
                raise RuleError(f"{self.players[s]} is the only player who collected "
                                f"({_shown(opens[s])}, {downs[s]} face down), so no trick had a "
                                f"second winner and every trick was of one colour: {problem}")
        if not shares_fit_tricks(n, totals):
            first = pick_size(n)
            raise RuleError(f"the players' cards ({', '.join(map(str, totals))}) cannot come "
                            f"from one round: each trick gives {first} cards to its first "
                            f"winner and {n - first} to another player, its second winner (if "
                            f"any), and a round has at most {HAND_SIZE} tricks, so the second "
                            f"winners' takes cannot outnumber the first winners', nor a "
                            f"player's second halves the other players' first picks")
        colours = colours_collected(opens, downs)
        if not colours_fit_tricks(n, totals, colours):
            most = max(f + 2 * g for f, g in trick_splits(n, totals))
            raise RuleError(f"the players' cards ({', '.join(map(str, totals))}) show {colours} "
                            f"colours, but the tricks that can give them hold at most {most}: a "
                            f"trick holds at most three colours, and one without a second "
                            f"winner only the led colour")
        scores: list[int] = []
        derivations: list[str] = []
        for stacks, down in zip(opens, downs):
            points, text = score(stacks, down)
            scores.append(points)
            derivations.append(text)
        self.emit(PlottersSheetEntered(self.round_no, self.dealer,
                                       tuple((o[0], o[1], o[2], o[3]) for o in opens),
                                       tuple(downs), tuple(scores), ev.line))
        return scores, derivations, PlottersSheetOutcome()

    @classmethod
    def line_of(cls, facts: Sequence[Fact], scored: RoundScored,
                players: tuple[str, ...]) -> dict[str, Any]:
        stacks = [[0, 0, 0, 0, 0] for _ in players]
        for f in facts:
            if isinstance(f, TrickFinished):
                stacks = [list(st) for st in f.stacks]
            elif isinstance(f, ColorsKept):  # after its trick: the other two colours go down
                st = stacks[f.player]
                kept = {COLOR_INDEX[c] for c in f.colors}
                for i in range(4):
                    if i not in kept:
                        st[i] = 0
                st[4] += f.discarded
        return {"players": {p: {"open": {c: st[i] for i, c in enumerate(COLORS) if st[i]},
                                "face_down": st[4]} for p, st in zip(players, stacks)}}


def _render_sheet(f: PlottersSheetEntered, players: tuple[str, ...]) -> list[str]:
    return [sheet_head(f.round, f.dealer, f.line, players),
            *table_lines(players, (*COLORS, "face down", "score"),
                         [(*o, d, sc) for o, d, sc in zip(f.open, f.face_down, f.scores)])]


def _project_sheet(f: PlottersSheetEntered, sink: RowSink) -> None:
    """A sheet's round is stored as its rounds and round_scores rows (from RoundScored); the
    stacks it gives are in the log's text, and no trick-level table holds them."""



# =================================================================== the native engine
# The rest of a round as the native analysis engine's position (replay/native/plotters.hpp
# reads these numbers in this order), and moves as its codes.

NATIVE_PHASE: Final = {Phase.PLAY: 0, Phase.TAKE: 1, Phase.KEEP: 2, Phase.DEAL: 3}


def native_position(st: PlottersState) -> list[int]:
    """players, phase, turn, leader, tricks played, first and second winner (-1: none); per
    seat the hand as one bit set per colour (bit value - 1); the trick as (seat, card); per
    seat the open stacks B G R Y, the discards and the kept colours (bits, 0: none); the
    players owing a keep, in order."""
    second = st.second_winner
    out = [st.n, NATIVE_PHASE[st.phase], st.turn, st.leader, st.trick_no, st.first_winner,
           -1 if second is None else second]
    for s in range(st.n):
        masks = [0, 0, 0, 0]
        for c in st.hands[s]:
            masks[COLOR_INDEX[c.color]] |= 1 << (c.value - 1)
        out.extend(masks)
    out.append(len(st.trick))
    for s, c in st.trick:
        out.append(s)
        out.append(c.index)
    for s in range(st.n):
        out.extend(st.open[s])
        out.append(st.discards[s])
        kept = st.kept[s]
        out.append(0 if kept is None else 1 << kept[0] | 1 << kept[1])
    out.append(len(st.keep_owed))
    out.extend(st.keep_owed)
    return out


def native_move_code(st: PlottersState, m: Move) -> int:
    seat = st.seat[m["player"]]
    kind = m["type"]
    if kind == "play":
        return codes.pack(codes.PLAY, seat, CARDS.parse(m["card"]).index)
    if kind == "take":
        picked = {CARDS.parse(c).index for c in m["cards"]}
        mask = 0
        for i, (_, c) in enumerate(st.trick):
            if c.index in picked:
                mask |= 1 << i
        return codes.pack(codes.TAKE, seat, mask)
    if kind == "keep":  # (a name of its own: compiled, a variable has one type per function)
        kept = 0
        for colour in m["colors"]:
            kept |= 1 << COLOR_INDEX[colour.upper()]
        return codes.pack(codes.KEEP, seat, kept)
    raise ValueError(f"plotters has no {kind!r} move")


def native_move_of(st: PlottersState, code: int) -> Move:
    kind, seat, payload = codes.kind_of(code), codes.seat_of(code), codes.payload_of(code)
    player = st.players[seat]
    if kind == codes.PLAY:
        return {"type": "play", "player": player, "card": CARDS.deck_order[payload].name}
    if kind == codes.TAKE:
        return {"type": "take", "player": player,
                "cards": [c.name for i, (_, c) in enumerate(st.trick) if payload >> i & 1]}
    if kind == codes.KEEP:
        return {"type": "keep", "player": player,
                "colors": [COLORS[i] for i in range(4) if payload >> i & 1]}
    raise ValueError(f"{code} is not a plotters move code")

INFO = register(GameInfo(
    name="plotters", title="Plotters, Inc. / Mit List und Tücke",
    min_players=4, max_players=6, state_class=PlottersState, cards=CARDS,
    editions=EDITIONS, aliases=("mit-list-und-tuecke",),
    render={TrickFinished: _render_trick, ColorsKept: _render_kept, RoundEnded: _render_ended,
            PlottersSheetEntered: _render_sheet},
    project={TrickFinished: _project_trick, ColorsKept: _project_kept,
             RoundEnded: _project_ended, PlottersSheetEntered: _project_sheet},
    heuristic=heuristic, step_facts=(TrickFinished,), sheet_state=PlottersSheet,
    events=("deal", "play", "take", "keep"), injectable=("play", "take", "keep"),
    tables=TABLES, columns=COLUMNS, analytics=ANALYTICS,
    pages=(GamePage("Splits", "trickledger.dashboard.games.plotters_splits",
                    ":material/call_split:", "splits"),
           GamePage("Early ends", "trickledger.dashboard.games.plotters_early_ends",
                    ":material/timer_off:", "early_ends")),
    dashboard="trickledger.dashboard.games.plotters",
    bands=(2.0, 4.0, 8.0),  # a round scores 0..40 (a product of two stacks)
    colors={c: CHIP_COLORS[name] for c, name in COLOR_NAMES.items()},
    color_names=COLOR_NAMES,
    examples=EXAMPLES,
    native=NativeCodec("plotters", native_position, native_move_code, native_move_of,
                       solve_cards=10, endgame_cards=8),
))
