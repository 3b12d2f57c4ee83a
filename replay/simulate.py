"""Seeded self-play: bots choose legal moves, the game deals; the result is a log."""

from __future__ import annotations

import random
from typing import Any

import orjson

from .engine import GameState, new_state
from .reader import Event, parse_header
from .writer import dump_lines


def play_game(header: dict[str, Any], bots: dict[str, Any], rng: random.Random,
              claims: bool = False, wrong_claims: float = 0.0,
              ) -> tuple[GameState, list[dict[str, Any]]]:
    """Play one game to its end; returns the final state and the event list.

    With `claims`, a score-sheet `claim` follows every round; each claimed
    score is wrong (off by a small amount) with probability `wrong_claims`.
    """
    h = parse_header("<simulated>", 1, orjson.dumps(header), "simulated")
    state = new_state(h)
    events: list[dict[str, Any]] = []
    line = 1
    finished = 0
    while True:
        exp = state.expects()
        if exp is None:
            break
        if exp == "deal":
            ev = state.new_deal(rng)
        elif exp == "trump":
            ev = state.next_trump(rng)
        else:
            ev = bots[state.to_move()].choose(state, rng)
        line += 1
        state.apply(Event(line, ev["type"], ev))
        events.append(ev)
        if claims and len(state.rounds) > finished:
            finished = len(state.rounds)
            scores = dict(state.rounds[-1].scores)
            for p in scores:
                if wrong_claims and rng.random() < wrong_claims:
                    scores[p] += rng.choice((-3, -2, -1, 1, 2, 3))
            claim = {"type": "claim", "round": finished, "scores": scores}
            line += 1
            state.apply(Event(line, "claim", claim))
            events.append(claim)
    return state, events


def simulate_bytes(header: dict[str, Any], bots: dict[str, Any], seed: int,
                   claims: bool = False, wrong_claims: float = 0.0) -> bytes:
    rng = random.Random(seed)
    _, events = play_game(header, bots, rng, claims, wrong_claims)
    return dump_lines(header, events)
