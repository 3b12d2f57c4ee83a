"""`trickledger analyse --moves`: every decision of every complete game judged (replay/judge.py),
cached in `move_quality`.

Work is planned and committed **round by round**: a task is one round of one log, and its
rows and a marker (`analysis_runs`: analysis `moves-round`, fingerprint the log's SHA-256,
detail the key and the round) are written in one transaction as soon as it is done. When
every round of a log is judged, the log gets its marker (`moves`, detail the key) and the
round markers go. So a killed run keeps every finished round, and the next run does only
the rest; a log loaded again under another name finds its judgements (they are keyed by its
SHA-256). One judgement per log is kept: judging it under another key (method, seed,
samples) replaces the old one at its first round written.

**What one log may cost is bounded**: at most `max_moves` moves of a log are judged (whole
rounds, in order: the round that crosses the bound is the last); its later rounds are left
unjudged, said in the output, and the log never gets its whole-log marker, so a run with a
larger bound goes on from where the bound stopped it.

Where the rounds run: in this process (`jobs` 1), on local worker processes
(`concurrent.futures.ProcessPoolExecutor`, forkserver: a worker that dies or a result that
cannot be read breaks the pool, which ends the run with one line, keeping what was
committed; never a wait for ever), or on a Dask cluster (`cluster`, as `ingest --cluster`).
Ctrl-C (KeyboardInterrupt) stops the workers and keeps every committed round.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import signal
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from trickledger.replay.judge import (
    DEFAULT_SAMPLES,
    METHOD,
    Judgement,
    count_decisions,
    judge_log,
    round_moves,
)

from . import ratings
from .ctrl_c import PlanInterrupted, held_from_commit, interrupt_deferred
from .db import log_texts, reading, writing
from .transactions import transaction

DEFAULT_MAX_MOVES = 2_000  # moves judged per log at most (docs/analytics.md, "Computing it")
ROUND_MARK = "moves-round"

# the complete games asked for (all, or `--game` ids), each with whether it is judged whole
# under this key; disputed games are complete
GAMES_SQL = """
    SELECT g.sha256, min(g.game_id) AS game_id, min(g.game || ' ' || g.n_players) AS kind,
           bool_or(EXISTS (SELECT 1 FROM analysis_runs a WHERE a.analysis = 'moves'
                           AND a.fingerprint = g.sha256 AND a.detail = ?)) AS judged
    FROM games g
    WHERE g.status = 'complete' AND (? OR list_contains(?, g.game_id))
    GROUP BY g.sha256
    ORDER BY game_id"""


def cache_key(seed: int, samples: int, engine: str = "python") -> str:
    """What a judgement is cached under: the method, seed, samples and the analysis engine
    (named after the rest, and only when it is not the Python reference, so that the
    judgements cached before there was a second engine keep their key)."""
    key = f"{METHOD} seed {seed} samples {samples}"
    return key if engine == "python" else f"{key} engine {engine}"


def _round_detail(key: str, number: int) -> str:
    return f"{key} round {number}"


@dataclass(frozen=True)
class RoundTask:
    """One round of one log to judge: everything a worker needs, the log's bytes included."""

    sha256: str
    game_id: str
    round: int
    raw: bytes
    samples: int
    seed: int
    engine: str = "python"


@dataclass
class RoundDone:
    task: RoundTask
    judged: list[Judgement] | None
    error: str | None
    seconds: float  # CPU seconds of the worker
    missed: list[int] = field(default_factory=list)  # lines of decisions no deal fitted


def judge_round(task: RoundTask) -> RoundDone:
    """A worker's job: one round of one log judged (a bad log is reported, not raised)."""
    t0 = time.process_time()
    missed: list[int] = []
    try:
        judged = judge_log(task.raw, task.samples, task.seed, task.game_id, {task.round},
                           task.engine, missed=missed)
    except Exception as e:  # one bad log must not stop the run; it is reported
        return RoundDone(task, None, f"{task.game_id} round {task.round}: "
                                     f"{type(e).__name__}: {e}", time.process_time() - t0)
    return RoundDone(task, judged, None, time.process_time() - t0, missed)


@dataclass
class GamePlan:
    sha256: str
    game_id: str
    kind: str  # the game and table size ("rage 8"): what a decision costs depends on it
    todo: list[int]  # rounds to judge now
    done: list[int]  # rounds judged by an earlier run under this key
    rounds: int  # rounds in the log
    within: int  # rounds within the bound (the first ones)
    moves: int  # moves within the bound

    @property
    def bounded(self) -> bool:
        return self.within < self.rounds


@dataclass
class Plan:
    """What a run of `analyse --moves` is about to do, and how long it should take."""

    games: list[GamePlan]
    decisions: dict[tuple[str, int], int]  # (sha256, round) -> decisions to judge
    cached: int  # games asked for that are judged whole already
    later: int  # games asked for beyond the limit
    jobs: int
    where: str  # "here", or the cluster's address
    rates: dict[str, float]  # CPU seconds per decision by kind: earlier runs, first rounds
    max_moves: int
    timing: int = 0  # kinds of game with no rate yet: a first round of each is timed first
    timed: set[tuple[str, int]] = field(default_factory=set)  # rounds judged to time them

    @property
    def total(self) -> int:
        return sum(self.decisions.values())

    def cpu(self) -> float | None:
        """The CPU seconds the decisions should take: each kind's at its own rate (a kind
        not timed yet at the mean rate of the others)."""
        if not self.rates:
            return None
        fallback = sum(self.rates.values()) / len(self.rates)
        kinds = {g.sha256: g.kind for g in self.games}
        return sum(n * self.rates.get(kinds[sha], fallback)
                   for (sha, number), n in self.decisions.items()
                   if (sha, number) not in self.timed)

    def line(self) -> str:
        games = sum(1 for g in self.games if g.todo)
        rounds = sum(len(g.todo) for g in self.games)
        what = (f"move quality: {self.total:,} decisions in {rounds:,} rounds of "
                f"{games:,} games to judge")
        where = (f"on {self.jobs} process{'es' if self.jobs != 1 else ''}"
                 if self.where == "here" else f"on the cluster {self.where}")
        cpu = self.cpu()
        if self.timing and not self.timed:
            first = f"{self.timing} round{'s' if self.timing != 1 else ''}"
            return (f"{what} {where}; timing {first} first (one of each game and table "
                    f"size not judged before) for the estimate")
        if cpu is None or not self.total:
            return f"{what} {where}"
        wall = cpu / self.jobs if self.where == "here" else None
        return (f"{what} {where}: about {_duration(cpu)} of CPU time"
                + (f", {_duration(wall)} here" if wall is not None else "")
                + "; Ctrl-C stops and keeps every round finished")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _first_few(head: str, items: list[str], shown: int = 5) -> list[str]:
    """`head`, then the first `shown` items indented and how many more there are."""
    more = [f"  and {len(items) - shown:,} more"] if len(items) > shown else []
    return [head, *(f"  {x}" for x in items[:shown]), *more]


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclass
class MovesSummary:
    games_done: int = 0  # judged whole by this run
    games_cached: int = 0  # among the games asked for, judged whole before this run
    games_missing: int = 0  # asked for, not judged whole after this run (bounded ones apart)
    rounds_done: int = 0
    decisions: int = 0
    seconds: float = 0.0
    judging_seconds: float = 0.0  # summed over the processes: the CPU the rounds took
    bounded: list[str] = field(default_factory=list)  # one line per log stopped by the bound
    missed: list[str] = field(default_factory=list)  # "GAME line N": no deal fitted
    failures: list[str] = field(default_factory=list)
    broken: str | None = None  # the workers failed: the run stopped here
    interrupted: bool = False  # stopped by Ctrl-C: what was finished is kept
    max_moves: int = DEFAULT_MAX_MOVES

    def lines(self) -> list[str]:
        rate = self.decisions / self.seconds if self.seconds else 0.0
        out = [f"move quality: {_count(self.games_done, 'game')} judged "
               f"({_count(self.rounds_done, 'round')}, {_count(self.decisions, 'decision')}), "
               f"{self.games_cached:,} already cached, {self.games_missing:,} left; "
               f"{self.seconds:.1f} s"
               + (f" ({rate:.1f} decisions/s, {self.judging_seconds:.1f} s judging over all "
                  f"processes)" if self.decisions else "")]
        if self.bounded:
            out += _first_few(f"bound: {_count(len(self.bounded), 'log')} judged only up to "
                              f"{self.max_moves:,} moves (whole rounds); their later rounds "
                              f"are not judged (--max-moves N judges more):", self.bounded)
        if self.missed:
            out += _first_few(f"not judged: {_count(len(self.missed), 'decision')}: the sampler "
                              f"found no deal of the hidden cards that fits what the player "
                              f"saw (a rare deal; more --samples gives it more tries):",
                              self.missed)
        out.extend(f"failed: {f}" for f in self.failures)
        if self.broken:
            out.append(f"stopped: {self.broken}; the {self.rounds_done} rounds judged are "
                       f"kept, run trickledger analyse --moves again for the rest")
        if self.interrupted:
            out.append(f"interrupted: the {self.rounds_done} rounds judged are kept; run "
                       f"trickledger analyse --moves again to do the rest")
        return out


def plan_games(path: str, seed: int, samples: int, game_ids: list[str] | None,
               max_moves: int, engine: str = "python"
               ) -> tuple[list[GamePlan], int, dict[str, bytes]]:
    """The games asked for that are not judged whole, each with its rounds to do (within
    the bound, not judged yet); the number judged whole already; the logs' bytes."""
    key = cache_key(seed, samples, engine)
    with reading(path) as con:
        rows = con.execute(GAMES_SQL, [key, game_ids is None, game_ids or [""]]).fetchall()
        missing = [(sha, gid, kind) for sha, gid, kind, judged in rows if not judged]
        cached = len(rows) - len(missing)
        shas = [sha for sha, _, _ in missing]
        done_rows = con.execute(
            "SELECT fingerprint, detail FROM analysis_runs WHERE analysis = ? AND "
            "list_contains(?, fingerprint)", [ROUND_MARK, shas or [""]]).fetchall()
        raw = log_texts(con, sorted(set(shas)))
    done: dict[str, set[int]] = {}
    prefix = key + " round "
    for sha, detail in done_rows:
        if isinstance(detail, str) and detail.startswith(prefix):
            done.setdefault(sha, set()).add(int(detail[len(prefix):]))
    plans = []
    for sha, gid, kind in missing:
        text = raw.get(sha)
        if text is None:
            continue
        per_round = round_moves(text, gid)
        within, moves = [], 0
        for number in sorted(per_round):
            if moves >= max_moves:
                break
            within.append(number)
            moves += per_round[number]
        already = done.get(sha, set())
        plans.append(GamePlan(sha, gid, kind, [r for r in within if r not in already],
                              sorted(already & set(within)), len(per_round), len(within),
                              moves))
    return plans, cached, raw


def _literal(text: str) -> str:
    """`text` as a regular expression of DuckDB's (RE2) that matches it alone."""
    return re.sub(r"([.^$*+?()\[\]{}|\\])", r"\\\1", text)


def rates_by_kind(path: str, samples: int, engine: str = "python") -> dict[str, float]:
    """The CPU seconds one decision took in earlier runs with this many samples on this
    analysis engine (the engine is in the key of the logs' markers: one native decision costs
    a fraction of a Python one), by the game and table size ("rage 8")."""
    # any seed: a decision's cost does not depend on it
    pattern = (f"^{_literal(METHOD)} seed -?[0-9]+ samples {samples}"
               f"{'' if engine == 'python' else _literal(f' engine {engine}')}( round [0-9]+)?$")
    with reading(path) as con:
        rows = con.execute("""
            SELECT g.game || ' ' || g.n_players, avg(m.seconds)
            FROM move_quality m JOIN (SELECT DISTINCT sha256, game, n_players FROM games) g
                 ON g.sha256 = m.sha256
            WHERE m.method = ? AND m.samples = ? AND m.seconds IS NOT NULL
              AND m.sha256 IN (SELECT fingerprint FROM analysis_runs
                               WHERE analysis IN ('moves', ?) AND regexp_matches(detail, ?))
            GROUP BY ALL""", [METHOD, samples, ROUND_MARK, pattern]).fetchall()
    return {str(k): float(v) for k, v in rows if v is not None}


def make_plan(path: str, samples: int, seed: int, jobs: int | None,
              game_ids: list[str] | None, limit: int | None, max_moves: int,
              cluster: str | None, engine: str = "python") -> tuple[Plan, dict[str, bytes]]:
    """Plan a run: the games (at most `limit` of them with rounds to do), and the exact
    number of decisions of each round to do (a replay of each log, nothing judged)."""
    games, cached, raw = plan_games(path, seed, samples, game_ids, max_moves, engine)
    later = 0  # games with rounds to do beyond `limit`: left for a later run
    if limit is not None:
        picked, n = [], 0
        for g in games:
            if g.todo:
                if n >= limit:
                    later += 1
                    continue
                n += 1
            picked.append(g)
        games = picked
    counts: dict[tuple[str, int], int] = {}
    for g in games:
        if not g.todo:
            continue
        try:
            per_round = count_decisions(raw[g.sha256], g.game_id, set(g.todo))
        except ValueError:
            per_round = {}  # the judging reports it
        for number in g.todo:
            counts[(g.sha256, number)] = per_round.get(number, 0)
    rounds = sum(len(g.todo) for g in games)
    jobs = max(1, min(jobs or os.cpu_count() or 1, rounds or 1))
    return Plan(games, counts, cached, later, jobs, cluster or "here",
                rates_by_kind(path, samples, engine), max_moves), raw


def judge_games(path: str, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                jobs: int | None = None, game_ids: list[str] | None = None,
                limit: int | None = None,
                progress: Callable[[int, int], None] | None = None,
                plan: Callable[[Plan], None] | None = None,
                max_moves: int = DEFAULT_MAX_MOVES, cluster: str | None = None,
                engine: str = "python", runner: Callable[[RoundTask], RoundDone] | None = None,
                ) -> MovesSummary:
    """Judge every round not judged yet (for seed and samples) of the complete games asked
    for, at most `limit` games and `max_moves` moves a log. `plan` hears what the run will
    do and how long it should take before the bulk of it starts; `progress` hears the
    decisions judged of the total; Ctrl-C stops it with every finished round kept.
    `runner` replaces the worker function (tests)."""
    t0 = time.perf_counter()
    try:
        the_plan, raw = make_plan(path, samples, seed, jobs, game_ids, limit, max_moves,
                                  cluster, engine)
    except KeyboardInterrupt:
        raise PlanInterrupted from None
    summary = MovesSummary(games_cached=the_plan.cached, max_moves=max_moves)
    left: dict[str, set[int]] = {g.sha256: set(g.todo) for g in the_plan.games}
    by_sha = {g.sha256: g for g in the_plan.games}
    tasks = [RoundTask(g.sha256, g.game_id, r, raw[g.sha256], samples, seed, engine)
             for g in the_plan.games for r in g.todo]
    total = the_plan.total
    done_decisions = 0
    key = cache_key(seed, samples, engine)
    work = runner or judge_round
    failed: set[str] = set()
    completed: set[str] = set()

    def take(done: RoundDone, quiet: bool = False) -> None:
        nonlocal done_decisions
        t = done.task
        if done.judged is None:
            left[t.sha256].discard(t.round)
            summary.failures.append(done.error or f"{t.game_id} round {t.round}: failed")
            failed.add(t.sha256)
            return
        g = by_sha[t.sha256]
        whole = left[t.sha256] <= {t.round} and not g.bounded and t.sha256 not in failed
        with held_from_commit() as hold:  # a round committed is counted before it stops
            _write_round(path, t, done.judged, key, whole, hold)
            left[t.sha256].discard(t.round)  # not before: a round rolled back is left
            if whole:
                completed.add(t.sha256)
            summary.rounds_done += 1
            summary.decisions += len(done.judged)
            summary.missed.extend(f"{t.game_id} line {line}" for line in done.missed)
            summary.judging_seconds += done.seconds
            done_decisions += the_plan.decisions.get((t.sha256, t.round), len(done.judged))
        if progress and not quiet:
            progress(done_decisions, total)

    results: Iterator[RoundDone] | None = None
    quiet = False  # no progress before the estimate

    def close_results() -> None:
        nonlocal results
        if results is not None:
            close = getattr(results, "close", None)
            if close is not None:
                close()  # stops the worker processes at once on an interrupt
            results = None

    try:
        # a kind of game (game and table size) with no earlier run to go by: the first
        # round of each is judged first, on the workers, to time it (a decision of an
        # 8-player rage game costs several times one of 2-player color_stacks)
        kinds = {g.sha256: g.kind for g in the_plan.games}
        first_of: dict[str, RoundTask] = {}
        for t in tasks:
            kind = kinds[t.sha256]
            if kind not in the_plan.rates and kind not in first_of:
                first_of[kind] = t
        the_plan.timing = len(first_of)
        rest = tasks
        if first_of:
            if plan:
                plan(the_plan)  # what it will do, and that it times first
            quiet = True
            results = _run(list(first_of.values()), work, the_plan.jobs, cluster)
            for done in results:
                take(done, quiet)
                if done.judged:
                    the_plan.rates[kinds[done.task.sha256]] = done.seconds / len(done.judged)
            close_results()
            quiet = False
            the_plan.timed = {(t.sha256, t.round) for t in first_of.values()}
            rest = [t for t in tasks if (t.sha256, t.round) not in the_plan.timed]
        if plan:
            plan(the_plan)
        if progress:
            progress(done_decisions, total)
        results = _run(rest, work, the_plan.jobs, cluster)
        for done in results:
            take(done, quiet)
    except KeyboardInterrupt:
        summary.interrupted = True
    except WorkersFailed as e:
        summary.broken = str(e)
    finally:
        try:
            close_results()
        except KeyboardInterrupt:  # a second Ctrl-C while the workers stopped
            summary.interrupted = True
        summary.games_done = len(completed)
        summary.games_missing = the_plan.later
        for g in the_plan.games:
            finished = not left.get(g.sha256) and g.sha256 not in failed
            if g.bounded and finished:
                summary.bounded.append(
                    f"{g.game_id}: rounds 1-{g.within} of {g.rounds} judged "
                    f"({g.moves:,} moves)")
            elif g.sha256 not in completed:
                summary.games_missing += 1
        summary.seconds = time.perf_counter() - t0
    return summary


# ------------------------------------------------------------------- where rounds run


class WorkersFailed(RuntimeError):
    """The worker processes or the cluster failed: the run stops, keeping what is done."""


def _worker_init(owner: int) -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent stops the workers
    # and keeps what is done, so a worker ignores it rather than dying with a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .executors import die_with

    die_with(owner)  # a killed `analyse` leaves no worker (docs/reliability.md)


def _run(tasks: list[RoundTask], work: Callable[[RoundTask], RoundDone], jobs: int,
         cluster: str | None) -> Iterator[RoundDone]:
    if not tasks:
        return
    if cluster is not None:
        yield from _run_dask(tasks, work, cluster)
    elif jobs == 1:
        yield from map(work, tasks)
    else:
        yield from _run_local(tasks, work, jobs)


def _run_local(tasks: list[RoundTask], work: Callable[[RoundTask], RoundDone],
               jobs: int) -> Iterator[RoundDone]:
    """The rounds on `jobs` worker processes, a bounded number in flight. A worker that
    dies, or a result that cannot be read back, breaks the pool (BrokenProcessPool): the
    run stops there with WorkersFailed, never waiting for a result that will not come."""
    from .executors import forkserver_context

    pool = ProcessPoolExecutor(jobs, mp_context=forkserver_context(),
                               initializer=_worker_init, initargs=(os.getpid(),))
    pending = iter(tasks)
    flight: set[Future[RoundDone]] = set()
    clean = False
    try:
        while True:
            with interrupt_deferred():  # a submit may start a worker
                while len(flight) < 2 * jobs:
                    t = next(pending, None)
                    if t is None:
                        break
                    try:
                        flight.add(pool.submit(work, t))
                    except BrokenProcessPool as e:
                        # a worker died between two submits: the pool refuses more work
                        # before any of its futures reports the death
                        raise _pool_broken(e) from None
            if not flight:
                clean = True
                return
            finished, flight = wait(flight, return_when=FIRST_COMPLETED)
            for fut in finished:
                try:
                    yield fut.result()
                except BrokenProcessPool as e:
                    raise _pool_broken(e) from None
                except Exception as e:
                    raise WorkersFailed(f"a worker failed: {type(e).__name__}: {e}") from None
    finally:
        _stop(pool, clean)


def _pool_broken(e: BrokenProcessPool) -> WorkersFailed:
    return WorkersFailed(f"a worker process died or sent back a result that cannot be read "
                         f"({e})")


def _stop(pool: ProcessPoolExecutor, clean: bool) -> None:
    """Shut the pool down; on an interrupt or a failure, end its workers at once (a round
    in progress is lost: it was not committed)."""
    if not clean:
        processes: dict[Any, Any] = getattr(pool, "_processes", None) or {}
        for p in list(processes.values()):
            if p.is_alive():
                p.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _run_dask(tasks: list[RoundTask], work: Callable[[RoundTask], RoundDone],
              address: str) -> Iterator[RoundDone]:
    """The rounds on a Dask cluster (`ingest --cluster`'s addresses: local:N or a
    scheduler's tcp://host:port); trickledger must be installed where the workers run."""
    from .cluster import ClusterError, parse

    kind, where = parse(address)
    try:
        import dask
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ClusterError("--cluster needs Dask: pip install 'trickledger[cluster]'") from None
    cluster: Any = None
    client: Any = None
    try:
        with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
            try:
                if kind == "local":
                    cluster = LocalCluster(n_workers=int(where), processes=True,
                                           threads_per_worker=1, dashboard_address=None)
                    client = Client(cluster, timeout=15)
                else:
                    client = Client(str(where), timeout=15)
            except OSError as e:
                raise ClusterError(f"--cluster {address}: cannot reach the scheduler ({e})") \
                    from None
        workers = max(len(client.scheduler_info().get("workers", {})), 1)
        pending = iter(tasks)
        flight = as_completed()
        for t in (next(pending, None) for _ in range(2 * workers)):
            if t is not None:
                flight.add(client.submit(work, t, pure=False))
        for fut in flight:
            try:
                done = fut.result()
            except Exception as e:
                raise WorkersFailed(f"the cluster failed: {type(e).__name__}: {e}") from None
            yield done
            t = next(pending, None)
            if t is not None:
                flight.add(client.submit(work, t, pure=False))
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


# ------------------------------------------------------------------- writing


def _write_round(path: str, task: RoundTask, judged: list[Judgement], key: str,
                 whole: bool, before_commit: Callable[[], None] | None = None) -> None:
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    rows = [(task.sha256, task.game_id, j.round, j.step, j.line, j.player, j.move,
             j.best_move, j.value, j.best_value, j.cost,
             None if math.isnan(j.cost_se) else j.cost_se, j.samples,
             j.alternatives, j.band, METHOD, task.seed, now, list(j.equal_moves),
             j.exact_samples, j.seconds) for j in judged]
    with writing(path) as con:
        with transaction(con, before_commit):
            marks = con.execute(
                "SELECT count(*) FROM analysis_runs WHERE analysis IN ('moves', ?) AND "
                "fingerprint = ? AND (detail = ? OR starts_with(detail, ?))",
                [ROUND_MARK, task.sha256, key, key + " round "]).fetchone()
            if not marks or not marks[0]:
                # the log's first round under this key: its judgement under another goes
                con.execute("DELETE FROM move_quality WHERE sha256 = ?", [task.sha256])
                con.execute("DELETE FROM analysis_runs WHERE analysis IN ('moves', ?) AND "
                            "fingerprint = ?", [ROUND_MARK, task.sha256])
            con.execute("DELETE FROM move_quality WHERE sha256 = ? AND round = ?",
                        [task.sha256, task.round])
            con.execute("DELETE FROM analysis_runs WHERE analysis = ? AND fingerprint = ? "
                        "AND detail = ?", [ROUND_MARK, task.sha256,
                                           _round_detail(key, task.round)])
            if rows:
                ratings.insert_rows(con, "move_quality", rows)
            con.execute("INSERT INTO analysis_runs VALUES (?, ?, ?, ?, ?)",
                        [ROUND_MARK, task.sha256, len(rows), _round_detail(key, task.round),
                         now])
            if whole:
                count = con.execute("SELECT count(*) FROM move_quality WHERE sha256 = ?",
                                    [task.sha256]).fetchone()
                con.execute("DELETE FROM analysis_runs WHERE analysis = ? AND "
                            "fingerprint = ?", [ROUND_MARK, task.sha256])
                con.execute("INSERT INTO analysis_runs VALUES ('moves', ?, ?, ?, ?)",
                            [task.sha256, count[0] if count else len(rows), key, now])
