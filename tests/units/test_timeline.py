"""The step viewer's timeline (replay.timeline): the engine's own fold, cut into steps."""

from __future__ import annotations

from pathlib import Path

from trickledger.replay.engine import replay_bytes
from trickledger.replay.timeline import Timeline, timeline_bytes

ROOT = Path(__file__).resolve().parents[2]
PLOTTERS = ROOT / "sample_logs" / "plotters" / "plotters-6p.jsonl"


def timeline(data: bytes, name: str = "log.jsonl") -> Timeline:
    tl = timeline_bytes(data, name)
    assert tl is not None
    return tl


def test_a_bad_line_right_after_the_deal_ends_the_log_in_one_step() -> None:
    lines = PLOTTERS.read_bytes().splitlines()
    broken = b"\n".join([*lines[:2], b"{not json", *lines[2:]]) + b"\n"
    tl = timeline(broken)
    assert tl.replay.status == "illegal" and tl.replay.error is not None
    assert len(tl.steps) == 1
    (step,) = tl.steps
    assert (step.round, step.number, step.error_line) == (1, 1, 3)
    assert step.error is not None and not step.moves
    assert tl.step_of_line(3) is step


def test_an_illegal_move_ends_its_own_step_with_the_move_tried() -> None:
    lines = PLOTTERS.read_bytes().splitlines()
    broken = b"\n".join([*lines[:4], lines[3], *lines[4:]]) + b"\n"  # line 4 played twice
    tl = timeline(broken)
    last = tl.steps[-1]
    assert last.error_line == 5 and last.illegal is not None and last.illegal.line == 5
    assert [m.line for m in last.moves] == [3, 4]


def test_the_timeline_is_the_replay_it_was_cut_from() -> None:
    data = PLOTTERS.read_bytes()
    tl = timeline(data)
    alone = replay_bytes(data, "log.jsonl")
    assert tl.replay.status == alone.status == "complete"
    assert tl.replay.render() == alone.render()
    step_facts = [f for s in tl.steps for f in s.facts]
    assert step_facts and all(any(f is g for g in tl.replay.facts) for f in step_facts)
