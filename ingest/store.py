"""Where the data lives, as one value: a `Store` is a database file or a lake folder.

It answers the three questions every reader and writer asks, the same way for both:

- `Store.connect(db, lake=..., writable=...)`: which store (the default database file is
  `$TRICKLEDGER_DB` or `trickledger.duckdb`); a read-only store must already exist;
- `read()`: a short read-only, sandboxed DuckDB connection (a lake's is an in-memory
  database whose views list exactly the committed files, ingest.lake);
- `transaction()`: one write transaction on a database file (a lake is written only
  by `load`, one manifest per batch);

and, on top of `read()`, the queries a data person asks from Python: `sql()` (a polars
DataFrame), `table()` (a polars LazyFrame; a lake's tables are scanned in place) and
`tables()`. `load()` is the ingest use case (ingest.usecases) for `trickledger.ingest_logs`.

This module imports DuckDB and polars only when a store is used: `import trickledger`
(and so `trickledger verify`) stays free of them.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import duckdb
    import polars as pl

    from .admin import Actor
    from .lake import Reader
    from .load import Summary

Params = Sequence[Any] | Mapping[str, Any] | None


class StoreError(RuntimeError):
    """A store used the wrong way (writing to a read-only store, a table it does not
    have); the message says why in one line."""


class QueryTimeout(TimeoutError):
    """A query stopped at the time it was given (`Store.sql(..., timeout=)`)."""


# How long a query is given to stop once interrupted (DuckDB checks between chunks of
# work); a query that does not stop by then is left to end in the background.
STOP_GRACE_S = 5.0


class Store:
    """A database file or a lake folder (exactly one), read-only unless `writable`."""

    def __init__(self, db: str | os.PathLike[str] | None = None, *,
                 lake: str | os.PathLike[str] | None = None, writable: bool = False,
                 timeout: float | None = None) -> None:
        from .db import db_path

        if db is not None and lake is not None:
            raise ValueError("give a database file or a lake, not both")
        self.timeout = _seconds(timeout)  # each query's, unless `sql` is given its own
        self.kind: Literal["file", "lake"] = "lake" if lake is not None else "file"
        self.path = os.path.abspath(os.fspath(lake) if lake is not None
                                    else db_path(os.fspath(db) if db is not None else None))
        self.writable = writable
        self._reader: Reader | None = None
        self._reader_made = threading.Lock()

    @classmethod
    def connect(cls, db: str | os.PathLike[str] | None = None, *,
                lake: str | os.PathLike[str] | None = None, writable: bool = False,
                timeout: float | None = None) -> Store:
        """The store at `db` or `lake`. A read-only store must exist (reading never
        creates a file): NoDatabase or LakeError say so otherwise. `timeout`: the seconds
        each query may run (None: no limit)."""
        from .db import must_exist
        from .lake import MANIFEST, LakeError, is_lake

        store = cls(db, lake=lake, writable=writable, timeout=timeout)
        if not writable:
            if store.kind == "file":
                must_exist(store.path)
            elif not is_lake(store.path):
                raise LakeError(f"{store.path}: not a trickledger lake (no {MANIFEST} folder); "
                                f"make one with trickledger ingest SOURCE --lake {store.path}")
        return store

    @property
    def lake(self) -> str | None:
        return self.path if self.kind == "lake" else None

    @property
    def db(self) -> str | None:
        return self.path if self.kind == "file" else None

    def __repr__(self) -> str:
        what = "database file" if self.kind == "file" else "lake"
        return f"Store({what} {self.path}, {'writable' if self.writable else 'read-only'})"

    # ------------------------------------------------------------- connections

    @contextmanager
    def read(self, wait_s: float = 30.0) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only, sandboxed connection for a few queries; closed on leaving, so that
        no idle reader keeps the file from a writer (ingest.db). A database file another
        process writes is waited for at most `wait_s` (then DatabaseBusy); a lake is
        never locked."""
        if self.kind == "lake":
            from .lake import Reader

            with self._reader_made:  # one reader per store, however many threads read
                if self._reader is None:
                    self._reader = Reader(self.path)
            # the lake's views are rebuilt only when a batch was committed since
            con = self._reader.get().cursor()
        else:
            from .db import must_exist, open_db, reading

            if self.writable:
                # creates an empty database first
                with reading(self.path, wait_s=wait_s) as con:
                    yield con
                return
            must_exist(self.path)
            con = open_db(self.path, read_only=True, wait_s=wait_s)
        try:
            yield con
        finally:
            con.close()

    def yield_to_writers(self, limit_s: float) -> None:
        """Wait (at most `limit_s`) while a writer waits for the database file, so that
        many short reads do not keep it from the writer (ingest.db); a lake has no lock
        to wait for."""
        if self.kind == "file":
            from .db import yield_to_writers

            yield_to_writers(self.path, limit_s=limit_s)

    @contextmanager
    def transaction(self, on_busy: Callable[[float], None] | None = None
                    ) -> Iterator[duckdb.DuckDBPyConnection]:
        """One write transaction on a writable database file: committed when the block
        ends, rolled back if it raises."""
        if not self.writable:
            raise StoreError(f"{self.path} was opened read-only; "
                             f"Store.connect(..., writable=True) writes")
        if self.kind == "lake":
            raise StoreError(f"{self.path} is a lake: it is written only by ingest, one "
                             f"manifest per batch, never by SQL")
        from .db import writing
        from .transactions import transaction

        with writing(self.path, on_busy=on_busy) as con, transaction(con):
            yield con

    # ----------------------------------------------------------------- queries

    def sql(self, query: str, params: Params = None, *,
            timeout: float | None = None) -> pl.DataFrame:
        """One read-only statement (a SELECT, or the plan of one) as a polars DataFrame;
        values go in as `params` (`?` or `$name`), never pasted into the text. Raises
        ingest.sql.SqlRefused with DuckDB's message in one line. `timeout`: the seconds it
        may run (default: the store's, from `connect`), then QueryTimeout; Ctrl-C (a
        notebook's interrupt) stops it too, with KeyboardInterrupt."""
        limit = self.timeout if timeout is None else _seconds(timeout)
        return _interruptible(self, query, params, limit)

    def tables(self) -> list[str]:
        """The names of the tables and views, sorted."""
        with self.read() as con:
            rows = con.execute("SELECT table_name FROM information_schema.tables "
                               "WHERE table_schema = 'main' ORDER BY table_name").fetchall()
        return [r[0] for r in rows]

    def table(self, name: str) -> pl.LazyFrame:
        """A table or view as a polars LazyFrame. A lake's tables are scanned in place
        (polars reads the Parquet files the manifests list, each once: never a file a
        crashed or compacted batch left behind); everything else, a database file's
        tables and the analytics views, is read through DuckDB when this is called."""
        import polars as pl

        from . import schema
        from .lake import read_state

        known = self.tables()
        if name not in known:
            raise StoreError(f"{self.path} has no table {name!r} (it has {', '.join(known)})")
        if self.kind == "lake" and name in schema.TABLES:
            files = read_state(self.path, index=False).files.get(name)
            if files:
                columns = [c for c, _ in schema.TABLES[name]]
                # hive_partitioning off: the game=/ingest_date= folders are a layout, and
                # `game` is a real column of some tables; glob off: paths are listed names
                return pl.scan_parquet([os.path.join(self.path, p) for p in files],
                                       hive_partitioning=False, glob=False).select(columns)
        # `name` is one of the store's own names (checked above), so quoting it is safe
        return self.sql(f'SELECT * FROM "{name}"').lazy()

    # ----------------------------------------------------------------- writing

    def load(self, paths: Iterable[str], *, jobs: int | None = None, batch_size: int = 500,
             cluster: str | None = None, follow_symlinks: bool = False,
             progress: Callable[[int, int], None] | None = None,
             on_busy: Callable[[float], None] | None = None, keep_all: bool = True,
             actor: Actor | None = None) -> tuple[Summary, list[tuple[str, str]]]:
        """Ingest the logs that `paths` name (files, folders, globs, `-`, URLs): the
        arguments that name nothing are recorded in `ingest_errors` and returned with
        their reason. The run gets one audit row (ingest.usecases), as `actor` (default: an
        unnamed Python caller), in a database file's `audit_log` or a lake's
        `_audit.jsonl`; a busy database file keeps it out with a warning. Returns the
        summary (the counts `trickledger ingest` prints) and those arguments."""
        from .admin import Actor
        from .usecases import ingest_paths

        if not self.writable:
            raise StoreError(f"{self.path} was opened read-only; "
                             f"Store.connect(..., writable=True) writes")
        run = ingest_paths(list(paths), db=self.db, lake=self.lake,
                           actor=actor or Actor(None, "python"),
                           follow_symlinks=follow_symlinks, jobs=jobs, batch_size=batch_size,
                           cluster=cluster, progress=progress, on_busy=on_busy,
                           keep_all=keep_all)
        if run.audit_problem:
            import warnings

            warnings.warn(f"the run is not in the audit log ({run.audit_problem})",
                          stacklevel=2)
        return run.summary, run.missing


def _seconds(timeout: float | None) -> float | None:
    if timeout is None:
        return None
    if not timeout > 0:  # NaN too
        raise ValueError(f"timeout must be a number of seconds above 0 (or None: no limit), "
                         f"got {timeout!r}")
    return float(timeout)


def _interruptible(store: Store, query: str, params: Params,
                   limit: float | None) -> pl.DataFrame:
    """Run the query in a thread of its own, which opens, uses and closes its connection,
    while this one waits: the wait ends at the time limit, and a signal (Ctrl-C) reaches
    this thread there, where DuckDB's own call would keep it until the query ends. Either
    way DuckDB is told to stop (`interrupt`); a query that does not stop within
    STOP_GRACE_S is left to end in the background, and its connection closes then."""
    import duckdb

    from .readonly import SqlRefused, check, one_line

    answer: list[pl.DataFrame] = []
    failed: list[BaseException] = []
    running: list[duckdb.DuckDBPyConnection] = []
    lock = threading.Lock()
    stopped = threading.Event()
    done = threading.Event()

    def work() -> None:
        try:
            with store.read() as con:
                with lock:
                    if stopped.is_set():
                        return  # given up while the file was waited for
                    running.append(con)
                # a lake's connection is in memory: only the gate keeps it read-only
                check(con, query)
                rel = con.sql(query, params=params)
                if rel is None:
                    raise SqlRefused("the statement returns no rows")
                answer.append(rel.pl())
        except BaseException as e:  # handed to the waiting thread
            failed.append(e)
        finally:
            done.set()

    def stop() -> None:
        # DuckDB drops an interrupt that comes before its query executes (while it is
        # checked or bound): interrupting again until the query ends or the grace is over
        # stops it wherever it was when the deadline fell
        with lock:
            stopped.set()
        grace = time.monotonic() + STOP_GRACE_S
        while True:
            with lock:
                for con in running:
                    with contextlib.suppress(duckdb.Error):  # closed as the query ended
                        con.interrupt()
            if done.wait(0.05) or time.monotonic() >= grace:
                return

    worker = threading.Thread(target=work, name="trickledger-query", daemon=True)
    worker.start()
    deadline = None if limit is None else time.monotonic() + limit
    try:
        # short waits: a signal handler runs between them (a wait without end would not
        # be interrupted by Ctrl-C)
        while not done.wait(0.1) and (deadline is None or time.monotonic() < deadline):
            pass
    except KeyboardInterrupt:
        stop()
        raise
    if not done.is_set():
        stop()
        raise QueryTimeout(f"the query ran longer than {limit:g} s and was stopped") from None
    if failed:
        e = failed[0]
        if isinstance(e, duckdb.InterruptException):
            raise KeyboardInterrupt from None  # stopped by an interrupt of another thread's
        if isinstance(e, duckdb.Error):
            raise SqlRefused(one_line(e)) from None
        raise e
    return answer[0]
