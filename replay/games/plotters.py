"""`plotters` — Plotters, Inc. / Mit List und Tücke (RULES.md section 1).

Split tricks: the highest card of the led colour picks ceil(n/2) cards, the
lowest card of another colour gets the rest and leads next. A trick holds at
most three colours; a player left with only the fourth colour ends the
round at once. Collected cards score (largest x second largest open stack)
// (all other collected cards).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..cards import Card, CardTable, card_order, names
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

COLORS = "BGRY"
COLOR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
HAND_SIZE = 14
EDITIONS = ("mit-list-und-tuecke", "plotters-inc")
# Highest number per colour, by player count.
DECK_TOP = {4: {"B": 14, "G": 14, "R": 14, "Y": 14},
            5: {"B": 17, "G": 17, "R": 18, "Y": 18},
            6: {"B": 21, "G": 21, "R": 21, "Y": 21}}

CARDS = CardTable(Card(f"{c}{v}", c, v) for c in COLORS for v in range(1, 22))
COLOR_INDEX = {c: i for i, c in enumerate(COLORS)}
DECKS = {n: frozenset(CARDS[f"{c}{v}"] for c in COLORS for v in range(1, top[c] + 1))
         for n, top in DECK_TOP.items()}


# ------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class TrickFinished:
    round: int
    trick: int
    leader: str
    cards: tuple[tuple[str, str], ...]  # (player, card) in play order
    led_color: str
    first_winner: str
    first_card: str
    second_winner: str | None
    second_card: str | None
    monochrome: bool
    first_pick: tuple[str, ...]
    second_got: tuple[str, ...]
    discarded: tuple[str, ...]
    next_leader: str
    stacks: tuple[tuple[int, int, int, int, int], ...]  # per seat: open B G R Y, discards
    kept_cards: tuple[int, int]  # cards of the pick / the rest that landed on open stacks
    line: int


@dataclass(frozen=True, slots=True)
class ColorsKept:
    round: int
    trick: int
    player: str
    colors: tuple[str, str]
    discarded: int  # cards turned face down by this choice
    line: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    round: int
    tricks: int
    ended_early: bool
    early_end_player: str | None
    early_end_trick: int | None
    unfinished: tuple[tuple[str, str], ...]
    leader: str
    line: int


def score(open_stacks: list[int], discards: int) -> tuple[int, str]:
    """The round score of one player and its derivation, e.g. 'open G5 R6, other 3 -> ...'."""
    # the two largest stacks (ties: colour order), shown in colour order
    held = sorted(((-k, i) for i, k in enumerate(open_stacks) if k))
    if len(held) < 2:
        shown = " ".join(f"{COLORS[i]}{-k}" for k, i in held)
        return 0, f"open {shown or 'nothing'} -> fewer than two colours = 0"
    (a, ia), (b, ib) = sorted(((-k, i) for k, i in held[:2]), key=lambda t: t[1])
    ca, cb = COLORS[ia], COLORS[ib]
    others = sum(-k for k, _ in held[2:]) + discards
    product = a * b
    if others == 0:
        return product, f"open {ca}{a} {cb}{b}, other 0 -> {a}x{b}={product}"
    result = product // others
    return result, f"open {ca}{a} {cb}{b}, other {others} -> {a}x{b}={product} // {others} = {result}"


class PlottersState(GameState):
    @classmethod
    def check_header(cls, header: Header) -> int:
        return check_rounds(header, default=len(header.players))

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        self.deck = DECKS[self.n]
        self.pick_size = (self.n + 1) // 2
        self.phase = "deal"
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
    def on_deal(self, ev: Event) -> None:
        if self.phase == "keep":
            self._missing_keep()
        if self.phase in ("play", "take") and self.in_round:
            raise RuleError(f"a deal came before round {self.round_no} was finished "
                            f"(trick {self.trick_no + 1} is being played)")
        hands = self.begin_deal(ev)
        seen: set[Card] = set()
        for s, name in enumerate(self.players):
            cards = hands[name]
            if len(cards) != HAND_SIZE:
                raise RuleError(f"deal: {name} must get {HAND_SIZE} cards, got {len(cards)}")
            hand = set()
            for raw in cards:
                c = CARDS.parse(raw, "plotters")
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
        if "leader" in ev.data:
            leader = self.player(ev, "leader")
            elected = self.header.edition == "plotters-inc" and self.round_no == 1
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
        self.phase = "play"
        self.facts.append(RoundDealt(
            self.round_no, self.players[self.dealer], self.players[leader],
            {p: tuple(c.name for c in sorted(self.hands[s], key=card_order))
             for s, p in enumerate(self.players)}, {}, ev.line))

    def _deck_text(self) -> str:
        top = DECK_TOP[self.n]
        return ", ".join(f"{c}1-{top[c]}" for c in COLORS)

    def _not_now(self, what: str) -> None:
        if self.phase == "keep":
            self._missing_keep()
        if self.phase == "take":
            raise RuleError(f"{what}: the trick is finished and "
                            f"{self.players[self.first_winner]} must first take their pick "
                            f"(a take of {self.pick_size} cards)")
        if self.phase == "deal":
            if self.round_no == 0:
                raise RuleError(f"{what}: no round has been dealt yet (expected a deal)")
            raise RuleError(f"{what}: round {self.round_no} is over "
                            f"(expected the next deal or a claim)")

    def _missing_keep(self) -> None:
        s = self.keep_owed[0]
        have = "".join(COLORS[i] for i in range(4) if self.open[s][i])
        raise RuleError(f"{self.players[s]} holds collected cards of all four colours ({have}) "
                        f"and must choose two to keep: expected a keep event")

    def on_play(self, ev: Event) -> None:
        if self.phase != "play":
            self._not_now("no card may be played now")
        s = self.seat_of(ev)
        name = self.players[s]
        if s != self.turn:
            raise RuleError(f"{name} plays out of turn: it is {self.players[self.turn]}'s turn "
                            f"to play to trick {self.trick_no + 1}")
        card = CARDS.from_event(ev, "plotters")
        hand = self.hands[s]
        if card not in hand:
            raise RuleError(f"{name} cannot play {card}: it is not in {name}'s hand")
        colors = self.trick_colors
        if len(colors) == 3 and card.color not in colors:
            legal = next(c for c in sorted(hand, key=card_order) if c.color in colors)
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
        if len(colors) == 3:
            nh = self.hands[nxt]
            if all(c.color not in colors for c in nh):
                self._end_round(ev.line, early_player=nxt)

    def _decide_trick(self) -> None:
        led = self.trick[0][1].color
        first = max((c.value, s) for s, c in self.trick if c.color == led)
        self.first_winner = first[1]
        second = None
        best = 99
        for s, c in self.trick:  # the first played of equal lowest values wins
            if c.color != led and c.value < best:
                best, second = c.value, s
        self.second_winner = second
        self.phase = "take"

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
        if kept is None and all(self.open[s]):
            self.keep_owed.append(s)
        return landed

    def on_take(self, ev: Event) -> None:
        if self.phase != "take":
            if self.phase == "play":
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
        in_trick = {c: p for p, c in trick}
        by_name = CARDS.by_name
        pick: list[Card] = []
        for r in raw:
            c = by_name.get(r) or CARDS.parse(r, "plotters")
            if c not in in_trick:
                raise RuleError(f"{self.players[s]} cannot take {c}: it is not in the trick "
                                f"({names(c for _, c in self.trick)})")
            if c in pick:
                raise RuleError(f"{self.players[s]} takes {c} twice")
            pick.append(c)
        rest = [c for _, c in trick if c not in pick]
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
        players = self.players
        card_of = {p: c.name for p, c in trick}
        rest_names = tuple(c.name for c in rest)
        self.facts.append(TrickFinished(
            self.round_no, self.trick_no, players[self.leader],
            tuple((players[p], c.name) for p, c in trick), trick[0][1].color,
            players[s], card_of[s],
            players[second] if second is not None else None,
            card_of[second] if second is not None else None,
            second is None, tuple(c.name for c in pick),
            rest_names if second is not None else (),
            rest_names if second is None else (),
            players[nxt], self._stacks(), (landed_first, landed_rest), ev.line))
        self.trick = []
        self.trick_colors = set()
        self.leader = self.turn = nxt
        if self.keep_owed:
            self.phase = "keep"
        else:
            self._after_trick(ev.line)

    def _stacks(self) -> tuple[tuple[int, int, int, int, int], ...]:
        o, d = self.open, self.discards
        return tuple((o[s][0], o[s][1], o[s][2], o[s][3], d[s]) for s in range(self.n))

    def _after_trick(self, line: int) -> None:
        if not self.hands[self.turn]:
            self._end_round(line, early_player=None)
        else:
            self.phase = "play"

    def on_keep(self, ev: Event) -> None:
        s = self.seat_of(ev)
        name = self.players[s]
        if self.phase != "keep" or s not in self.keep_owed:
            if self.kept[s] is not None:
                raise RuleError(f"{name} already chose to keep "
                                f"{''.join(COLORS[i] for i in self.kept[s])}")
            raise RuleError(f"{name} cannot choose colours now: a keep comes right after the "
                            f"take that brought a player's fourth colour, and {name} holds "
                            f"collected cards of {sum(1 for k in self.open[s] if k)} colours")
        colors = str_list(ev, "colors", "a list of two colour letters")
        up = [c.upper() for c in colors]
        if len(up) != 2 or up[0] == up[1]:
            raise RuleError(f"{name} must keep exactly two different colours, got {colors}")
        idx = []
        for c in up:
            if c not in COLOR_INDEX:
                raise RuleError(f"{c!r} is not a colour: expected two of B, G, R, Y")
            if not self.open[s][COLOR_INDEX[c]]:
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
        self.facts.append(ColorsKept(self.round_no, self.trick_no, name, (up[0], up[1]), moved,
                                     ev.line))
        if not self.keep_owed:
            self._after_trick(ev.line)

    def before_claim(self, ev: Event) -> None:
        if self.phase == "keep":
            self._missing_keep()
        if self.phase == "take":
            self._not_now("a claim cannot come now")

    # ------------------------------------------------------------ round end
    def _end_round(self, line: int, early_player: int | None) -> None:
        early = early_player is not None
        self.facts.append(RoundEnded(
            self.round_no, self.trick_no, early,
            self.players[early_player] if early else None,
            self.trick_no + 1 if early else None,
            tuple((self.players[p], c.name) for p, c in self.trick),
            self.players[self.round_leader], line))
        scores: dict[str, int] = {}
        derivs: dict[str, str] = {}
        for s, name in enumerate(self.players):
            scores[name], derivs[name] = score(self.open[s], self.discards[s])
        self.trick = []
        self.trick_colors = set()
        self.phase = "deal"
        self.finish_round(scores, derivs, {
            "tricks": self.trick_no, "ended_early": early,
            "early_end_player": self.players[early_player] if early else None}, line)

    # ------------------------------------------------------------ uniform API
    def to_move(self) -> str | None:
        if self.phase == "play":
            return self.players[self.turn]
        if self.phase == "take":
            return self.players[self.first_winner]
        if self.phase == "keep":
            return self.players[self.keep_owed[0]]
        return None

    def legal_moves(self) -> list[dict[str, Any]]:
        if self.phase == "play":
            s = self.turn
            colors = self.trick_colors
            cards = sorted(self.hands[s], key=card_order)
            if len(colors) == 3:
                cards = [c for c in cards if c.color in colors]
            return [{"type": "play", "player": self.players[s], "card": c.name} for c in cards]
        if self.phase == "take":
            trick = [c.name for _, c in self.trick]
            return [{"type": "take", "player": self.players[self.first_winner], "cards": list(p)}
                    for p in combinations(trick, self.pick_size)]
        if self.phase == "keep":
            s = self.keep_owed[0]
            have = [COLORS[i] for i in range(4) if self.open[s][i]]
            return [{"type": "keep", "player": self.players[s], "colors": list(p)}
                    for p in combinations(have, 2)]
        return []

    def new_deal(self, rng: Any) -> dict[str, Any]:
        """A shuffled deal event for the next round (used by the simulator)."""
        deck = sorted(self.deck, key=card_order)
        rng.shuffle(deck)
        hands = {p: [c.name for c in sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE], key=card_order)]
                 for i, p in enumerate(self.players)}
        return {"type": "deal", "hands": hands}


def stacks_text(st: tuple[int, int, int, int, int]) -> str:
    shown = " ".join(f"{COLORS[i]}{st[i]}" for i in range(4) if st[i])
    if st[4]:
        shown += f" (+{st[4]} discarded)"
    return shown or "-"


def render_fact(f: Any, players: tuple[str, ...]) -> list[str]:
    """Lines of `replay` for one of this game's facts."""
    out: list[str] = []
    if isinstance(f, RoundDealt):
        out.append(f"== Round {f.round}: {f.dealer} deals, {f.leader} leads")
        out.extend(hands_lines(f))
    elif isinstance(f, TrickFinished):
        plays = ", ".join(f"{p} {c}" for p, c in f.cards)
        out.append(f"Trick {f.trick} (line {f.line}): {plays}; led {COLOR_NAMES[f.led_color]}")
        out.append(f"   first winner {f.first_winner} ({f.first_card}) picks "
                   f"{' '.join(f.first_pick)}")
        if f.second_winner is None:
            out.append(f"   all {COLOR_NAMES[f.led_color]}: no second winner, "
                       f"{' '.join(f.discarded)} discarded; {f.next_leader} leads next")
        else:
            out.append(f"   second winner {f.second_winner} ({f.second_card}) gets "
                       f"{' '.join(f.second_got)} and leads next")
        out.append("   stacks: " + "; ".join(
            f"{p} {stacks_text(st)}" for p, st in zip(players, f.stacks)))
    elif isinstance(f, ColorsKept):
        out.append(f"   {f.player} keeps {f.colors[0]} and {f.colors[1]} "
                   f"({f.discarded} cards turned face down)")
    elif isinstance(f, RoundEnded):
        if f.ended_early:
            unfinished = ", ".join(f"{p} {c}" for p, c in f.unfinished)
            out.append(f"Round {f.round} ends early in trick {f.early_end_trick} "
                       f"(line {f.line}): {f.early_end_player} holds only the fourth "
                       f"colour; {unfinished} and all hands are discarded")
        else:
            out.append(f"Round {f.round} ends after {f.tricks} tricks")
    return out



INFO = register(GameInfo(
    name="plotters", title="Plotters, Inc. / Mit List und Tücke",
    min_players=4, max_players=6, state_class=PlottersState,
    editions=EDITIONS,
    render_fact=render_fact,
))
