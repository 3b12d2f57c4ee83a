"""`trickledger analyse` as a new user meets it (issue 27): it says how long it expects to
take before it starts, reports progress also to a pipe, keeps the finished hands on
Ctrl-C, and counts hands both in --limit and in its output."""

from __future__ import annotations

from pathlib import Path

import pytest

from trickledger import main
from trickledger.ingest.analyse import estimate_hands
from trickledger.ingest.db import reading
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
RAGE = ROOT / "sample_logs" / "rage" / "rage-3p-plus-minus-one-marching.jsonl"


@pytest.fixture
def one_game_db(tmp_path):
    """One rage sample game (RAGE), this test's own."""
    path = str(tmp_path / "a.duckdb")
    sources, _ = expand([str(RAGE)])
    ingest(sources, path, jobs=1)
    return path


def kept(path: str) -> int:
    with reading(path) as con:
        return con.execute("SELECT count(*) FROM hand_estimates").fetchone()[0]


def test_analyse_estimates_the_time_first_and_reports_progress_to_a_pipe(one_game_db, capsys):
    assert main(["analyse", "--db", one_game_db, "--playouts", "3", "--jobs", "1", "--limit", "4"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    plan = next(i for i, ln in enumerate(lines) if ln.startswith("hand estimates: "))
    assert "hands (2 rounds) to estimate on 1 process: about" in lines[plan]
    assert "of CPU time" in lines[plan] and "Ctrl-C stops and keeps what is done" in lines[plan]
    # captured standard error is no terminal: progress comes as lines after the plan
    assert any(ln.startswith("hands: 6 of 6 (100%)") for ln in lines[plan + 1:]), err
    # --limit 4 counts hands, as the output does: whole rounds of 3 make 6
    assert "hand estimates: 6 estimated, 0 already cached" in out
    assert kept(one_game_db) == 6


def test_ctrl_c_keeps_every_finished_hand(one_game_db):
    rounds_seen = []

    def progress(done: int, total: int) -> None:
        rounds_seen.append(done)
        if len(rounds_seen) == 3:  # Ctrl-C after the third round is finished
            raise KeyboardInterrupt

    summary = estimate_hands(one_game_db, playouts=3, jobs=1, progress=progress)
    assert summary.interrupted
    assert summary.hands_done == rounds_seen[-1] == 9
    assert kept(one_game_db) == 9  # written before the run stopped
    assert any("interrupted: the 9 hands estimated are kept" in ln for ln in summary.lines())
    again = estimate_hands(one_game_db, playouts=3, jobs=1)  # a second run does only the rest
    assert again.hands_cached == 9 and again.hands_missing == 0
    assert kept(one_game_db) == 9 + again.hands_done


@pytest.mark.parametrize("where", ["ratings", "planning"])
def test_ctrl_c_before_the_hands_work_says_what_was_written(one_game_db, monkeypatch, capsys,
                                                            where):
    from trickledger.ingest import analyse

    def interrupted(*args, **kw):
        raise KeyboardInterrupt  # as a Ctrl-C in that step's statements raises it

    monkeypatch.setattr(analyse, "refresh_ratings" if where == "ratings" else
                        "missing_rounds", interrupted)
    assert main(["analyse", "--db", one_game_db, "--jobs", "1"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    said = ("interrupted while the ratings were computed" if where == "ratings" else
            "interrupted before any hand was estimated: the ratings are kept")
    assert err == [f"trickledger analyse: {said}; run trickledger analyse again"]
