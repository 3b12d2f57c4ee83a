"""One corpus three ways (embedded DuckDB file, --lake, Dask + --lake): the same tables;
loading twice adds nothing; a worker killed with SIGKILL mid-run changes nothing; the
lake answers `sql --lake` and the dashboard's queries. Real files, real processes, one
Dask LocalCluster for the module."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest
from helpers import killed_at_marker, page_file

from trickledger import main
from trickledger.ingest import lake as lakes
from trickledger.ingest.db import reading
from trickledger.ingest.load import Source, expand, ingest
from trickledger.ingest.schema import TABLES, views
from trickledger.replay.simulate import SimOptions, simulate

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
TIMESTAMPS = {"ingested_at", "recorded_at"}

dask_distributed = pytest.importorskip("dask.distributed")


# ------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def samples_and_oddities(tmp_path_factory) -> Path:
    """The sample logs, a small simulated corpus (wrong claims, illegal moves), a log that
    reuses a game id with other bytes, the same bytes twice, and an unreadable file."""
    d = tmp_path_factory.mktemp("corpus")
    shutil.copytree(SAMPLES, d / "samples", ignore=shutil.ignore_patterns("*.py", "*.md",
                                                                          "*.sh"))
    sim = d / "simulated"
    sim.mkdir()
    for game, players in (("plotters", (4, 6)), ("rage", (3, 5))):
        opts = SimOptions(game=game, games=12, players=players, bots=("greedy", "random"),
                          seed=15, claims=True, wrong_claims=0.1, illegal=0.2,
                          id_prefix=f"t15-{game}")
        for name, data, _ in simulate(opts, jobs=1):
            (sim / name).write_bytes(data)
    first = sorted(sim.glob("t15-rage*.jsonl"))[0]
    lines = first.read_bytes().splitlines(keepends=True)
    head = orjson.loads(lines[0])
    head["meta"] = {**head.get("meta", {}), "note": "another copy"}
    (sim / "zz-conflict.jsonl").write_bytes(orjson.dumps(head) + b"\n" + b"".join(lines[1:]))
    (sim / "zz-same-bytes.jsonl").write_bytes(first.read_bytes())
    (sim / "zz-unreadable.jsonl").write_bytes(b"\x00\x01 not a log\n")
    return d


def sources(corpus: Path) -> list[Source]:
    found, missing = expand([str(corpus)])
    assert not missing
    return found


def subset(corpus: Path) -> list[Source]:
    """A smaller corpus for the crash tests: the simulated logs and the rage samples."""
    found, missing = expand([str(corpus / "simulated"), str(corpus / "samples" / "rage"),
                             str(corpus / "samples" / "corpus" / "rage")])
    assert not missing and len(found) > 64  # enough for a pool of worker processes
    return found


@pytest.fixture(scope="module")
def undisturbed(samples_and_oddities, tmp_path_factory) -> dict[str, tuple[int, int]]:
    """The subset loaded without incident: what every crash test must end up with."""
    db = str(tmp_path_factory.mktemp("undisturbed") / "t.duckdb")
    ingest(subset(samples_and_oddities), db, jobs=2, batch_size=20)
    return db_snapshot(db)


@pytest.fixture(scope="module")
def cluster():
    """One Dask LocalCluster (2 worker processes) for the whole module; its address."""
    from dask.distributed import Client, LocalCluster

    c = LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                     dashboard_address=None)
    client = Client(c)
    client.wait_for_workers(2, timeout=120)
    yield c.scheduler_address, client
    client.close()
    c.close()


def snapshot(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, int]]:
    """Per table and view: row count and an order-independent checksum of every row
    (load timestamps aside)."""
    out = {}
    for name in [*TABLES, *views()]:
        cols = [c for c, _ in TABLES[name]] if name in TABLES else [
            d[0] for d in con.execute(f"SELECT * FROM {name} LIMIT 0").description]
        keep = ", ".join(f'"{c}"' for c in cols if c not in TIMESTAMPS)
        n, h = con.execute(f"SELECT count(*), coalesce(sum(hash(row({keep}))::HUGEINT), 0) "
                           f"FROM {name}").fetchone()
        out[name] = (n, int(h))
    return out


def db_snapshot(path: str) -> dict[str, tuple[int, int]]:
    with reading(path) as con:
        return snapshot(con)


def lake_snapshot(path: str) -> dict[str, tuple[int, int]]:
    with lakes.reading(path) as con:
        return snapshot(con)


@pytest.fixture(scope="module")
def embedded(samples_and_oddities, tmp_path_factory):
    db = str(tmp_path_factory.mktemp("embedded") / "t.duckdb")
    s = ingest(sources(samples_and_oddities), db, jobs=2, batch_size=100)
    return db, s


@pytest.fixture(scope="module")
def lake(samples_and_oddities, tmp_path_factory):
    d = str(tmp_path_factory.mktemp("lake") / "lake")
    s = ingest(sources(samples_and_oddities), lake=d, jobs=2, batch_size=100)
    return d, s


@pytest.fixture(scope="module")
def clustered(samples_and_oddities, cluster, tmp_path_factory):
    d = str(tmp_path_factory.mktemp("clustered") / "lake")
    s = ingest(sources(samples_and_oddities), lake=d, batch_size=100, cluster=cluster[0])
    return d, s


# ------------------------------------------------------------------ the same tables


def test_three_ways_give_identical_tables_and_views(embedded, lake, clustered):
    want = db_snapshot(embedded[0])
    assert want["games"][0] > 300 and want["plays"][0] > 10_000
    assert lake_snapshot(lake[0]) == want
    assert lake_snapshot(clustered[0]) == want
    for s in (embedded[1], lake[1], clustered[1]):
        assert (s.loaded, s.conflicts, s.unreadable) == (embedded[1].loaded, 1, 1)
        assert s.already == 1  # the same bytes under a second name


def test_the_lake_is_a_plain_hive_partitioned_parquet_dataset(clustered, embedded):
    import polars as pl

    d = clustered[0]
    games = pl.read_parquet(f"{d}/games/**/*.parquet", hive_partitioning=True)
    assert set(games["game"].unique()) == {"plotters", "rage", "color_stacks",
                                           "under_the_radar"}
    assert "ingest_date" in games.columns
    with reading(embedded[0]) as con:
        assert games.height == con.execute("SELECT count(*) FROM games").fetchone()[0]
    con = duckdb.connect()
    n = con.execute("SELECT count(*) FROM read_parquet(?, hive_partitioning=true) "
                    "WHERE game = 'rage'", [f"{d}/plays/**/*.parquet"]).fetchone()[0]
    assert n > 0
    shas = {e["sha256"] for m in sorted(Path(d, "_manifest").glob("*.json"))
            for e in orjson.loads(m.read_bytes())["logs"]}
    logs = pl.read_parquet(f"{d}/logs/**/*.parquet", hive_partitioning=True)
    assert shas == set(logs["sha256"]) >= set(games["sha256"])
    assert logs.filter(pl.col("game").is_null())["status"].to_list() == ["unreadable"]


# ------------------------------------------------------------------ idempotent


@pytest.mark.parametrize("mode", ["embedded", "lake", "clustered"])
def test_ingesting_twice_adds_nothing(mode, samples_and_oddities, embedded, lake, clustered,
                                      cluster):
    target, first = {"embedded": embedded, "lake": lake, "clustered": clustered}[mode]
    snap = db_snapshot if mode == "embedded" else lake_snapshot
    before = snap(target)
    manifests = lakes.manifests(target) if mode != "embedded" else []
    kw: dict[str, Any] = {"batch_size": 100}
    if mode == "embedded":
        again = ingest(sources(samples_and_oddities), target, jobs=2, **kw)
    else:
        again = ingest(sources(samples_and_oddities), lake=target, jobs=2,
                       cluster=cluster[0] if mode == "clustered" else None, **kw)
    assert again.loaded == 0 and again.already == first.loaded + 1
    # what was not loaded is reported as it is, never as "already loaded"
    assert again.conflicts == 1 and again.unreadable == 1
    assert snap(target) == before
    # no loaded log was replayed: every worker skipped them unread, so no batch had to
    # run again once its commit found them loaded (on Dask the skip list once arrived
    # as Futures, and every chunk was replayed, then rerun)
    assert again.reruns == 0
    # and an idle re-ingest commits nothing: no empty manifest per batch
    assert (lakes.manifests(target) if mode != "embedded" else []) == manifests


# ------------------------------------------------------------------ SIGKILL a worker


def _reader_of(fifo: Path, other_than: int | None = None) -> int | None:
    """The pid of the process that has `fifo` open (a worker blocked reading it)."""
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) in (os.getpid(), other_than):
            continue
        try:
            for fd in (proc / "fd").iterdir():
                if os.readlink(fd) == str(fifo):
                    return int(proc.name)
        except OSError:
            continue
    return None


def _wait_for_reader(fifo: Path, other_than: int | None = None, timeout_s: float = 300
                     ) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pid = _reader_of(fifo, other_than)
        if pid is not None:
            return pid
        time.sleep(0.05)
    raise AssertionError(f"no worker is reading {fifo}")


@pytest.mark.parametrize("mode", ["embedded", "clustered"])
def test_a_worker_killed_mid_run_changes_nothing(mode, samples_and_oddities, undisturbed, cluster,
                                                 tmp_path):
    """One log is a named pipe: the worker that reads it waits, mid-batch (the reader
    waits up to 10 s for a pipe's first bytes), until the test has killed it with SIGKILL
    and then writes the log's bytes. The batch runs again on
    another worker (a new pool; Dask's retry) and the tables equal an undisturbed run's;
    running the same command again adds nothing."""
    srcs = subset(samples_and_oddities)
    k = len(srcs) // 2
    victim = srcs[k]
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    srcs[k] = Source(victim.name, path=str(fifo))
    target = str(tmp_path / ("t.duckdb" if mode == "embedded" else "lake"))

    def run(srcs: list[Source]) -> Any:
        if mode == "embedded":
            return ingest(srcs, target, jobs=2, batch_size=20)
        return ingest(srcs, lake=target, batch_size=20, cluster=cluster[0])

    # our end, opened first for reading and writing: a worker's read then waits for
    # bytes instead of finding a pipe without a writer (which reads as empty)
    w = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    result: dict[str, Any] = {}
    t = threading.Thread(target=lambda: result.setdefault("s", run(srcs)))
    t.start()
    pid = _wait_for_reader(fifo)
    os.kill(pid, signal.SIGKILL)
    data = Path(victim.path or "").read_bytes()
    # the batch runs again (a new pool, or another Dask worker) and waits on the pipe
    # again: this time it gets the log
    _wait_for_reader(fifo, other_than=pid)
    os.set_blocking(w, True)
    os.write(w, data)
    os.close(w)
    t.join(300)
    assert not t.is_alive() and "s" in result
    snap = db_snapshot if mode == "embedded" else lake_snapshot
    assert snap(target) == undisturbed
    again = run(subset(samples_and_oddities))
    assert again.loaded == 0
    assert snap(target) == undisturbed


# ------------------------------------------------------------------ reading the lake


def test_sql_lake_answers_from_the_cluster_lake(clustered, embedded, capsys):
    # what is checked is the answer, not the speed: a CI machine at load 40 may take more
    # than the default 10 s over split_stats on a lake (the limit is tested in test_console)
    patient = ["--timeout", "600"]
    rc = main(["sql", "--lake", clustered[0], "--format", "json", *patient,
               "SELECT game, count(*) AS n FROM games GROUP BY game ORDER BY game"])
    assert rc == 0
    rows = orjson.loads(capsys.readouterr().out)
    with reading(embedded[0]) as con:
        want = con.execute("SELECT game, count(*) FROM games GROUP BY game ORDER BY game"
                           ).fetchall()
    assert [(r["game"], r["n"]) for r in rows] == want
    assert main(["sql", "--lake", clustered[0], *patient,
                 "SELECT * FROM split_stats LIMIT 1"]) == 0
    capsys.readouterr()


REFUSED = [
    ("SELECT * FROM read_csv('/etc/passwd')", "no file or network access"),
    ("SELECT * FROM read_parquet('{outside}/x.parquet')", "no file or network access"),
    ("SELECT * FROM read_parquet('{lake}/../outside/x.parquet')", "no file or network access"),
    ("COPY games TO '{lake}/evil.parquet'", "COPY is refused"),
    ("EXPLAIN ANALYZE COPY (SELECT 1) TO '{lake}/evil.csv'", "EXPLAIN is allowed only"),
    ("EXPLAIN (ANALYZE) COPY (SELECT 1) TO '{lake}/evil.csv'", "EXPLAIN is allowed only"),
    ("ATTACH '{lake}/a.duckdb' AS a", "ATTACH is refused"),
    ("DROP VIEW games", "read-only"),
    ("SET enable_external_access = true", "SET is refused"),
]


def test_the_lake_console_reads_the_lake_and_nothing_else(clustered, tmp_path):
    from trickledger.ingest.sql import SqlRefused, run

    lake = Path(clustered[0])
    outside = lake.parent / "outside"
    outside.mkdir(exist_ok=True)
    duckdb.execute(f"COPY (SELECT 1 AS a) TO '{outside}/x.parquet'")
    with lakes.reading(str(lake)) as con:
        for sql, words in REFUSED:
            with pytest.raises(SqlRefused, match=words):
                run(con, sql.format(lake=lake, outside=outside))
        assert run(con, "EXPLAIN ANALYZE SELECT count(*) FROM plays").rows
        assert run(con, "SELECT count(*) FROM read_parquet(?)",
                   [f"{lake}/games/**/*.parquet"]).rows[0][0] > 0
    assert not list(lake.glob("evil*")) and not list(lake.glob("a.duckdb"))


def test_dashboard_pages_answer_from_the_cluster_lake(clustered, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from trickledger.dashboard.data import access, console

    monkeypatch.setenv("TRICKLEDGER_LAKE", clustered[0])
    access.database.clear()
    access.query.clear()
    try:
        assert access.database().lake is not None
        for view in ("overview", "bidding", "viewer"):
            at = AppTest.from_file(str(page_file(view)), default_timeout=120)
            at.run()
            assert not at.exception, (view, [e.value for e in at.exception])
        games = access.query("SELECT count(*) AS n FROM games")
        assert int(games["n"].iloc[0]) == lake_snapshot(clustered[0])["games"][0]
        assert console.run("SELECT count(*) FROM bid_accuracy").rows
    finally:
        access.database.clear()
        access.query.clear()


# ------------------------------------------------------------------ crash while committing


HANG_IN_COMMIT = """
import sys, time
from pathlib import Path
from trickledger.ingest.lake import LakeWriter
real = LakeWriter._publish
def publish(self, body):
    if len(list(Path(self.lake, "_manifest").glob("*.json"))) == 2:
        Path(sys.argv[1]).write_text("files moved, manifest not yet written")
        time.sleep(3600)
    return real(self, body)
LakeWriter._publish = publish
from trickledger import main
raise SystemExit(main(sys.argv[2:]))
"""


def test_a_committer_killed_mid_commit_leaves_no_half_batch(samples_and_oddities, undisturbed,
                                                            tmp_path):
    target = tmp_path / "lake"
    marker = tmp_path / "marker"
    args = ["ingest", "--lake", str(target), "--batch", "20", "--jobs", "2",
            *(s.path or "" for s in subset(samples_and_oddities))]
    killed_at_marker([HANG_IN_COMMIT, str(marker), *args], marker, 180)
    # the third batch's files are in the table folders, but no manifest lists them
    with lakes.reading(str(target)) as con:
        logs = con.execute("SELECT count(*) FROM logs").fetchone()[0]
        facts = con.execute("SELECT count(*) FROM plays WHERE game_id NOT IN "
                            "(SELECT game_id FROM games)").fetchone()[0]
    assert 0 < logs <= 2 * 20 and facts == 0
    on_disk = {p.relative_to(target).as_posix() for p in target.rglob("*.parquet")
               if "_staging" not in p.parts}
    listed = {p for ps in lakes.read_state(str(target)).files.values() for p in ps}
    assert on_disk > listed  # a crashed batch's files are there, unlisted
    rc = main(args)
    assert rc == 2  # the corpus holds a conflict and an unreadable file: 2, not all loaded
    assert lake_snapshot(str(target)) == undisturbed
    on_disk = {p.relative_to(target).as_posix() for p in target.rglob("*.parquet")
               if "_staging" not in p.parts}
    assert on_disk == {p for ps in lakes.read_state(str(target)).files.values() for p in ps}


# ------------------------------------------------------------------ fsspec sources


def test_a_source_may_be_an_fsspec_url(tmp_path, capsys):
    db = str(tmp_path / "t.duckdb")
    url = (SAMPLES / "color_stacks").resolve().as_uri()  # file:///...
    assert main(["ingest", "--db", db, url]) == 0
    assert "loaded 4 " in capsys.readouterr().out
    with reading(db) as con:
        names = [r[0] for r in con.execute("SELECT file_name FROM logs").fetchall()]
    assert len(names) == 4 and all(n.startswith("file:///") for n in names)


def test_a_url_whose_filesystem_is_not_installed_is_a_clean_error(tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("s3fs") is not None:
        pytest.skip("s3fs is installed here")
    rc = main(["ingest", "--db", str(tmp_path / "t.duckdb"), "s3://bucket/logs"])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert "s3://bucket/logs: the s3:// filesystem is not installed" in err and "s3fs" in err
    rc = main(["ingest", "--db", str(tmp_path / "t.duckdb"), "nosuchproto://x/y"])
    assert rc == 2 and "unknown protocol" in capsys.readouterr().err
