"""Read-only SQL for users: the `trickledger sql` command and the dashboard's console.

Three locks keep a query inside its database: the connection is read-only
and sandboxed (no file access, no extension loading, configuration locked);
only one SELECT (or EXPLAIN) statement is accepted, so a refusal names what
was refused; and a visitor's query runs in a worker process that is killed at
its time or memory limit (`query`, through ingest.console), with at most
`max_rows` rows and a cap on the bytes returned. `run` is the in-process
form, for the project's own queries.
"""

from __future__ import annotations

import threading
from typing import Any

import duckdb

from .console import Console, Limits, Target
from .db import must_exist
from .readonly import Result, SqlRefused, check, one_line

MAX_ROWS = 10_000
TIMEOUT_S = 10.0


def run(con: duckdb.DuckDBPyConnection, sql: str, params: list[Any] | None = None,
        max_rows: int = MAX_ROWS, timeout_s: float = TIMEOUT_S) -> Result:
    """Run one checked statement on `con`, cut off after `timeout_s` seconds."""
    check(con, sql)
    timer = threading.Timer(timeout_s, con.interrupt)
    timer.start()
    try:
        cur = con.execute(sql, params or [])
        columns = [d[0] for d in cur.description] if cur.description else []
        rows = cur.fetchmany(max_rows + 1)
    except duckdb.InterruptException:
        raise SqlRefused(f"the query ran longer than {timeout_s:g} s and was stopped") from None
    except duckdb.Error as e:
        raise SqlRefused(one_line(e)) from None
    finally:
        timer.cancel()
    return Result(columns, rows[:max_rows], len(rows) > max_rows)


def query(path: str | None, sql: str, max_rows: int = MAX_ROWS,
          timeout_s: float = TIMEOUT_S, lake: str | None = None) -> Result:
    """One statement on the database file (which must exist) or the lake folder, in a
    worker process that is killed at the time limit or a memory cap (ingest.console):
    a query DuckDB cannot interrupt is stopped all the same."""
    if lake is None:
        assert path is not None
        must_exist(path)
    con = Console(spares=0)
    try:
        answer: Result = con.run(Target(db=path, lake=lake), sql,
                         Limits(timeout_s=timeout_s, max_rows=max_rows))
    finally:
        con.close()
    return answer


# the gate's names, where the callers of read-only SQL have always found them
__all__ = ["MAX_ROWS", "TIMEOUT_S", "Result", "SqlRefused", "check", "one_line", "query", "run"]
