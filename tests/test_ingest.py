"""Ingest into a real DuckDB file: counts, idempotence, atomicity, errors, the SQL sandbox."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import orjson
import pytest

from cli import main
from ingest.db import reading
from ingest.load import DatabaseWriter, Source, expand, ingest
from ingest.schema import SCHEMA_VERSION
from ingest.sql import SqlRefused, query
from replay.engine import replay_path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("db") / "t.duckdb")
    sources, missing = expand([str(SAMPLES)])
    assert not missing
    summary = ingest(sources, db, jobs=2, batch_size=100)
    return db, sources, summary


def count(db, sql, params=None):
    with reading(db) as con:
        return con.execute(sql, params or []).fetchone()[0]


def test_row_counts_match_the_logs(loaded):
    db, sources, summary = loaded
    assert summary.loaded == len(sources) and summary.unreadable == 0
    plays = events = illegal = 0
    for s in sources:
        r = replay_path(s.path)
        illegal += r.status == "illegal"
        for line in Path(s.path).read_bytes().splitlines()[1:r.error.line - 1 if r.error else None]:
            ev = orjson.loads(line)
            if ev["type"] == "play":
                plays += 1
            elif ev["type"] in ("place", "draw"):
                plays += 2
            events += 1
    assert count(db, "SELECT count(*) FROM logs") == len(sources)
    assert count(db, "SELECT count(*) FROM games") == len(sources)
    assert count(db, "SELECT count(*) FROM games WHERE status = 'illegal'") == illegal
    assert count(db, "SELECT count(*) FROM plays") == plays
    assert count(db, "SELECT sum(events) FROM games") == events
    assert count(db, "SELECT count(*) FROM ingest_errors WHERE status = 'illegal'") == illegal
    # players: one row per seat; round_scores: one per finished round and player
    assert count(db, "SELECT count(*) FROM players") == count(db, "SELECT sum(n_players) FROM games")
    assert count(db, "SELECT count(*) FROM round_scores") == count(
        db, "SELECT sum(g.n_players) FROM rounds r JOIN games g USING (game_id)")
    # every plotters trick has a first pick; every rage round has one bid per player
    assert count(db, "SELECT count(*) FROM tricks t JOIN games g USING (game_id) "
                     "WHERE g.game = 'plotters'") == count(
        db, "SELECT count(*) FROM takes WHERE role = 'first_pick'")
    assert count(db, "SELECT count(*) FROM bids") == count(
        db, "SELECT sum(g.n_players) FROM rounds r JOIN games g USING (game_id) "
            "WHERE g.game = 'rage'")


def test_loading_twice_changes_nothing(loaded):
    db, sources, _ = loaded
    before = {t: count(db, f"SELECT count(*) FROM {t}") for t in ("logs", "games", "plays")}
    again = ingest(sources, db, jobs=1)
    assert again.already == len(sources) and again.loaded == 0
    assert {t: count(db, f"SELECT count(*) FROM {t}") for t in before} == before


def test_a_broken_file_is_recorded_and_the_rest_loads(tmp_path):
    db = str(tmp_path / "t.duckdb")
    good = sorted((SAMPLES / "rage").glob("*.jsonl"))
    bad = tmp_path / "bad.jsonl"
    lines = good[0].read_bytes().splitlines()
    head = orjson.loads(lines[0])
    head["id"] = "broken-copy"
    bad.write_bytes(b"\n".join([orjson.dumps(head), lines[1], lines[2], b"{oops"]) + b"\n")
    unreadable = tmp_path / "empty.jsonl"
    unreadable.write_bytes(b"")
    sources = [Source(str(p), path=str(p)) for p in [*good, bad, unreadable]]
    s = ingest(sources, db, jobs=1)
    assert s.loaded == len(good) + 1 and s.illegal == 1 and s.unreadable == 1
    with reading(db) as con:
        rows = con.execute("SELECT file_name, status, line, message FROM ingest_errors "
                           "ORDER BY file_name").fetchall()
    assert rows[0][0].endswith("bad.jsonl") and rows[0][1] == "illegal" and rows[0][2] == 4
    assert "not valid JSON" in rows[0][3]
    assert rows[1][0].endswith("empty.jsonl") and rows[1][1] == "unreadable"
    assert count(db, "SELECT count(*) FROM logs WHERE status = 'unreadable'") == 1


def test_an_error_mid_batch_leaves_the_database_unchanged(tmp_path, monkeypatch):
    db = str(tmp_path / "t.duckdb")
    first = sorted((SAMPLES / "plotters").glob("*.jsonl"))
    ingest([Source(str(p), path=str(p)) for p in first], db, jobs=1)
    before = {t: count(db, f"SELECT count(*) FROM {t}") for t in ("logs", "games", "plays",
                                                                  "tricks")}
    rest = sorted((SAMPLES / "rage").glob("*.jsonl"))

    real_insert = DatabaseWriter.insert

    def crash(self, con, table, files) -> None:
        real_insert(self, con, table, files)
        if table == "plays":
            raise RuntimeError("injected fault after some inserts")

    monkeypatch.setattr(DatabaseWriter, "insert", crash)
    with pytest.raises(RuntimeError, match="injected fault"):
        ingest([Source(str(p), path=str(p)) for p in rest], db, jobs=1)
    monkeypatch.setattr(DatabaseWriter, "insert", real_insert)
    assert {t: count(db, f"SELECT count(*) FROM {t}") for t in before} == before
    ok = ingest([Source(str(p), path=str(p)) for p in rest], db, jobs=1)
    assert ok.loaded == len(rest)


def test_upload_bytes_and_id_conflicts(tmp_path):
    db = str(tmp_path / "t.duckdb")
    data = (SAMPLES / "rage" / "rage-5p-hidden-bid.jsonl").read_bytes()
    s = ingest([Source("upload.jsonl", data=data)], db, jobs=1)
    assert s.loaded == 1
    changed = data.replace(b'"platform"', b'"note":"copy","platform"', 1)
    s = ingest([Source("copy.jsonl", data=changed)], db, jobs=1)
    assert s.conflicts == 1 and s.loaded == 0
    assert count(db, "SELECT count(*) FROM ingest_errors WHERE status = 'conflict'") == 1
    assert count(db, "SELECT count(*) FROM logs") == 2  # the text is kept all the same


DOC_QUERIES = re.findall(r"```sql\n(.*?)```", (ROOT / "docs" / "sql.md").read_text(), re.S)


def test_docs_have_ten_questions():
    assert len(DOC_QUERIES) >= 10


@pytest.mark.parametrize("sql", DOC_QUERIES)
def test_docs_example_queries_answer(loaded, sql):
    db = loaded[0]
    res = query(db, sql)
    assert res.rows, sql


@pytest.mark.parametrize("sql,words", [
    ("INSERT INTO games (game_id) VALUES ('x')", "read-only"),
    ("DELETE FROM games", "read-only"),
    ("CREATE TABLE t (a INT)", "read-only"),
    ("SELECT * FROM read_csv('/etc/passwd')", "no file or network access"),
    ("COPY games TO '/tmp/out.csv'", "COPY is refused"),
    ("ATTACH '/tmp/other.duckdb' AS o", "ATTACH is refused"),
    ("INSTALL httpfs", "INSTALL and LOAD are refused"),
    ("LOAD httpfs", "INSTALL and LOAD are refused"),
    ("SET threads = 1", "SET is refused"),
    ("PRAGMA enable_profiling", "PRAGMA is refused"),
    ("SELECT 1; SELECT 2", "one statement"),
    ("EXPLAIN ANALYZE COPY (SELECT 1) TO '/tmp/evil.csv'", "EXPLAIN is allowed only"),
    ("EXPLAIN (ANALYZE) COPY (SELECT 1) TO '/tmp/evil.csv'", "EXPLAIN is allowed only"),
    ("SELEC 1", "syntax error"),
])
def test_sql_refuses_writes_files_and_settings(loaded, sql, words):
    with pytest.raises(SqlRefused, match=re.escape(words)):
        query(loaded[0], sql)


def test_runaway_query_is_cut_off_and_rows_capped(loaded):
    with pytest.raises(SqlRefused, match="longer than"):
        query(loaded[0], "SELECT count(*) FROM range(10000000000) a, range(100) b",
              timeout_s=0.5)
    res = query(loaded[0], "SELECT * FROM range(100)", max_rows=10)
    assert len(res.rows) == 10 and res.truncated


def test_sql_command_formats_and_errors(loaded, capsys):
    db = loaded[0]
    assert main(["sql", "--db", db, "--format", "json",
                 "SELECT game, count(*) AS n FROM games GROUP BY game ORDER BY game"]) == 0
    rows = orjson.loads(capsys.readouterr().out)
    assert [r["game"] for r in rows] == ["color_stacks", "plotters", "rage", "under_the_radar"]
    assert main(["sql", "--db", db, "--format", "csv", "SELECT 1 AS a"]) == 0
    assert capsys.readouterr().out.splitlines() == ["a", "1"]
    assert main(["sql", "--db", db, "DROP TABLE games"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "read-only" in err
    assert count(db, "SELECT count(*) FROM games") > 0


def test_ingest_command_reports_and_records_missing_paths(tmp_path, capsys):
    db = str(tmp_path / "t.duckdb")
    rc = main(["ingest", "--db", db, str(SAMPLES / "color_stacks"), str(tmp_path / "nope"),
               str(tmp_path / "*.none")])
    out = capsys.readouterr()
    assert rc == 1 and "no such file" in out.err and "loaded 4" in out.out
    assert count(db, "SELECT count(*) FROM ingest_errors") == 2


def test_database_file_is_a_real_duckdb_file(loaded):
    con = duckdb.connect(loaded[0], read_only=True)
    assert con.execute("SELECT max(version) FROM schema_version").fetchone()[0] == SCHEMA_VERSION
    con.close()


def test_explain_of_a_select_is_allowed(loaded):
    assert query(loaded[0], "EXPLAIN SELECT count(*) FROM games").rows
    assert query(loaded[0], "EXPLAIN ANALYZE SELECT count(*) FROM games").rows


def test_reingesting_a_conflict_or_an_unreadable_file_says_so(tmp_path, capsys):
    """A file that was not loaded is never "already loaded" (issue 16)."""
    db = str(tmp_path / "t.duckdb")
    data = (SAMPLES / "rage" / "rage-5p-hidden-bid.jsonl").read_bytes()
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "original.jsonl").write_bytes(data)
    assert main(["ingest", "--db", db, str(tmp_path / "a")]) == 0
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "copy.jsonl").write_bytes(
        data.replace(b'"platform"', b'"note":"copy","platform"', 1))
    (tmp_path / "b" / "garbage.jsonl").write_bytes(b"\x00 not a log\n")
    capsys.readouterr()
    for _ in range(2):
        rc = main(["ingest", "--db", db, str(tmp_path / "b")])
        out = capsys.readouterr().out
        assert rc == 1, out
        assert "copy.jsonl: conflict: game id" in out, out
        assert "garbage.jsonl:1: unreadable: line is not valid JSON" in out, out
        assert "already loaded 0" in out and "loaded 0" in out, out
    assert count(db, "SELECT count(*) FROM logs") == 3
    assert count(db, "SELECT count(*) FROM ingest_errors") == 2  # not recorded twice


def test_sql_on_a_missing_database_file_says_so(tmp_path, capsys):
    db = tmp_path / "nope.duckdb"
    assert main(["sql", "--db", str(db), "SELECT 1"]) == 2
    err = capsys.readouterr().err
    assert "no such database file" in err and str(db) in err
    assert not db.exists()
