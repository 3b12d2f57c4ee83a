"""Perfect information (the "double-dummy" view): the exact value of each alternative at the
end of a round, when every hand is known (a sample of the judge, or a log's own deal).

The solution concept, exactly (docs/analytics.md argues it; a native engine implementing
this module must give the same values):

- **Positions and leaves.** A position is a `GameState` inside a round. A leaf is the
  round's end: the game is over, or the next chance event is the next `deal`. Its value is
  the vector of the round's scores, one per seat, as the engine scored them (floats).
- **Max^n.** At a position where a player moves, every move of `choices()` is tried and
  valued; the mover takes the move best for their own round score: the highest, or the
  lowest where the game's lowest total wins (`GameInfo.lowest_wins`, the same for every
  seat). A position with a single move is that move's value (no choice to search).
- **Tie rule: the mean over equally good moves.** When several moves are equally good for
  the mover, within `TIE` (1e-9 points) of the best for them, the position's value is the
  mean of those moves' value vectors: an indifferent player is modelled as picking
  uniformly among its equally good moves. The tied vectors are summed in sorted order,
  so the value is the same bit for bit whatever the order of `choices()`
  (tests/units/test_search.py permutes the moves at every node and checks it).
- **Chance nodes.** A chance event inside the round (rage's trump turned after a CHANGE
  or a NOTRUMP trick) is averaged over its outcomes, `GameState.chance_outcomes()`: each
  outcome weighted by its number of copies among the cards not yet seen in that position
  (the sample's own pile), summed in the order the game lists them. A game that cannot
  list its chance outcomes there raises `Unsearchable`.
- **Budget.** Every position valued (leaves, chance nodes and positions after a chance
  outcome included) counts one; beyond `budget` in one call the search stops with
  `BudgetExceeded`. The walk is exhaustive, with no pruning that could change a value.

`exact_values` gives, for each alternative of the judged seat, that seat's value after
it: a float, the mean of integers of the round's scores where ties or chance average.
"""

from __future__ import annotations

import random
from typing import Final

from .events import Event
from .state import GameState, Move

DEFAULT_BUDGET: Final = 200_000  # positions visited, per call
TIE: Final = 1e-9  # points: moves closer than this to the best are equally good

Values = tuple[float, ...]


class BudgetExceeded(Exception):
    """The position has more than `budget` positions below it."""


class Unsearchable(Exception):
    """A chance event comes before the round ends and its game cannot list its outcomes."""


class _Walk:
    """One search's counter of positions left, and the optional shuffle of the moves at
    every node (tests only: the tie rule makes the values independent of it)."""

    __slots__ = ("left", "order")

    def __init__(self, budget: int, order: random.Random | None) -> None:
        self.left = budget
        self.order = order


def _scores(state: GameState, round_no: int) -> Values:
    for r in reversed(state.rounds):
        if r.round == round_no:
            return tuple(float(s) for s in r.scores)
    raise RuntimeError(f"round {round_no} ended without scores")


def mean_of_ties(vectors: list[Values], seat: int, sign: int) -> Values:
    """The value of a position whose mover (`seat`, better = `sign` × higher) chooses among
    moves worth `vectors`: the best for the mover, or the mean of those within `TIE` of it,
    summed in sorted order (the same whatever the order of `vectors`)."""
    best = max(sign * v[seat] for v in vectors)
    tied = [v for v in vectors if sign * v[seat] >= best - TIE]
    if len(tied) == 1:
        return tied[0]
    tied.sort()
    k = float(len(tied))
    return tuple(sum(v[i] for v in tied) / k for i in range(len(tied[0])))


def _solve(state: GameState, round_no: int, signs: tuple[int, ...], walk: _Walk) -> Values:
    walk.left -= 1
    if walk.left < 0:
        raise BudgetExceeded
    if state.is_over():
        return _scores(state, round_no)
    chance = state.next_chance()
    if chance == "deal":
        return _scores(state, round_no)
    if chance is not None:
        return _expectation(state, chance, round_no, signs, walk)
    who = state.to_move()
    moves = state.choices()
    if who is None or not moves:
        raise RuntimeError("a position with no chance event and no move")
    if len(moves) == 1:
        return _after(state, moves[0], round_no, signs, walk)
    if walk.order is not None:
        moves = list(moves)
        walk.order.shuffle(moves)
    seat = state.seat[who]
    return mean_of_ties([_after(state, m, round_no, signs, walk) for m in moves], seat,
                        signs[seat])


def _expectation(state: GameState, chance: str, round_no: int, signs: tuple[int, ...],
                 walk: _Walk) -> Values:
    outcomes = state.chance_outcomes()
    if not outcomes:
        raise Unsearchable(f"a '{chance}' event comes before the round ends, and "
                           f"{state.info.name} does not list its outcomes")
    total = 0
    acc = [0.0] * state.n
    for ev, weight in outcomes:
        v = _after(state, ev, round_no, signs, walk)
        total += weight
        for i in range(state.n):
            acc[i] += weight * v[i]
    return tuple(a / total for a in acc)


def _after(state: GameState, move: Move, round_no: int, signs: tuple[int, ...],
           walk: _Walk) -> Values:
    branch = state.clone()
    branch.apply(Event(0, str(move["type"]), move))
    return _solve(branch, round_no, signs, walk)


def exact_values(state: GameState, seat: int, alternatives: list[Move],
                 budget: int = DEFAULT_BUDGET, order: random.Random | None = None
                 ) -> list[float]:
    """The round score `seat` ends with after each of `alternatives` (moves of `seat`
    legal in `state`), every player then playing perfectly for themselves with every hand
    known (max^n, ties averaged, chance events averaged: the module's doc). Raises
    BudgetExceeded beyond `budget` positions in all, Unsearchable when a chance event comes
    whose outcomes the game does not list. `order`, a seeded random, shuffles the moves at
    every node (for tests: no value may change)."""
    round_no = state.round_no
    sign = -1 if state.info.lowest_wins else 1
    signs = tuple(sign for _ in range(state.n))
    walk = _Walk(budget, order)
    return [_after(state, m, round_no, signs, walk)[seat] for m in alternatives]


def best_indices(values: list[float], lowest_wins: bool) -> list[int]:
    """Every alternative within `TIE` of the best value, in the order given."""
    sign = -1 if lowest_wins else 1
    best = max(sign * v for v in values)
    return [i for i, v in enumerate(values) if sign * v >= best - TIE]
