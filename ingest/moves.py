"""`trickledger analyse --moves`: every decision of every complete game judged (replay/judge.py),
cached in `move_quality`.

Results are keyed by the log's SHA-256 and by (method, seed, samples): a game is judged
once, its rows and a marker in `analysis_runs` (analysis `moves`, fingerprint the SHA-256,
detail the key) written in one transaction as soon as it is done, so an interrupted run
keeps every finished game and a second run does only the rest. A game whose log has no
decision gets its marker too, and is not judged again.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing import get_context

from trickledger.replay.judge import DEFAULT_SAMPLES, METHOD, Judgement, judge_log

from . import ratings
from .db import log_texts, reading, writing
from .transactions import transaction

# the complete games not judged yet for (method, seed, samples); disputed games are complete
MISSING_SQL = """
    SELECT g.sha256, min(g.game_id) AS game_id
    FROM games g
    WHERE g.status = 'complete'
      AND NOT EXISTS (SELECT 1 FROM analysis_runs a WHERE a.analysis = 'moves'
                      AND a.fingerprint = g.sha256 AND a.detail = ?)
      AND (? OR list_contains(?, g.game_id))
    GROUP BY g.sha256
    ORDER BY game_id"""


def cache_key(seed: int, samples: int) -> str:
    return f"{METHOD} seed {seed} samples {samples}"


@dataclass(frozen=True)
class GameTask:
    sha256: str
    game_id: str


@dataclass
class MovesSummary:
    games_done: int = 0
    games_cached: int = 0
    games_missing: int = 0
    decisions: int = 0
    seconds: float = 0.0
    judging_seconds: float = 0.0  # summed over the processes: the CPU the games took
    failures: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        rate = self.decisions / self.seconds if self.seconds else 0.0
        out = [f"move quality: {self.games_done} games judged ({self.decisions} decisions), "
               f"{self.games_cached} already cached, {self.games_missing} left; "
               f"{self.seconds:.1f} s" + (f" ({rate:.1f} decisions/s, "
                                          f"{self.judging_seconds:.1f} s judging over all "
                                          f"processes)" if self.decisions else "")]
        out.extend(f"failed: {f}" for f in self.failures)
        return out


def missing_games(path: str, seed: int, samples: int,
                  game_ids: list[str] | None = None) -> list[GameTask]:
    with reading(path) as con:
        rows = con.execute(MISSING_SQL, [cache_key(seed, samples), game_ids is None,
                                         game_ids or [""]]).fetchall()
    return [GameTask(sha, gid) for sha, gid in rows]


def cached_games(path: str, seed: int, samples: int) -> int:
    with reading(path) as con:
        row = con.execute("SELECT count(*) FROM analysis_runs WHERE analysis = 'moves' AND "
                          "detail = ?", [cache_key(seed, samples)]).fetchone()
    return int(row[0]) if row else 0


_raw: dict[str, bytes] = {}


def _init(raw: dict[str, bytes]) -> None:
    global _raw
    _raw = raw


def _judge(args: tuple[GameTask, int, int]
           ) -> tuple[GameTask, list[Judgement] | str, float]:
    task, samples, seed = args
    t0 = time.perf_counter()
    try:
        result: list[Judgement] | str = judge_log(_raw[task.sha256], samples, seed,
                                                  task.sha256, task.game_id)
    except Exception as e:  # one bad log must not stop the run; it is reported
        result = f"{task.game_id}: {type(e).__name__}: {e}"
    return task, result, time.perf_counter() - t0


def judge_games(path: str, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                jobs: int | None = None, game_ids: list[str] | None = None,
                limit: int | None = None,
                progress: Callable[[int, int], None] | None = None) -> MovesSummary:
    """Judge every complete game not judged yet for (seed, samples), at most `limit` games."""
    summary = MovesSummary()
    t0 = time.perf_counter()
    tasks = missing_games(path, seed, samples, game_ids)
    summary.games_cached = cached_games(path, seed, samples)
    total = len(tasks)
    if limit is not None:
        tasks = tasks[:limit]
    with reading(path) as con:
        shas = sorted({t.sha256 for t in tasks})
        raw = log_texts(con, shas)
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(tasks) or 1))
    done = 0
    for task, result, seconds in _run(tasks, raw, samples, seed, jobs):
        if isinstance(result, str):
            summary.failures.append(result)
        else:
            _write(path, task, result, seed, samples)
            done += 1
            summary.decisions += len(result)
            summary.judging_seconds += seconds
        if progress:
            progress(done, len(tasks))
    summary.games_done = done
    summary.games_missing = total - done
    summary.seconds = time.perf_counter() - t0
    return summary


def _run(tasks: list[GameTask], raw: dict[str, bytes], samples: int, seed: int,
         jobs: int) -> Iterator[tuple[GameTask, list[Judgement] | str, float]]:
    work = [(t, samples, seed) for t in tasks]
    if jobs == 1:
        _init(raw)
        yield from map(_judge, work)
        return
    # forkserver, not fork: the caller may hold threads (Streamlit, DuckDB)
    with get_context("forkserver").Pool(jobs, initializer=_init, initargs=(raw,)) as pool:
        yield from pool.imap_unordered(_judge, work)


def _write(path: str, task: GameTask, judged: list[Judgement], seed: int,
           samples: int) -> None:
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    rows = [(task.sha256, task.game_id, j.round, j.step, j.line, j.player, j.move,
             j.best_move, j.value, j.best_value, j.cost,
             None if math.isnan(j.cost_se) else j.cost_se, j.samples,
             j.alternatives, j.band, METHOD, seed, now) for j in judged]
    key = cache_key(seed, samples)
    with writing(path) as con:
        with transaction(con):
            # one judgement per decision: a judgement under another key is replaced
            con.execute("DELETE FROM move_quality WHERE sha256 = ?", [task.sha256])
            con.execute("DELETE FROM analysis_runs WHERE analysis = 'moves' AND "
                        "fingerprint = ?", [task.sha256])
            if rows:
                ratings.insert_rows(con, "move_quality", rows)
            con.execute("INSERT INTO analysis_runs VALUES ('moves', ?, ?, ?, ?)",
                        [task.sha256, len(rows), key, now])
