"""Perfect information (the "double-dummy" view): the exact value of each alternative at the
end of a round, when every hand is known (a log holds the deal).

Search is max^n over the rest of the round: at each position the player to move picks the
move that is best for their own round score (higher, or lower where the lowest total
wins), knowing every hand; ties go to the first such move in `choices()` order, so the
result is deterministic. A leaf is the round's end, valued by the scores the engine
gives. The tree is walked exhaustively, with one pruning that loses nothing: a player
with a single legal move has no choice to search. The walk stops at `budget` positions
(`BudgetExceeded`): the search is for small endgames, the last tricks of a round, where
the Monte-Carlo judge can be checked against it. A chance event inside the rest of the
round (rage's trump turned after a CHANGE) cannot be searched exactly and raises
`Unsearchable`.
"""

from __future__ import annotations

from typing import Final

from .events import Event
from .state import GameState, Move

DEFAULT_BUDGET: Final = 200_000  # positions visited, per call


class BudgetExceeded(Exception):
    """The position has more than `budget` positions below it."""


class Unsearchable(Exception):
    """A chance event comes before the round ends: perfect information is not enough."""


class _Counter:
    __slots__ = ("left",)

    def __init__(self, budget: int) -> None:
        self.left = budget


def _scores(state: GameState, round_no: int) -> tuple[int, ...]:
    for r in reversed(state.rounds):
        if r.round == round_no:
            return r.scores
    raise RuntimeError(f"round {round_no} ended without scores")


def _solve(state: GameState, round_no: int, signs: tuple[int, ...],
           count: _Counter) -> tuple[int, ...]:
    count.left -= 1
    if count.left < 0:
        raise BudgetExceeded
    if state.is_over():
        return _scores(state, round_no)
    chance = state.next_chance()
    if chance == "deal":
        return _scores(state, round_no)
    if chance is not None:
        raise Unsearchable(f"a '{chance}' event comes before the round ends")
    who = state.to_move()
    moves = state.choices()
    if who is None or not moves:
        raise RuntimeError("a position with no chance event and no move")
    if len(moves) == 1:
        return _after(state, moves[0], round_no, signs, count)
    seat = state.seat[who]
    best: tuple[int, ...] | None = None
    for m in moves:
        v = _after(state, m, round_no, signs, count)
        if best is None or signs[seat] * v[seat] > signs[seat] * best[seat]:
            best = v
    assert best is not None
    return best


def _after(state: GameState, move: Move, round_no: int, signs: tuple[int, ...],
           count: _Counter) -> tuple[int, ...]:
    branch = state.clone()
    branch.apply(Event(0, str(move["type"]), move))
    return _solve(branch, round_no, signs, count)


def exact_values(state: GameState, seat: int, alternatives: list[Move],
                 budget: int = DEFAULT_BUDGET) -> list[int]:
    """The round score `seat` ends with after each of `alternatives` (moves of `seat`
    legal in `state`), every player then playing perfectly for themselves with every hand
    known. Raises BudgetExceeded beyond `budget` positions in all, Unsearchable when a
    chance event comes first."""
    round_no = state.round_no
    sign = -1 if state.info.lowest_wins else 1
    signs = tuple(sign for _ in range(state.n))
    count = _Counter(budget)
    return [_after(state, m, round_no, signs, count)[seat] for m in alternatives]


def best_index(values: list[int], lowest_wins: bool) -> int:
    """The first alternative with the best value."""
    sign = -1 if lowest_wins else 1
    return max(range(len(values)), key=lambda i: (sign * values[i], -i))
