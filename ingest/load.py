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
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa

from replay.engine import replay_bytes
from replay.state import RowSink

from . import schema
from .db import writing
from .rows import COLUMNS, decode_text, replay_rows, stored_status

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
MAX_FILE_BYTES = 64 * 1024 * 1024

_STACK = pa.struct([("player", pa.string()), ("stack", pa.string()), ("cards", pa.int32())])
_ARROW_TYPES = {"VARCHAR": pa.string(), "BIGINT": pa.int64(), "INTEGER": pa.int32(),
                "TIMESTAMP": pa.timestamp("us"), "BOOLEAN": pa.bool_(), "DATE": pa.date32(),
                "VARCHAR[]": pa.list_(pa.string()), schema.STACKS: pa.list_(_STACK)}
ARROW_SCHEMAS = {t: pa.schema([(c, _ARROW_TYPES[ty.removesuffix(" PRIMARY KEY")])
                               for c, ty in cols])
                 for t, cols in schema.TABLES.items()}

Columns = dict[str, list[Any]]


def to_frame(table: str, columns: Columns) -> pl.DataFrame:
    """Column lists (by name) -> a typed polars frame. Columns are built as Arrow arrays
    first: pyarrow turns Python lists (nested ones included) into columns in C."""
    fields = ARROW_SCHEMAS[table]
    arrays = [pa.array(columns[f.name], type=f.type) for f in fields]
    frame = pl.from_arrow(pa.Table.from_arrays(arrays, schema=fields))
    assert isinstance(frame, pl.DataFrame)
    return frame


# ------------------------------------------------------------------ inputs


@dataclass(frozen=True)
class Source:
    """One log to load: a path to read, or bytes from an upload."""

    name: str
    path: str | None = None
    data: bytes | None = None
    max_bytes: int | None = None  # cap on the decompressed log (default: the reader's)


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
    status: str  # complete / incomplete / illegal / unreadable / sheet / already loaded
    events: int
    rows: dict[str, Columns]
    line: int | None = None
    message: str | None = None
    game_id: str | None = None
    now: dt.datetime | None = None
    disputed: int = 0  # claimed scores that do not match the replay


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
        r = replay_bytes(data, src.name, src.max_bytes)
        sink = replay_rows(r, data, now)
    except Exception as e:  # a bug must not lose the file: it is recorded, not dropped
        msg = f"internal error while replaying ({type(e).__name__}: {e})"
        sink = RowSink("", (), COLUMNS)
        sink.add("logs", sha256=sha, file_name=src.name, size_bytes=len(data), ingested_at=now,
                 raw_text=decode_text(data), status="unreadable", game_id=None,
                 error_message=msg)
        sink.add("ingest_errors", file_name=src.name, sha256=sha, status="unreadable",
                 message=msg, recorded_at=now)
        return Processed(src.name, sha, "unreadable", 0, sink.columns, None, msg)
    err = r.error
    p = Processed(src.name, sha, stored_status(r), r.events, sink.columns,
                  err.line if err else None, err.message if err else None)
    p.game_id = r.header.id if r.header else None
    p.disputed = len(r.mismatched_claims())
    return p


def _unreadable(name: str, sha: str | None, msg: str, now: dt.datetime) -> Processed:
    # without bytes there is no sha256 to key `logs` by: only the error is recorded
    sink = RowSink("", (), COLUMNS)
    sink.add("ingest_errors", file_name=name, sha256=sha, status="unreadable", message=msg,
             recorded_at=now)
    return Processed(name, sha, "unreadable", 0, sink.columns, None, msg)


# ------------------------------------------------------------------ the writer


@dataclass
class Summary:
    loaded: int = 0
    already: int = 0
    complete: int = 0
    incomplete: int = 0
    illegal: int = 0
    sheet: int = 0  # complete score sheets
    unreadable: int = 0
    conflicts: int = 0
    disputed: int = 0  # loaded logs whose claims do not all match
    events: int = 0
    seconds: float = 0.0
    results: list[Processed] = field(default_factory=list)
    keep_all: bool = True  # False: keep only the logs that need a word (memory stays flat)

    @property
    def events_per_s(self) -> float:
        return self.events / self.seconds if self.seconds else 0.0

    def line(self) -> str:
        sheets = f", {self.sheet} score sheet{'s' if self.sheet != 1 else ''}" if self.sheet else ""
        return (f"loaded {self.loaded} ({self.complete} complete, {self.incomplete} incomplete, "
                f"{self.illegal} illegal{sheets}), already loaded {self.already}, unreadable "
                f"{self.unreadable}" + (f", id conflicts {self.conflicts}" if self.conflicts
                                        else "")
                + (f", disputed {self.disputed}" if self.disputed else "")
                + f"; {self.events} events in {self.seconds:.1f} s "
                  f"({self.events_per_s:,.0f} events/s)")


@dataclass
class Chunk:
    """Logs replayed together in one worker task: their outcomes, and their rows as one
    typed frame per table, each row tagged with `_file` (its log's index in `files`)."""

    files: list[Processed]
    frames: dict[str, pl.DataFrame]


def process_chunk(sources: list[Source]) -> Chunk:
    """Replay and shape a chunk of logs (in a worker): the parent only concatenates."""
    files: list[Processed] = []
    columns: dict[str, Columns] = {}
    tags: dict[str, list[int]] = {}
    for i, src in enumerate(sources):
        p = process(src)
        for t, cols in p.rows.items():
            into = columns.get(t)
            if into is None:
                into = columns[t] = {c: [] for c in COLUMNS[t]}
            n = 0
            for c, values in cols.items():
                into[c].extend(values)
                n = len(values)
            tags.setdefault(t, []).extend([i] * n)
        p.now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        p.rows = {}
        files.append(p)
    frames = {t: to_frame(t, cols).with_columns(pl.Series("_file", tags[t], dtype=pl.Int32))
              for t, cols in columns.items() if tags[t]}
    return Chunk(files, frames)


class BatchWriter:
    """Inserts batches of chunks, one transaction (and one short connection) each."""

    def __init__(self, path: str, on_busy: Callable[[float], None] | None = None) -> None:
        self.path = path
        self.on_busy = on_busy
        self.batches = 0

    def known_shas(self) -> frozenset[str]:
        with writing(self.path, on_busy=self.on_busy) as con:
            return frozenset(r[0] for r in con.execute("SELECT sha256 FROM logs").fetchall())

    def write(self, batch: list[Chunk], summary: Summary) -> None:
        with writing(self.path, on_busy=self.on_busy) as con:
            self._write(con, batch, summary)

    def _write(self, con: duckdb.DuckDBPyConnection, batch: list[Chunk],
               summary: Summary) -> None:
        files = [p for c in batch for p in c.files]
        shas = [p.sha256 for p in files if p.sha256 and p.status != "already loaded"]
        present: set[str] = set()
        if shas:
            present = {r[0] for r in con.execute(
                "SELECT sha256 FROM logs WHERE sha256 IN (SELECT unnest(?))", [shas]).fetchall()}
        gids = [p.game_id for p in files if p.game_id]
        ids_present: dict[str, str] = {}
        if gids:
            ids_present = dict(con.execute(
                "SELECT game_id, file_name FROM games WHERE game_id IN (SELECT unnest(?))",
                [gids]).fetchall())
        parts: dict[str, list[pl.DataFrame]] = {}
        errors: list[tuple[Any, ...]] = []
        seen: set[str] = set()
        outcome: list[tuple[Processed, str]] = []
        for chunk in batch:
            keep: list[int] = []
            conflicts: dict[int, str] = {}
            for i, p in enumerate(chunk.files):
                if p.status == "already loaded" or (p.sha256 and (p.sha256 in present
                                                                  or p.sha256 in seen)):
                    outcome.append((p, "already loaded"))
                    continue
                if p.sha256:
                    seen.add(p.sha256)
                if p.game_id is not None and p.game_id in ids_present:
                    msg = (f"game id {p.game_id!r} is already loaded from "
                           f"{ids_present[p.game_id]}; these bytes differ (give the log "
                           f"another 'id' to load both)")
                    conflicts[i] = msg
                    errors.append((p.name, p.sha256, "conflict", None, msg, p.now))
                    p.status, p.line, p.message = "conflict", None, msg
                    outcome.append((p, "conflict"))
                    continue
                if p.game_id is not None:
                    ids_present[p.game_id] = p.name
                keep.append(i)
                outcome.append((p, p.status))
            for t, frame in chunk.frames.items():
                part = frame.filter(pl.col("_file").is_in(keep)) if len(keep) < len(
                    chunk.files) else frame
                parts.setdefault(t, []).append(part)
            if conflicts and "logs" in chunk.frames:
                # a conflicting log's text is kept, marked as such; its facts are not
                logs = chunk.frames["logs"].filter(pl.col("_file").is_in(list(conflicts)))
                msgs = logs["_file"].replace_strict(conflicts, return_dtype=pl.Utf8)
                parts["logs"].append(logs.with_columns(
                    status=pl.lit("conflict"), error_line=pl.lit(None, dtype=pl.Int32),
                    error_message=msgs))
        if errors:
            cols = {c: [row[i] for row in errors] for i, c in enumerate(COLUMNS["ingest_errors"])}
            parts.setdefault("ingest_errors", []).append(
                to_frame("ingest_errors", cols).with_columns(
                    pl.lit(0, dtype=pl.Int32).alias("_file")))
        con.execute("BEGIN TRANSACTION").fetchall()
        try:
            for t in schema.TABLES:
                frames = [f for f in parts.get(t, []) if f.height]
                if not frames:
                    continue
                self.insert(con, t, pl.concat(frames).drop("_file"))
            con.execute("COMMIT").fetchall()
            self.batches += 1
        except BaseException:
            con.execute("ROLLBACK").fetchall()
            raise
        self.count(outcome, summary)

    def insert(self, con: duckdb.DuckDBPyConnection, table: str, frame: pl.DataFrame) -> None:
        """One table's rows of a batch, by column name, inside the batch's transaction."""
        con.register("incoming", frame.to_arrow())
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming").fetchall()
        con.unregister("incoming")

    @staticmethod
    def count(outcome: list[tuple[Processed, str]], summary: Summary) -> None:
        for p, status in outcome:
            if summary.keep_all or p.disputed or \
                    status not in ("complete", "incomplete", "sheet", "already loaded"):
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
            summary.disputed += p.disputed > 0
            setattr(summary, status, getattr(summary, status) + 1)


CHUNK = 25


def ingest(sources: list[Source], path: str, jobs: int | None = None,
           batch_size: int = 500, progress: Callable[[int, int], None] | None = None,
           on_busy: Callable[[float], None] | None = None, keep_all: bool = True) -> Summary:
    """Load `sources` into the database at `path`. Replays on `jobs` processes; writes
    batches of about `batch_size` logs, each in one transaction. With `keep_all` false,
    `summary.results` lists only illegal, unreadable and conflicting logs."""
    t0 = time.perf_counter()
    summary = Summary(keep_all=keep_all)
    writer = BatchWriter(path, on_busy)
    known = writer.known_shas()
    jobs = jobs or os.cpu_count() or 1
    done = 0
    batch: list[Chunk] = []
    pending = 0
    for chunk in _chunks(sources, known, jobs, batch_size):
        batch.append(chunk)
        pending += len(chunk.files)
        if pending >= batch_size:
            writer.write(batch, summary)
            done += pending
            batch, pending = [], 0
            if progress:
                progress(done, len(sources))
    if batch:
        writer.write(batch, summary)
        done += pending
        if progress:
            progress(done, len(sources))
    summary.seconds = time.perf_counter() - t0
    return summary


def _chunks(sources: list[Source], known: frozenset[str], jobs: int,
            batch_size: int) -> Iterator[Chunk]:
    groups = [sources[i:i + CHUNK] for i in range(0, len(sources), CHUNK)]
    if jobs == 1 or len(sources) < 64:
        _init_worker(known)
        yield from map(process_chunk, groups)
        return
    # Pool.imap would queue every task at once and let finished chunks pile up while the
    # writer is busy; the semaphore bounds the chunks in flight (about one batch ahead, so
    # the workers keep replaying while a batch is written), and memory stays flat however
    # large the corpus.
    in_flight = threading.BoundedSemaphore(batch_size // CHUNK + 2 * jobs)
    stop = threading.Event()

    def feed() -> Iterator[list[Source]]:
        for g in groups:
            while not in_flight.acquire(timeout=0.1):
                if stop.is_set():  # the consumer went away (an error): feed no more
                    return
            yield g

    # forkserver, not fork: the caller may run threads (Streamlit, DuckDB, polars) whose
    # locks a forked child would inherit held
    with get_context("forkserver").Pool(jobs, initializer=_init_worker,
                                         initargs=(known,)) as pool:
        try:
            for chunk in pool.imap(process_chunk, feed()):
                yield chunk
                in_flight.release()
        finally:
            stop.set()


def record_missing(missing: list[tuple[str, str]], path: str) -> None:
    """Arguments that named nothing are errors too, recorded where a user will look."""
    if not missing:
        return
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    with writing(path) as con:
        con.executemany("INSERT INTO ingest_errors VALUES (?, NULL, 'unreadable', NULL, ?, ?)",
                        [(name, msg, now) for name, msg in missing])
