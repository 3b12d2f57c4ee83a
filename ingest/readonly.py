"""What a read-only query may be, and what it returns: the statement gate.

`check` lets through one SELECT (or the plan of one: EXPLAIN, never EXPLAIN ANALYZE) or a
read-only PRAGMA, and raises `SqlRefused` naming what it refused otherwise. It is shared
by the in-process queries (ingest.sql, ingest.store) and the SQL console's worker
processes (ingest.console), which is why it lives apart from both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import duckdb

_READ_ONLY_PRAGMAS = {"version", "table_info", "show_tables", "show_tables_expanded", "show",
                      "database_size", "platform", "storage_info", "functions"}
# not database_list, duckdb_settings() and the like: they name server paths (a SELECT of
# them runs, so the console is for accounts only beyond loopback; see docs/reliability.md)
_REFUSALS = {
    "INSERT": "writes are refused: the SQL console is read-only",
    "UPDATE": "writes are refused: the SQL console is read-only",
    "DELETE": "writes are refused: the SQL console is read-only",
    "CREATE": "creating objects is refused: the SQL console is read-only",
    "DROP": "dropping objects is refused: the SQL console is read-only",
    "ALTER": "altering objects is refused: the SQL console is read-only",
    "COPY": "COPY is refused: the SQL console cannot read or write files",
    "COPY_DATABASE": "COPY is refused: the SQL console cannot read or write files",
    "EXPORT": "EXPORT is refused: the SQL console cannot write files",
    "ATTACH": "ATTACH is refused: the SQL console sees only its own database",
    "DETACH": "DETACH is refused: the SQL console sees only its own database",
    "LOAD": "INSTALL and LOAD are refused: no extensions can be added",
    "SET": "SET is refused: the configuration is locked",
    "VARIABLE_SET": "SET is refused: the configuration is locked",
    "TRANSACTION": "transactions are refused: the SQL console is read-only",
    "CALL": "CALL is refused: only SELECT queries are allowed",
    "VACUUM": "VACUUM is refused: the SQL console is read-only",
    "MULTI": "only one statement at a time",
}


_EXPLAIN = re.compile(r"^\s*explain\s+(analy[sz]e\s+|\([^)]*\)\s*)?", re.IGNORECASE)


class SqlRefused(ValueError):
    """A statement the console does not run; the message says why, in one line."""


@dataclass
class Result:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    truncated: bool
    note: str | None = None  # why the result was cut, in words

    def as_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, r)) for r in self.rows]


def check(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Raise SqlRefused unless `sql` is a single read-only statement."""
    try:
        statements = con.extract_statements(sql)
    except Exception as e:  # a parser error, or anything else the parser raises: one line
        raise SqlRefused(one_line(e)) from None
    if not statements:
        raise SqlRefused("no SQL statement given")
    if len(statements) > 1:
        raise SqlRefused(_REFUSALS["MULTI"])
    st = statements[0]
    kind = _kind(st)
    if kind == "SELECT":
        return
    if kind == "EXPLAIN":
        # EXPLAIN ANALYZE runs what it explains: only the plan of a SELECT is allowed
        inner = _EXPLAIN.sub("", st.query, count=1)
        try:
            explained = con.extract_statements(inner)
        except Exception:
            explained = []
        if len(explained) == 1 and _kind(explained[0]) == "SELECT":
            return
        raise SqlRefused("EXPLAIN is allowed only for a SELECT: EXPLAIN ANALYZE runs the "
                         "statement it explains")
    if kind == "PRAGMA":
        m = re.match(r"\s*pragma\s+([a-z_]+)", st.query, re.IGNORECASE)
        if m and m.group(1).lower() in _READ_ONLY_PRAGMAS:
            return
        raise SqlRefused("this PRAGMA is refused: only read-only PRAGMAs such as "
                         "table_info and show_tables are allowed")
    if kind == "UNKNOWN":
        raise SqlRefused("this statement is refused: only SELECT queries are allowed")
    raise SqlRefused(_REFUSALS.get(kind, f"{kind} statements are refused: only SELECT "
                                          f"queries are allowed"))


def _kind(statement: Any) -> str:
    """A statement's type by name; "UNKNOWN" for a type this duckdb module has no name for
    (`UPDATE EXTENSIONS` is number 29, which its StatementType enum does not list)."""
    try:
        return str(statement.type.name)
    except Exception:
        return "UNKNOWN"


def one_line(e: BaseException) -> str:
    msg = str(e).strip().splitlines()
    text = msg[0] if msg else type(e).__name__
    if isinstance(e, duckdb.PermissionException):
        return "refused: the SQL console has no file or network access (" + text + ")"
    return text
