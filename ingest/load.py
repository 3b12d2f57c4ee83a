"""Loading logs: batches replayed by workers into Parquet files, committed one at a time.

Workers (local processes, or a Dask cluster) run `ingest.batch.run_batch` on a batch of
logs and write one Parquet file per table. The parent only commits, in input order:

- into the embedded DuckDB file: one transaction per batch, one
  `INSERT INTO t BY NAME SELECT * FROM read_parquet(...)` per table (DuckDB reads and
  inserts on all cores), the staged files deleted afterwards; through one connection
  kept for the whole run, which lets go of the file between batches whenever another
  process waits for it (see `DatabaseWriter`);
- or into a lake folder (`ingest.lake`): the files moved into their partitions, then
  the batch's manifest.

Before committing, the parent checks what the worker could not know: a log loaded since
the run started (by an earlier batch of this run, or by another process), a game id
taken by other bytes, a log recorded before as unreadable or conflicting. If there is
any, the batch runs again with that knowledge: the parent never touches a row. A log is
identified by the SHA-256 of its bytes; "already loaded" means its facts are in.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import signal
import socket
import stat
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from . import schema
from .admin import Actor, record
from .batch import STAGING, Done, Outcome, Recorded, Source, Task, to_arrow, write_parquet
from .db import (
    open_db,
    others_waiting,
    owner_of,
    owner_tag,
    process_gone,
    remove_tree,
    writing,
    yield_to_writers,
)
from .lake import LOADED, LakeWriter, discard
from .sources import expand
from .transactions import transaction

__all__ = ["IngestInterrupted", "Source", "StorageFailed", "Summary", "expand",
           "ingest", "record_missing"]


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
    quarantined: int = 0  # bytes an admin quarantined: reported, not loaded
    disputed: int = 0  # loaded logs whose claims do not all match
    events: int = 0
    seconds: float = 0.0
    batches: int = 0
    reruns: int = 0
    results: list[Outcome] = field(default_factory=list)
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
                + (f", quarantined {self.quarantined}" if self.quarantined else "")
                + (f", disputed {self.disputed}" if self.disputed else "")
                + f"; {self.events} events in {self.seconds:.1f} s "
                  f"({self.events_per_s:,.0f} events/s)")

    def count(self, outcomes: list[Outcome]) -> None:
        for o in outcomes:
            if self.keep_all or o.disputed or \
                    o.status not in ("complete", "incomplete", "sheet", "already loaded"):
                self.results.append(o)
            if o.status == "already loaded":
                self.already += 1
            elif o.status == "conflict":
                self.conflicts += 1
            elif o.status == "unreadable":
                self.unreadable += 1
            elif o.status == "quarantined":
                self.quarantined += 1
            else:
                self.events += o.events
                self.loaded += 1
                self.disputed += o.disputed > 0
                setattr(self, o.status, getattr(self, o.status) + 1)


class IngestInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) stopped the run: still a KeyboardInterrupt (a script or notebook that
    stops on one stops on this), with `summary`, the counts of the batches committed before
    it, each whole: what was loaded stays, and the same sources again load the rest."""

    def __init__(self, summary: Summary, message: str = "interrupted") -> None:
        super().__init__(message)
        self.summary = summary


class StorageFailed(Exception):
    """The file system under the database or lake failed the run: full, over its quota,
    read-only, or an I/O error. The message names the file system, in one line; `summary`
    counts the batches committed before it, as for IngestInterrupted."""

    def __init__(self, summary: Summary, message: str) -> None:
        super().__init__(message)
        self.summary = summary


# errno values that mean the machine, not the input, failed a write
STORAGE_ERRNOS = {errno.ENOSPC: "full", errno.EDQUOT: "over its quota",
                  errno.EROFS: "read-only", errno.EIO: "failing (an input/output error)",
                  errno.EFBIG: "refusing a file that large"}


def storage_failure(error: BaseException) -> str | None:
    """What the file system did, when `error` (or an error it came from) is a failed write
    of the machine's: an OSError with one of STORAGE_ERRNOS, or DuckDB's error about one
    (DuckDB says it in words: "No space left on device")."""
    seen: set[int] = set()
    e: BaseException | None = error
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        if isinstance(e, OSError) and e.errno in STORAGE_ERRNOS:
            return STORAGE_ERRNOS[e.errno]
        if isinstance(e, duckdb.Error):
            text = str(e)
            for code, what in STORAGE_ERRNOS.items():
                if os.strerror(code) in text:
                    return what
        e = e.__cause__ or e.__context__
    return None


def file_system_of(path: str) -> str:
    """The mount point of the file system `path` is on (or would be, for a path not made
    yet)."""
    mount = os.path.abspath(path)
    while not os.path.exists(mount) and os.path.dirname(mount) != mount:
        mount = os.path.dirname(mount)
    while not os.path.ismount(mount) and os.path.dirname(mount) != mount:
        mount = os.path.dirname(mount)
    return mount


class _Interrupts:
    """SIGINT during a run, in the main thread (a terminal's Ctrl-C, a notebook's
    interrupt). While the run works it stops the run at once: raised as KeyboardInterrupt
    where Python runs (a wait for the workers), and, where DuckDB runs a statement (which
    looks at Python's signals only now and then), through `on_signal` (the writer's
    `interrupt`), called from a thread of its own that hears the signal the moment it
    comes (Python's wakeup file descriptor), again until the run has stopped. From the
    COMMIT of a batch until it is counted (`hold`), and once the run cleans up (its
    connection closes and checkpoints, its staged files go), it is only noted, so that
    what the run says it loaded is what was committed and a second Ctrl-C cannot leave a
    half-done cleanup. A process that ignores SIGINT (started in the background, a
    dashboard job) keeps ignoring it.

    The KeyboardInterrupt alone is not trusted to stop the run: DuckDB 2.0 runs Python's
    handler while a statement starts and then may drop the exception it raised, the
    statement running on. So the signal's thread interrupts DuckDB until the run itself
    says it stopped (`stop_raising`, `hold`), not until the handler has raised, and a batch
    whose block ends after a Ctrl-C is not committed."""

    RETRY_S = 0.05  # how often the signal's thread interrupts DuckDB again until it stops

    def __init__(self) -> None:
        self.seen = False
        self.raising = True  # the run works: Ctrl-C stops it (not held, not cleaning up)
        self.raised = False  # the handler raised KeyboardInterrupt (it does so once)
        self.on_signal: Callable[[], None] | None = None
        self._previous: Any = None
        self._installed = False
        self._holding = False
        self._lock = threading.Lock()  # raising and holding, against the signal's thread
        self._wakeup: tuple[socket.socket, socket.socket] | None = None
        self._old_wakeup = -1
        self._thread: threading.Thread | None = None

    def _on_sigint(self, signum: int, frame: Any) -> None:
        # no lock: the handler runs in the main thread, between two of its steps (maybe
        # inside a block that holds the lock), and only the main thread writes these
        self.seen = True
        if self.raising and not self.raised:  # once: the cleanup that follows runs to its end
            self.raised = True
            raise KeyboardInterrupt

    def check(self) -> None:
        """Between two steps of the run: a Ctrl-C seen while it works, whose
        KeyboardInterrupt DuckDB dropped, is raised here (a later Ctrl-C too)."""
        if self.seen and self.raising:
            self.raised = True
            raise KeyboardInterrupt

    def _hear(self, sock: socket.socket) -> None:
        """The signal's thread: on SIGINT, interrupt DuckDB until the run stops."""
        while True:
            try:
                got = sock.recv(64)
            except OSError:
                return
            if not got:
                return  # the run is over (__exit__ closed the other end)
            if signal.SIGINT not in got:
                continue
            self.seen = True
            while True:
                with self._lock:
                    if not self.raising:
                        break
                    if self.on_signal is not None:
                        try:
                            self.on_signal()
                        except Exception:  # a connection closing meanwhile: nothing to stop
                            pass
                time.sleep(self.RETRY_S)

    def __enter__(self) -> _Interrupts:
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if previous is signal.SIG_IGN:
            return self
        self._previous = previous
        signal.signal(signal.SIGINT, self._on_sigint)
        self._installed = True
        ours, theirs = socket.socketpair()
        theirs.setblocking(False)
        try:
            self._old_wakeup = signal.set_wakeup_fd(theirs.fileno(), warn_on_full_buffer=False)
        except ValueError:
            ours.close()
            theirs.close()
            return self
        self._wakeup = (ours, theirs)
        self._thread = threading.Thread(target=self._hear, args=(ours,), daemon=True,
                                        name="trickledger-ingest-sigint")
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self.raising = False
        if self._wakeup is not None:
            signal.set_wakeup_fd(self._old_wakeup)
            ours, theirs = self._wakeup
            theirs.close()  # the thread's recv ends
            if self._thread is not None:
                self._thread.join()
            ours.close()
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)

    def stop_raising(self) -> None:
        """The run cleans up from here: a SIGINT is only noted."""
        with self._lock:
            self.raising = False

    def hold(self) -> None:
        """From here until `release`, a SIGINT is only noted: a batch's COMMIT and its
        counting go together (what the run says it loaded is what was committed). A
        SIGINT already seen (its KeyboardInterrupt lost inside DuckDB) is raised instead:
        the batch is rolled back, not committed."""
        with self._lock:
            if not self.raising:
                return
            self.raising = False
            if not self.seen:
                self._holding = True
                return
            self.raised = True
        raise KeyboardInterrupt

    def release(self) -> None:
        """The end of `hold`: a SIGINT noted meanwhile is raised now."""
        with self._lock:
            if not self._holding:
                return
            self._holding = False
            if not self.seen:
                self.raising = True
                return
            self.raised = True
        raise KeyboardInterrupt


@dataclass
class Knowledge:
    """What is committed, or earlier in the same batch, about a chunk's logs."""

    loaded: set[str] = field(default_factory=set)
    recorded: dict[str, Recorded] = field(default_factory=dict)
    ids: dict[str, tuple[str, str]] = field(default_factory=dict)  # game id -> (sha, file)

    def add(self, done: Done) -> None:
        """A chunk that will be committed before the next one of the same batch."""
        for o in done.outcomes:
            if o.sha256 is None or o.status == "already loaded":
                continue
            if o.status in LOADED:
                self.loaded.add(o.sha256)
                if o.game_id is not None:
                    self.ids.setdefault(o.game_id, (o.sha256, o.name))
            else:
                self.recorded[o.sha256] = (o.status, o.line, o.message)


def needs_rerun(task: Task, done: Done, k: Knowledge) -> Task | None:
    """The chunk again, told what its worker could not know; None when it is right."""
    skip: set[str] = set()
    recorded: dict[str, Recorded] = {}
    ids: dict[str, str] = {}
    for o in done.outcomes:
        if o.sha256 is None or o.status == "already loaded":
            continue
        if o.sha256 in k.loaded:
            skip.add(o.sha256)
        elif o.sha256 in k.recorded and o.sha256 not in task.recorded:
            recorded[o.sha256] = k.recorded[o.sha256]
        elif o.status in LOADED and o.game_id is not None and o.game_id in k.ids:
            sha, file = k.ids[o.game_id]
            if sha != o.sha256:
                ids[o.game_id] = file
    if not (skip or recorded or ids):
        return None
    return replace(task, skip=task.skip | skip, recorded={**task.recorded, **recorded},
                   loaded_ids={**task.loaded_ids, **ids})


def reruns(tasks: list[Task], dones: list[Done], committed: Knowledge) -> dict[int, Task]:
    """The chunks of a batch that must run again (by position), each checked against what
    is committed and what the chunks before it in the batch hold."""
    k = Knowledge(set(committed.loaded), dict(committed.recorded), dict(committed.ids))
    out: dict[int, Task] = {}
    for i, (task, done) in enumerate(zip(tasks, dones)):
        again = needs_rerun(task, done, k)
        if again is not None:
            out[i] = again
        k.add(done)
    return out


Batch = tuple[list[Task], list[Done]]
YIELD_POLL_S = 0.05  # how often the database writer looks for another process's flag
GIVE_WAY_S = 10.0  # how long the writer waits, at most, for a waiting process to get in


class Committer(Protocol):
    out: str
    partition: bool

    def known(self) -> tuple[frozenset[str], dict[str, Recorded]]: ...

    def commit(self, tasks: list[Task], dones: list[Done],
               before_commit: Callable[[], None] | None = None) -> dict[int, Task]: ...

    def discard(self, done: Done) -> None: ...

    def interrupt(self) -> None: ...

    def summarise(self) -> None: ...

    def close(self, quietly: bool = False) -> None: ...


class DatabaseWriter:
    """Commits batches into the embedded DuckDB file, one transaction each, through one
    read-write connection kept for the whole run: no open, schema check and checkpoint per
    batch. DuckDB lets nobody else read a file while one process holds it read-write, so a
    reader or writer that finds it held raises a flag beside it (ingest.db.waiting_flag),
    and a watcher thread lets go of the file (DuckDB checkpoints on close) as soon as one
    appears while no commit runs; the next batch opens it again. With nobody waiting, the
    file is opened once and checkpointed once, at the end."""

    partition = False

    def __init__(self, path: str, on_busy: Callable[[float], None] | None = None,
                 audit_as: tuple[Actor, str] | None = None) -> None:
        self.path = path
        self.on_busy = on_busy
        self.audit_as = audit_as  # (who, action): each log's audit row, in its batch's commit
        self.batches = 0
        self.opens = 0  # connections opened: 1 for a whole run unless others waited
        self._con: duckdb.DuckDBPyConnection | None = None
        self._held = threading.Lock()  # the connection: taken by a commit or by letting go
        self._stop = threading.Event()
        self._watcher: threading.Thread | None = None
        # this run's own folder: two ingests into one file (their batches take turns on
        # the file) must not delete each other's staged files
        self.root = staging_root(path)
        # named after its process: the next run removes it at once if this one is killed
        self.out = os.path.join(self.root, f"{owner_tag()}-{uuid.uuid4().hex}")
        os.makedirs(os.path.join(self.out, STAGING), exist_ok=True)
        self._sweep()

    @contextmanager
    def _connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The run's connection, opened (waiting while another process holds the file) if
        the watcher let go of it; a block that raises lets go too, so that a connection
        DuckDB has invalidated is never used again."""
        with self._held:
            if self._con is not None and others_waiting(self.path):
                self._let_go(quietly=True)  # back-to-back commits leave the watcher no gap
            if self._con is None:
                # so that the next batch does not take the file back before the waiting
                # process's next try (readers retry up to half a second apart); bounded, so
                # a waiter that never gets in costs the ingest only a pause
                yield_to_writers(self.path, GIVE_WAY_S, readers_too=True)
                con = open_db(self.path, read_only=False, wait_s=60.0, on_busy=self.on_busy,
                              allow=self.out)
                try:
                    schema.create(con)
                except BaseException:
                    con.close()
                    raise
                self._con = con
                self.opens += 1
                if self._watcher is None:
                    self._watcher = threading.Thread(target=self._watch, daemon=True,
                                                     name="trickledger-writer-yields")
                    self._watcher.start()
            try:
                yield self._con
            except BaseException:
                self._let_go(quietly=True)  # the error that ended the block is the one raised
                raise

    def _watch(self) -> None:
        """Between commits: let go of the file when another process waits for it (a commit
        under way keeps it; the next look comes a moment later). Nothing is checkpointed
        here: one checkpoint of the whole run, when the file is let go, costs less than one
        per batch (and leaves a smaller file: docs/performance-history.md)."""
        while not self._stop.wait(YIELD_POLL_S):
            if self._con is None or not others_waiting(self.path) or \
                    not self._held.acquire(blocking=False):
                continue
            try:
                # the batches are safe in the write-ahead log whatever closing says: the
                # next commit opens the file again and meets any trouble in its own thread
                self._let_go(quietly=True)
            finally:
                self._held.release()

    def _let_go(self, quietly: bool = False) -> None:
        con, self._con = self._con, None
        if con is not None:
            try:
                con.close()  # DuckDB checkpoints the file on close
            except duckdb.Error:
                if not quietly:
                    raise

    def _sweep(self, idle_s: float = 3600.0) -> None:
        """Staged files of a run that was killed or crashed: at once when its process is
        gone, else (a folder not named after its process) when none of its files changed
        for an hour. Another run's, still going, are left alone."""
        now = time.time()
        # by the folder's descriptor, never by its path, which someone who may write beside
        # the database could turn into a link meanwhile (rmtree then refuses a linked entry)
        try:
            root = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
        except OSError:
            return
        try:
            for name in os.listdir(root):
                owner = owner_of(name)
                try:
                    if (owner is not None and process_gone(*owner)) or \
                            (owner is None and now - os.stat(os.path.join(name, STAGING),
                                                              dir_fd=root).st_mtime > idle_s):
                        remove_tree(name, root)  # bounded: a tree of any depth or size
                except OSError:
                    pass
        finally:
            os.close(root)

    def known(self) -> tuple[frozenset[str], dict[str, Recorded]]:
        with self._connection() as con:
            rows = con.execute("SELECT sha256, status, error_line, error_message FROM logs"
                               ).fetchall()
        loaded = frozenset(r[0] for r in rows if r[1] in LOADED)
        return loaded, {r[0]: (r[1], r[2], r[3]) for r in rows if r[1] not in LOADED}

    def lookup(self, con: duckdb.DuckDBPyConnection, dones: list[Done]) -> Knowledge:
        outcomes = [o for d in dones for o in d.outcomes]
        shas = [o.sha256 for o in outcomes if o.sha256 and o.status != "already loaded"]
        gids = [o.game_id for o in outcomes if o.game_id and o.status in LOADED]
        k = Knowledge()
        if shas:
            for sha, status, line, msg in con.execute(
                    "SELECT sha256, status, error_line, error_message FROM logs "
                    "WHERE sha256 IN (SELECT unnest(?))", [shas]).fetchall():
                if status in LOADED:
                    k.loaded.add(sha)
                else:
                    k.recorded[sha] = (status, line, msg)
        if gids:
            for gid, sha, file in con.execute(
                    "SELECT game_id, sha256, file_name FROM games "
                    "WHERE game_id IN (SELECT unnest(?))", [gids]).fetchall():
                k.ids[gid] = (sha, file)
        return k

    def commit(self, tasks: list[Task], dones: list[Done],
               before_commit: Callable[[], None] | None = None) -> dict[int, Task]:
        """One transaction: check, then one INSERT per table over all the batch's files.
        Returns the chunks to run again instead, when their workers could not know
        something (nothing is committed then). `before_commit` runs right before the
        COMMIT."""
        with self._connection() as con:
            with transaction(con, before_commit):
                again = reruns(tasks, dones, self.lookup(con, dones))
                if not again:
                    by_table: dict[str, list[str]] = {}
                    for done in dones:
                        for part in done.parts:
                            by_table.setdefault(part.table, []).append(
                                os.path.join(self.out, part.path))
                    for t in schema.TABLES:
                        if t in by_table:
                            self.insert(con, t, by_table[t])
                    if self.audit_as is not None:
                        record(con, *self.audit_as, [
                            {"file_name": o.name, "sha256": o.sha256, "game_id": o.game_id,
                             "result": o.status, "detail": o.message}
                            for d in dones for o in d.outcomes])
        if not again:
            self.batches += 1
            for done in dones:
                self.discard(done)
        return again

    def insert(self, con: duckdb.DuckDBPyConnection, table: str, files: list[str]) -> None:
        """One table's rows of a batch, by column name, inside the batch's transaction."""
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM read_parquet(?)", [files])

    def discard(self, done: Done) -> None:
        discard(self.out, done)

    def interrupt(self) -> None:
        """Stop the statement the run's connection runs (from another thread: Ctrl-C)."""
        con = self._con
        if con is not None:
            con.interrupt()

    def summarise(self) -> None:
        """The per-game summaries of the run's games (and of any game a killed run left
        without), in one transaction after the last batch (ingest.summaries)."""
        from .summaries import refresh

        with self._connection() as con:
            refresh(con)

    def close(self, quietly: bool = False) -> None:
        """Let go of the file (DuckDB checkpoints it) and delete this run's staged files.
        `quietly`: the run already failed, and that error is the one to report (closing a
        connection DuckDB invalidated, on a full disk say, fails too)."""
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join()
        with self._held:
            self._let_go(quietly=quietly)
        try:
            root = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
        except OSError:
            pass
        else:
            try:
                remove_tree(os.path.basename(self.out), root)
            finally:
                os.close(root)
        try:
            os.rmdir(self.root)  # only when no other run is using it
        except OSError:
            pass


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


class StagingRefused(RuntimeError):
    """What sits beside the database under the name of the runs' staging folder is not a
    folder (a symbolic link, a file, a pipe): refused, never followed nor written through."""


def staging_root(path: str) -> str:
    """The folder beside the database (`FILE.ingest`) that holds each run's staged files,
    made if it is missing; StagingRefused if that name is anything but a real folder (a run
    would write its files through a link, and remove what it found there as stale)."""
    root = os.path.abspath(path) + ".ingest"
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        pass  # something else under that name: said below
    try:
        seen = os.lstat(root)
    except OSError as e:
        raise StagingRefused(f"{root}: cannot make the folder for an ingest's staged files "
                             f"({e.strerror})") from None
    if not stat.S_ISDIR(seen.st_mode):
        raise StagingRefused(f"{root}: not a folder (a symbolic link, a file, a pipe or a "
                             f"device) where an ingest keeps its staged files; refused "
                             f"(remove it, or write the database elsewhere)")
    return root


class LakeCommitter:
    """Commits batches into a lake folder (ingest.lake), one manifest each."""

    partition = True

    def __init__(self, lake: str) -> None:
        self.writer = LakeWriter(lake)
        self.out = self.writer.lake

    def known(self) -> tuple[frozenset[str], dict[str, Recorded]]:
        st = self.writer.state
        return frozenset(st.loaded), dict(st.recorded)

    def commit(self, tasks: list[Task], dones: list[Done],
               before_commit: Callable[[], None] | None = None) -> dict[int, Task]:
        st = self.writer.state
        k = Knowledge()
        for done in dones:
            for o in done.outcomes:
                if o.sha256 in st.loaded:
                    k.loaded.add(o.sha256)
                elif o.sha256 in st.recorded:
                    k.recorded[o.sha256] = st.recorded[o.sha256]
                if o.game_id is not None and o.game_id in st.ids:
                    # (loaded from these very bytes is caught first, as `loaded`)
                    k.ids[o.game_id] = ("", st.ids[o.game_id])
        again = reruns(tasks, dones, k)
        if not again:
            if before_commit is not None:
                before_commit()
            self.writer.commit(dones)
        return again

    def discard(self, done: Done) -> None:
        discard(self.out, done)

    def interrupt(self) -> None:
        """Nothing runs long here that Python's own KeyboardInterrupt does not stop."""

    def summarise(self) -> None:
        """A lake's summaries are views over its files: nothing to keep."""

    def finish(self) -> None:
        """After a run, when asked (`ingest --compact`): merge small files, so readers
        open a few files per partition."""
        self.writer.compact()

    def close(self, quietly: bool = False) -> None:
        try:
            self.writer.close()
        except Exception:
            if not quietly:
                raise


MIN_CHUNK = 25
MAX_CHUNK = 250  # logs per worker task: a worker's memory grows with its chunk's rows


def plan(sources: list[Source], batch_size: int, jobs: int) -> int:
    """Logs per worker task: at most MAX_CHUNK (and the batch), but small loads still
    spread over every worker."""
    per_worker = -(-len(sources) // max(2 * jobs, 1))
    return max(1, min(batch_size, MAX_CHUNK, max(MIN_CHUNK, per_worker)))


def ingest(sources: list[Source], path: str | None = None, jobs: int | None = None,
           batch_size: int = 500, progress: Callable[[int, int], None] | None = None,
           on_busy: Callable[[float], None] | None = None, keep_all: bool = True, *,
           lake: str | None = None, cluster: str | None = None,
           audit_as: tuple[Actor, str] | None = None, compact: bool = False) -> Summary:
    """Load `sources` into the database at `path`, or into the lake folder `lake`. Chunks
    of logs run on `jobs` local processes, or on the Dask cluster at `cluster`; every
    `batch_size` logs (consecutive chunks) are committed together, whole or not at all.
    With `keep_all` false, `summary.results` lists only the logs that need a word
    (illegal, unreadable, conflicting). `audit_as` (who, action): into a database file,
    every log gets its audit row in its batch's transaction. `compact`: into a lake, merge
    small files at the end of the run (otherwise a step of its own: ingest.lake.compact).

    A run stopped by Ctrl-C raises IngestInterrupted, one stopped by its file system (full,
    read-only, failing) StorageFailed; either carries the summary of the batches committed
    before it, each whole, and a run of the same sources again loads the rest."""
    t0 = time.perf_counter()
    summary = Summary(keep_all=keep_all)
    if (path is None) == (lake is None):
        raise ValueError("ingest into a database file or a lake, exactly one")
    interrupts = _Interrupts()
    with interrupts:
        try:
            _run(sources, path, lake, jobs, batch_size, progress, on_busy, cluster, audit_as,
                 compact, summary, interrupts)
        except BaseException as e:
            interrupts.stop_raising()
            summary.seconds = time.perf_counter() - t0
            if interrupts.seen or isinstance(e, KeyboardInterrupt):
                raise IngestInterrupted(summary, "interrupted") from None
            what = storage_failure(e)
            if what is not None:
                target = lake or path or "."
                mount = file_system_of(target)
                raise StorageFailed(summary, f"the file system at {mount} (which holds "
                                             f"{target}) is {what}") from e
            raise
    summary.seconds = time.perf_counter() - t0
    if interrupts.seen:  # pressed while the run closed: everything given was committed
        raise IngestInterrupted(summary, "interrupted")
    return summary


def _run(sources: list[Source], path: str | None, lake: str | None, jobs: int | None,
         batch_size: int, progress: Callable[[int, int], None] | None,
         on_busy: Callable[[float], None] | None, cluster: str | None,
         audit_as: tuple[Actor, str] | None, compact: bool, summary: Summary,
         interrupts: _Interrupts) -> None:
    """The run of `ingest`, counting into `summary` each batch once it is committed."""
    from . import executors

    committer: Committer = (LakeCommitter(lake) if lake else
                            DatabaseWriter(path or "", on_busy, audit_as))
    interrupts.on_signal = committer.interrupt
    failed = True
    try:
        skip, recorded = committer.known()
        ncpu = jobs or os.cpu_count() or 1
        ex = (executors.cluster(cluster, skip) if cluster else
              executors.local(jobs, len(sources), skip))
        try:
            size = plan(sources, batch_size, ncpu)
            day = dt.datetime.now(dt.UTC).date().isoformat()
            tasks: dict[int, Task] = {}

            def make() -> Iterator[Task]:
                for seq, i in enumerate(range(0, len(sources), size)):
                    t = Task(seq, tuple(sources[i:i + size]), committer.out, day,
                             committer.partition, recorded=recorded)
                    tasks[seq] = t
                    yield t

            group: Batch = ([], [])
            pending = 0
            done_logs = 0

            def flush() -> None:
                nonlocal done_logs
                gt, gd = group
                try:
                    for _ in range(5):
                        # Ctrl-C is held from the COMMIT until the batch is counted
                        again = committer.commit(gt, gd, interrupts.hold)
                        if not again:
                            break
                        interrupts.release()
                        for i, t in again.items():
                            committer.discard(gd[i])
                            summary.reruns += 1
                            gt[i], gd[i] = t, ex.run_one(t)
                    else:
                        raise RuntimeError("a batch kept changing under its commit")
                    summary.batches += 1
                    for d in gd:
                        summary.count(d.outcomes)
                        done_logs += d.logs
                finally:
                    interrupts.release()
                if progress:
                    progress(done_logs, len(sources))

            for done in ex.run(make()):
                interrupts.check()
                group[0].append(tasks.pop(done.seq))
                group[1].append(done)
                pending += done.logs
                if pending >= batch_size:
                    flush()
                    group, pending = ([], []), 0
            if group[1]:
                flush()
            committer.summarise()
            failed = False
        finally:
            interrupts.stop_raising()  # the cleanup runs to its end (see _Interrupts)
            if failed:
                ex.abort()  # stop the workers now: what they do would be thrown away
            else:
                ex.close()
        if compact and isinstance(committer, LakeCommitter):
            committer.finish()
    finally:
        interrupts.stop_raising()
        committer.close(quietly=failed)


def record_missing(missing: list[tuple[str, str]], path: str | None = None,
                   lake: str | None = None) -> None:
    """Arguments that named nothing are errors too, recorded where a user will look."""
    if not missing:
        return
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    if lake is None:
        with writing(path or "") as con:
            con.executemany("INSERT INTO ingest_errors VALUES (?, NULL, 'unreadable', NULL, ?, ?)",
                            [(name, msg, now) for name, msg in missing])
        return
    cols: dict[str, list[object]] = {
        "file_name": [m[0] for m in missing], "sha256": [None] * len(missing),
        "status": ["unreadable"] * len(missing), "line": [None] * len(missing),
        "message": [m[1] for m in missing], "recorded_at": [now] * len(missing)}
    tbl: pa.Table = to_arrow("ingest_errors", cols)
    committer = LakeCommitter(lake)
    try:
        day = now.date().isoformat()
        part = write_parquet(tbl, committer.out, "ingest_errors", None, day, True)
        outcomes = [Outcome(name, None, "unreadable", message=msg) for name, msg in missing]
        committer.writer.commit([Done(-1, outcomes, [part], day)])
    finally:
        committer.close()
