"""The native analysis engine's own parts (replay/native): the solver on a hand-argued endgame,
its tie rule and its merging of equivalent moves against the unmerged moves, its table and its
bounds (they change no value), chance outcomes, the budget, seeded playouts, the judge's
evaluate call, and clear errors for a malformed position or an illegal move. The engine is
compared with the Python rules move by move in test_native_differential.py."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from helpers import NAMES, header

from trickledger.replay import native
from trickledger.replay.bots import GreedyBot
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.games.rage import CARDS, Phase, color_counts
from trickledger.replay.reader import parse_header
from trickledger.replay.registry import registry
from trickledger.replay.simulate import play_game
from trickledger.replay.state import GameState

TIE = 1e-9
GAMES = {"plotters": 4, "rage": 4, "color_stacks": 3, "under_the_radar": 4}


@pytest.fixture(autouse=True)
def built() -> None:
    if not native.available():
        pytest.fail(f"the native engine is not built: {native.why_not()}")


def states_of(game: str, n: int, seed: int) -> Iterator[GameState]:
    """Every state in the middle of a round of a simulated game (greedy players)."""
    h = header(game, n, **registry()[game].state_class.random_setup(random.Random(seed), n))
    _, events = play_game(h, {p: GreedyBot() for p in h["players"]}, random.Random(seed))
    state = new_state(parse_header("<native>", 1, orjson.dumps(h), "test"))
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if state.in_round:
            yield state.clone()


def endgames(game: str, budget: int, seed: int = 1) -> Iterator[tuple[GameState, Any]]:
    """States with a choice whose rest of the round the solver finishes within `budget`, from
    simulated games seeded `seed`, `seed` + 1, ... (30 at most)."""
    for k in range(seed, seed + 30):
        for st in states_of(game, GAMES[game], k):
            if st.next_chance() is not None or len(st.choices()) < 2:
                continue
            pos = native.position(st)
            value, _ = pos.solve(None, budget)
            if value is not None:
                yield st, pos


def mean_of_ties(vectors: list[list[float]], seat: int, sign: int) -> list[float]:
    best = max(sign * v[seat] for v in vectors)
    tied = [v for v in vectors if sign * v[seat] >= best - TIE]
    return [sum(v[i] for v in tied) / len(tied) for i in range(len(vectors[0]))]


def rage_two_tricks_left() -> GameState:
    """A 3-player rage round played by greedy bots until two tricks are left and the
    leader is to lead."""
    h = header("rage", 3, rounds=1)
    _, events = play_game(h, {p: GreedyBot() for p in NAMES[:3]}, random.Random(4))
    state = new_state(parse_header("<endgame>", 1, orjson.dumps(h), "test"))
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if state.trick_no == state.hs - 2 and not state.trick and state.phase is Phase.PLAY:
            return state
    raise AssertionError("the round never reached its last two tricks")


def test_a_rage_endgame_by_argument() -> None:
    """tests/units/test_search.py's endgame, solved natively: trump red, Ann (won 3, bid 4)
    leads with R2 B9 against Ben B10 G5 (won 2, bid 2) and Cat B1 G7. Leading B9 gives Ann
    exactly one more trick (14); leading R2 gives her both (0)."""
    st: Any = rage_two_tricks_left()
    ann = st.leader
    ben, cat = st.left_of(ann), st.left_of(st.left_of(ann))
    st.trump = "R"
    st.notrump = False
    for seat, cards in {ann: ["R2", "B9"], ben: ["B10", "G5"], cat: ["B1", "G7"]}.items():
        st.hands[seat] = {CARDS[c]: 1 for c in cards}
        st.colors[seat] = color_counts(st.hands[seat])
    st.won = [0, 0, 0]
    st.won[ann], st.won[ben], st.won[cat] = 3, 2, 3
    st.bids = [0, 0, 0]
    st.bids[ann], st.bids[ben], st.bids[cat] = 4, 2, 1
    st.plus5, st.minus5 = [0, 0, 0], [0, 0, 0]
    pos = native.position(st)
    moves = {native.move_of(st, c)["card"]: c for c in pos.choices()}
    assert sorted(moves) == ["B9", "R2"]
    values, nodes = pos.solve([moves["B9"], moves["R2"]], 1000)
    assert [v[ann] for v in values] == [14.0, 0.0]
    assert 0 < nodes < 1000


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_value_is_the_mean_of_the_tied_moves_whatever_is_merged(game: str) -> None:
    """The value of a position is the mean of its tied best moves, each of the Python game's
    choices counted once, though the solver merges equivalent moves (the merged weights add
    up to the number of choices)."""
    checked = 0
    for st, pos in endgames(game, 20_000):
        choices = pos.choices()
        merged = pos.merged_choices()
        assert sum(w for _, w in merged) == len(choices)
        assert {m for m, _ in merged} <= set(choices)
        after, _ = pos.solve(choices, 10 ** 7)
        value, _ = pos.solve(None, 10 ** 7)
        sign = -1 if st.info.lowest_wins else 1
        want = mean_of_ties(after, pos.mover(), sign)
        assert value[0] == pytest.approx(want, abs=1e-9), native.move_of(st, choices[0])
        checked += 1
        if checked == 25:
            break
    assert checked >= 10


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_table_and_the_bounds_change_no_value(game: str) -> None:
    """A table of 2^10 entries (many positions overwrite each other) and one of 2^18 give the
    same values; and each seat's bound is never below what the seat gets."""
    checked = 0
    sign = -1 if registry()[game].lowest_wins else 1
    for _, pos in endgames(game, 50_000, seed=2):
        choices = pos.choices()
        small, _ = pos.solve(choices, 10 ** 7, table_bits=10)
        large, _ = pos.solve(choices, 10 ** 7, table_bits=18)
        assert [x for v in small for x in v] == pytest.approx([x for v in large for x in v], abs=1e-9)
        for code, v in zip(choices, large):
            pos.play(code)
            for seat in range(pos.players()):
                assert pos.bound(seat) >= sign * v[seat] - 1e-9
            pos.undo()
        checked += 1
        if checked == 15:
            break
    assert checked >= 5


def test_the_budget_stops_a_large_search() -> None:
    st = next(s for s in states_of("plotters", 4, 3) if s.next_chance() is None)
    pos = native.position(st)
    values, nodes = pos.solve(pos.choices(), 500)
    assert values is None and nodes == 501


def test_a_trump_turned_inside_the_round_is_averaged_over_the_pile() -> None:
    """After a CHANGE the trump is a chance event: its outcomes are the colours, each as
    likely as its share of the colour cards left in the pile."""
    found = 0
    for seed in range(40):
        for st in states_of("rage", 4, seed):
            if st.next_chance() != "trump" or st.trick_no == 0 and not st.played_any:
                continue
            pos = native.position(st)
            outcomes = pos.chance_outcomes()
            pile: dict[str, int] = {}
            for c in st.pile():  # type: ignore[attr-defined]
                if c.color:
                    pile[c.color] = pile.get(c.color, 0) + 1
            total = sum(pile.values())
            got = {"BGRYPO"[code & 0xFF]: p for code, p in outcomes}
            assert got == pytest.approx({c: k / total for c, k in pile.items()})
            found += 1
        if found >= 3:
            break
    assert found >= 3


def test_playouts_are_seeded() -> None:
    st = next(states_of("rage", 4, 5))
    pos = native.position(st)
    assert pos.playout("greedy", 7) == pos.playout("greedy", 7)
    assert len({tuple(pos.playout("random", s)) for s in range(30)}) > 1
    mean = pos.playouts("greedy", 0, 200)
    assert len(mean) == 4 and all(-40 <= x <= 60 for x in mean)
    with pytest.raises(ValueError, match="unknown playout policy 'best'"):
        pos.playout("best", 1)


def test_evaluate_solves_what_fits_and_plays_out_the_rest() -> None:
    """The judge's call: per sample the seat's value after each alternative, exact where the
    rest of the round fits the budget, else playouts with one random stream per sample
    (two copies of one move get the same value on every sample)."""
    engine: Any = native.engine()
    st = next(s for s in states_of("under_the_radar", 4, 2)
              if s.next_chance() is None and len(s.choices()) > 1)
    codec = st.info.native
    assert codec is not None
    pos = native.position(st)
    moves = [pos.choices()[0], pos.choices()[0], pos.choices()[1]]
    numbers = [codec.position(st)] * 3
    values, exact, _ = engine.evaluate_under_the_radar(numbers, moves, pos.mover(), 10, "greedy",
                                                       [9, 10, 11], 0, -1, 12)
    assert exact == [False, False, False] and len(values) == 3 and len(values[0]) == 3
    assert values[0] == values[1]
    late = [s for s in states_of("under_the_radar", 4, 2)
            if s.next_chance() is None and len(s.choices()) > 1][-1]
    lpos = native.position(late)
    values, exact, nodes = engine.evaluate_under_the_radar(
        [codec.position(late)], lpos.choices(), lpos.mover(), 10 ** 6, "greedy", [9], 0, -1, 12)
    solved, _ = lpos.solve(lpos.choices(), 10 ** 6)
    assert exact == [True] and nodes > 0
    assert [v[0] for v in values] == [v[lpos.mover()] for v in solved]


def test_a_malformed_position_or_an_illegal_move_is_a_clear_error() -> None:
    engine: Any = native.engine()
    with pytest.raises(ValueError, match=r"rage position: ended before the hand size"):
        engine.position("rage", [4])
    with pytest.raises(ValueError, match=r"plotters position: the number of players is 9, "
                                         r"expected 4\.\.6"):
        engine.position("plotters", [9])
    with pytest.raises(ValueError, match="no rules named 'skat'"):
        engine.position("skat", [])
    st = next(states_of("plotters", 4, 1))
    pos = native.position(st)
    numbers = pos.numbers()
    with pytest.raises(ValueError, match="numbers too many"):
        engine.position("plotters", [*numbers, 0])
    with pytest.raises(ValueError, match="is not legal here"):
        pos.play(123)
    with pytest.raises(ValueError, match="no move to take back"):
        pos.undo()
    with pytest.raises(ValueError, match="the round is not over"):
        pos.scores()
    assert pos.numbers() == numbers


def test_evaluate_does_not_depend_on_earlier_calls() -> None:
    """Whether a sample fits the budget is decided by its own position: a call after another
    that filled the solver's table with the same positions gives the same values (it failed
    when the table was kept warm between calls: the second call fitted and was exact)."""
    engine: Any = native.engine()
    # from the game's end back: the first position found is the cheapest to solve
    for st in reversed(list(states_of("rage", 4, 3))):
        if st.next_chance() is not None or len(st.choices()) < 2:
            continue
        pos = native.position(st)
        solved, needed = pos.solve(pos.choices(), 10 ** 6)
        if solved is None or needed < 4000:
            continue
        codec = st.info.native
        assert codec is not None
        args = ([codec.position(st)], pos.choices(), pos.mover())

        def run(budget: int, args: tuple[Any, ...] = args) -> tuple[Any, Any]:
            values, exact, _ = engine.evaluate_rage(*args, budget, "greedy", [5], 0, -1, 18)
            return values, exact

        first = run(needed // 4)
        assert first[1] == [False]
        assert run(10 ** 6)[1] == [True]
        assert run(needed // 4) == first
        return
    raise AssertionError("no rage position needs 4000 positions to solve")
