"""One write transaction on a DuckDB connection, as a `with` block.

Every writer of a database file (the loader, the schema's migrations, the analyses, the
ratings, a restore, an admin's quarantine or delete, `Store.transaction`) commits through
this one block: all of it happens or nothing does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

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
