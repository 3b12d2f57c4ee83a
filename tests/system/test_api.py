"""The Python API (docs/python.md) against real database files, lakes and processes: the
same verdicts and counts as the commands, read-only stores, a lake scanned in place, the
documented examples as written, and the commands' start-up without the heavy modules."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest

import trickledger
from trickledger.ingest import schema
from trickledger.ingest.db import NoDatabase
from trickledger.ingest.lake import COMPACT_MIN_FILES, LakeError, read_state
from trickledger.ingest.sql import SqlRefused
from trickledger.ingest.store import StoreError

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
HEAVY = ("duckdb", "pyarrow", "polars", "email", "multiprocessing")
LOGS = ["plotters/plotters-5p-claims.jsonl",  # complete, one claim does not match
        "corpus/color_stacks/color_stacks-s7-000020.jsonl",  # an illegal move
        "sheets/color-stacks-4p.sheet.jsonl"]  # a score sheet


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trickledger", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=600)


def python_blocks(markdown: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", markdown.read_text(), re.M | re.S)


def without_timing(line: str) -> str:
    return line.split(";")[0]


def test_verify_gives_the_verdict_that_verify_json_prints():
    paths = [str(SAMPLES / name) for name in LOGS]
    printed = orjson.loads(cli("verify", "--json", *paths).stdout)
    for path, expected in zip(paths, printed):
        v = trickledger.verify(path)
        assert v.to_dict() == expected
        assert list(v.to_dict()) == list(expected)  # the same keys in the same order
        assert (v.status, v.game, v.winners, v.totals, v.claims, v.error) == (
            expected["status"], expected["game"], expected["winners"], expected["totals"],
            expected["claims"], expected["error"])
        from_bytes = trickledger.verify(Path(path).read_bytes(), name=path)
        assert from_bytes == v
    assert [trickledger.verify(p).status for p in paths] == ["complete", "illegal", "complete"]
    assert trickledger.verify(paths[0]).disputed


def test_verify_and_replay_refuse_what_is_not_a_log_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        trickledger.verify(tmp_path / "missing.jsonl")
    with pytest.raises(IsADirectoryError, match="a folder"):
        trickledger.replay_log(tmp_path)
    garbage = trickledger.verify(b"\x00\x01 not a log", name="upload.jsonl")
    assert garbage.status == "unreadable" and garbage.file == "upload.jsonl"
    assert garbage.error is not None and garbage.error["message"]


def test_replay_keeps_the_facts_and_the_rendering():
    path = SAMPLES / "plotters" / "plotters-6p.jsonl"
    r = trickledger.replay_log(path)
    assert r.status == "complete" and r.header is not None and len(r.header.players) == 6
    assert r.state is not None and len(r.state.rounds) == 6
    kinds = {type(f).__name__ for f in r.facts}
    assert {"RoundDealt", "TrickFinished", "RoundScored"} <= kinds
    printed = cli("replay", str(path)).stdout.splitlines()
    rendered = r.render()
    assert printed[1:1 + len(rendered)] == rendered


def test_ingest_returns_the_counts_the_command_prints(tmp_path):
    corpus = SAMPLES / "corpus" / "color_stacks"
    printed = cli("ingest", str(corpus), "--db", str(tmp_path / "cli.duckdb"))
    cli_line = next(x for x in printed.stdout.splitlines() if x.startswith("loaded "))
    summary = trickledger.ingest_logs(corpus, db=tmp_path / "api.duckdb")
    assert without_timing(summary.line()) == without_timing(cli_line)
    assert summary.loaded == 80 and summary.illegal > 0 and summary.refused == []
    assert len(summary.results) == summary.loaded
    again = trickledger.ingest_logs([str(corpus)], db=tmp_path / "api.duckdb")
    assert (again.loaded, again.already) == (0, 80)
    store = trickledger.connect(tmp_path / "api.duckdb")
    audit = store.sql("SELECT via, action, result FROM audit_log ORDER BY happened_at")
    # what happened, as the command line writes it: a second run is not "loaded 0"
    assert audit.rows() == [("python", "ingest", "loaded 80"),
                           ("python", "ingest", "loaded 0, already loaded 80")]


def test_ingest_warns_of_and_records_a_source_that_names_nothing(tmp_path):
    one = SAMPLES / "plotters" / "plotters-6p.jsonl"
    with pytest.warns(UserWarning, match="nowhere.jsonl: no such file"):
        summary = trickledger.ingest_logs([one, tmp_path / "nowhere.jsonl"], db=tmp_path / "t.duckdb")
    assert summary.loaded == 1
    assert summary.refused == [(str(tmp_path / "nowhere.jsonl"), "no such file or folder")]
    errors = trickledger.connect(tmp_path / "t.duckdb").sql(
        "SELECT file_name, status FROM ingest_errors")
    assert errors.rows() == [(str(tmp_path / "nowhere.jsonl"), "unreadable")]


def test_connect_is_read_only(tmp_path, rage_db):
    missing = tmp_path / "none.duckdb"
    with pytest.raises(NoDatabase, match="no such database file"):
        trickledger.connect(missing)
    assert not missing.exists()  # reading never creates the file
    with pytest.raises(LakeError, match="not a trickledger lake"):
        trickledger.connect(lake=tmp_path)
    with pytest.raises(ValueError, match="not both"):
        trickledger.connect(tmp_path / "a.duckdb", lake=tmp_path / "lake")

    trickledger.ingest_logs(SAMPLES / "rage", lake=tmp_path / "lake")
    for store in (trickledger.connect(rage_db),
                  trickledger.connect(lake=tmp_path / "lake")):
        with pytest.raises(SqlRefused, match="read-only"):
            store.sql("DELETE FROM games")
        with pytest.raises(SqlRefused, match="COPY"):
            store.sql(f"COPY games TO '{tmp_path / 'lake' / 'games' / 'x.parquet'}'")
        with pytest.raises(SqlRefused, match="one statement"):
            store.sql("SELECT 1; SELECT 2")
        with pytest.raises(SqlRefused, match="(?i)not found|does not exist"):
            store.sql("SELECT * FROM no_such_table")
        with pytest.raises(StoreError, match="read-only"), store.transaction():
            pass
        with pytest.raises(StoreError, match="no table 'nope'"):
            store.table("nope")
        assert store.sql("SELECT count(*) AS n FROM games")["n"].to_list() == [3]
        # values are parameters: a quote in a value is a value
        assert store.sql("SELECT count(*) AS n FROM games WHERE game_id = ?",
                         ["x' OR '1'='1"])["n"].to_list() == [0]
        assert store.sql("SELECT $g AS g", {"g": "rage"})["g"].to_list() == ["rage"]
    assert not list((tmp_path / "lake" / "games").rglob("x.parquet"))
    # the file is not held between calls: a writer gets it at once
    with duckdb.connect(rage_db) as con:
        con.execute("SELECT 1")


def test_tables_are_the_same_in_a_file_and_a_lake(tmp_path):
    # 20 of the corpus's rage games: every table compared has rows (but split_stats, a
    # plotters table, empty with all 80 too), in ten lake batches
    rage = sorted((SAMPLES / "corpus" / "rage").glob("*.jsonl"))[:20]
    trickledger.ingest_logs(rage, db=tmp_path / "t.duckdb")
    trickledger.ingest_logs(rage, lake=tmp_path / "lake", batch_size=2)
    db = trickledger.connect(tmp_path / "t.duckdb")
    lake = trickledger.connect(lake=tmp_path / "lake")
    assert "plays" in db.tables() and "split_stats" in db.tables()
    assert set(lake.tables()) <= set(db.tables())
    for name in ("games", "players", "plays", "tricks", "bids", "claims", "split_stats"):
        in_file, in_lake = db.table(name).collect(), lake.table(name).collect()
        assert in_lake.schema == in_file.schema, name
        key = [c for c in in_file.columns if c != "ingested_at"]  # when each was loaded
        assert in_lake.select(key).sort(key).equals(in_file.select(key).sort(key)), name


def test_a_lake_table_is_scanned_in_place_from_the_listed_files_only(tmp_path):
    lake = tmp_path / "lake"
    # many small batches, then a compaction (its manifest removes the small files and
    # adds the merged ones): 17 one-log batches are one more than a partition needs to be
    # merged (lake.COMPACT_MIN_FILES), a fifth of the corpus's 80
    rage = sorted((SAMPLES / "corpus" / "rage").glob("*.jsonl"))[:COMPACT_MIN_FILES + 1]
    trickledger.ingest_logs(rage, lake=lake, batch_size=1)
    assert trickledger.main(["compact", "--lake", str(lake)]) == 0
    state = read_state(str(lake), index=False)
    assert any("remove" in orjson.loads(p.read_bytes()) for p in (lake / "_manifest").iterdir())
    listed = state.files["plays"]
    # a file no manifest lists, where a crashed commit leaves one: a glob reads it too (a
    # copy of the biggest listed file: a table's first file may hold no row)
    biggest = max(listed, key=lambda p: (lake / p).stat().st_size)
    stray = lake / Path(biggest).parent / "part-stray.parquet"
    shutil.copy(lake / biggest, stray)
    store = trickledger.connect(lake=lake)
    plays = store.table("plays")
    assert isinstance(plays, pl.LazyFrame)
    n = store.sql("SELECT count(*) AS n FROM plays")["n"][0]
    assert plays.select(pl.len()).collect().item() == n > 0
    globbed = pl.scan_parquet(str(lake / "plays" / "**" / "*.parquet"), hive_partitioning=False)
    assert globbed.select(pl.len()).collect().item() > n  # what the listing avoids
    plan = plays.explain()
    assert "stray" not in plan
    # every table of the schema, with rows or without (claims, ingest_errors, the derived
    # tables here), has the schema's columns and DuckDB's count
    for name in schema.TABLES:
        frame = store.table(name).collect()
        assert frame.columns == [c for c, _ in schema.TABLES[name]], name
        assert frame.height == store.sql(f"SELECT count(*) AS n FROM {name}")["n"][0], name
    assert store.table("hand_estimates").collect().height == 0


def test_the_readme_python_example_runs(tmp_path, monkeypatch):
    blocks = python_blocks(ROOT / "README.md")
    assert len(blocks) == 1
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sample_logs").symlink_to(SAMPLES)  # the README runs in a checkout
    namespace: dict[str, object] = {}
    exec(compile(blocks[0], "README.md, python block", "exec"), namespace)
    assert trickledger.verify(SAMPLES / "plotters" / "plotters-5p-claims.jsonl").winners == ["Yan"]
    assert trickledger.connect("trickledger.duckdb").sql(
        "SELECT player, second_share FROM split_stats ORDER BY 2 DESC LIMIT 3").height == 3


# ------------------------------------------------------------------ start-up


def imported_modules(*args: str) -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules a run of `python -X importtime ARGS` imported, from its import log."""
    done = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    names = {m.group(1) for m in re.finditer(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)$",
                                              done.stderr, re.M)}
    assert "trickledger" in names, done.stderr[-2000:]
    return names, done


@pytest.mark.parametrize("command", ["verify", "replay"])
def test_verify_and_replay_start_without_the_heavy_modules(command):
    log = str(SAMPLES / "plotters" / "plotters-5p-claims.jsonl")
    names, done = imported_modules("-m", "trickledger", command, log)
    assert done.returncode == 1 and "claim" in done.stdout  # it ran: the sample is disputed
    heavy = sorted(m for m in names if m.split(".")[0] in HEAVY)
    assert heavy == [], f"trickledger {command} imported {heavy}"
    assert not [m for m in names if m.startswith(("trickledger.ingest", "trickledger.dashboard"))]


def test_import_trickledger_is_light_and_the_api_loads_on_first_use():
    names, _ = imported_modules("-c", "import trickledger")
    assert not [m for m in names if m.split(".")[0] in HEAVY
                or m.startswith(("trickledger.replay", "trickledger.ingest"))]
    names, _ = imported_modules("-c", "import trickledger; trickledger.verify")
    assert "trickledger.api" in names and "duckdb" in names
    assert f"trickledger {trickledger.__version__} (" in trickledger.version_text()


def test_a_command_parses_the_same_from_the_partial_and_the_whole_parser():
    whole = trickledger.build_parser()
    for command in ("verify", "replay", "sheet-of", "simulate", "ingest", "sql", "dashboard"):
        partial = trickledger.build_parser(command)
        helps = [next(a for a in p._subparsers._group_actions  # type: ignore[union-attr]
                      ).choices[command].format_help() for p in (whole, partial)]
        assert helps[0] == helps[1], command
    assert "dashboard" not in trickledger.build_parser("verify").format_help()
    env = {**os.environ, "COLUMNS": "100"}
    top = subprocess.run([sys.executable, "-m", "trickledger", "--help"], capture_output=True,
                         text=True, env=env, timeout=300)
    assert "dashboard" in top.stdout and "verify" in top.stdout


# what the walk-through leaves, checked at the end of the script (the names its blocks bind)
CHECK_THE_WALK = """
import polars as _pl
assert isinstance(leaderboard, _pl.DataFrame) and leaderboard.height > 5, leaderboard
assert type(fig).__name__ == "Figure", type(fig)
print("walked:", leaderboard.height, "leaderboard rows")
"""


def test_the_walk_through_runs_as_written_in_a_plain_script(tmp_path):
    """docs/python.md's blocks pasted into a script, run with `python walk.py`, no
    `if __name__ == "__main__":`: every example runs as written and warns of nothing, the
    ingest's workers start without running the script again, so it prints everything once
    and ends well (before, the workers re-ran the script: its output came three times and
    the ingest raised WorkerLost). (One run, in a process of its own, for what two runs
    checked before: the examples executed in the test's process, and the script.)"""
    blocks = python_blocks(ROOT / "docs" / "python.md")
    assert len(blocks) >= 8
    script = tmp_path / "walk.py"
    script.write_text("\n".join(blocks) + CHECK_THE_WALK)
    # -W error: a documented example does not warn
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "WorkerLost" not in done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("complete plotters") and done.stdout.count(first) == 1, done.stdout
    assert done.stdout.count("loaded 337 (") == 1, done.stdout
    assert done.stdout.count("walked: ") == 1, done.stdout
    assert (tmp_path / "games.duckdb").is_file() and (tmp_path / "lake" / "_manifest").is_dir()


ENDLESS = "SELECT count(*) FROM range(1000000000000)"  # hours of work
ENDLESS_RECURSION = ("WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
                     "SELECT count(*) FROM r")


def test_a_query_stops_at_the_timeout_it_was_given(rage_db):
    """Issue 35: an endless query through the Python API ran for ever. A notebook gives
    each query of a store a timeout (connect), or one query its own (sql)."""
    from trickledger.ingest.store import QueryTimeout

    store = trickledger.connect(rage_db, timeout=1)
    for query in (ENDLESS, ENDLESS_RECURSION):
        with pytest.raises(QueryTimeout, match=r"ran longer than 1 s and was stopped"):
            store.sql(query)
    with pytest.raises(QueryTimeout, match=r"longer than 0.5 s"):
        trickledger.connect(store.path).sql(ENDLESS, timeout=0.5)
    assert store.sql("SELECT count(*) AS n FROM logs")["n"][0] > 0  # the store goes on
    assert store.table("games").collect().height > 0
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="timeout must be"):
            trickledger.connect(store.path, timeout=bad)
        with pytest.raises(ValueError, match="timeout must be"):
            store.sql("SELECT 1", timeout=bad)


NOTEBOOK = """
import sys, trickledger
store = trickledger.connect(sys.argv[1])
print("running", flush=True)
try:
    store.sql(sys.argv[2])
except KeyboardInterrupt:
    print("stopped by Ctrl-C", flush=True)
print("then", store.sql("SELECT count(*) AS n FROM logs")["n"][0], flush=True)
"""


@pytest.mark.parametrize("query", [ENDLESS, ENDLESS_RECURSION], ids=["range", "recursion"])
def test_ctrl_c_stops_a_query_without_a_timeout(rage_db, query):
    """Ctrl-C (a notebook's 'interrupt the kernel' sends SIGINT) stops a running query, and
    the store answers the next one; DuckDB's own call would not let the signal through."""
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-c", NOTEBOOK, rage_db, query], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "running\n"
        ticks = _cpu_ticks(proc.pid)
        while _cpu_ticks(proc.pid) < ticks + 50:  # half a second of the query's work
            assert proc.poll() is None
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)  # a bound that turns a hang into a failure
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "stopped by Ctrl-C" in out and "then " in out, out + err
    assert proc.returncode == 0, err


def _cpu_ticks(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(stat[11]) + int(stat[12])  # utime + stime
