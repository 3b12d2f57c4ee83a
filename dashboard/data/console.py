"""The SQL console: one sandboxed read-only statement at a time, each in a worker process that
is killed at its time, memory or result-size limit (ingest.console)."""

from __future__ import annotations

import atexit
import threading

from trickledger.ingest.console import Answer, Console, Limits, Target

from .access import database

Result = Answer  # what the SQL page shows

LIMITS = Limits(timeout_s=10.0, max_rows=5000)


class ServerConsole:
    """The server's one Console (it keeps a worker started, so a query does not wait for
    Python), held outside Streamlit's caches: a visitor's "clear cache" would otherwise
    drop it with its spare worker still running and its folder left behind."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._console: Console | None = None

    def __call__(self) -> Console:
        with self._lock:
            if self._console is None:
                self._console = Console()
            return self._console

    def clear(self) -> None:
        """Stop the console's workers (the next query starts a new console)."""
        with self._lock:
            if self._console is not None:
                self._console.close()
            self._console = None


server_console = ServerConsole()
atexit.register(server_console.clear)


def run(sql: str) -> Result:
    """One statement of the console in its worker (ConsoleError, a SqlRefused, says which
    limit stopped it or why it was refused)."""
    store = database()
    return server_console().run(Target(db=store.db, lake=store.lake), sql, LIMITS)


def example_queries() -> list[tuple[str, str]]:
    """(question, SQL) pairs of docs/sql.md, for the console's one-click examples."""
    from trickledger.ingest.examples import examples

    return examples()
