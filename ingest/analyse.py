"""`trickledger analyse`: the analyses that are too slow for a query, cached in the database.

- ratings (`rating_history`, ingest/ratings.py): recomputed whole when the complete
  games changed, else left alone;
- hand estimates (`hand_estimates`, ingest/hands.py): one Monte-Carlo per hand a game
  declares worth it (`GameInfo.estimated_hands`: a settled bid) that has none yet for this
  method, seed and number of playouts. Results are keyed by
  the log's SHA-256 and written a few rounds at a time, so an interrupted run keeps
  what it finished and a second run only does the rest.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import sys
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from trickledger.replay.judge import DEFAULT_SAMPLES as DEFAULT_SAMPLES_MOVES
from trickledger.terminal import say, terminal

from . import ratings
from .ctrl_c import PlanInterrupted, held_from_commit
from .db import DatabaseBusy, db_path, log_texts, reading, writing
from .hands import DEFAULT_PLAYOUTS, METHOD, HandEstimate, estimable, estimate_round
from .lake import Analysis, LakeError
from .moves import DEFAULT_MAX_MOVES
from .moves import Plan as MovesPlan
from .transactions import transaction

# the hands worth an estimate (the games' declarations, `{hands}`) without one for (method,
# seed, playouts)
MISSING_SQL = """
    SELECT g.sha256, g.game_id, b.round, list(b.player ORDER BY b.player) AS players
    FROM ({hands}) b JOIN games g USING (game_id)
    WHERE NOT EXISTS (SELECT 1 FROM hand_estimates h WHERE h.sha256 = g.sha256
                      AND h.round = b.round AND h.player = b.player AND h.method = ?
                      AND h.seed = ? AND h.playouts = ?)
      AND (? OR list_contains(?, g.game_id))
    GROUP BY g.sha256, g.game_id, b.round
    ORDER BY g.game_id, b.round"""


# where the analyses read and write: a database file (its path), or a lake (`--lake`)
Target = str | Analysis


def _reading(target: Target) -> Any:
    return target.reading() if isinstance(target, Analysis) else reading(target)


def _writing(target: Target) -> Any:
    return target.writing() if isinstance(target, Analysis) else writing(target)


@dataclass(frozen=True)
class RoundTask:
    sha256: str
    game_id: str
    round: int
    players: tuple[str, ...]


@dataclass
class AnalyseSummary:
    ratings: ratings.RatingsRun | None = None
    hands_done: int = 0
    hands_cached: int = 0
    hands_missing: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    interrupted: bool = False  # stopped by Ctrl-C: what was finished is kept

    def lines(self) -> list[str]:
        out = []
        if self.ratings is not None:
            r = self.ratings
            out.append(f"ratings: {r.games} complete games, {r.rows} rows "
                       + ("(recomputed)" if r.recomputed else "(up to date)"))
        rate = self.hands_done / self.seconds if self.seconds else 0.0
        out.append(f"hand estimates: {self.hands_done} estimated, {self.hands_cached} already "
                   f"cached, {self.hands_missing} left; {self.seconds:.1f} s"
                   + (f" ({rate:.2f} hands/s)" if self.hands_done else ""))
        out.extend(f"failed: {f}" for f in self.failures)
        if self.interrupted:
            out.append(f"interrupted: the {self.hands_done} hands estimated are kept; run "
                       f"trickledger analyse again to do the {self.hands_missing} left")
        return out


@dataclass(frozen=True)
class Plan:
    """What a run of hand estimates is about to do, and how long it should take."""
    hands: int
    rounds: int
    jobs: int
    seconds_per_hand: float | None  # CPU seconds, from earlier runs or the first round

    def line(self) -> str:
        what = (f"hand estimates: {self.hands:,} hands ({self.rounds:,} rounds) to estimate "
                f"on {self.jobs} process{'es' if self.jobs != 1 else ''}")
        if self.seconds_per_hand is None or not self.hands:
            return what
        cpu = self.seconds_per_hand * self.hands
        return (f"{what}: about {_duration(cpu)} of CPU time, {_duration(cpu / self.jobs)} "
                f"here; Ctrl-C stops and keeps what is done")


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def missing_rounds(path: Target, playouts: int, seed: int,
                   game_ids: list[str] | None = None) -> list[RoundTask]:
    with _reading(path) as con:
        rows = con.execute(MISSING_SQL.format(hands=estimable()),
                           [METHOD, seed, playouts, game_ids is None,
                                         game_ids or [""]]).fetchall()
    return [RoundTask(sha, gid, rnd, tuple(players)) for sha, gid, rnd, players in rows]


def cached_hands(path: Target, playouts: int, seed: int) -> int:
    with _reading(path) as con:
        row = con.execute("SELECT count(*) FROM hand_estimates WHERE method = ? AND seed = ? "
                          "AND playouts = ?", [METHOD, seed, playouts]).fetchone()
    return int(row[0]) if row else 0


_raw: dict[str, bytes] = {}


def _init(raw: dict[str, bytes], owner: int | None = None) -> None:
    global _raw
    _raw = raw
    if owner is not None:
        from .executors import die_with

        die_with(owner)  # a killed `analyse` leaves no worker (docs/reliability.md)


def _worker_init(raw: dict[str, bytes], owner: int | None = None) -> None:
    # Ctrl-C reaches every process of the terminal's group: the parent stops the pool and
    # keeps what is done, so a worker ignores it rather than dying mid-hand with a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _init(raw, owner)


def _estimate(args: tuple[RoundTask, int, int]) -> tuple[RoundTask, list[HandEstimate] | str]:
    task, playouts, seed = args
    try:
        return task, estimate_round(_raw[task.sha256], task.round, list(task.players),
                                    playouts, seed, task.sha256)
    except Exception as e:  # one bad log must not stop the run; it is reported
        return task, f"{task.game_id} round {task.round}: {type(e).__name__}: {e}"


def seconds_per_hand(path: Target, playouts: int) -> float | None:
    """The CPU seconds one hand took in earlier runs with this many playouts, if any."""
    with _reading(path) as con:
        row = con.execute("SELECT avg(seconds) FROM hand_estimates WHERE method = ? AND "
                          "playouts = ?", [METHOD, playouts]).fetchone()
    return float(row[0]) if row and row[0] is not None else None


def first_hands(tasks: list[RoundTask], limit: int | None) -> list[RoundTask]:
    """The rounds that make up the first `limit` hands (whole rounds: a round's bidders are
    estimated together, so the last round taken may go a few hands past `limit`)."""
    if limit is None:
        return tasks
    picked: list[RoundTask] = []
    hands = 0
    for t in tasks:
        if hands >= limit:
            break
        picked.append(t)
        hands += len(t.players)
    return picked


def estimate_hands(path: Target, playouts: int = DEFAULT_PLAYOUTS, seed: int = 0,
                   jobs: int | None = None, game_ids: list[str] | None = None,
                   limit: int | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   summary: AnalyseSummary | None = None,
                   plan: Callable[[Plan], None] | None = None) -> AnalyseSummary:
    """Estimate every settled bid that has no estimate yet (about `limit` hands at most).
    `plan` hears what the run will do and how long it should take before the bulk of it
    starts; Ctrl-C (KeyboardInterrupt) stops it with every finished hand written."""
    summary = summary or AnalyseSummary()
    t0 = time.perf_counter()
    try:
        tasks = missing_rounds(path, playouts, seed, game_ids)
        summary.hands_cached = cached_hands(path, playouts, seed)
        total = sum(len(t.players) for t in tasks)
        tasks = first_hands(tasks, limit)
        now_total = sum(len(t.players) for t in tasks)  # what this call will estimate
        with _reading(path) as con:
            shas = sorted({t.sha256 for t in tasks})
            raw = log_texts(con, shas)
    except KeyboardInterrupt:
        raise PlanInterrupted from None
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks) or 1))
    done = 0
    pending: list[tuple[RoundTask, list[HandEstimate]]] = []

    def take(task: RoundTask, result: list[HandEstimate] | str) -> None:
        nonlocal done
        if isinstance(result, str):
            summary.failures.append(result)
        else:
            pending.append((task, result))
            done += len(result)
        if progress:
            progress(done, now_total)

    def write_pending() -> None:
        nonlocal pending
        with held_from_commit() as hold:  # what is committed is no longer pending
            _write(path, pending, seed, hold)
            pending = []

    rate = seconds_per_hand(path, playouts) if tasks else None
    rest = tasks
    try:
        if tasks and rate is None:  # no earlier run to go by: time the first round here
            _init(raw)
            first = _estimate((tasks[0], playouts, seed))
            take(*first)
            if not isinstance(first[1], str) and first[1]:
                rate = sum(e.seconds for e in first[1]) / len(first[1])
            rest = tasks[1:]
        if plan:
            plan(Plan(now_total, len(tasks), jobs, rate))
        last_write = time.monotonic()
        results = _run(rest, raw, playouts, seed, jobs)
        try:
            for task, result in results:
                take(task, result)
                if pending and (time.monotonic() - last_write > 5 or len(pending) >= 50):
                    write_pending()
                    last_write = time.monotonic()
        finally:
            results.close()  # stops the worker processes at once on an interrupt
    except KeyboardInterrupt:
        summary.interrupted = True
    finally:
        if pending:  # finished work is kept, also on Ctrl-C (a second one stops the write)
            try:
                write_pending()
            except KeyboardInterrupt:
                summary.interrupted = True
            finally:  # the hands said to be kept are those in the database
                done -= sum(len(estimates) for _, estimates in pending)
        summary.hands_done += done
        summary.hands_missing = total - done
        summary.seconds += time.perf_counter() - t0
    return summary


def _run(tasks: list[RoundTask], raw: dict[str, bytes], playouts: int, seed: int,
         jobs: int) -> Generator[tuple[RoundTask, list[HandEstimate] | str], None, None]:
    work = [(t, playouts, seed) for t in tasks]
    if jobs == 1:
        _init(raw)
        yield from map(_estimate, work)
        return
    # forkserver, not fork: the caller may hold threads (Streamlit, DuckDB)
    with get_context("forkserver").Pool(jobs, initializer=_worker_init,
                                        initargs=(raw, os.getpid())) as pool:
        yield from pool.imap_unordered(_estimate, work)


def _write(path: Target, done: list[tuple[RoundTask, list[HandEstimate]]], seed: int,
           before_commit: Callable[[], None] | None = None) -> None:
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    rows = [(t.sha256, t.game_id, e.round, e.player, METHOD, seed, e.playouts,
             e.expected_tricks, e.expected_sd, list(e.tricks_seen), e.seconds, now)
            for t, estimates in done for e in estimates]
    with _writing(path) as con:
        with transaction(con, before_commit):
            for sha, rnd, player in {(r[0], r[2], r[3]) for r in rows}:
                con.execute("DELETE FROM hand_estimates WHERE sha256 = ? AND round = ? AND "
                            "player = ?", [sha, rnd, player])
            ratings.insert_rows(con, "hand_estimates", rows)


def refresh_ratings(path: Target) -> ratings.RatingsRun:
    from .summaries import refresh

    with _writing(path) as con:
        refresh(con)  # the per-game summaries first: the ratings read the finishing orders
        return ratings.refresh(con)


# ------------------------------------------------------------------ the command


class Progress:
    """Work done so far (hands estimated, decisions judged): a bar on a terminal, else a
    line to standard error at most every `every_s` seconds (a log or a pipe sees the run
    move too)."""

    def __init__(self, every_s: float = 30.0, unit: str = "hand", what: str = "hands") -> None:
        from tqdm import tqdm

        self.tty = sys.stderr.isatty()
        self.what = what
        self.bar = tqdm(unit=unit, desc=what, disable=not self.tty)
        self.every_s = every_s
        self.started = time.monotonic()
        self.last = self.started

    def __call__(self, done: int, total: int) -> None:
        if self.tty:
            self.bar.total = total
            self.bar.update(done - self.bar.n)
            return
        now = time.monotonic()
        if now - self.last < self.every_s and done < total:
            return
        self.last = now
        spent = now - self.started
        left = f", about {_duration(spent / done * (total - done))} left" if done else ""
        share = f" ({done / total:.0%})" if total else ""
        print(f"{self.what}: {done:,} of {total:,}{share} in {_duration(spent)}"
              f"{left}", file=sys.stderr, flush=True)

    def close(self) -> None:
        self.bar.close()


EXIT_STORAGE = 3  # the file system failed, as for `ingest` (ingest/commands.py)


def cmd_analyse(args: argparse.Namespace) -> int:
    """`trickledger analyse`: a full (read-only, failing) file system under the database is
    one line naming it, with exit 3, as for `ingest`: what was committed before it stays."""
    try:
        return _cmd_analyse(args)
    except Exception as e:
        from .load import file_system_of, storage_failure

        what = storage_failure(e)
        if what is None:
            raise
        target = args.lake if args.lake is not None else db_path(args.db)
        say(f"trickledger analyse: the file system at {file_system_of(target)} (which holds "
            f"{target}) is {what}: what was committed before it stays; make room there and "
            f"run the same command again", error=True)
        return EXIT_STORAGE


def _cmd_analyse(args: argparse.Namespace) -> int:
    if args.playouts < 1:
        say("trickledger analyse: --playouts must be at least 1", error=True)
        return 2
    if not args.moves and (args.cluster is not None or args.engine is not None):
        say("trickledger analyse: --cluster and --engine apply to --moves only", error=True)
        return 2
    if args.lake is not None:
        if args.moves:
            say("trickledger analyse: --moves needs a database file (--db), not a lake", error=True)
            return 2
        return _analyse_lake(args)
    path = db_path(args.db)
    from .arguments import refuse_database

    if refuse_database("analyse", path, must_exist=True):
        return 2
    if args.moves:
        return cmd_moves(args, path)
    return _analyse(args, path)


def _analyse_lake(args: argparse.Namespace) -> int:
    """`--lake DIR`: the same analyses, their tables committed into the lake."""
    if args.db is not None:
        say("trickledger analyse: give --db or --lake, not both", error=True)
        return 2
    from .lake import is_lake

    if not is_lake(args.lake):
        say(f"trickledger analyse: {args.lake}: not a trickledger lake (make one with "
            f"trickledger ingest SOURCE --lake {args.lake})", error=True)
        return 2
    try:
        target = Analysis(args.lake)
    except LakeError as e:
        say(f"trickledger analyse: {e}", error=True)
        return 2
    try:
        return _analyse(args, target)
    except LakeError as e:
        say(f"trickledger analyse: {e}", error=True)
        return 2
    finally:
        target.close()


def _analyse(args: argparse.Namespace, path: Target) -> int:
    summary = AnalyseSummary()
    try:
        try:
            summary.ratings = refresh_ratings(path)
        except KeyboardInterrupt:  # committed or not: the next run computes them if need be
            say("trickledger analyse: interrupted while the ratings were computed; run "
                "trickledger analyse again", error=True)
            return 130
        if not args.no_hands:
            progress = Progress()

            def plan(p: Plan) -> None:
                say(p.line(), error=True)

            try:
                estimate_hands(path, args.playouts, args.seed, args.jobs, args.game or None,
                               args.limit, progress, summary, plan)
            finally:
                progress.close()
    except DatabaseBusy as e:
        say(f"trickledger analyse: {e}", error=True)
        return 2
    except PlanInterrupted:
        say("trickledger analyse: interrupted before any hand was estimated: the ratings "
            "are kept; run trickledger analyse again", error=True)
        return 130
    for line in summary.lines():
        say(terminal(line))
    if summary.interrupted:
        return 130
    return 1 if summary.failures else 0


def positive_int(text: str) -> int:
    from .arguments import positive

    return int(positive(int)(text))
def cmd_moves(args: argparse.Namespace, path: str) -> int:
    """`trickledger analyse --moves`: that step alone (ingest/moves.py)."""
    from trickledger.replay import native
    from trickledger.replay.judge import engine_names
    from trickledger.replay.native.judging import default_engine

    from .cluster import ClusterError
    from .moves import judge_games

    if args.samples < 2:
        say("trickledger analyse: --samples must be at least 2 (a standard error needs "
            "two)", error=True)
        return 2
    if args.engine is None:
        try:
            engine = default_engine()
        except ValueError as e:  # TRICKLEDGER_ANALYSIS says neither native nor python
            say(f"trickledger analyse: {e}", error=True)
            return 2
    else:
        engine = args.engine
    if engine not in engine_names():
        say(f"trickledger analyse: no analysis engine {engine!r} (known: "
            f"{', '.join(engine_names())})", error=True)
        return 2
    if engine == "native" and not native.available():
        say(f"trickledger analyse: the native analysis engine cannot run here: "
            f"{native.why_not()} (--engine python judges in Python)", error=True)
        return 2
    if args.cluster is not None:
        from .cluster import parse

        try:
            parse(args.cluster)
        except ClusterError as e:
            say(f"trickledger analyse: {e}", error=True)
            return 2
    progress = Progress(unit="decision", what="decisions")

    def plan(p: MovesPlan) -> None:
        say(p.line(), error=True)

    try:
        moves = judge_games(path, args.samples, args.seed, args.jobs, args.game or None,
                            args.limit, progress, plan, args.max_moves, args.cluster,
                            engine)
    except DatabaseBusy as e:
        say(f"trickledger analyse: {e}", error=True)
        return 2
    except PlanInterrupted:
        say("trickledger analyse: interrupted before any round was judged: nothing was "
            "written; run trickledger analyse --moves again", error=True)
        return 130
    except ClusterError as e:
        say(f"trickledger analyse: {e}", error=True)
        return 2
    finally:
        progress.close()
    for line in moves.lines():
        say(terminal(line))
    if moves.interrupted:
        return 130
    return 1 if moves.failures or moves.broken else 0


def add_command(sub: Any) -> None:
    """Register `trickledger analyse` (called by ingest.commands)."""
    a = sub.add_parser(
        "analyse", help="compute ratings and hand estimates (cached in the database)",
        description="Compute what is too slow for a query and keep it in the database: the "
                    "ratings (recomputed when the complete games changed) and, for every "
                    "settled bid without one yet, the Monte-Carlo estimate of what the hand "
                    "could take (docs/analytics.md). Exit status: 0 when all went well, 1 "
                    "when some log could not be estimated, 2 when the database is missing or "
                    "busy or the command is misused; 130 when stopped with Ctrl-C (the "
                    "hands finished are kept). It says how long it expects to take before "
                    "it starts (from earlier runs, or from timing the first round) and "
                    "reports progress to standard error, as lines when that is not a "
                    "terminal.")
    a.add_argument("--db", default=None, help="database file (default: $TRICKLEDGER_DB or "
                   "trickledger.duckdb)")
    a.add_argument("--lake", default=None, metavar="DIR",
                   help="analyse a lake (ingest --lake) instead: the ratings and hand "
                        "estimates are committed into it")
    a.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS,
                   help=f"Monte-Carlo playouts per hand (default {DEFAULT_PLAYOUTS})")
    a.add_argument("--seed", type=int, default=0, help="seed of the playouts (default 0)")
    a.add_argument("--jobs", type=positive_int, default=None,
                   help="processes (default: all cores)")
    a.add_argument("--game", action="append", metavar="ID",
                   help="only this game (repeatable)")
    a.add_argument("--limit", type=positive_int, default=None, metavar="HANDS",
                   help="estimate about this many hands now (whole rounds, so a few more "
                        "may be done); a later run does the rest")
    a.add_argument("--no-hands", action="store_true", help="ratings only")
    a.add_argument("--moves", action="store_true",
                   help="only judge every decision of the complete games (move_quality; "
                        "--game, --limit in games, --seed, --jobs, --samples, --max-moves, "
                        "--cluster and --engine apply): it says how many decisions and about "
                        "how long before it starts, commits round by round (Ctrl-C keeps "
                        "every finished round, exit status 130), and a later run does the "
                        "rest")
    a.add_argument("--samples", type=int, default=DEFAULT_SAMPLES_MOVES,
                   help=f"--moves: samples of the hidden cards per decision (default "
                        f"{DEFAULT_SAMPLES_MOVES})")
    a.add_argument("--max-moves", type=positive_int, default=DEFAULT_MAX_MOVES, metavar="N",
                   help=f"--moves: judge at most the first N moves of a log, in whole rounds "
                        f"(default {DEFAULT_MAX_MOVES:,}); its later rounds are left "
                        f"unjudged and named in the output")
    a.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="--moves: judge the rounds on a Dask cluster: local:N starts N "
                        "worker processes here, tcp://HOST:PORT uses a running scheduler "
                        "(pip install 'trickledger[cluster]')")
    a.add_argument("--engine", default=None, metavar="NAME",
                   help="--moves: the analysis engine that values each sample: native (the "
                        "default where it is built, unless TRICKLEDGER_ANALYSIS=python) or "
                        "python (the reference)")
    a.set_defaults(fn=cmd_analyse)
