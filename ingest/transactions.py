"""One write transaction on a DuckDB connection, as a `with` block.

Every writer of a database file (the loader, the schema's migrations, the analyses, the
ratings, a restore, an admin's quarantine or delete, `Store.transaction`) commits through
this one block: all of it happens or nothing does.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection,
                before_commit: Callable[[], None] | None = None
                ) -> Iterator[duckdb.DuckDBPyConnection]:
    """Committed when the block ends, rolled back if it raises (an interrupt included).
    A rollback that fails too (a connection DuckDB has invalidated) does not hide the
    error that ended the block: that one is raised. `before_commit` runs when the block
    has ended well, right before the COMMIT (the loader holds Ctrl-C back from there until
    it has counted the batch, so that what it says was loaded is what was committed)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        if before_commit is not None:
            before_commit()
        con.execute("COMMIT")
    except BaseException:
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass
        raise


@contextmanager
def ctrl_c_not_lost() -> Iterator[None]:
    """A Ctrl-C that comes while the block runs DuckDB statements in the main thread ends
    the block with KeyboardInterrupt, whatever DuckDB did with it. DuckDB 2.0 runs Python's
    handler as a statement starts and may then drop the KeyboardInterrupt it raised: the
    statement (a write of finished work) goes on as if no key had been pressed, and so
    would the run. A block that raises anyway raises its own error. Outside the main
    thread, or where SIGINT has no Python handler (ignored, say), the block runs as it
    is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGINT)
    if not callable(previous):
        yield
        return
    heard: list[int] = []

    def on_sigint(signum: int, frame: Any) -> None:
        heard.append(signum)
        previous(signum, frame)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if heard:
        raise KeyboardInterrupt
