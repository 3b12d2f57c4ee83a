"""Ctrl-C around a write and its counting (ingest/ctrl_c.py), with real SIGINTs to this
process and a real DuckDB transaction. A KeyboardInterrupt 'dropped' is one DuckDB 2.0
loses when Ctrl-C comes as a statement starts: its handler ran, the caller never saw it."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

import duckdb
import pytest

from trickledger.ingest.ctrl_c import held_from_commit, interrupt_deferred
from trickledger.ingest.transactions import transaction


def ctrl_c() -> None:
    signal.raise_signal(signal.SIGINT)


def ctrl_c_dropped() -> None:
    with contextlib.suppress(KeyboardInterrupt):
        ctrl_c()


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """A table to write, with Ctrl-C doing what it does in a terminal's Python."""
    assert threading.current_thread() is threading.main_thread()
    outer = signal.signal(signal.SIGINT, signal.default_int_handler)
    c = duckdb.connect(":memory:")
    c.execute("CREATE TABLE t (x INTEGER)")
    try:
        yield c
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        c.close()
        signal.signal(signal.SIGINT, outer)


def rows(con: duckdb.DuckDBPyConnection) -> list[int]:
    return [r[0] for r in con.execute("SELECT x FROM t ORDER BY x").fetchall()]


def test_a_ctrl_c_after_the_commit_waits_for_the_counting(con) -> None:
    counted = []
    with pytest.raises(KeyboardInterrupt), held_from_commit() as hold:
        with transaction(con, hold):
            con.execute("INSERT INTO t VALUES (1)")
        ctrl_c()  # as the connection closes, say
        counted.append(1)
    assert rows(con) == [1] and counted == [1]


def test_a_ctrl_c_dropped_before_the_commit_rolls_the_write_back(con) -> None:
    counted = []
    with pytest.raises(KeyboardInterrupt), held_from_commit() as hold:
        with transaction(con, hold):
            ctrl_c_dropped()
            con.execute("INSERT INTO t VALUES (1)")
        counted.append(1)
    assert rows(con) == [] and counted == []


def test_a_ctrl_c_before_the_commit_stops_the_write_at_once(con) -> None:
    went_on = []
    with pytest.raises(KeyboardInterrupt), held_from_commit() as hold:
        with transaction(con, hold):
            con.execute("INSERT INTO t VALUES (1)")
            ctrl_c()
            went_on.append(1)
    assert rows(con) == [] and went_on == []


def test_without_a_ctrl_c_the_blocks_change_nothing(con) -> None:
    with held_from_commit() as hold, transaction(con, hold):
        con.execute("INSERT INTO t VALUES (1)")
    with interrupt_deferred():
        con.execute("INSERT INTO t VALUES (2)")
    assert rows(con) == [1, 2]


def test_a_deferred_ctrl_c_comes_when_the_block_has_ended(con) -> None:
    went_on = []
    with pytest.raises(KeyboardInterrupt), interrupt_deferred():
        ctrl_c()
        went_on.append(1)
    assert went_on == [1]


def test_a_block_that_fails_raises_its_own_error_not_the_deferred_ctrl_c(con) -> None:
    with pytest.raises(KeyError, match="what went wrong"), interrupt_deferred():
        ctrl_c()
        raise KeyError("what went wrong")


@pytest.mark.parametrize("own", ["handler", "ignored"])
def test_a_host_programs_own_handler_or_an_ignored_ctrl_c_is_left_alone(con, own) -> None:
    heard: list[int] = []
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN if own == "ignored" else
                             lambda signum, frame: heard.append(signum))
    try:
        with held_from_commit() as hold, transaction(con, hold):
            ctrl_c()
            con.execute("INSERT INTO t VALUES (1)")
        with interrupt_deferred():
            ctrl_c()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert rows(con) == [1]
    assert heard == ([] if own == "ignored" else [signal.SIGINT, signal.SIGINT])
