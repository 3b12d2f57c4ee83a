"""The judge on the native analysis engine (issue 33, item 3; replay/native/judging.py): the
judge's values come from the native engine for the games it knows, match the Python
reference on small endgames (every sample solved through the Python rules, max^n with equally
good moves averaged), and `TRICKLEDGER_ANALYSIS=python` or a game the engine does not know
leaves them to the Python judge."""

from __future__ import annotations

import dataclasses
import random
import warnings
from types import SimpleNamespace
from typing import Any

import pytest
from helpers import NAMES
from test_native_differential import TooLarge, reference

from trickledger.replay import native
from trickledger.replay.bots import GreedyBot
from trickledger.replay.events import Event
from trickledger.replay.judge import METHOD, Decision, better_sign, decisions, evaluate, sample_states
from trickledger.replay.native import judging
from trickledger.replay.native.judging import sample_values
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
    checked = 0
    for seed in range(12):
        for _, d in late_decisions(game, seed, 4):
            # the samples the judge draws: its stream seeded as it seeds it
            rng = random.Random(f"trickledger-judge:{METHOD}:0:ref:{d.line}")
            samples = sample_states(d, 3, rng)
            sign = better_sign(game)
            try:
                want = [[reference(after(sample, move), d.round.number, sign, [3000])[d.seat]
                         for sample in samples] for move in d.alternatives]
            except TooLarge:
                continue
            got = evaluate(d, 3, 0, "ref")
            assert [x for v in got for x in v] == pytest.approx([x for v in want for x in v],
                                                                abs=1e-9), (game, seed, d.line)
            checked += 1
        if checked >= 6:
            break
    assert checked >= 3, f"{game}: too few late decisions"


def test_the_python_judge_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    _, d = late_decisions("under_the_radar", 1, 2)[0]
    monkeypatch.setenv(judging.ENV, "python")
    values = evaluate(d, 3, 0, "py")
    rng = random.Random(f"trickledger-judge:{METHOD}:0:py:{d.line}")
    for k, sample in enumerate(sample_states(d, 3, rng)):
        want = exact_values(sample, d.seat, d.alternatives, 400)
        assert [v[k] for v in values] == [float(x) for x in want]
    monkeypatch.setenv(judging.ENV, "stockfish")
    with pytest.raises(ValueError, match="TRICKLEDGER_ANALYSIS is 'stockfish': expected "
                                         "'native' or 'python'"):
        evaluate(d, 3, 0, "py")


def test_a_game_the_native_engine_does_not_know_is_judged_in_python() -> None:
    info = registry()["rage"]
    _, d = late_decisions("rage", 1, 2)[0]
    sample = d.truth
    assert sample_values(sample, d.seat, d.alternatives, 0.5, True) is not None
    assert info.native is not None
    for codec in (None, dataclasses.replace(info.native, rules="skat")):
        unknown: Any = SimpleNamespace(info=dataclasses.replace(info, native=codec))
        assert sample_values(unknown, d.seat, d.alternatives, 0.5, True) is None
        assert not native.knows(unknown.info)


def test_without_the_native_engine_the_judge_warns_once_and_runs_in_python(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """As an install without a C++ compiler has it (tests/build/test_native_build.py builds
    one): the engine module absent, the judge values in Python and says so, once."""
    import trickledger.replay.native as package

    _, d = late_decisions("under_the_radar", 1, 2)[0]
    monkeypatch.setattr(package, "_tried", True)
    monkeypatch.setattr(package, "_loaded", None)
    monkeypatch.setattr(package, "_why_not", "trickledger.replay._native is not built (test)")
    monkeypatch.setattr(judging, "_warned", False)
    with pytest.warns(RuntimeWarning, match=r"_native is not built \(test\): the judge runs in "
                                            r"Python, slower"):
        assert sample_values(d.truth, d.seat, d.alternatives, 0.5, True) is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        values = evaluate(d, 2, 0, "nobuild")  # in Python, without a second warning
    rng = random.Random(f"trickledger-judge:{METHOD}:0:nobuild:{d.line}")
    for k, sample in enumerate(sample_states(d, 2, rng)):
        assert [v[k] for v in values] == [float(x) for x in
                                          exact_values(sample, d.seat, d.alternatives, 400)]
