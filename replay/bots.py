"""Simulated players. They choose only among `state.legal_moves()`."""

from __future__ import annotations

import random
from typing import Any

from .engine import GameState


class RandomBot:
    """Uniform over the legal moves."""

    name = "random"

    def choose(self, state: GameState, rng: random.Random) -> dict[str, Any]:
        return rng.choice(state.legal_moves())
