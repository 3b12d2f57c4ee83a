"""Loading logs into DuckDB: replay on all cores, one writer, one transaction per batch.

Workers replay logs and return plain rows; the parent process owns the only
DuckDB connection, shapes each batch with polars and inserts it through Arrow
inside one transaction. A log whose bytes are already in `logs` is skipped
("already loaded"); a batch that fails to insert is rolled back whole.
"""

from __future__ import annotations

import datetime as dt
import glob
import hashlib
import os
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import duckdb
import polars as pl

from replay.engine import replay_bytes

from . import schema
from .db import writing
from .rows import Rows, decode_text, replay_rows

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
MAX_FILE_BYTES = 64 * 1024 * 1024

_POLARS_TYPES = {"VARCHAR": pl.Utf8, "BIGINT": pl.Int64, "INTEGER": pl.Int32,
                 "TIMESTAMP": pl.Datetime("us"), "BOOLEAN": pl.Boolean, "DATE": pl.Date,
                 "VARCHAR[]": pl.List(pl.Utf8)}


def _polars_schema(table: str) -> dict[str, Any]:
    return {c: _POLARS_TYPES[t.split()[0]] for c, t in schema.TABLES[table]}


POLARS_SCHEMAS = {t: _polars_schema(t) for t in schema.TABLES}


# ------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class Source:
    """One log to load: a path to read, or bytes from an upload."""

    name: str
    path: str | None = None
    data: bytes | None = None


def expand(paths: Iterable[str]) -> tuple[list[Source], list[tuple[str, str]]]:
    """Files, folders (recursively, *.jsonl and *.jsonl.gz) and globs -> sources, and the
    arguments that matched nothing (reported, never silently skipped)."""
    sources: list[Source] = []
    missing: list[tuple[str, str]] = []
    for arg in paths:
        p = Path(arg)
        if p.is_dir():
            found = sorted(str(f) for f in p.rglob("*") if f.is_file() and
                           f.name.endswith(LOG_SUFFIXES))
            if not found:
                missing.append((arg, "folder holds no .jsonl or .jsonl.gz files"))
            sources.extend(Source(f, path=f) for f in found)
        elif p.is_file():
            sources.append(Source(arg, path=arg))
        elif any(ch in arg for ch in "*?["):
            found = sorted(f for f in glob.glob(arg, recursive=True) if Path(f).is_file())
            if not found:
                missing.append((arg, "pattern matches no file"))
            sources.extend(Source(f, path=f) for f in found)
        else:
            missing.append((arg, "no such file or folder"))
    return sources, missing


# ------------------------------------------------------------------ workers

_known: frozenset[str] = frozenset()


def _init_worker(known: frozenset[str]) -> None:
    global _known
    _known = known


@dataclass
class Processed:
    name: str
    sha256: str | None
    status: str  # complete / incomplete / illegal / unreadable / already loaded
    events: int
    rows: Rows
    line: int | None = None
    message: str | None = None


def process(src: Source) -> Processed:
    """Read and replay one source (in a worker); never raises."""
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    data = src.data
    if data is None:
        try:
            size = os.path.getsize(src.path or "")
            if size > MAX_FILE_BYTES:
                return _unreadable(src.name, None, f"file is {size} bytes; the limit is "
                                   f"{MAX_FILE_BYTES} bytes", now)
            data = Path(src.path or "").read_bytes()
        except OSError as e:
            return _unreadable(src.name, None, f"cannot read the file ({e.strerror or e})", now)
    sha = hashlib.sha256(data).hexdigest()
    if sha in _known:
        return Processed(src.name, sha, "already loaded", 0, {})
    try:
        r = replay_bytes(data, src.name)
        rows = replay_rows(r, data, now)
    except Exception as e:  # a bug must not lose the file: it is recorded, not dropped
        msg = f"internal error while replaying ({type(e).__name__}: {e})"
        return Processed(src.name, sha, "unreadable", 0, {
            "logs": [(sha, src.name, len(data), now, decode_text(data), "unreadable", None, None,
                      msg)],
            "ingest_errors": [(src.name, sha, "unreadable", None, msg, now)]}, None, msg)
    err = r.error
    return Processed(src.name, sha, r.status, r.events, rows, err.line if err else None,
                     err.message if err else None)


def _unreadable(name: str, sha: str | None, msg: str, now: dt.datetime) -> Processed:
    # without bytes there is no sha256 to key `logs` by: only the error is recorded
    return Processed(name, sha, "unreadable", 0,
                     {"ingest_errors": [(name, sha, "unreadable", None, msg, now)]}, None, msg)


# ------------------------------------------------------------------ the writer


@dataclass
class Summary:
    loaded: int = 0
    already: int = 0
    complete: int = 0
    incomplete: int = 0
    illegal: int = 0
    unreadable: int = 0
    conflicts: int = 0
    events: int = 0
    seconds: float = 0.0
    results: list[Processed] = field(default_factory=list)

    @property
    def events_per_s(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        return (f"loaded {self.loaded} ({self.complete} complete, {self.incomplete} incomplete, "
                f"{self.illegal} illegal), already loaded {self.already}, unreadable "
                f"{self.unreadable}" + (f", id conflicts {self.conflicts}" if self.conflicts
                                        else "")
                + f"; {self.events} events in {self.seconds:.1f} s "
                  f"({self.events_per_s:,.0f} events/s)")


class BatchWriter:
    """Inserts batches of processed logs, one transaction (and one short connection) each."""

    def __init__(self, path: str, fault: Callable[[str], None] | None = None,
                 on_busy: Callable[[float], None] | None = None) -> None:
        self.path = path
        self.fault = fault  # tests: called after each table insert, may raise
        self.on_busy = on_busy

    def known_shas(self) -> frozenset[str]:
        with writing(self.path, on_busy=self.on_busy) as con:
            return frozenset(r[0] for r in con.execute("SELECT sha256 FROM logs").fetchall())

    def write(self, batch: list[Processed], summary: Summary) -> None:
        with writing(self.path, on_busy=self.on_busy) as con:
            self._write(con, batch, summary)

    def _write(self, con: duckdb.DuckDBPyConnection, batch: list[Processed],
               summary: Summary) -> None:
        shas = [p.sha256 for p in batch if p.sha256 and p.rows.get("logs")]
        present = set()
        ids_present: dict[str, str] = {}
        if shas:
            present = {r[0] for r in con.execute(
                "SELECT sha256 FROM logs WHERE sha256 IN (SELECT unnest(?))", [shas]).fetchall()}
        gids = [p.rows["games"][0][0] for p in batch if p.rows.get("games")]
        if gids:
            ids_present = dict(con.execute(
                "SELECT game_id, file_name FROM games WHERE game_id IN (SELECT unnest(?))",
                [gids]).fetchall())
        tables: dict[str, list[tuple[Any, ...]]] = {t: [] for t in schema.TABLES}
        seen: set[str] = set()
        counted: list[tuple[Processed, str]] = []
        for p in batch:
            if p.status == "already loaded" or (p.sha256 and (p.sha256 in present
                                                              or p.sha256 in seen)):
                counted.append((p, "already loaded"))
                continue
            if p.sha256:
                seen.add(p.sha256)
            rows = p.rows
            games = rows.get("games")
            if games:
                gid = games[0][0]
                if gid in ids_present:
                    counted.append((p, "conflict"))
                    now = games[0][-1]
                    msg = (f"game id {gid!r} is already loaded from {ids_present[gid]}; "
                           f"these bytes differ (give the log another 'id' to load both)")
                    log = list(rows["logs"][0])
                    log[5], log[7], log[8] = "conflict", None, msg
                    tables["logs"].append(tuple(log))
                    tables["ingest_errors"].append((p.name, p.sha256, "conflict", None, msg, now))
                    p.status, p.message = "conflict", msg
                    continue
                ids_present[gid] = p.name
            for t, rs in rows.items():
                tables[t].extend(rs)
            counted.append((p, p.status))
        con.execute("BEGIN TRANSACTION").fetchall()
        try:
            for t, rs in tables.items():
                if not rs:
                    continue
                frame = pl.DataFrame(rs, schema=POLARS_SCHEMAS[t], orient="row")
                con.register("incoming", frame.to_arrow())
                con.execute(f"INSERT INTO {t} SELECT * FROM incoming").fetchall()
                con.unregister("incoming")
                if self.fault:
                    self.fault(t)
            con.execute("COMMIT").fetchall()
        except BaseException:
            con.execute("ROLLBACK").fetchall()
            raise
        for p, status in counted:
            summary.results.append(p)
            if status == "already loaded":
                summary.already += 1
                p.status = "already loaded"
                continue
            if status == "conflict":
                summary.conflicts += 1
                continue
            summary.events += p.events
            if status == "unreadable":
                summary.unreadable += 1
                continue
            summary.loaded += 1
            setattr(summary, status, getattr(summary, status) + 1)


def ingest(sources: list[Source], path: str, jobs: int | None = None,
           batch_size: int = 500, progress: Callable[[int, int], None] | None = None,
           fault: Callable[[str], None] | None = None,
           on_busy: Callable[[float], None] | None = None) -> Summary:
    """Load `sources` into the database at `path`. Replays on `jobs` processes; writes
    batches of `batch_size`, each in one transaction."""
    t0 = time.perf_counter()
    summary = Summary()
    writer = BatchWriter(path, fault, on_busy)
    known = writer.known_shas()
    jobs = jobs or os.cpu_count() or 1
    done = 0
    batch: list[Processed] = []
    for p in _processed(sources, known, jobs):
        batch.append(p)
        if len(batch) >= batch_size:
            writer.write(batch, summary)
            done += len(batch)
            batch = []
            if progress:
                progress(done, len(sources))
    if batch:
        writer.write(batch, summary)
        done += len(batch)
        if progress:
            progress(done, len(sources))
    summary.seconds = time.perf_counter() - t0
    return summary


def _processed(sources: list[Source], known: frozenset[str], jobs: int) -> Iterator[Processed]:
    if jobs == 1 or len(sources) < 64:
        _init_worker(known)
        yield from map(process, sources)
        return
    with Pool(jobs, initializer=_init_worker, initargs=(known,)) as pool:
        yield from pool.imap(process, sources, chunksize=8)


def record_missing(missing: list[tuple[str, str]], path: str) -> None:
    """Arguments that named nothing are errors too, recorded where a user will look."""
    if not missing:
        return
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with writing(path) as con:
        con.executemany("INSERT INTO ingest_errors VALUES (?, NULL, 'unreadable', NULL, ?, ?)",
                        [(name, msg, now) for name, msg in missing])
