"""Toy high card: a game of its own for trickledger, installed beside it as a plugin.

This distribution is the example of docs/games.md ("A game of your own"): one module that
declares the game (`INFO`), a page script (`page.py`) and the module of its queries and its
parts of trickledger's pages (`dashboard.py`). trickledger finds the declaration through the
`trickledger.games` entry point of pyproject.toml and registers it; importing this module
registers nothing. Nothing of trickledger is changed to add it.

`toy_high_card`: 2-4 players, 3 cards each from a 12-card deck (colours A and B, 1-6),
the leader plays any card, the others must follow the led colour when they can, the
highest card of the led colour wins and leads next; a trick won is a point; two rounds.
Before the first card of a round its leader may `boast` (an event type of this game
alone): taking the first trick then scores a point more, losing it a point less.

Beyond reusing the shared vocabulary it adds, from this module only, an event type
(`boast`, declared in `GameInfo.events`), a database table (`toy_boasts`, declared in
`GameInfo.tables`) with a view over it (`toy_boasts_made`, `GameInfo.analytics`) and a
question for the SQL console, a score sheet (`ToySheet`), its judge's scale
(`GameInfo.bands`), its cards' colours and a page of the dashboard (`GameInfo.pages`).
It runs interpreted on top of trickledger's compiled engine, and fills its table by keyword
(`sink.table("toy_boasts").add(...)`): a game outside trickledger needs no generated code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from trickledger.replay.cards import CHIP_COLORS, Card, CardTable, card_order, deal_hands
from trickledger.replay.errors import RuleError
from trickledger.replay.events import Event, Header
from trickledger.replay.facts import Fact, RoundDealt, RoundOutcome, RoundScored, TrickAbandoned
from trickledger.replay.info import GamePage
from trickledger.replay.registry import GameInfo, Move
from trickledger.replay.rows import RowSink, plays_rows
from trickledger.replay.sheet import (
    SHEET_END,
    SheetField,
    SheetForm,
    SheetState,
    number,
    sheet_head,
    table_lines,
)
from trickledger.replay.state import GameState, check_rounds
from trickledger.replay.tables import Column

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


def why_no_boast(state: ToyState, seat: int) -> str | None:
    """Only the round's first leader boasts, once, before the round's first card."""
    if not state.in_round:
        return "no round is being played (expected a deal)"
    if state.boaster is not None:
        return "a round has one boast"
    if state.trick_no or state.trick:
        return "a boast comes before the round's first card"
    if seat != state.leader:
        return f"only the leader, {state.players[state.leader]}, may boast"
    return None


def round_scores(won: Sequence[int], boaster: int | None, first: int | None
                 ) -> tuple[list[int], list[str]]:
    """A trick is a point; a boast made is a point more, a boast lost a point less."""
    scores, derivations = [], []
    for s, k in enumerate(won):
        if s != boaster:
            scores.append(k)
            derivations.append(f"{k} tricks")
        elif s == first:
            scores.append(k + 1)
            derivations.append(f"{k} tricks + 1 (boast made) = {k + 1}")
        else:
            scores.append(k - 1)
            derivations.append(f"{k} tricks - 1 (boast lost) = {k - 1}")
    return scores, derivations


def tricks_add_up(won: Sequence[int]) -> bool:
    """Every card is played: a round has as many tricks as a hand has cards."""
    return sum(won) == HAND


@dataclass(frozen=True, slots=True)
class ToyTrickWon(Fact):
    round: int
    trick: int
    leader: int
    cards: tuple[tuple[int, Card], ...]
    winner: int
    line: int


@dataclass(frozen=True, slots=True)
class ToyBoasted(Fact):
    round: int
    player: int
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
        self.boaster: int | None = None
        self.first_winner: int | None = None

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
        self.boaster = self.first_winner = None
        self.emit(RoundDealt(self.round_no, self.dealer, self.leader,
                             tuple(tuple(self.hand(s)) for s in range(self.n)), ev.line))

    def on_boast(self, ev: Event) -> None:
        s = self.seat_of(ev)
        why = why_no_boast(self, s)
        if why is not None:
            raise RuleError(f"{self.players[s]} cannot boast: {why}")
        self.boaster = s
        self.emit(ToyBoasted(self.round_no, s, ev.line))

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
        if self.trick_no == 1:
            self.first_winner = winner
        self.emit(ToyTrickWon(self.round_no, self.trick_no, self.leader, tuple(self.trick),
                              winner, ev.line))
        self.trick = []
        self.turn = self.leader = winner
        if not self.hands[winner]:
            scores, derivations = round_scores(self.won, self.boaster, self.first_winner)
            self.finish_round(scores, derivations, ToyRound(self.trick_no), ev.line)

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
        boast: list[Move] = ([{"type": "boast", "player": self.players[self.turn]}]
                             if why_no_boast(self, self.turn) is None
                             else [])
        return boast + [{"type": "play", "player": self.players[self.turn], "card": c.name}
                        for c in self.hand(self.turn) if may_play(c, hand, led)]

    def next_chance(self) -> str | None:
        return "deal" if not self.in_round and not self.over else None

    def draw_chance(self, rng: Random) -> Move:
        deck = sorted(CARDS, key=card_order)
        rng.shuffle(deck)
        return {"type": "deal", "hands": deal_hands(deck, self.players, HAND)}


def _render(f: ToyTrickWon, players: tuple[str, ...]) -> list[str]:
    plays = ", ".join(f"{players[s]} {c}" for s, c in f.cards)
    return [f"Trick {f.trick} (line {f.line}): {plays}; {players[f.winner]} wins"]


def _project(f: ToyTrickWon, sink: RowSink) -> None:
    P = sink.players
    sink.tricks.add(
        round=f.round, trick=f.trick, leader=P[f.leader], led_color=f.cards[0][1].color,
        cards=[c.name for _, c in f.cards], players=[P[s] for s, _ in f.cards],
        winner=P[f.winner], winning_card=None, length=len(f.cards), laps=1,
        next_leader=P[f.winner], stacks=None, line=f.line)
    plays_rows(sink, f.round, f.trick, [(s, c, None) for s, c in f.cards])


def _render_boast(f: ToyBoasted, players: tuple[str, ...]) -> list[str]:
    return [f"{players[f.player]} boasts (line {f.line}): they will take the first trick"]


def _project_boast(f: ToyBoasted, sink: RowSink) -> None:
    sink.table("toy_boasts").add(round=f.round, player=sink.players[f.player], line=f.line)


def _heuristic(state: ToyState, move: Move) -> float:
    if move["type"] == "boast":
        return 3.5  # boast with nothing higher than a 3 to lead: a greedy bot's gamble
    return CARDS[move["card"]].value


# ------------------------------------------------------------------- score sheet


@dataclass(frozen=True, slots=True)
class ToySheetEntered(Fact):
    round: int
    dealer: int
    won: tuple[int, ...]
    boaster: int | None
    first: int | None
    line: int


@dataclass(frozen=True, slots=True)
class ToySheetRound(RoundOutcome):
    def summary(self, players: tuple[str, ...]) -> dict[str, int]:
        return {"tricks": HAND}

    def columns(self, players: tuple[str, ...]) -> dict[str, object]:
        return {"tricks": HAND, "end_reason": SHEET_END}


class ToySheet(SheetState):
    @classmethod
    def form(cls, header: Header, round_no: int) -> SheetForm:
        return SheetForm(players=(SheetField(("tricks",), "tricks", 0, HAND, required=True,
                                             help="tricks the player took"),),
                         about="Tricks each player took",
                         pick=(("boast", "who boasted"), ("first", "who took the first trick")))

    def score_sheet(self, ev: Event, entries: list[dict[str, Any]]
                    ) -> tuple[list[int], list[str], RoundOutcome]:
        won = [number(e, "tricks", f"{self.players[s]}'s entry") for s, e in enumerate(entries)]
        if not tricks_add_up(won):
            raise RuleError(f"the tricks add up to {sum(won)}, but a round has {HAND}")
        boaster = self.player(ev, "boast") if "boast" in ev.data else None
        first = self.player(ev, "first") if "first" in ev.data else None
        if boaster is not None and first is None:
            raise RuleError("a boast is scored by who took the first trick: the sheet needs "
                            "'first'")
        if first is not None and won[first] == 0:
            raise RuleError(f"{self.players[first]} took the first trick, but no trick by "
                            f"the sheet")
        scores, derivations = round_scores(won, boaster, first)
        self.emit(ToySheetEntered(self.round_no, self.dealer, tuple(won), boaster, first,
                                  ev.line))
        return scores, derivations, ToySheetRound()

    @classmethod
    def line_of(cls, facts: Sequence[Fact], scored: RoundScored,
                players: tuple[str, ...]) -> dict[str, Any]:
        tricks = [f for f in facts if isinstance(f, ToyTrickWon)]
        won = [sum(1 for t in tricks if t.winner == s) for s in range(len(players))]
        line: dict[str, Any] = {"players": {p: {"tricks": k} for p, k in zip(players, won)}}
        boasts = [f.player for f in facts if isinstance(f, ToyBoasted)]
        if boasts:
            line["boast"] = players[boasts[0]]
        if tricks:
            line["first"] = players[tricks[0].winner]
        return line


def _render_sheet(f: ToySheetEntered, players: tuple[str, ...]) -> list[str]:
    boasted = f"; {players[f.boaster]} boasted" if f.boaster is not None else ""
    return [sheet_head(f.round, f.dealer, f.line, players) + boasted,
            *table_lines(players, ("tricks",), [(k,) for k in f.won])]


def _project_sheet(f: ToySheetEntered, sink: RowSink) -> None:
    if f.boaster is not None:
        sink.table("toy_boasts").add(round=f.round, player=sink.players[f.boaster],
                                     line=f.line)


# ------------------------------------------------------------------- declaration

TABLES = {
    # every boast: who boasted in which round (from a move log or a score sheet)
    "toy_boasts": (Column("game_id", "VARCHAR"), Column("round", "INTEGER"),
                   Column("player", "VARCHAR"), Column("line", "INTEGER")),
}
ANALYTICS = (
    # every boast, and whether it came true (NULL from a score sheet: it has no tricks)
    ("view", "toy_boasts_made", """
        SELECT b.game_id, b.round, b.player, b.line, t.winner = b.player AS made
        FROM toy_boasts b
        LEFT JOIN tricks t ON t.game_id = b.game_id AND t.round = b.round AND t.trick = 1"""),
)
EXAMPLES = (
    ("Who boasts in toy_high_card, and how often does the boast come true?",
     """SELECT player, count(*) AS boasts, count(*) FILTER (WHERE made) AS came_true,
       ratio(count(*) FILTER (WHERE made), count(made), 3) AS true_share
FROM toy_boasts_made JOIN game_counting USING (game_id)
WHERE counted_as IN ('complete', 'disputed', 'sheet')
GROUP BY player
ORDER BY boasts DESC, player;"""),
)

# the declaration, registered by trickledger through the `trickledger.games` entry point
# (pyproject.toml: `toy_high_card:INFO`); importing this module changes nothing
INFO = GameInfo(
    name=NAME, title="Toy high card", min_players=2, max_players=4, state_class=ToyState,
    cards=CARDS, heuristic=_heuristic, step_facts=(ToyTrickWon,),
    render={ToyTrickWon: _render, ToyBoasted: _render_boast, ToySheetEntered: _render_sheet},
    project={ToyTrickWon: _project, ToyBoasted: _project_boast, ToySheetEntered: _project_sheet},
    events=("deal", "boast", "play"), injectable=("play",), sheet_state=ToySheet,
    tables=TABLES, analytics=ANALYTICS, examples=EXAMPLES,
    bands=(0.5, 1.0, 2.0),  # a round scores 0 to 4 points: half a point is a slip
    colors={"A": CHIP_COLORS["blue"], "B": CHIP_COLORS["orange"]},
    pages=(GamePage("Boasts", "toy_high_card.page", ":material/campaign:", "boasts"),),
    dashboard="toy_high_card.dashboard",
)
