"""The judge on the native analysis engine (issue 33, item 3; replay/native/judging.py): the
judge's engine "native" values the games it knows with the native engine, as the Python
reference does on small endgames (every sample solved through the Python rules, max^n with
equally good moves averaged); a game the engine does not know is valued by the Python engine;
`analyse --moves` judges natively by default, in Python when `TRICKLEDGER_ANALYSIS=python`
asks or the engine is not built (warned once)."""

from __future__ import annotations

import dataclasses
import random
import warnings
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import NAMES, TooLarge, reference

from trickledger.replay import native
from trickledger.replay.bots import GreedyBot
from trickledger.replay.events import Event
from trickledger.replay.judge import (
    Decision,
    PythonEngine,
    better_sign,
    decision_rng,
    decisions,
    engine_names,
    evaluate,
    sample_states,
    value_engine,
)
from trickledger.replay.native import NativeEngine, judging
from trickledger.replay.native.judging import default_engine
from trickledger.replay.registry import registry
from trickledger.replay.search import exact_values
from trickledger.replay.simulate import play_game
from trickledger.replay.state import GameState
from trickledger.replay.writer import dump_lines

TABLES: dict[str, tuple[int, dict[str, Any]]] = {
    "plotters": (4, {"rounds": 1}), "rage": (3, {"rounds": 1}),
    "color_stacks": (2, {"suits": ["R", "Y", "G", "B"]}),
    "under_the_radar": (3, {"rounds": 1})}


def late_decisions(game: str, seed: int, last: int) -> list[tuple[bytes, Decision]]:
    """The last `last` decisions of the first round of a simulated game (greedy players)
    without a chance event due."""
    n, extra = TABLES[game]
    h = {"format": "trickledger/1", "game": game, "players": NAMES[:n], **extra}
    _, events = play_game(h, {p: GreedyBot() for p in NAMES[:n]}, random.Random(seed))
    raw = dump_lines(h, events)
    out = [(raw, d) for d in decisions(raw)
           if d.round.number == 1 and d.truth.next_chance() is None]
    return out[-last:]


def after(state: GameState, move: dict[str, Any]) -> GameState:
    branch = state.clone()
    branch.apply(Event(0, str(move["type"]), move))
    return branch


@pytest.mark.parametrize("game", list(TABLES))
def test_the_judge_values_small_endgames_as_the_python_reference(game: str) -> None:
    assert native.available(), native.why_not()
    assert "native" in engine_names()
    checked = 0
    for seed in range(12):
        for _, d in late_decisions(game, seed, 4):
            # the samples the judge draws: its stream seeded as it seeds it
            samples = sample_states(d, 3, decision_rng(d, 0)).states
            sign = better_sign(game)
            try:
                want = [[reference(after(sample, move), d.round.number, sign, [3000])[d.seat]
                         for sample in samples] for move in d.alternatives]
            except TooLarge:
                continue
            got = evaluate(d, 3, 0, "native")
            assert got.exact == len(samples), (game, seed, d.line)
            assert [x for v in got.values for x in v] == pytest.approx(
                [x for v in want for x in v], abs=1e-9), (game, seed, d.line)
            checked += 1
        if checked >= 6:
            break
    assert checked >= 3, f"{game}: too few late decisions"


def test_analyse_judges_natively_unless_asked_for_python(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    assert native.available(), native.why_not()
    monkeypatch.delenv(judging.ENV, raising=False)
    assert default_engine() == "native"
    monkeypatch.setenv(judging.ENV, "python")
    assert default_engine() == "python"
    _, d = late_decisions("under_the_radar", 1, 2)[0]
    got = evaluate(d, 3, 0, "python")
    for k, sample in enumerate(sample_states(d, 3, decision_rng(d, 0)).states):
        want = exact_values(sample, d.seat, d.alternatives, 400)
        assert [v[k] for v in got.values] == [float(x) for x in want]
    monkeypatch.setenv(judging.ENV, "stockfish")
    with pytest.raises(ValueError, match="TRICKLEDGER_ANALYSIS is 'stockfish': expected "
                                         "'native' or 'python'"):
        default_engine()


class Recording:
    """A fallback engine that says what it was asked."""

    name = "recording"

    def __init__(self) -> None:
        self.asked: list[Any] = []

    def values(self, state: Any, seat: int, alternatives: list[Any], stream: float,
               budget: int, search: bool) -> tuple[list[float], bool]:
        self.asked.append(state)
        return [7.0] * len(alternatives), False


def test_a_game_the_native_engine_does_not_know_is_judged_in_python() -> None:
    info = registry()["rage"]
    _, d = late_decisions("rage", 1, 2)[0]
    sample = d.truth
    fallback = Recording()
    engine = NativeEngine(fallback, 200_000, 0)
    assert engine.native_values(sample, d.seat, d.alternatives, 0.5, True) is not None
    engine.values(sample, d.seat, d.alternatives, 0.5, 400, True)
    assert fallback.asked == []
    assert info.native is not None
    for codec in (None, dataclasses.replace(info.native, rules="skat")):
        unknown: Any = SimpleNamespace(info=dataclasses.replace(info, native=codec))
        assert engine.native_values(unknown, d.seat, d.alternatives, 0.5, True) is None
        assert not native.knows(unknown.info)
        got = engine.values(unknown, d.seat, d.alternatives, 0.5, 400, True)
        assert got == ([7.0] * len(d.alternatives), False)
        assert fallback.asked[-1] is unknown
    # the registered engine falls back on the judge's Python engine
    registered = value_engine("native")
    assert isinstance(registered, NativeEngine) and isinstance(registered.fallback, PythonEngine)


def test_without_the_native_engine_the_judge_warns_once_and_runs_in_python(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As an install without a C++ compiler has it (tests/build/test_native_build.py builds
    one): the engine module absent, analyse's default engine is Python, said once, and the
    "native" engine values in Python."""
    import trickledger.replay.native as package

    _, d = late_decisions("under_the_radar", 1, 2)[0]
    monkeypatch.delenv(judging.ENV, raising=False)
    monkeypatch.setattr(package, "_tried", True)
    monkeypatch.setattr(package, "_loaded", None)
    monkeypatch.setattr(package, "_why_not", "trickledger.replay._native is not built (test)")
    monkeypatch.setattr(judging, "_warned", False)
    with pytest.warns(RuntimeWarning, match=r"_native is not built \(test\): the judge runs in "
                                            r"Python, slower"):
        assert default_engine() == "python"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert default_engine() == "python"  # without a second warning
        got = evaluate(d, 2, 0, "native")  # in Python
    for k, sample in enumerate(sample_states(d, 2, decision_rng(d, 0)).states):
        assert [v[k] for v in got.values] == [float(x) for x in
                                              exact_values(sample, d.seat, d.alternatives, 400)]
