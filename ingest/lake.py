"""The Parquet lake: a folder any Parquet reader opens, made consistent by a manifest.

    lake/
      _manifest/00000001.json      one per committed batch, in order (see `commit`)
      _staging/                    files being written; never under a table folder
      _lock                        held by the one process that commits
      logs/game=plotters/ingest_date=2026-11-26/part-<sha256 of the file>.parquet
      plays/game=rage/ingest_date=2026-11-26/part-....parquet
      ...

Every table of docs/schema.md is a folder (the derived ones, which `analyse --lake`
replaces whole, too), hive-partitioned by game and ingest date
(a log without a game, an unreadable one, sits in `game=__HIVE_DEFAULT_PARTITION__`).
Workers write their files in `_staging/`; the committer moves a batch's files into the
table folders and then writes the batch's manifest: it is written under a temporary
name, flushed to disk and hard-linked to the next sequence number, so it appears whole
or not at all, and two committers can never take the same number. A batch is part of
the lake exactly when its manifest is: readers build their views from the files the
manifests list, and the logs the manifests list are the ones already loaded. Files no
manifest lists (a crashed batch's) and everything in `_staging/` are deleted by the next
committer before it starts. Every table has a file once its first committer closes
(an empty one until it has rows), so a plain glob of any table reads; compaction (a step
of its own, `compact`, never part of a load unless asked for) swaps a partition's files
in one rename, so a plain glob never counts a row twice.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import errno
import fcntl
import hashlib
import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from . import analytics, schema
from .batch import NO_GAME, STAGING, Done, Outcome, Recorded, write_parquet
from .executors import die_with

MANIFEST = "_manifest"
COMPACT_MIN_FILES = 16  # a partition with this many small files is merged into one
COMPACT_SMALL_BYTES = 64 * 1024 * 1024
LOCK = "_lock"
SWAPS = ("compact-", "derived-")  # staged folders (and intents) of folder swaps
LOADED = ("complete", "incomplete", "illegal", "sheet")  # a log whose facts are in
FORMAT = "trickledger-lake/1"


class LakeError(RuntimeError):
    """The folder is not a lake this trickledger can read (missing, or newer)."""


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def manifests(lake: str) -> list[str]:
    d = os.path.join(lake, MANIFEST)
    if not os.path.isdir(d):
        return []
    return sorted(n for n in os.listdir(d) if n.endswith(".json") and n[:8].isdigit())


def seq_of(lake: str) -> int:
    """The last committed batch's number (0: an empty lake); cheap, for cache checks."""
    names = manifests(lake)
    return int(names[-1][:8]) if names else 0


def is_lake(path: str) -> bool:
    return os.path.isdir(os.path.join(path, MANIFEST))


@dataclass
class State:
    """What the committed manifests say: the files of each table, and every log."""

    seq: int = 0
    files: dict[str, list[str]] = field(default_factory=dict)  # table -> paths in the lake
    sizes: dict[str, int] = field(default_factory=dict)  # path -> bytes
    loaded: set[str] = field(default_factory=set)  # sha256 of logs whose facts are in
    recorded: dict[str, Recorded] = field(default_factory=dict)  # not loaded
    ids: dict[str, str] = field(default_factory=dict)  # game id -> the file it came from
    compactions: set[str] = field(default_factory=set)  # ids of published compactions

    def apply(self, m: dict[str, Any]) -> None:
        v = m.get("schema_version", schema.SCHEMA_VERSION)
        if v > schema.SCHEMA_VERSION:
            raise LakeError(f"the lake has schema version {v}, newer than this trickledger "
                            f"({schema.SCHEMA_VERSION}); upgrade trickledger")
        for t, entries in m.get("add", {}).items():
            self.files.setdefault(t, []).extend(e["path"] for e in entries)
            self.sizes.update((e["path"], e["bytes"]) for e in entries)
        for t, paths in m.get("remove", {}).items():
            gone = set(paths)
            self.files[t] = [p for p in self.files.get(t, []) if p not in gone]
            for p in gone:
                self.sizes.pop(p, None)
        for entry in m.get("logs", []):
            sha, status = entry["sha256"], entry["status"]
            if status in LOADED:
                self.loaded.add(sha)
                self.recorded.pop(sha, None)
                if entry.get("game_id") is not None:
                    self.ids[entry["game_id"]] = entry["file"]
            elif sha is not None:
                self.recorded[sha] = (status, entry.get("line"), entry.get("message"))
        if "compaction" in m:
            self.compactions.add(m["compaction"]["id"])
        self.seq = m.get("seq", self.seq)


def read_state(lake: str, index: bool = True, pending: bool = True) -> State:
    """Replay the manifests in order. `index`: also keep every log (for a committer);
    `pending`: also a compaction swapped in but not yet published (for a reader)."""
    st = State()
    for name in manifests(lake):
        with open(os.path.join(lake, MANIFEST, name), "rb") as f:
            m = json.load(f)
        if not index:
            m = {k: v for k, v in m.items() if k != "logs"}
        st.apply(m)
    # a compaction swapped in whose committer died before publishing it: its files are
    # the partition's now, so readers take it as published (the next committer does)
    staging = os.path.join(lake, STAGING)
    if pending and os.path.isdir(staging):
        for n in sorted(os.listdir(staging)):
            if n.startswith(SWAPS) and n.endswith(".json"):
                body = _pending(lake, os.path.join(staging, n), st)
                if body is not None:
                    st.apply(body)
    return st


class LakeWriter:
    """The one committer of a lake (holds `_lock` while it lives)."""

    def __init__(self, lake: str) -> None:
        self.lake = os.path.abspath(lake)
        os.makedirs(os.path.join(self.lake, MANIFEST), exist_ok=True)
        os.makedirs(os.path.join(self.lake, STAGING), exist_ok=True)
        self._lock = open(os.path.join(self.lake, LOCK), "a+")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise LakeError(f"{self.lake} is busy: another trickledger ingest is writing "
                            f"to it") from None
        self.state = read_state(self.lake, pending=False)
        self.recover()

    def close(self) -> None:
        try:
            # after the batches, so that a table that got rows needs no empty file
            self._every_table()
        finally:
            self._lock.close()

    def recover(self) -> list[str]:
        """Before this committer's first batch: settle a crashed committer's compaction,
        then delete what no manifest lists (files a crashed committer had moved into a
        table folder) and everything in `_staging/` (files of a crashed run: a killed
        worker's `.tmp`, a killed committer's staged Parquet; this run's workers have not
        started, and a straggler of a dead run that writes later is left for the next
        committer). Returns what it deleted, relative to the lake."""
        self._settle()
        live = {p for paths in self.state.files.values() for p in paths}
        removed: list[str] = []
        for table in every_table():
            root = os.path.join(self.lake, table)
            for dirpath, _, names in os.walk(root):
                for n in names:
                    full = os.path.join(dirpath, n)
                    rel = os.path.relpath(full, self.lake)
                    if rel not in live:
                        os.unlink(full)
                        removed.append(rel)
        staging = os.path.join(self.lake, STAGING)
        for n in os.listdir(staging):
            full = os.path.join(staging, n)
            try:
                if os.path.isdir(full) and not os.path.islink(full):
                    shutil.rmtree(full)
                else:
                    os.unlink(full)
                removed.append(os.path.join(STAGING, n))
            except FileNotFoundError:
                pass
        return removed

    def _every_table(self) -> None:
        """Give each table with no file yet an empty one (its columns, no row), so that
        a plain glob of any table reads on a fresh lake: DuckDB, polars and pyarrow
        refuse a pattern that matches no file."""
        empty = [t for t in every_table() if not self.state.files.get(t)]
        if not empty:
            return
        day = dt.datetime.now(dt.UTC).date().isoformat()
        parts = [write_parquet(_empty(t), self.lake, t, None, day, True) for t in empty]
        self.commit([Done(-1, [], parts, day)])

    def commit(self, dones: list[Done]) -> int:
        """Make a batch (its chunks) part of the lake: its files into their partitions,
        then its manifest (the moment it becomes visible). Returns its sequence number; a
        batch that adds nothing new commits nothing (and returns the last number)."""
        add: dict[str, list[dict[str, Any]]] = {}
        dirs: set[str] = set()
        parts = [(d, part) for d in dones for part in d.parts]
        outcomes = [o for d in dones for o in d.outcomes]
        for done, part in parts:
            name = os.path.basename(part.path).split("-", 1)[1]
            rel = os.path.join(part.table, f"game={part.game or NO_GAME}",
                               f"ingest_date={done.day}", f"part-{name}")
            target = os.path.join(self.lake, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.rename(os.path.join(self.lake, part.path), target)
            dirs.add(os.path.dirname(target))
            add.setdefault(part.table, []).append({"path": rel, "rows": part.rows,
                                                   "bytes": part.bytes})
        for d in dirs:
            _fsync_dir(d)
        logs = [{"sha256": o.sha256, "file": o.name, "status": o.status,
                 "game_id": o.game_id, **({"line": o.line, "message": o.message}
                                          if o.status not in LOADED else {})}
                for o in outcomes
                if o.status != "already loaded" and (o.sha256 is not None or o.status ==
                                                     "unreadable")
                and not self._known(o)]
        if not add and not logs:
            # nothing new (an idle re-ingest): no manifest, so reruns of the same command
            # do not pile up empty ones for every reader to replay
            return self.state.seq
        body = {"format": FORMAT, "schema_version": schema.SCHEMA_VERSION, "kind": "batch",
                "committed_at": time.time(), "add": add, "logs": logs}
        seq = self._publish(body)
        body["seq"] = seq
        self.state.apply(body)
        return seq

    def _known(self, o: Outcome) -> bool:
        """A log not loaded that an earlier manifest records just so (reported again)."""
        return (o.sha256 is not None and o.status not in LOADED
                and self.state.recorded.get(o.sha256) == (o.status, o.line, o.message))

    def compact(self, min_files: int = COMPACT_MIN_FILES,
                small_bytes: int = COMPACT_SMALL_BYTES) -> int:
        """Merge the small files of every partition that has `min_files` of them into one
        file (DuckDB reads and writes them; no row passes through Python), one partition
        at a time, each swapped in whole (see `_compact_partition`). Returns the number
        of files merged."""
        groups: dict[tuple[str, str], list[str]] = {}
        for table, paths in self.state.files.items():
            for p in paths:
                if self.state.sizes.get(p, 0) < small_bytes:
                    groups.setdefault((table, os.path.dirname(p)), []).append(p)
        todo = {k: v for k, v in groups.items() if len(v) >= min_files}
        merged = 0
        if not todo:
            return 0
        # DuckDB merges in a process of its own (its buffers, hundreds of MB, never in the
        # committer's memory); the steps that make it crash-safe stay here, in order
        with ProcessPoolExecutor(1, mp_context=get_context("forkserver"),
                                 initializer=die_with, initargs=(os.getpid(),)) as merger:
            for (table, folder), paths in sorted(todo.items()):
                if not self._compact_partition(merger, table, folder, paths):
                    break  # this filesystem cannot swap folders: leave the files as they are
                merged += len(paths)
        return merged

    def _compact_partition(self, merger: ProcessPoolExecutor, table: str, folder: str,
                           paths: list[str]) -> bool:
        """Replace a partition's small files by one merged file so that no reader ever
        sees both, or neither, even across a crash at any instant:

        1. a new folder in `_staging/` gets the merged file and a hard link of every
           file the partition keeps; the compaction's manifest body is saved beside it
           (the intent);
        2. that folder and the partition's are exchanged in one rename (RENAME_EXCHANGE):
           a glob lists either the old files or the new ones, never both;
        3. the manifest is published (readers of the manifests switch);
        4. the old files (now in `_staging/`) and the intent are deleted.

        A crash before 2 leaves the partition as it was (the next committer deletes the
        staged folder); after 2, the intent says what happened: readers apply it as if
        published, and the next committer publishes it (see `_settle`). Returns False
        when the filesystem cannot exchange folders (nothing changed)."""
        cid = uuid.uuid4().hex
        work = os.path.join(self.lake, STAGING, f"compact-{cid}")
        os.mkdir(work)
        tmp = os.path.join(work, "merged.tmp")
        try:
            rows = merger.submit(_merge, table, [os.path.join(self.lake, p) for p in paths],
                                 tmp).result()
        except BrokenProcessPool:
            # the merger was killed (the kernel's out-of-memory killer): nothing of this
            # partition was swapped, the partitions merged before it stay merged
            shutil.rmtree(work, ignore_errors=True)
            raise LakeError(f"compacting {folder}: the process merging its {len(paths)} "
                            f"files died (out of memory?); that partition is as it was"
                            ) from None
        name = f"part-{_file_sha256(tmp)[:32]}.parquet"
        os.rename(tmp, os.path.join(work, name))
        rel = os.path.join(folder, name)
        partition = os.path.join(self.lake, folder)
        gone = {os.path.basename(p) for p in paths}
        for n in os.listdir(partition):
            if n not in gone:
                os.link(os.path.join(partition, n), os.path.join(work, n))
        _fsync_dir(work)
        body: dict[str, Any] = {
            "format": FORMAT, "schema_version": schema.SCHEMA_VERSION, "kind": "compact",
            "committed_at": time.time(),
            "add": {table: [{"path": rel, "rows": rows,
                             "bytes": os.path.getsize(os.path.join(work, name))}]},
            "remove": {table: paths}, "logs": [],
            "compaction": {"id": cid, "merged": rel}}
        return self._swap(work, partition, body)

    def _swap(self, work: str, folder: str, body: dict[str, Any]) -> bool:
        """Steps 1-4 of `_compact_partition`: `work` (in `_staging/`) takes the place of
        `folder`, and `body` (its manifest, naming `compaction.merged`, a file that is in
        `work`) is published. False when the filesystem cannot exchange folders."""
        intent = work + ".json"
        _write_whole(intent, body)
        try:
            _exchange(work, folder)
        except OSError:
            _drop_staged(work, intent)
            return False
        _fsync_dir(os.path.dirname(folder))
        _fsync_dir(os.path.dirname(work))
        body["seq"] = self._publish(body)
        self.state.apply(body)
        # a reader whose views predate the manifest rebuilds them on its next query (a
        # query running at this very moment may fail once: its files moved)
        _drop_staged(work, intent)
        return True

    def replace_derived(self, table: str, rows: pa.Table) -> None:
        """Make `rows` the whole of a derived table (ratings, hand estimates: what
        `analyse --lake` computes), swapped in like a compaction: one file in the table's
        folder instead of the old ones, which no reader sees together."""
        cid = uuid.uuid4().hex
        work = os.path.join(self.lake, STAGING, f"derived-{cid}")
        day = dt.datetime.now(dt.UTC).date().isoformat()
        inner = os.path.join(f"game={NO_GAME}", f"ingest_date={day}")
        os.makedirs(os.path.join(work, inner))
        tmp = os.path.join(work, "rows.tmp")
        pq.write_table(rows, tmp, compression="zstd")
        name = f"part-{_file_sha256(tmp)[:32]}.parquet"
        os.rename(tmp, os.path.join(work, inner, name))
        _fsync_dir(os.path.join(work, inner))
        rel = os.path.join(table, inner, name)
        folder = os.path.join(self.lake, table)
        os.makedirs(folder, exist_ok=True)
        body: dict[str, Any] = {
            "format": FORMAT, "schema_version": schema.SCHEMA_VERSION, "kind": "derived",
            "committed_at": time.time(),
            "add": {table: [{"path": rel, "rows": rows.num_rows,
                             "bytes": os.path.getsize(os.path.join(work, inner, name))}]},
            "remove": {table: list(self.state.files.get(table, []))}, "logs": [],
            "compaction": {"id": cid, "merged": rel}}
        if not self._swap(work, folder, body):
            raise LakeError(f"{self.lake}: this filesystem cannot swap folders in one step "
                            f"(renameat2 RENAME_EXCHANGE), which replacing a derived table "
                            f"needs")

    def _settle(self) -> None:
        """Finish or undo the compactions a crashed committer left (see
        `_compact_partition`): published, or swapped in (its merged file is in place):
        publish if need be and delete the old files; not swapped: delete the staged
        folder."""
        staging = os.path.join(self.lake, STAGING)
        for n in sorted(os.listdir(staging)):
            if not (n.startswith(SWAPS) and n.endswith(".json")):
                continue
            intent = os.path.join(staging, n)
            body = _pending(self.lake, intent, self.state)
            if body is not None:
                body["seq"] = self._publish(body)
                self.state.apply(body)
            _drop_staged(intent.removesuffix(".json"), intent)

    def _publish(self, body: dict[str, Any]) -> int:
        mdir = os.path.join(self.lake, MANIFEST)
        while True:
            seq = seq_of(self.lake) + 1
            body["seq"] = seq
            tmp = os.path.join(self.lake, STAGING, f"manifest-{uuid.uuid4().hex}.tmp")
            with open(tmp, "w") as f:
                json.dump(body, f, separators=(",", ":"))
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, os.path.join(mdir, f"{seq:08d}.json"))  # atomic; fails if taken
            except FileExistsError:
                continue
            finally:
                os.unlink(tmp)
            _fsync_dir(mdir)
            return seq


def compact(lake: str, min_files: int = COMPACT_MIN_FILES) -> int:
    """`trickledger compact --lake DIR`: merge the small files of every partition that has
    `min_files` of them, as the lake's one committer (LakeError while an ingest or
    analysis holds it). A step of its own, off the load path: an ingest leaves its
    files as they are unless asked (`ingest --compact`). Returns the files merged."""
    if not is_lake(lake):
        raise LakeError(f"{os.path.abspath(lake)}: not a trickledger lake (no {MANIFEST} "
                        f"folder); make one with trickledger ingest SOURCE --lake {lake}")
    writer = LakeWriter(lake)
    try:
        return writer.compact(min_files=min_files)
    finally:
        writer.close()


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
        os.fsync(f.fileno())
    return h.hexdigest()


def _merge(table: str, sources: list[str], out: str) -> int:
    """In the compaction's process: the rows of `sources` (Parquet files of `table`) into
    one zstd file `out`, by DuckDB (no row passes through Python); its number of rows."""
    con = duckdb.connect(":memory:", config={"memory_limit": "256MB",
                                             "autoinstall_known_extensions": False,
                                             "autoload_known_extensions": False})
    try:
        names = ", ".join(f'"{c}"' for c, _ in schema.TABLES[table])
        con.execute(f"COPY (SELECT {names} FROM read_parquet({_sql_list(sources)}, "
                    f"hive_partitioning=false)) TO {_sql_list([out])[1:-1]} "
                    f"(FORMAT parquet, COMPRESSION zstd)")
        return _rows(con, out)
    finally:
        con.close()


def _rows(con: duckdb.DuckDBPyConnection, path: str) -> int:
    row = con.execute("SELECT sum(num_rows) FROM parquet_file_metadata(?)", [path]).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _write_whole(path: str, body: dict[str, Any]) -> None:
    """Write a JSON file that appears whole or not at all (temporary name, fsync, rename)."""
    tmp = f"{path}.{uuid.uuid4().hex}.tmp"
    with open(tmp, "w") as f:
        json.dump(body, f, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())
    os.rename(tmp, path)
    _fsync_dir(os.path.dirname(path))


_RENAME_EXCHANGE = 2  # linux/fs.h


def _exchange(a: str, b: str) -> None:
    """Swap two folders in one step (Linux renameat2 RENAME_EXCHANGE; OSError where the
    system or filesystem cannot)."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available")
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), a)


def _drop_staged(folder: str, intent: str) -> None:
    """The last step of a compaction: its leftover folder, then its intent."""
    shutil.rmtree(folder, ignore_errors=True)
    try:
        os.unlink(intent)
    except FileNotFoundError:
        pass


def _pending(lake: str, intent: str, st: State) -> dict[str, Any] | None:
    """A compaction's manifest body that was swapped in but not yet published (None: it
    is published, was never swapped in, or the intent is unreadable: a crash while it
    was being written, before the swap)."""
    try:
        with open(intent, "rb") as f:
            body: dict[str, Any] = json.load(f)
        cid, merged = body["compaction"]["id"], body["compaction"]["merged"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if cid in st.compactions or not os.path.exists(os.path.join(lake, merged)):
        return None
    return body


def discard(lake: str, done: Done) -> None:
    """Delete a batch's staged files (a batch that is run again, or given up)."""
    for part in done.parts:
        try:
            os.unlink(os.path.join(lake, part.path))
        except FileNotFoundError:
            pass


# ------------------------------------------------------------------ reading


def every_table() -> dict[str, list[tuple[str, str]]]:
    """The loader's tables and the analyses' (derived) ones: every folder of a lake."""
    return {**schema.TABLES, **analytics.DERIVED_TABLES}


def _empty(table: str) -> pa.Table:
    """A table's columns with no row, typed as DuckDB types them."""
    con = duckdb.connect(":memory:")
    try:
        return con.sql(_typed_nulls(table)).to_arrow_table()
    finally:
        con.close()


def _sql_list(paths: Iterable[str]) -> str:
    return "[" + ", ".join("'" + p.replace("'", "''") + "'" for p in paths) + "]"


def _typed_nulls(table: str) -> str:
    cols = ", ".join(f'CAST(NULL AS {ty.removesuffix(" PRIMARY KEY")}) AS "{c}"'
                     for c, ty in every_table()[table])
    return f"SELECT {cols} WHERE false"


def connect(lake: str, memory_limit: str = "512MB") -> duckdb.DuckDBPyConnection:
    """See console_connection: the dashboard's and `sql --lake`'s connection."""
    return console_connection(lake, {"memory_limit": memory_limit, "temp_directory": ""})


def console_connection(lake: str, config: dict[str, Any]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB whose tables are views over exactly the committed files, with
    the schema's analytics views on top, locked so that queries read inside the lake and
    nowhere else: no other file, no network, no extension, no setting changed, no temp
    folder. (Pair it with ingest.sql's statement gate: the lock restricts where, not
    what, so a COPY into the lake would otherwise be allowed.)"""
    lake = os.path.abspath(lake)
    if not is_lake(lake):
        raise LakeError(f"{lake}: not a trickledger lake (no {MANIFEST} folder); make one "
                        f"with trickledger ingest SOURCE --lake {lake}")
    st = read_state(lake, index=False)
    # external access is switched off below, once the views exist (they are bound to
    # the lake's files first); `config` adds the caller's limits (memory, threads, spill)
    config = {k: v for k, v in config.items() if k not in ("enable_external_access",
                                                          "lock_configuration")}
    con = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False,
                                             "autoload_known_extensions": False, **config})
    for table, cols in schema.TABLES.items():
        files = st.files.get(table)
        if files:
            names = ", ".join(f'"{c}"' for c, _ in cols)
            src = (f"read_parquet({_sql_list(os.path.join(lake, p) for p in files)}, "
                   f"hive_partitioning=false)")
            con.execute(f"CREATE VIEW {table} AS SELECT {names} FROM {src}")
        else:
            con.execute(f"CREATE VIEW {table} AS {_typed_nulls(table)}")
    con.execute(f"CREATE VIEW schema_version AS SELECT {schema.SCHEMA_VERSION} AS version, "
                f"CAST(NULL AS TIMESTAMP) AS applied_at")
    # the derived tables (ratings, hand estimates) that `analyse --lake` committed, as
    # in-memory tables (the analytics layer's CREATE TABLE IF NOT EXISTS then leaves
    # them; without any, they start empty); then the analytics layer as in a file
    for table, cols in analytics.DERIVED_TABLES.items():
        files = st.files.get(table)
        if files:
            names = ", ".join(f'"{c}"' for c, _ in cols)
            con.execute(f"CREATE TABLE {table} AS SELECT {names} FROM read_parquet("
                        f"{_sql_list(os.path.join(lake, p) for p in files)}, "
                        f"hive_partitioning=false)")
    analytics.write_judge_method(con)
    for sql in analytics.statements(materialized=False):  # summaries: views over the lake
        con.execute(sql)
    con.execute("SET allowed_directories = $1", [[lake + "/"]])
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


@contextmanager
def reading(lake: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short read-only view of the lake as it is now (like ingest.db.reading)."""
    con = connect(lake)
    try:
        yield con
    finally:
        con.close()


class Reader:
    """One lake connection kept while the lake does not change (the dashboard's: building
    the views reads every manifest); rebuilt when a new batch is committed."""

    def __init__(self, lake: str) -> None:
        self.lake = os.path.abspath(lake)
        self.seq = -1
        self.con: duckdb.DuckDBPyConnection | None = None
        self._rebuild = threading.Lock()

    def get(self) -> duckdb.DuckDBPyConnection:
        """The current connection; callers query through their own `.cursor()` of it. An
        older connection is not closed here: another thread's cursor may still read it
        (it goes when the last one does)."""
        seq = seq_of(self.lake)
        with self._rebuild:
            if self.con is None or seq != self.seq:
                self.con = connect(self.lake)
                self.seq = seq
            return self.con


class Analysis:
    """`analyse --lake`: the lake as a reader sees it, with its derived tables writable in
    memory; each `writing()` block commits the derived tables into the lake when it ends
    (so an interrupted run keeps what it committed, as in a database file). Holds the
    lake's `_lock`: no ingest runs meanwhile."""

    def __init__(self, lake: str) -> None:
        self.writer = LakeWriter(lake)
        try:
            self.con = connect(lake)
        except BaseException:
            self.writer.close()
            raise

    @contextmanager
    def reading(self) -> Iterator[duckdb.DuckDBPyConnection]:
        cur = self.con.cursor()
        try:
            yield cur
        finally:
            cur.close()

    @contextmanager
    def writing(self) -> Iterator[duckdb.DuckDBPyConnection]:
        before = self._fingerprints()
        cur = self.con.cursor()
        try:
            yield cur
        finally:
            cur.close()
        for table, fp in self._fingerprints().items():
            if fp != before[table]:
                cur = self.con.cursor()
                try:
                    rows = cur.sql(f"SELECT * FROM {table}").to_arrow_table()
                finally:
                    cur.close()
                self.writer.replace_derived(table, rows)

    def _fingerprints(self) -> dict[str, tuple[int, int]]:
        out = {}
        cur = self.con.cursor()
        try:
            for table in analytics.DERIVED_TABLES:
                n, h = cur.execute(f"SELECT count(*), coalesce(sum(hash(t)), 0) FROM {table} t"
                                   ).fetchall()[0]
                out[table] = (int(n), int(h))
        finally:
            cur.close()
        return out

    def close(self) -> None:
        self.con.close()
        self.writer.close()
