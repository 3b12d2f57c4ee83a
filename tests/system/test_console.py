"""The SQL console's queries run in a worker process that is stopped from outside: time,
memory, result size and spill are bounded even where DuckDB does not look at its
interrupt flag. Each test reproduces an attack."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from trickledger.ingest.console import Console, ConsoleError, Limits, Target
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def console(tmp_path_factory):
    """A console and, as its target, a database of the plotters samples."""
    db = str(tmp_path_factory.mktemp("console") / "c.duckdb")
    ingest(expand([str(ROOT / "sample_logs" / "plotters")])[0], db, jobs=1)
    c = Console()
    yield c, Target(db=db)
    c.close()


def run(console, sql: str, **limits):
    """A query under `limits`; the time limit is 600 s unless a test is about it (a CI
    machine at load 40 gives a worker a twentieth of a core: 10 s may not cover its
    start and a wide result)."""
    c, target = console
    limits.setdefault("timeout_s", 600)
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
    # stopped: run to its end, the first two would answer (after more than the second of
    # work they are given here: each burns its whole limit) and the third never
    with pytest.raises(ConsoleError):
        run(console, sql, timeout_s=1)


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
    """Two visitors: one query runs in its worker, another answers meanwhile."""
    import threading

    slow_done = threading.Event()
    taken: list[subprocess.Popen[bytes]] = []
    c = console[0]
    take = c._take

    def take_and_note():  # the slow query's worker, to end it once the other has answered
        spare = take()
        taken.append(spare.proc)
        return spare

    def slow() -> None:
        try:
            # a limit no machine reaches here, loaded or not: the test ends the query itself
            run(console, "SELECT count(*) FROM range(9223372036854775807) WHERE random() < 0",
                timeout_s=600)
        except ConsoleError:
            pass
        slow_done.set()

    c._take = take_and_note
    worker = threading.Thread(target=slow)
    worker.start()
    try:
        while not taken:
            assert worker.is_alive()
            threading.Event().wait(0.05)
    finally:
        c._take = take
    a = run(console, "SELECT count(*) FROM games", timeout_s=600)
    assert a.rows == [(3,)] and not slow_done.is_set()
    os.killpg(taken[0].pid, signal.SIGKILL)
    worker.join()
    assert slow_done.is_set()


# ------------------------------------------------------------ bounded in the caller too

LONG = "y" * 20_000


def _shown(rows) -> int:
    """Roughly what the rows are in this process: their text plus a cell each."""
    def size(v) -> int:
        if isinstance(v, (list, tuple)):
            return 16 + sum(size(x) for x in v)
        if isinstance(v, dict):
            return 16 + sum(size(x) for x in v.values())
        return 16 + (len(v) if isinstance(v, (str, bytes)) else 8)
    return sum(size(v) for r in rows for v in r)


@pytest.mark.parametrize("column", [
    f"CAST('{LONG}' AS ENUM('{LONG}'))",  # an ENUM: travels as a dictionary, one copy
    f"[CAST('{LONG}' AS ENUM('{LONG}')), CAST('{LONG}' AS ENUM('{LONG}'))]",  # a list of it
    f"{{'a': CAST('{LONG}' AS ENUM('{LONG}'))}}",  # a struct of it
])
def test_a_result_is_bounded_by_what_it_becomes_not_what_it_travels_as(console, column):
    """2,000 rows of a 20 KB value are 40 MB in the caller, whatever their size on the
    wire: the byte cap counts the expanded rows before they are made."""
    a = run(console, f"SELECT {column} AS v FROM range(2000)", max_bytes=1_000_000)
    assert a.truncated and "larger than 1,000,000 bytes" in (a.note or "")
    assert 0 < len(a.rows) < 2000
    assert _shown(a.rows) <= 1_100_000


def test_very_wide_rows_of_nulls_are_counted_per_cell(console):
    """5,000 rows of 5,000 NULL columns: nothing on the wire, 25 million cells here."""
    columns = ", ".join(f"NULL AS c{i}" for i in range(5000))
    a = run(console, f"SELECT {columns} FROM range(5000)")
    assert a.truncated and len(a.columns) == 5000
    assert len(a.rows) * 5000 * 16 <= 16 * 1024 * 1024


@pytest.mark.parametrize("width", [40_000, 66_000, 80_000, 200_000])
def test_rows_of_80_kb_are_cut_at_the_byte_cap_not_out_of_memory(console, width):
    """Wide rows: DuckDB makes 2,048 at a time, and 256 of them pass 16 MB on the wire.
    The result is cut at the cap with the rows that fit, not lost to a memory error."""
    a = run(console, f"SELECT repeat('x', {width}) AS s FROM range(100000)")
    assert a.truncated and "larger than" in (a.note or "")
    shown = sum(len(r[0]) for r in a.rows)
    assert 8 * 1024 * 1024 <= shown <= 16 * 1024 * 1024, (len(a.rows), shown)


@pytest.mark.parametrize("sql", [
    "UPDATE EXTENSIONS", "UPDATE EXTENSIONS (httpfs)", "EXPLAIN UPDATE EXTENSIONS",
    "EXPLAIN ANALYZE UPDATE EXTENSIONS", "CHECKPOINT", "FORCE CHECKPOINT", "USE memory",
    "PREPARE p AS SELECT 1", "EXECUTE p", "DEALLOCATE p", "CREATE SECRET (TYPE s3)",
    "MERGE INTO games USING games g ON (games.game_id = g.game_id) WHEN MATCHED THEN DELETE",
    "ANALYZE", "VACUUM", "RESET memory_limit", "CALL pragma_version()",
    "COMMENT ON TABLE games IS 'x'", "EXPORT DATABASE 'x'", "IMPORT DATABASE 'x'",
    "DETACH x", "FORCE INSTALL x", "SET VARIABLE x = 1", "DROP SECRET s",
    "COPY FROM DATABASE a TO b", "BEGIN", "TRUNCATE games", "CREATE MACRO m() AS 1",
    "INSERT OR REPLACE INTO games (game_id) VALUES ('x')",
])
def test_every_statement_but_a_select_is_refused_in_one_line(console, sql, capsys):
    """Statement types this duckdb module names, and one it does not (UPDATE EXTENSIONS
    is type 29, missing from its enum): refused in one line, from the console and from
    `trickledger sql`."""
    from trickledger import main

    with pytest.raises(ConsoleError) as refused:
        run(console, sql)
    assert "\n" not in str(refused.value) and "StatementType" not in str(refused.value)
    assert main(["sql", "--db", console[1].db, "--timeout", "600", sql]) == 1  # refused, as every refusal
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "StatementType" not in err


# ------------------------------------------------------------ issue 24's review

@pytest.mark.parametrize("sql", [
    "SELECT histogram(game_id) AS h FROM games", "SELECT * FROM duckdb_databases()",
    "SELECT map([1], [2]) AS m", "SELECT map([1, 2], ['a', 'bb']) AS m FROM range(3)",
])
def test_a_map_column_is_shown_not_a_traceback(console, sql):
    a = run(console, sql)
    assert a.rows and not a.truncated


def test_a_map_column_counts_its_keys_and_values(console):
    a = run(console, f"SELECT map(['{LONG}'], ['{LONG}']) AS m FROM range(2000)",
            max_bytes=1_000_000)
    assert a.truncated and "larger than 1,000,000 bytes" in (a.note or "")
    assert 0 < len(a.rows) < 2000 and _shown(a.rows) <= 1_100_000


def test_struct_field_names_count_once_per_value(console):
    """A struct whose field name is 120,000 characters, 5,000 times: each value shows the
    name again (a dict's key, a printed {'aaa...': NULL}), so the cap counts it each time."""
    name = "a" * 120_000
    a = run(console, f"SELECT {{'{name}': NULL}} AS s FROM range(5000)")
    assert a.truncated and 0 < len(a.rows) <= 16 * 1024 * 1024 // 120_000


def test_column_names_count_once_per_row(console):
    """A 120,000-character column name: each JSON row (and each dict) repeats it."""
    name = "a" * 120_000
    a = run(console, f'SELECT 1 AS "{name}" FROM range(5000)')
    assert a.truncated and 0 < len(a.rows) <= 16 * 1024 * 1024 // 120_000
    assert len(a.as_dicts()) == len(a.rows)


def test_max_rows_has_an_upper_bound(console, capsys):
    from trickledger import main

    assert main(["sql", "--db", console[1].db, "--max-rows", "100000", "SELECT 1"]) == 2
    assert "at most 10,000" in capsys.readouterr().err


def test_one_long_cell_does_not_pad_every_row_of_the_table(console, capsys):
    """5,000 rows, one of them 1 MB: the table cuts the cell (and says so) rather than
    padding all 5,000 rows to its width (5 GB)."""
    from trickledger import main

    sql = ("SELECT CASE WHEN range = 0 THEN repeat('x', 1000000) ELSE 'y' END AS big "
           "FROM range(5000)")
    assert main(["sql", "--db", console[1].db, "--max-rows", "5000", "--timeout", "600", sql]) == 0
    out, err = capsys.readouterr()
    assert len(out) < 5000 * 300, len(out)
    assert "\u2026" in out and "cut in the table" in err
    assert main(["sql", "--db", console[1].db, "--format", "csv", "--timeout", "600", sql]) == 0
    assert "x" * 1_000_000 in capsys.readouterr().out  # CSV keeps the whole value


def test_a_newline_in_a_value_or_header_cannot_forge_a_table_row(console, capsys):
    from trickledger import main

    sql = "SELECT 'a' || chr(10) || '(0 rows)' AS \"h\nx\", 'b' || chr(9) || 'c' AS t"
    assert main(["sql", "--db", console[1].db, "--timeout", "600", sql]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4 and lines[-1] == "(1 row)", lines
    assert lines[0].startswith("h\\nx") and lines[2].startswith("a\\n(0 rows)")
    assert "b\\tc" in lines[2]


def test_a_worker_that_cannot_start_is_named_not_a_traceback(console, monkeypatch):
    """The time limit counts from the worker's 'ready' (its imports done); a worker that
    never gets there is a clear error, not a hang and not a broken pipe."""
    c = Console(spares=0)
    monkeypatch.setattr(sys, "executable", "/bin/false")  # exits at once, says nothing
    try:
        with pytest.raises(ConsoleError, match="the console's worker could not start"):
            c.run(console[1], "SELECT 1", Limits())
    finally:
        c.close()


def test_a_worker_whose_import_fails_says_why(console, monkeypatch, tmp_path):
    """A broken install (here a `pyarrow` that cannot be imported, first on the worker's
    path) fails before the worker is ready: the error names the import, in one line."""
    (tmp_path / "pyarrow.py").write_text("raise ImportError('no arrow here')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]))
    c = Console(spares=0)
    try:
        with pytest.raises(ConsoleError, match="could not start: ImportError: no arrow here"):
            c.run(console[1], "SELECT 1", Limits())
    finally:
        c.close()


def test_a_python_that_is_gone_is_a_console_error_and_no_spare_is_left(console, monkeypatch,
                                                                       tmp_path):
    """The server's Python replaced under it (a virtualenv rebuilt): the query fails with a
    console error, and the worker it had taken is stopped, not left to the collector."""
    c = Console(spares=1)
    try:
        assert run((c, console[1]), "SELECT 42").rows == [(42,)]  # a spare is kept now
        kept = c.ready[0].proc
        monkeypatch.setattr(sys, "executable", str(tmp_path / "gone" / "python"))
        with pytest.raises(ConsoleError, match="could not start: .*No such file"):
            c.run(console[1], "SELECT 1", Limits())
        assert kept.poll() is not None  # stopped and reaped
    finally:
        c.close()
