"""The SQL console's queries run in a worker process that is stopped from outside: time,
memory, result size and spill are bounded even where DuckDB does not look at its
interrupt flag. Each test reproduces an attack."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from ingest.console import Console, ConsoleError, Limits, Target
from ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def console(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("console") / "c.duckdb")
    ingest(expand([str(ROOT / "sample_logs" / "plotters")])[0], db, jobs=1)
    c = Console()
    yield c, Target(db=db)
    c.close()


def run(console, sql: str, **limits):
    c, target = console
    return c.run(target, sql, Limits(**limits))


def test_an_ordinary_query_answers(console):
    a = run(console, "SELECT count(*) AS games FROM games")
    assert a.columns == ["games"] and a.rows == [(3,)] and not a.truncated


@pytest.mark.parametrize("sql", [
    # folded while planning: an interrupt never reaches it
    "SELECT list_intersect(range(6e6::BIGINT), range(6e6::BIGINT))",
    "SELECT levenshtein(repeat('a', 300000), repeat('b', 300000))",
    "SELECT count(*) FROM range(9223372036854775807) WHERE random() < 0",
])
def test_a_runaway_query_is_stopped_within_its_time(console, sql):
    t = time.monotonic()
    with pytest.raises(ConsoleError):
        run(console, sql, timeout_s=3)
    assert time.monotonic() - t < 60  # stopped, not run to its end (generous: a loaded CI)


def test_memory_is_bounded(console):
    with pytest.raises(ConsoleError, match="[Mm]emory"):
        run(console, "SELECT repeat('x', 1000000000)")


def test_a_large_result_is_cut_at_its_byte_cap(console):
    a = run(console, "SELECT repeat('x', 1000) AS s FROM range(100000)", max_bytes=1_000_000)
    assert a.truncated and a.note and 0 < len(a.rows) < 100000
    assert sum(len(r[0]) for r in a.rows) <= 1_100_000


def test_rows_are_capped(console):
    a = run(console, "SELECT * FROM range(50000)", max_rows=100)
    assert len(a.rows) == 100 and a.truncated


@pytest.mark.parametrize("sql,words", [
    ("SELECT * FROM read_csv('/etc/passwd')", "no file or network access"),
    ("EXPLAIN ANALYZE COPY (SELECT 1) TO 'x.csv'", "EXPLAIN is allowed only for a SELECT"),
    ("COPY games TO 'x.csv'", "COPY is refused"),
    ("DROP TABLE games", "read-only"),
    ("ATTACH 'other.duckdb'", "ATTACH is refused"),
    ("SELECT 1; SELECT 2", "one statement at a time"),
    ("PRAGMA database_list", "PRAGMA is refused"),
])
def test_what_is_refused_is_named(console, sql, words):
    with pytest.raises(ConsoleError, match=words):
        run(console, sql)


def test_limits_must_be_positive(console):
    for bad in ({"timeout_s": 0}, {"max_rows": -1}, {"max_bytes": 0}):
        with pytest.raises(ConsoleError, match="must be a finite number above 0"):
            run(console, "SELECT 1", **bad)


def test_a_slow_query_does_not_block_another(console):
    """Two visitors: one query runs into its time limit, another answers meanwhile."""
    import threading

    slow_done = threading.Event()

    def slow() -> None:
        try:
            run(console, "SELECT count(*) FROM range(9223372036854775807) WHERE random() < 0", timeout_s=20)
        except ConsoleError:
            pass
        slow_done.set()

    worker = threading.Thread(target=slow)
    worker.start()
    a = run(console, "SELECT count(*) FROM games", timeout_s=30)
    assert a.rows == [(3,)] and not slow_done.is_set()
    worker.join()
