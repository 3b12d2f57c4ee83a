"""replay/search.py: the perfect-information search is exact on a hand-built endgame, stops
at its budget, and the Monte-Carlo judge never calls its best move a mistake or worse on
small endgames of every game."""

from __future__ import annotations

import random

import orjson
import pytest
from helpers import NAMES, header

from replay.bots import GreedyBot
from replay.engine import new_state
from replay.events import Event
from replay.games.rage import CARDS, Phase
from replay.judge import ENDGAME_BUDGET, band_of, better_sign, cost_of, decisions, evaluate
from replay.reader import parse_header
from replay.search import BudgetExceeded, Unsearchable, best_index, exact_values
from replay.simulate import play_game
from replay.writer import dump_lines


def rage_two_tricks_left():
    """A 3-player rage round (ten tricks) played by the greedy bots up to the moment two
    tricks are left and the leader is to lead; the seat that leads next."""
    h = header("rage", 3, rounds=1)
    _, events = play_game(h, {p: GreedyBot() for p in NAMES[:3]}, random.Random(4))
    state = new_state(parse_header("<endgame>", 1, orjson.dumps(h), "test"))
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if state.trick_no == state.hs - 2 and not state.trick and state.phase is Phase.PLAY:
            return state
    raise AssertionError("the round never reached its last two tricks")


def test_a_rage_endgame_by_argument():
    """Trump red, two tricks left, Ann to lead (Ann, Ben, Cat clockwise):

        Ann R2 B9      Ben B10 G5      Cat B1 G7

    Ann has won 3 tricks and bid 4: she needs exactly one more. Ben has won 2 and bid 2:
    he wants no more. Cat's bid does not matter (her cards cannot win a trick).

    - Ann leads B9: Ben must follow with B10 and wins; Ben then leads G5, Ann has no green
      and trumps with R2. Ann takes exactly one trick: 4 tricks, bid made, 4 + 10 = 14.
    - Ann leads R2, the only trump: she wins. Ben, void in red, chooses: keeping B10 would
      make him win the B9 Ann must lead next (a trick he does not want), so he throws B10
      now. Ann then leads B9; Ben has only G5, Cat only green or B1: B9 wins. Ann takes
      both: 5 tricks against a bid of 4, 5 - 5 = 0.

    So leading B9 is worth 14 to Ann and leading R2 is worth 0.
    """
    st = rage_two_tricks_left()
    ann = st.leader
    ben, cat = st.left_of(ann), st.left_of(st.left_of(ann))
    st.trump = "R"
    st.notrump = False
    hands = {ann: ["R2", "B9"], ben: ["B10", "G5"], cat: ["B1", "G7"]}
    for seat, cards in hands.items():
        st.hands[seat] = {CARDS[c]: 1 for c in cards}
    st.won = [0, 0, 0]
    st.won[ann], st.won[ben], st.won[cat] = 3, 2, 3
    st.bids = [0, 0, 0]
    st.bids[ann], st.bids[ben], st.bids[cat] = 4, 2, 1
    st.plus5 = [0, 0, 0]
    st.minus5 = [0, 0, 0]
    moves = [m for m in st.legal_moves() if m["player"] == st.players[ann]]
    assert sorted(m["card"] for m in moves) == ["B9", "R2"]
    values = dict(zip((m["card"] for m in moves), exact_values(st, ann, moves)))
    assert values == {"B9": 14, "R2": 0}
    assert moves[best_index(list(values.values()), False)]["card"] == "B9"


def test_the_search_stops_at_its_budget():
    st = rage_two_tricks_left()
    who = st.players[st.turn]
    moves = [m for m in st.legal_moves() if m["player"] == who]
    with pytest.raises(BudgetExceeded):
        exact_values(st, st.turn, moves, budget=2)


# (game, players, header keys): small games, their last few moves searched
ENDGAMES = [("plotters", 4, {"rounds": 1}), ("rage", 3, {"rounds": 1}),
            ("color_stacks", 2, {"suits": ["R", "Y", "G", "B"]}),
            ("under_the_radar", 3, {"rounds": 1})]
WANTED = 4  # endgames checked per game


@pytest.mark.parametrize("game,n,extra", ENDGAMES, ids=[g[0] for g in ENDGAMES])
def test_monte_carlo_never_calls_the_searched_best_move_a_mistake(game, n, extra):
    """On every decision whose rest of the round the search finishes within a small
    budget, the Monte-Carlo band of the search's best move (judged from the player's
    information, with greedy playouts) is best, good or an inaccuracy: never a mistake or
    a blunder. (A rage endgame in which a CHANGE may still be played turns a trump up by
    chance: the search cannot value it and it is left out.)"""
    h = header(game, n, **extra)
    sign = better_sign(game)
    checked = 0
    for seed in range(20):
        if checked >= WANTED:
            break
        _, events = play_game(h, {p: GreedyBot() for p in NAMES[:n]}, random.Random(seed))
        for d in decisions(dump_lines(h, events)):
            if d.truth.to_move() != d.player:
                continue
            try:
                exact = exact_values(d.truth, d.seat, d.alternatives, budget=ENDGAME_BUDGET)
            except (BudgetExceeded, Unsearchable):
                continue
            best = best_index(exact, sign < 0)
            values = evaluate(d, 8, seed, "endgame")
            if not values:
                continue
            _, cost, se = cost_of(values, best, sign)
            band = band_of(game, cost, se, False) if se == se else "good"
            assert band not in ("mistake", "blunder"), (game, d.line, exact, cost, se)
            checked += 1
    assert checked >= WANTED, f"only {checked} endgames small enough in {game}"
