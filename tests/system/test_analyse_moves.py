"""`trickledger analyse --moves` as a user meets it (issues 31, 35, 36): an estimate before it
starts, progress also to a pipe, round-by-round commits that a Ctrl-C or a kill keeps, a
bound on what one log may cost, "already cached" among the games asked for only, workers
that die or send back what cannot be read end the run in one line instead of a wait for
ever, and `--cluster` runs the rounds on Dask."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from trickledger import main
from trickledger.ingest.db import reading
from trickledger.ingest.load import Source, ingest
from trickledger.ingest.moves import Plan, RoundDone, RoundTask, judge_games, judge_round
from trickledger.replay.judge import Judgement
from trickledger.replay.simulate import SimOptions, simulate_one

ROOT = Path(__file__).resolve().parents[2]


def _sim(game: str, n: int, seed: int, prefix: str, **kw) -> bytes:
    opts = SimOptions(game=game, games=1, players=(n, n), seed=seed,
                      bots=("greedy", "random"), id_prefix=prefix, **kw)
    return simulate_one(opts, 0)[1]


def two_games_logs() -> list[Source]:
    """Two rage games of three rounds (10, 9 and 8 cards) at a table of three."""
    logs = {"a": _sim("rage", 3, 1, "a", rounds=3), "b": _sim("rage", 3, 2, "b", rounds=3)}
    return [Source(f"{k}.jsonl", data=v) for k, v in logs.items()]


@pytest.fixture(scope="session")
def two_games_built(built_database):
    """The two games simulated and ingested once for the run."""
    return built_database("two-rage-games", two_games_logs)


@pytest.fixture
def two_games_db(two_games_built, tmp_path) -> str:
    """A database file of the two games, this test's own (its analyses write to it)."""
    return two_games_built.copy_to(tmp_path)


def judged_rounds(path: str) -> list[tuple[str, int]]:
    with reading(path) as con:
        return con.execute("SELECT DISTINCT game_id, round FROM move_quality "
                           "ORDER BY 1, 2").fetchall()


def whole_markers(path: str) -> int:
    with reading(path) as con:
        return con.execute("SELECT count(*) FROM analysis_runs WHERE analysis = 'moves'"
                           ).fetchone()[0]


def test_the_estimate_comes_first_and_progress_reaches_a_pipe(two_games_db, capsys):
    assert main(["analyse", "--moves", "--db", two_games_db, "--samples", "2", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    timing = next(i for i, ln in enumerate(lines) if ln.startswith("move quality: "))
    assert lines[timing].endswith("decisions in 6 rounds of 2 games to judge on 1 process; "
                                  "timing 1 round first (one of each game and table size "
                                  "not judged before) for the estimate")
    plan = timing + 1  # nothing between: no progress before the estimate
    assert " decisions in 6 rounds of 2 games to judge on 1 process: about " in lines[plan]
    assert "of CPU time" in lines[plan]
    assert "Ctrl-C stops and keeps every round finished" in lines[plan]
    # captured standard error is no terminal: progress comes as lines after the plan
    total = lines[plan].split(" decisions")[0].split()[-1]
    assert any(ln.startswith(f"decisions: {total} of {total} (100%)")
               for ln in lines[plan + 1:]), err
    assert "move quality: 2 games judged (6 rounds" in out and "0 already cached" in out
    assert len(judged_rounds(two_games_db)) == 6 and whole_markers(two_games_db) == 2


def test_already_cached_counts_only_the_games_asked_for(two_games_db, capsys):
    args = ["analyse", "--moves", "--db", two_games_db, "--samples", "2", "--jobs", "1"]
    assert main([*args, "--game", "a-s1-000000"]) == 0
    capsys.readouterr()
    assert main([*args, "--game", "b-s2-000000"]) == 0
    assert "1 game judged (3 rounds" in (out := capsys.readouterr().out)
    assert "0 already cached" in out  # a-s1 is cached, but was not asked for
    assert main([*args, "--game", "a-s1-000000"]) == 0
    assert "0 games judged (0 rounds, 0 decisions), 1 already cached, 0 left" in \
        capsys.readouterr().out


def test_ctrl_c_keeps_every_finished_round_and_the_next_run_does_the_rest(two_games_db):
    seen = []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 2:  # Ctrl-C after the second round is written (the first is timed)
            raise KeyboardInterrupt

    first = judge_games(two_games_db, samples=2, jobs=1, progress=progress)
    assert first.interrupted and first.rounds_done == 2
    assert len(judged_rounds(two_games_db)) == 2  # committed round by round
    assert any("interrupted: the 2 rounds judged are kept" in ln for ln in first.lines())
    again = judge_games(two_games_db, samples=2, jobs=1)
    assert again.rounds_done == 4 and again.games_done == 2  # only the rest
    assert len(judged_rounds(two_games_db)) == 6 and whole_markers(two_games_db) == 2


def _ctrl_c_in_a_rounds_write(monkeypatch, when: str, at: int = 1) -> None:
    """A real SIGINT (to this process) inside the `at`th round's write: `after` its COMMIT,
    as the connection closes; or `dropped` as it opens, its KeyboardInterrupt lost (as
    DuckDB 2.0 loses one when a statement starts)."""
    import contextlib
    import threading

    from trickledger.ingest import moves

    assert threading.current_thread() is threading.main_thread()
    real = moves.writing
    writes = []

    @contextlib.contextmanager
    def writing(path):
        writes.append(path)
        with real(path) as con:
            if when == "dropped" and len(writes) == at:
                with contextlib.suppress(KeyboardInterrupt):
                    signal.raise_signal(signal.SIGINT)
            yield con
        if when == "after" and len(writes) == at:
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(moves, "writing", writing)


@pytest.mark.parametrize("when", ["after", "dropped"])
def test_a_ctrl_c_in_a_rounds_write_is_counted_as_the_database_has_it(two_games_db,
                                                                      monkeypatch, when):
    _ctrl_c_in_a_rounds_write(monkeypatch, when)
    first = judge_games(two_games_db, samples=2, jobs=1)
    assert first.interrupted
    kept = 1 if when == "after" else 0  # committed and counted; or rolled back
    assert first.rounds_done == len(judged_rounds(two_games_db)) == kept
    assert any(f"the {kept} rounds judged are kept" in ln for ln in first.lines())


def test_a_bounded_log_whose_last_round_was_rolled_back_is_not_called_judged(two_games_db,
                                                                             monkeypatch):
    _ctrl_c_in_a_rounds_write(monkeypatch, "dropped", at=2)  # round 2, the bound's last
    first = judge_games(two_games_db, samples=2, jobs=1, game_ids=["a-s1-000000"],
                        max_moves=40)
    assert first.interrupted and [r for _, r in judged_rounds(two_games_db)] == [1]
    assert first.bounded == [] and first.games_missing == 1 and first.rounds_done == 1


def test_a_second_ctrl_c_while_the_workers_stop_keeps_the_count(two_games_db, monkeypatch):
    from trickledger.ingest import moves

    seen, first_ctrl_c = [], []

    def progress(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 2:  # after the second round is written (the first is timed)
            first_ctrl_c.append(done)
            raise KeyboardInterrupt

    real = moves._run

    class Results:
        def __init__(self, *args) -> None:
            self.rounds = real(*args)

        def __iter__(self):
            return self.rounds

        def close(self) -> None:
            self.rounds.close()
            if first_ctrl_c:
                raise KeyboardInterrupt  # the second, while the workers are stopped

    monkeypatch.setattr(moves, "_run", Results)
    first = judge_games(two_games_db, samples=2, jobs=1, progress=progress)
    assert first.interrupted and first_ctrl_c
    assert first.rounds_done == len(judged_rounds(two_games_db)) == 2
    assert any("interrupted: the 2 rounds judged are kept" in ln for ln in first.lines())


def test_ctrl_c_while_it_plans_says_so_in_one_line(two_games_db, monkeypatch, capsys):
    from trickledger.ingest import moves

    def make_plan(*args, **kw):
        raise KeyboardInterrupt  # as a Ctrl-C in the planning's reads raises it

    monkeypatch.setattr(moves, "make_plan", make_plan)
    assert main(["analyse", "--moves", "--db", two_games_db, "--samples", "2"]) == 130
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["trickledger analyse: interrupted before any round was judged: nothing "
                   "was written; run trickledger analyse --moves again"]


def test_one_log_costs_at_most_the_bound_and_a_larger_bound_goes_on(two_games_db, capsys):
    args = ["analyse", "--moves", "--db", two_games_db, "--samples", "2", "--jobs", "1",
            "--game", "a-s1-000000"]
    assert main([*args, "--max-moves", "40"]) == 0
    out = capsys.readouterr().out
    # round 1 has 33 moves (3 bids, 30 plays): the bound stops after round 2 (whole rounds)
    assert "bound: 1 log judged only up to 40 moves" in out
    assert "a-s1-000000: rounds 1-2 of 3 judged" in out
    assert [r for _, r in judged_rounds(two_games_db)] == [1, 2]
    assert whole_markers(two_games_db) == 0
    assert main([*args, "--max-moves", "40"]) == 0  # nothing more under the same bound
    assert "0 games judged (0 rounds" in (out := capsys.readouterr().out) and "bound:" in out
    assert main(args) == 0  # the default bound takes the rest
    assert "1 game judged (1 round" in capsys.readouterr().out
    assert [r for _, r in judged_rounds(two_games_db)] == [1, 2, 3]
    assert whole_markers(two_games_db) == 1


def dies_on_round_two(task: RoundTask) -> RoundDone:
    """A worker that is killed in the middle of round 2 (out of memory, SIGKILL)."""
    if task.round == 2:
        os._exit(3)
    return judge_round(task)


class Unreadable:
    """Pickled fine by the worker; reading it back raises in the parent."""

    def __reduce__(self):
        return (_explode, ())


def _explode():
    raise RuntimeError("this result cannot be read back")


def unreadable_on_round_two(task: RoundTask) -> RoundDone:
    if task.round == 2:
        return RoundDone(task, [Unreadable()], None, 0.0)  # type: ignore[list-item]
    return judge_round(task)


@pytest.mark.parametrize("runner", [dies_on_round_two, unreadable_on_round_two],
                         ids=["a worker dies", "a result cannot be read"])
def test_a_failing_worker_ends_the_run_in_one_line_keeping_what_was_done(two_games_db, runner):
    """multiprocessing.Pool's result thread died on an unreadable result, and the run
    waited for ever; now the pool breaks, the run stops with one line, and the rounds
    committed before stay for the next run."""
    summary = judge_games(two_games_db, samples=2, jobs=2, runner=runner)
    assert summary.broken is not None and not summary.interrupted
    stopped = [ln for ln in summary.lines() if ln.startswith("stopped: ")]
    assert len(stopped) == 1 and "worker process died or sent back a result" in stopped[0]
    assert summary.rounds_done >= 1  # the first round is judged here, to time it
    assert len(judged_rounds(two_games_db)) == summary.rounds_done
    again = judge_games(two_games_db, samples=2, jobs=1)  # the next run does the rest
    assert len(judged_rounds(two_games_db)) == 6 and whole_markers(two_games_db) == 2
    assert not again.failures


def test_ctrl_c_on_a_terminal_stops_in_one_line_with_status_130(tmp_path):
    """A real Ctrl-C (SIGINT to the whole process group, workers included) in the middle
    of a run on two worker processes: exit status 130, one line saying what is kept, no
    worker traceback, and every round written before it is in the database."""
    path = str(tmp_path / "c.duckdb")
    # six whole games: the Ctrl-C, sent on seeing the estimate, lands long before the 59
    # rounds left after the timed one are judged, however loaded the machine (the five
    # rounds of one game took 6 s of CPU at 128 samples natively); only the rounds before
    # the Ctrl-C cost time: the rest is never judged
    logs = {f"c{k}": _sim("rage", 4, 3 + k, f"c{k}") for k in range(6)}
    ingest([Source(f"{k}.jsonl", data=v) for k, v in logs.items()], path, jobs=1)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    from trickledger.replay import native

    samples = "128" if native.available() else "16"
    # started as a terminal starts it, with Ctrl-C's default action: a process inherits an
    # ignored SIGINT, and this test's process may have come to ignore it (in a parallel run
    # its Ctrl-C went unheard and the run ended 0 after judging everything)
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "trickledger", "analyse", "--moves", "--db", path,
             "--samples", samples, "--jobs", "2"], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env, start_new_session=True, cwd=ROOT)
    finally:
        signal.signal(signal.SIGINT, inherited)
    try:
        assert proc.stderr is not None
        seen = []
        for line in proc.stderr:  # the estimate comes once the first round is timed
            seen.append(line)
            if line.startswith("move quality: ") and " about " in line:
                break
        else:
            pytest.fail(f"no estimate: {''.join(seen)}")
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, (out, err)
    assert "Traceback" not in err and "Traceback" not in out, err
    interrupted = [ln for ln in out.splitlines() if ln.startswith("interrupted: ")]
    assert len(interrupted) == 1, out
    kept = int(interrupted[0].split("the ")[1].split(" rounds")[0])
    assert kept >= 1 and len(judged_rounds(path)) == kept


def costs_by_kind(task: RoundTask) -> RoundDone:
    """A real judgement with a CPU time per decision set by the game: rage 3 s, color_stacks
    1 s (as a decision of a large rage table costs several times one of color_stacks)."""
    done = judge_round(task)
    per = 3.0 if task.game_id.startswith("r") else 1.0
    judged = [Judgement(*j.__reduce__()[1][:-1], seconds=per) for j in done.judged or []]
    return RoundDone(task, judged, done.error, per * len(judged))


def test_the_estimate_times_each_kind_of_game_at_its_own_rate(tmp_path):
    """One rate for every decision made a table of 8 look as cheap as one of 2: each kind
    of game (game and table size) gets its own rate, from a first round of it judged
    before the estimate, or from earlier runs."""
    path = str(tmp_path / "k.duckdb")
    logs = {"r": _sim("rage", 3, 1, "r", rounds=3), "c": _sim("color_stacks", 2, 4, "c"),
            "c2": _sim("color_stacks", 2, 5, "c2")}
    ingest([Source(f"{k}.jsonl", data=v) for k, v in logs.items()], path, jobs=1)
    plans, lines = [], []

    def plan(p: Plan) -> None:
        plans.append(p)
        lines.append(p.line())

    first = judge_games(path, samples=2, jobs=1, runner=costs_by_kind, plan=plan,
                        game_ids=["r-s1-000000", "c-s4-000000"])
    assert lines[0].endswith("; timing 2 rounds first (one of each game and table size "
                             "not judged before) for the estimate")
    assert " about " not in lines[0] and " about " in lines[1]
    p = plans[-1]
    assert p.rates == {"rage 3": 3.0, "color_stacks 2": 1.0}
    kind = {g.sha256: g.kind for g in p.games}
    left = {k: n for k, n in p.decisions.items() if k not in p.timed}
    assert len(p.timed) == 2 and left  # the timed rounds are not counted again
    expected = sum(n * (3.0 if kind[sha] == "rage 3" else 1.0) for (sha, _), n in left.items())
    assert p.cpu() == pytest.approx(expected)
    mean_rate = (first.judging_seconds / first.decisions)
    assert abs(p.cpu() - mean_rate * sum(left.values())) > 1.0  # one rate would be wrong
    # a later run goes by the rates stored: no round timed first
    plans.clear(), lines.clear()
    judge_games(path, samples=2, jobs=1, runner=costs_by_kind, plan=plan)
    assert len(lines) == 1 and " about " in lines[0]
    assert plans[0].rates == {"rage 3": 3.0, "color_stacks 2": 1.0} and not plans[0].timed


def test_a_decision_no_deal_fits_is_named_not_left_out_without_a_word(tmp_path, capsys):
    """At 8 players with hidden and secret bids, few deals of the hidden cards fit what a
    player saw; at 4 samples the sampler finds none within its tries for four decisions of
    this sample log. The run judges the rest and names those four (before, the summary
    counted four decisions fewer than planned and said nothing)."""
    log = ROOT / "sample_logs" / "corpus" / "rage" / "rage-s7-000023.jsonl"
    path = str(tmp_path / "n.duckdb")
    ingest([Source(log.name, data=log.read_bytes())], path, jobs=1)
    capsys.readouterr()
    assert main(["analyse", "--moves", "--db", path, "--samples", "4", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "not judged: 4 decisions: the sampler found no deal of the hidden cards" in out, out
    named = [ln.strip() for ln in out.splitlines() if ln.startswith("  rage-s7-000023 line ")]
    with reading(path) as con:
        judged = {r[0] for r in con.execute("SELECT line FROM move_quality").fetchall()}
    lines = [int(n.rsplit(" ", 1)[1]) for n in named]
    assert len(lines) == 4 and not judged & set(lines), (named, sorted(judged)[:10])
    assert f"1 game judged (10 rounds, {len(judged):,} decisions)" in out, out
    # the Game viewer does not call such a decision forced (it did: "the only legal move")
    from helpers import dashboard_database, run_page

    with dashboard_database(path):
        at = run_page("viewer", game="rage-s7-000023", round="1", trick="5")
    trick = next(d.value for d in at.dataframe if "played" in d.value.columns)
    verdicts = dict(zip(trick["played"], trick["verdict"]))
    # lines 38 and 40: Vic's G3 and Cat's G11, each one of several cards they could play
    assert {38, 40} <= set(lines), lines
    assert verdicts["play G3"] == verdicts["play G11"] == "not judged", verdicts
    with dashboard_database(path):
        at = run_page("viewer", game="rage-s7-000023", round="1", trick="6")
    trick = next(d.value for d in at.dataframe if "played" in d.value.columns)
    verdicts = dict(zip(trick["played"], trick["verdict"]))
    assert verdicts["play B11"] == "forced", verdicts  # Ned's only legal card


@pytest.mark.cluster
def test_rounds_run_on_a_dask_cluster(two_games_db, two_games_built, tmp_path, capsys):
    assert main(["analyse", "--moves", "--db", two_games_db, "--samples", "2",
                 "--cluster", "local:2"]) == 0
    out, err = capsys.readouterr()
    assert "on the cluster local:2" in err
    assert "move quality: 2 games judged (6 rounds" in out
    here = two_games_built.copy_to(tmp_path / "here")
    assert main(["analyse", "--moves", "--db", here, "--samples", "2", "--jobs", "1"]) == 0
    sql = "SELECT game_id, line, band, cost, best_move FROM move_quality ORDER BY 1, 2"
    with reading(two_games_db) as con:
        on_dask = con.execute(sql).fetchall()
    with reading(here) as con:
        assert con.execute(sql).fetchall() == on_dask and len(on_dask) > 50
    bad = main(["analyse", "--moves", "--db", two_games_db, "--cluster", "nowhere"])
    assert bad == 2 and "expected tcp://HOST:PORT" in capsys.readouterr().err


def markers(path: str) -> list[tuple[str, str]]:
    with reading(path) as con:
        return con.execute("SELECT analysis, detail FROM analysis_runs WHERE analysis IN "
                           "('moves', 'moves-round') ORDER BY 1, 2").fetchall()


def test_the_engine_is_in_the_key_and_the_python_key_is_unchanged(two_games_db, capsys,
                                                                    monkeypatch):
    """analyse --moves judges natively by default (the native engine is built here), under a
    key of its own: a Python judgement is not taken for a native one, nor the reverse, and
    the Python key is the one judgements had before there were two engines."""
    from trickledger.replay import native
    from trickledger.replay.judge import METHOD
    from trickledger.replay.native.judging import ENV

    assert native.available(), native.why_not()
    monkeypatch.delenv(ENV, raising=False)
    args = ["analyse", "--moves", "--db", two_games_db, "--samples", "2", "--jobs", "1",
            "--game", "a-s1-000000"]
    assert main([*args, "--engine", "python"]) == 0
    assert markers(two_games_db) == [("moves", f"{METHOD} seed 0 samples 2")]
    capsys.readouterr()
    assert main(args) == 0  # the default: native, not cached under the Python key
    assert "1 game judged (3 rounds" in (out := capsys.readouterr().out)
    assert "0 already cached" in out
    assert markers(two_games_db) == [("moves", f"{METHOD} seed 0 samples 2 engine native")]
    assert main([*args, "--engine", "native"]) == 0
    assert "1 already cached" in capsys.readouterr().out
    monkeypatch.setenv(ENV, "python")  # asks for the Python judge by default
    assert main(args) == 0
    assert "1 game judged (3 rounds" in capsys.readouterr().out
    assert markers(two_games_db) == [("moves", f"{METHOD} seed 0 samples 2")]
    monkeypatch.setenv(ENV, "stockfish")
    assert main(args) == 2
    assert "TRICKLEDGER_ANALYSIS is 'stockfish': expected 'native' or 'python'" in \
        capsys.readouterr().err


def test_a_run_on_another_engine_replaces_the_old_judgement_from_its_first_round(two_games_db):
    """The first round judged under the Python key removes the log's native judgement (the
    old check took `key%`: the Python key is a prefix of the native one, so the native rows
    of the rounds not judged again stayed beside the Python ones)."""
    judge_games(two_games_db, samples=2, jobs=1, game_ids=["a-s1-000000"], engine="native")
    assert [r for _, r in judged_rounds(two_games_db)] == [1, 2, 3]

    def round_one_only(task: RoundTask) -> RoundDone:
        if task.round != 1:
            return RoundDone(task, None, f"round {task.round}: not judged (test)", 0.0)
        return judge_round(task)

    first = judge_games(two_games_db, samples=2, jobs=1, game_ids=["a-s1-000000"], engine="python",
                        runner=round_one_only)
    assert first.rounds_done == 1 and len(first.failures) == 2
    assert [r for _, r in judged_rounds(two_games_db)] == [1]  # the native rounds 2 and 3 are gone
    assert [a for a, _ in markers(two_games_db)] == ["moves-round"]


def test_the_estimate_goes_by_earlier_runs_on_the_same_engine(two_games_db):
    """A native decision costs a fraction of a Python one: the rates of earlier Python runs
    are not taken for a native run's estimate."""
    path = two_games_db
    judge_games(path, samples=2, jobs=1, runner=costs_by_kind, engine="python",
                game_ids=["a-s1-000000"])
    seen: list[tuple[str, dict[str, float]]] = []

    def plan(p: Plan) -> None:
        seen.append((p.line(), dict(p.rates)))  # the plan is updated once the timing is done

    judge_games(path, samples=2, jobs=1, runner=costs_by_kind, engine="native",
                game_ids=["b-s2-000000"], plan=plan)
    # no native rate yet: a round is timed first
    assert seen[0][0].endswith("; timing 1 round first (one of each game and table size not "
                               "judged before) for the estimate") and seen[0][1] == {}
    seen.clear()
    judge_games(path, samples=2, jobs=1, runner=costs_by_kind, engine="python",
                game_ids=["b-s2-000000"], plan=plan)
    assert len(seen) == 1 and " about " in seen[0][0] and seen[0][1] == {"rage 3": 1.0}


def test_without_the_native_engine_analyse_judges_in_python_and_refuses_native(
        two_games_db, capsys, monkeypatch):
    """As an install without a C++ compiler has it: the default is the Python judge (said
    once), and `--engine native` is refused with the reason instead of running in Python
    under the native key."""
    import trickledger.replay.native as package
    from trickledger.replay.judge import METHOD
    from trickledger.replay.native import judging

    monkeypatch.delenv(judging.ENV, raising=False)
    monkeypatch.setattr(package, "_tried", True)
    monkeypatch.setattr(package, "_loaded", None)
    monkeypatch.setattr(package, "_why_not", "trickledger.replay._native is not built (test)")
    monkeypatch.setattr(judging, "_warned", False)
    args = ["analyse", "--moves", "--db", two_games_db, "--samples", "2", "--jobs", "1",
            "--game", "a-s1-000000"]
    assert main([*args, "--engine", "native"]) == 2
    assert ("the native analysis engine cannot run here: trickledger.replay._native is not "
            "built (test) (--engine python judges in Python)") in capsys.readouterr().err
    assert markers(two_games_db) == []
    with pytest.warns(RuntimeWarning, match="the judge runs in Python, slower"):
        assert main(args) == 0
    assert markers(two_games_db) == [("moves", f"{METHOD} seed 0 samples 2")]
