"""`trickledger analyse`: the analyses that are too slow for a query, cached in the database.

- ratings (`rating_history`, ingest/ratings.py): recomputed whole when the complete
  games changed, else left alone;
- hand estimates (`hand_estimates`, ingest/hands.py): one Monte-Carlo per settled bid
  that has none yet for this method, seed and number of playouts. Results are keyed by
  the log's SHA-256 and written a few rounds at a time, so an interrupted run keeps
  what it finished and a second run only does the rest.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

from replay.judge import DEFAULT_SAMPLES as DEFAULT_SAMPLES_MOVES

from . import ratings
from .db import DatabaseBusy, db_path, reading, writing
from .hands import DEFAULT_PLAYOUTS, METHOD, HandEstimate, estimate_round

# the settled bids without an estimate for (method, seed, playouts)
MISSING_SQL = """
    SELECT g.sha256, g.game_id, b.round, list(b.player ORDER BY b.player) AS players
    FROM bids b JOIN games g USING (game_id)
    WHERE NOT EXISTS (SELECT 1 FROM hand_estimates h WHERE h.sha256 = g.sha256
                      AND h.round = b.round AND h.player = b.player AND h.method = ?
                      AND h.seed = ? AND h.playouts = ?)
      AND (? OR list_contains(?, g.game_id))
    GROUP BY g.sha256, g.game_id, b.round
    ORDER BY g.game_id, b.round"""


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
        return out


def missing_rounds(path: str, playouts: int, seed: int,
                   game_ids: list[str] | None = None) -> list[RoundTask]:
    with reading(path) as con:
        rows = con.execute(MISSING_SQL, [METHOD, seed, playouts, game_ids is None,
                                         game_ids or [""]]).fetchall()
    return [RoundTask(sha, gid, rnd, tuple(players)) for sha, gid, rnd, players in rows]


def cached_hands(path: str, playouts: int, seed: int) -> int:
    with reading(path) as con:
        row = con.execute("SELECT count(*) FROM hand_estimates WHERE method = ? AND seed = ? "
                          "AND playouts = ?", [METHOD, seed, playouts]).fetchone()
    return int(row[0]) if row else 0


_raw: dict[str, bytes] = {}


def _init(raw: dict[str, bytes]) -> None:
    global _raw
    _raw = raw


def _estimate(args: tuple[RoundTask, int, int]) -> tuple[RoundTask, list[HandEstimate] | str]:
    task, playouts, seed = args
    try:
        return task, estimate_round(_raw[task.sha256], task.round, list(task.players),
                                    playouts, seed, task.sha256)
    except Exception as e:  # one bad log must not stop the run; it is reported
        return task, f"{task.game_id} round {task.round}: {type(e).__name__}: {e}"


def estimate_hands(path: str, playouts: int = DEFAULT_PLAYOUTS, seed: int = 0,
                   jobs: int | None = None, game_ids: list[str] | None = None,
                   limit: int | None = None,
                   progress: Callable[[int, int], None] | None = None,
                   summary: AnalyseSummary | None = None) -> AnalyseSummary:
    """Estimate every settled bid that has no estimate yet (at most `limit` rounds)."""
    summary = summary or AnalyseSummary()
    t0 = time.perf_counter()
    tasks = missing_rounds(path, playouts, seed, game_ids)
    summary.hands_cached = cached_hands(path, playouts, seed)
    total = sum(len(t.players) for t in tasks)
    if limit is not None:
        tasks = tasks[:limit]
    now_total = sum(len(t.players) for t in tasks)  # what this call will estimate
    with reading(path) as con:
        shas = sorted({t.sha256 for t in tasks})
        raw = {sha: text.encode("utf-8") for sha, text in con.execute(
            "SELECT sha256, raw_text FROM logs WHERE list_contains(?, sha256)", [shas]
        ).fetchall()}
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks) or 1))
    done = 0
    pending: list[tuple[RoundTask, list[HandEstimate]]] = []
    last_write = time.monotonic()
    for task, result in _run(tasks, raw, playouts, seed, jobs):
        if isinstance(result, str):
            summary.failures.append(result)
        else:
            pending.append((task, result))
            done += len(result)
        if pending and (time.monotonic() - last_write > 5 or len(pending) >= 50):
            _write(path, pending, seed)
            pending, last_write = [], time.monotonic()
        if progress:
            progress(done, now_total)
    if pending:
        _write(path, pending, seed)
    summary.hands_done += done
    summary.hands_missing = total - done
    summary.seconds += time.perf_counter() - t0
    return summary


def _run(tasks: list[RoundTask], raw: dict[str, bytes], playouts: int, seed: int,
         jobs: int) -> Iterator[tuple[RoundTask, list[HandEstimate] | str]]:
    work = [(t, playouts, seed) for t in tasks]
    if jobs == 1:
        _init(raw)
        yield from map(_estimate, work)
        return
    # forkserver, not fork: the caller may hold threads (Streamlit, DuckDB)
    with get_context("forkserver").Pool(jobs, initializer=_init, initargs=(raw,)) as pool:
        yield from pool.imap_unordered(_estimate, work)


def _write(path: str, done: list[tuple[RoundTask, list[HandEstimate]]], seed: int) -> None:
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    rows = [(t.sha256, t.game_id, e.round, e.player, METHOD, seed, e.playouts,
             e.expected_tricks, e.expected_sd, list(e.tricks_seen), e.seconds, now)
            for t, estimates in done for e in estimates]
    with writing(path) as con:
        con.execute("BEGIN TRANSACTION")
        try:
            for sha, rnd, player in {(r[0], r[2], r[3]) for r in rows}:
                con.execute("DELETE FROM hand_estimates WHERE sha256 = ? AND round = ? AND "
                            "player = ?", [sha, rnd, player])
            ratings.insert_rows(con, "hand_estimates", rows)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise


def refresh_ratings(path: str) -> ratings.RatingsRun:
    with writing(path) as con:
        return ratings.refresh(con)


# ------------------------------------------------------------------ the command


def cmd_analyse(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    path = db_path(args.db)
    if args.playouts < 1:
        print("trickledger analyse: --playouts must be at least 1", file=sys.stderr)
        return 2
    if not os.path.exists(path):
        print(f"trickledger analyse: {path}: no such database (load logs with "
              f"`trickledger ingest` first)", file=sys.stderr)
        return 2
    if args.moves:
        return cmd_moves(args, path)
    summary = AnalyseSummary()
    try:
        summary.ratings = refresh_ratings(path)
        if not args.no_hands:
            bar = tqdm(unit="hand", desc="hands", disable=not sys.stderr.isatty())

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            estimate_hands(path, args.playouts, args.seed, args.jobs, args.game or None,
                           args.limit, progress, summary)
            bar.close()
    except DatabaseBusy as e:
        print(f"trickledger analyse: {e}", file=sys.stderr)
        return 2
    for line in summary.lines():
        print(line)
    return 1 if summary.failures else 0


def cmd_moves(args: argparse.Namespace, path: str) -> int:
    """`trickledger analyse --moves`: that step alone (ingest/moves.py)."""
    from tqdm import tqdm

    from .moves import judge_games

    if args.samples < 2:
        print("trickledger analyse: --samples must be at least 2 (a standard error needs "
              "two)", file=sys.stderr)
        return 2
    bar = tqdm(unit="game", desc="moves", disable=not sys.stderr.isatty())

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    try:
        moves = judge_games(path, args.samples, args.seed, args.jobs, args.game or None,
                            args.limit, progress)
    except DatabaseBusy as e:
        print(f"trickledger analyse: {e}", file=sys.stderr)
        return 2
    finally:
        bar.close()
    for line in moves.lines():
        print(line)
    return 1 if moves.failures else 0


def add_command(sub: Any) -> None:
    """Register `trickledger analyse` (called by ingest.commands)."""
    a = sub.add_parser(
        "analyse", help="compute ratings and hand estimates (cached in the database)",
        description="Compute what is too slow for a query and keep it in the database: the "
                    "ratings (recomputed when the complete games changed) and, for every "
                    "settled bid without one yet, the Monte-Carlo estimate of what the hand "
                    "could take (docs/analytics.md). Exit status: 0 when all went well, 1 "
                    "when some log could not be estimated, 2 when the database is missing or "
                    "busy or the command is misused.")
    a.add_argument("--db", default=None, help="database file (default: $TRICKLEDGER_DB or "
                   "trickledger.duckdb)")
    a.add_argument("--playouts", type=int, default=DEFAULT_PLAYOUTS,
                   help=f"Monte-Carlo playouts per hand (default {DEFAULT_PLAYOUTS})")
    a.add_argument("--seed", type=int, default=0, help="seed of the playouts (default 0)")
    a.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    a.add_argument("--game", action="append", metavar="ID",
                   help="only this game (repeatable)")
    a.add_argument("--limit", type=int, default=None, help="at most this many rounds now")
    a.add_argument("--no-hands", action="store_true", help="ratings only")
    a.add_argument("--moves", action="store_true",
                   help="only judge every decision of the complete games (move_quality; "
                        "--game, --limit in games, --seed, --jobs and --samples apply)")
    a.add_argument("--samples", type=int, default=DEFAULT_SAMPLES_MOVES,
                   help=f"--moves: samples of the hidden cards per decision (default "
                        f"{DEFAULT_SAMPLES_MOVES})")
    a.set_defaults(fn=cmd_analyse)
