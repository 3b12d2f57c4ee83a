"""Simulated players. Every bot chooses among the moves the game offers the player to
move (`state.choices()`, drawn from `legal_moves()`) only.

`RandomBot` is uniform over those moves. `GreedyBot` scores each with its game's
one-move heuristic (`GameInfo.heuristic`, documented in each game module and in
docs/simulate.md) and plays the best, ties broken by the seeded rng. The heuristics
read only what a player at the table knows: their own hand, the cards on the table and
everybody's open stacks and scores.
"""

from __future__ import annotations

import random
from typing import Protocol

from .state import GameState, Move


class Bot(Protocol):
    name: str

    def choose(self, state: GameState, rng: random.Random) -> Move: ...


class RandomBot:
    """Uniform over the legal moves."""

    name = "random"

    def choose(self, state: GameState, rng: random.Random) -> Move:
        return rng.choice(state.choices())


class GreedyBot:
    """The legal move with the best heuristic score for its game."""

    name = "greedy"

    def choose(self, state: GameState, rng: random.Random) -> Move:
        moves = state.choices()
        if len(moves) == 1:
            return moves[0]
        score = state.info.heuristic
        # the largest (score, draw, index): one draw per move, in order, ties to the later
        # move; kept without a tuple per move
        best, best_score, best_draw = 0, 0.0, 0.0
        for i, m in enumerate(moves):
            value = score(state, m)
            draw = rng.random()
            if i == 0 or value > best_score or (value == best_score and draw >= best_draw):
                best, best_score, best_draw = i, value, draw
        return moves[best]


BOTS: dict[str, type[RandomBot] | type[GreedyBot]] = {"random": RandomBot, "greedy": GreedyBot}
