"""The way to the data: the store, short read-only connections within a page run's waits,
the cached query, and the write jobs.

Reads go through `query()` (its answer kept for the database's state, so games loaded by
another process appear on the next visit), each on a short read-only connection of its own
(`Store.read`), so that an ingest can take the file between two queries. Writes run in a
child process (ingest.jobs, through `write_job`).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from trickledger.ingest import jobs
from trickledger.ingest.db import DatabaseBusy
from trickledger.ingest.store import Store

CACHE_TTL_S = 3600  # an answer is kept for the database's state (data_state), an hour at most
CACHED_ANSWERS = 2000  # answers kept at most (the oldest go first)
_log = logging.getLogger("trickledger.dashboard")


class Busy(RuntimeError):
    """The database stayed locked by another process (an ingest) while we waited."""


class WriteFailed(RuntimeError):
    """A write (upload, removal, estimate) that could not be done; the message says why."""


@st.cache_resource
def database() -> Store:
    """The process-wide store: the lake that `trickledger dashboard --lake` reads, or the
    database file. The file's store is writable only so that a missing file is created
    empty and the pages find their tables: the dashboard's writes run in child processes
    (ingest.jobs), never on its own connections."""
    lake = os.environ.get("TRICKLEDGER_LAKE")
    if lake:
        return Store.connect(lake=lake)
    return Store.connect(writable=True)  # $TRICKLEDGER_DB, or trickledger.duckdb


LOCK_WAIT_S = 15.0  # a page run waits at most this long for a file another process holds
WRITER_WAIT_S = 10.0  # and at most this long for a writer that waits for the file


@dataclass
class Waits:
    """What is left of one page run's waiting: the sidebar and the body share it, so a
    held file costs a run one wait, not one per query."""

    lock_s: float = field(default_factory=lambda: LOCK_WAIT_S)
    writer_s: float = field(default_factory=lambda: WRITER_WAIT_S)


_RUN_WAITS = "_trickledger_waits"


def run_waits() -> Waits:
    """The current page run's waits (a fresh budget outside a page run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return Waits()
    # Streamlit gives each run a new `cursors` dict on the session's one context: the
    # budget belongs to that dict, so the next run of the page starts with a full one
    held = getattr(ctx, _RUN_WAITS, None)
    if held is None or held[0] is not ctx.cursors:
        held = (ctx.cursors, Waits())
        setattr(ctx, _RUN_WAITS, held)
    waits: Waits = held[1]
    return waits


@contextmanager
def connection(store: Store) -> Iterator[Any]:
    """A short read-only connection (a lake's: a cursor of its own, for this thread) within
    what is left of the page run's waits."""
    waits = run_waits()
    started = time.monotonic()
    store.yield_to_writers(limit_s=max(waits.writer_s, 0.0))
    waits.writer_s -= time.monotonic() - started
    started = time.monotonic()
    try:
        # with nothing left to wait, the file is still tried once: only a held file fails
        with store.read(wait_s=max(waits.lock_s, 0.0)) as con:
            waits.lock_s -= time.monotonic() - started
            yield con
    except DatabaseBusy:
        waits.lock_s = 0.0  # gave up once: the rest of this run does not wait again
        raise


BUSY = "another process is writing to the database; the page stopped waiting for it"


# Who wants to know every query a page runs (the benchmark times them): see observe_queries.
_observers: list[Callable[[str, tuple[Any, ...]], None]] = []


@contextmanager
def observe_queries(observer: Callable[[str, tuple[Any, ...]], None]) -> Iterator[None]:
    """Call `observer(sql, params)` for every query the pages run while this is open."""
    _observers.append(observer)
    try:
        yield
    finally:
        _observers.remove(observer)


Read = TypeVar("Read")


def reading(work: Callable[[Any], Read]) -> Read:
    """`work(connection)` on a short read-only connection; a held file is Busy."""
    try:
        with connection(database()) as con:
            return work(con)
    except DatabaseBusy as e:
        _log.warning("%s", e)  # the server's path goes to its log, never to a visitor
        raise Busy(BUSY) from None


def read(sql: str, params: tuple[Any, ...]) -> pd.DataFrame:
    """A read-only query's answer, not kept (`query` keeps it)."""
    for observer in _observers:
        observer(sql, params)
    return reading(lambda con: con.execute(sql, list(params)).df())


def data_state() -> tuple[Any, ...]:
    """What changes whenever the data does, read without opening the database: the size
    and modification time of the database file and of its write-ahead log (every commit
    writes one or the other), or of a lake's manifest folder (every commit adds a
    manifest). A query's answer is kept for as long as this stays the same."""
    store = database()
    if store.kind == "lake":
        paths = [os.path.join(store.path, "_manifest")]
    else:
        paths = [store.path, store.path + ".wal"]
    out: list[Any] = []
    for path in paths:
        try:
            st_ = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st_.st_mtime_ns, st_.st_size, st_.st_ino))
    return tuple(out)


@st.cache_data(ttl=CACHE_TTL_S, max_entries=CACHED_ANSWERS, show_spinner=False)
def _query_at(sql: str, params: tuple[Any, ...], state: tuple[Any, ...]) -> pd.DataFrame:
    return read(sql, params)


class _Query:
    """`query(sql, params)`: a read-only query, values passed as parameters, its answer kept
    for the database's state (`data_state`): asked again while nothing was written, it is
    answered at once; after a write (another process's ingest too) it runs again."""

    def __call__(self, sql: str, params: tuple[Any, ...] = ()) -> pd.DataFrame:
        return _query_at(sql, params, data_state())

    def clear(self) -> None:
        _query_at.clear()


query = _Query()


@contextmanager
def write_job() -> Iterator[None]:
    """A write in a child process (ingest.jobs), its failure said in words on the page."""
    try:
        yield
    except jobs.JobBusy as e:
        _log.warning("%s", e)
        raise Busy(BUSY) from None
    except jobs.JobFailed as e:
        raise WriteFailed(without_paths(str(e))) from None


def without_paths(text: str) -> str:
    """A message for a visitor, the server's paths to the database taken out."""
    store = database()
    for path, word in ((store.path, "the database"),
                       (os.path.dirname(store.path), "the server's folder")):
        if path and len(path) > 1:
            text = text.replace(path, word)
    return text
