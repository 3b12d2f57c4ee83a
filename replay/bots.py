"""Simulated players. Every bot chooses among `state.legal_moves()` only.

`RandomBot` is uniform over the legal moves. `GreedyBot` scores each legal
move with a one-move heuristic of its game (documented per game below and in
docs/simulate.md) and plays the best, ties broken by the seeded rng. The
heuristics read only what a player at the table knows: their own hand, the
cards on the table and everybody's open stacks and scores.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from .engine import GameState
from .games import color_stacks, plotters, rage, under_the_radar

Move = dict[str, Any]


class RandomBot:
    """Uniform over the legal moves."""

    name = "random"

    def choose(self, state: GameState, rng: random.Random) -> Move:
        return rng.choice(state.legal_moves())


class GreedyBot:
    """The legal move with the best heuristic score for its game."""

    name = "greedy"

    def choose(self, state: GameState, rng: random.Random) -> Move:
        moves = state.legal_moves()
        if len(moves) == 1:
            return moves[0]
        score = HEURISTICS[state.info.name]
        scored = [(score(state, m), rng.random(), i) for i, m in enumerate(moves)]
        return moves[max(scored)[2]]


BOTS: dict[str, Callable[[], Any]] = {"random": RandomBot, "greedy": GreedyBot}


# ----------------------------------------------------------------- plotters
# Collect two colours: the two largest open stacks (ties: the colour held most
# in hand). Win first pick with a high card of the led colour; otherwise dump
# a high card of an unwanted colour and stay out of the second winner's seat,
# unless the leftovers would be in our colours. Pick our colours; keep the
# two largest stacks.


def _plotters_targets(st: plotters.PlottersState, s: int) -> set[str]:
    kept = st.kept[s]
    if kept is not None:
        return {plotters.COLORS[i] for i in kept}
    in_hand = {c: 0 for c in plotters.COLORS}
    for card in st.hands[s]:
        in_hand[card.color] += 1
    ranked = sorted(plotters.COLORS, key=lambda c: (st.open[s][plotters.COLOR_INDEX[c]],
                                                    in_hand[c]), reverse=True)
    return set(ranked[:2])


def _plotters_score(st: plotters.PlottersState, m: Move) -> float:
    s = st.seat[m["player"]]
    targets = _plotters_targets(st, s)
    if m["type"] == "keep":
        return sum(st.open[s][plotters.COLOR_INDEX[c]] for c in m["colors"])
    if m["type"] == "take":
        return sum(3 if plotters.CARDS[c].color in targets else -2 for c in m["cards"])
    card = plotters.CARDS[m["card"]]
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


# --------------------------------------------------------------------- rage
# Bid the expected tricks of the hand: Jokers and high trumps count fully,
# middling trumps and very high plain cards partly, fewer at a crowded table.
# Then play to hit the bid: while short, the cheapest card that wins the trick
# so far; once there, the highest card that does not win.


def rage_bid_estimate(st: rage.RageState, s: int) -> float:
    trump = st.trump
    est = 0.0
    for c, k in st.hands[s].items():
        if c is rage.JOKER:
            v = 1.0
        elif c.color is None:
            v = 0.0
        elif c.color == trump:
            v = 0.9 if c.value >= 11 else 0.5 if c.value >= 6 else 0.25
        else:
            v = 0.6 if c.value >= 14 else 0.25 if c.value >= 12 else 0.0
        est += v * k
    return est * min(1.0, 4.5 / st.n)


def _rage_score(st: rage.RageState, m: Move) -> float:
    s = st.seat[m["player"]]
    if m["type"] == "bid":
        return -abs(m["bid"] - rage_bid_estimate(st, s))
    card = rage.CARDS[m["card"]]
    as_c = m.get("as")
    trick = st.trick + [(s, card, as_c)]
    led = st.led
    if led is None:
        led = card.color if card.color is not None else as_c
    trump = None if (st.notrump or card is rage.NOTRUMP) else st.trump
    wins = rage.winning_index(trick, trump, led) == len(trick) - 1
    bid = st.bids[s] if st.bids[s] is not None else round(rage_bid_estimate(st, s))
    need = st.won[s] < bid
    strength = card.value if card.color is not None else (16 if card is rage.JOKER else 8)
    penalty = 5 if card is rage.MINUS5 and wins else 0
    if need:
        return (100 - strength if wins else -strength) - penalty
    return (-100 if wins else strength) - penalty


# ------------------------------------------------------------- color_stacks
# Value the hand that stays after the turn: each card worth its stack if the
# stack stays under six, +2 for ending the game; cards of colours whose stack
# is at five are at risk and count half.


def _stacks_score(st: color_stacks.ColorStacksState, m: Move) -> float:
    if m["type"] == "draw":
        return 0.0
    s = st.seat[m["player"]]
    placed = {color_stacks.CARDS[c] for c in m["cards"]}
    stacks = dict(st.stacks)
    for c in placed:
        stacks[c.color] += 1
    ends = any(k >= color_stacks.END_AT for k in stacks.values())
    value = 0.0
    for c in st.hands[s]:
        if c in placed:
            continue
        k = stacks[c.color]
        if k < color_stacks.END_AT:
            value += k if ends or k < color_stacks.END_AT - 1 else k / 2
    return value + (color_stacks.ENDER_BONUS if ends else 0)


# ---------------------------------------------------------- under_the_radar
# When a card is acceptable, prefer Completes (they are the hardest to get rid
# of), then Singles we hold several of, keeping many different values for
# later. When forced to take the trick, give away a Complete if we can.


def _radar_score(st: under_the_radar.UnderTheRadarState, m: Move) -> float:
    s = st.seat[m["player"]]
    card = under_the_radar.CARDS[m["card"]]
    copies = st.hands[s].get(card, 0)
    return 10.0 if card.cat is None else float(copies)


HEURISTICS: dict[str, Callable[[Any, Move], float]] = {
    "plotters": _plotters_score,
    "rage": _rage_score,
    "color_stacks": _stacks_score,
    "under_the_radar": _radar_score,
}
