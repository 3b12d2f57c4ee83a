"""The lake as Parquet readers nobody here wrote see it: Polars, pyarrow.dataset and
DuckDB globs over a table folder count every row exactly once — on a fresh lake (every
table of the schema has a file, so no glob finds nothing) and at every instant of a
compaction, even one killed with SIGKILL at each of its steps and then recovered."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.dataset as pads
import pytest
from helpers import killed_at_marker

from trickledger.ingest import lake as lakes
from trickledger.ingest.load import LakeCommitter, expand, ingest
from trickledger.ingest.schema import TABLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
# as docs/schema.md says: pyarrow cannot guess the type of a partition column whose only
# value is the hive NULL (`game` of `ingest_errors`, of an empty table)
HIVE = pads.partitioning(pa.schema([("game", pa.string()), ("ingest_date", pa.date32())]),
                         flavor="hive")


def glob_counts(lake: str) -> dict[str, dict[str, int]]:
    """Rows per table as each reader sees the folder (a plain recursive glob)."""
    out: dict[str, dict[str, int]] = {"polars": {}, "pyarrow": {}, "duckdb": {}}
    con = duckdb.connect()
    try:
        for t in TABLES:
            pattern = f"{lake}/{t}/**/*.parquet"
            out["polars"][t] = pl.scan_parquet(pattern, hive_partitioning=True).select(
                pl.len()).collect().item()
            out["pyarrow"][t] = pads.dataset(f"{lake}/{t}", format="parquet",
                                             partitioning=HIVE).count_rows()
            out["duckdb"][t] = con.execute(
                "SELECT count(*) FROM read_parquet(?, hive_partitioning=true)",
                [pattern]).fetchone()[0]
    finally:
        con.close()
    return out


def manifest_counts(lake: str) -> dict[str, int]:
    with lakes.reading(lake) as con:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def test_every_table_reads_by_a_plain_glob_on_a_fresh_lake(tmp_path):
    d = str(tmp_path / "lake")
    found, _ = expand([str(SAMPLES / "rage")])
    ingest(found[:1], lake=d, jobs=1)
    want = manifest_counts(d)
    assert want["logs"] == 1 and want["ingest_errors"] == 0  # an empty table
    got = glob_counts(d)
    assert got == {"polars": want, "pyarrow": want, "duckdb": want}
    # with the schema's columns (the partition columns besides)
    claims = pl.scan_parquet(f"{d}/claims/**/*.parquet", hive_partitioning=True)
    assert [c for c, _ in TABLES["claims"]] == [
        c for c in claims.collect_schema().names() if c not in ("game", "ingest_date")]


# ------------------------------------------------------------------ compaction killed

PAUSE = """
import shutil, sys, time
from pathlib import Path
from trickledger.ingest import lake
step, marker = sys.argv[1], Path(sys.argv[2])

def pause(at):
    if at == step:
        marker.write_text(at)
        time.sleep(3600)

real_exchange = getattr(lake, "_exchange", None)
real_publish, real_rmtree = lake.LakeWriter._publish, shutil.rmtree

def exchange(a, b):
    pause("staged")  # merged file and intent written, partition untouched
    real_exchange(a, b)
    pause("swapped")  # the partition holds the merged file; no manifest yet

def publish(self, body):
    seq = real_publish(self, body)
    if body.get("kind") == "compact":
        pause("published")  # the manifest is out; the old files wait in _staging
    return seq

def rmtree(path, *a, **k):
    real_rmtree(path, *a, **k)
    if "compact-" in str(path):
        pause("dropped")  # the old files are gone; the intent is not

lake._exchange, lake.LakeWriter._publish, lake.shutil.rmtree = exchange, publish, rmtree
w = lake.LakeWriter(sys.argv[3])
print(w.compact(min_files=4))
"""

STEPS = ["staged", "swapped", "published", "dropped"]


@pytest.fixture(scope="module")
def small_files(tmp_path_factory) -> tuple[str, dict[str, int]]:
    """A lake of one-log batches, not compacted: many small files per partition."""
    d = str(tmp_path_factory.mktemp("small") / "lake")
    found, _ = expand([str(SAMPLES / "corpus" / "rage")])
    finish = LakeCommitter.finish
    LakeCommitter.finish = lambda self: None  # type: ignore[method-assign]
    try:
        ingest(found[:10], lake=d, jobs=1, batch_size=1)
    finally:
        LakeCommitter.finish = finish  # type: ignore[method-assign]
    want = manifest_counts(d)
    assert glob_counts(d) == {"polars": want, "pyarrow": want, "duckdb": want}
    return d, want


def listed_files_are_the_files_on_disk(d: str) -> None:
    st = lakes.read_state(d)
    listed = {p for paths in st.files.values() for p in paths}
    on_disk = {os.path.relpath(os.path.join(dp, n), d) for t in lakes.every_table()
               for dp, _, names in os.walk(os.path.join(d, t)) for n in names}
    assert listed == on_disk


@pytest.mark.parametrize("step", STEPS)
def test_compaction_killed_at_each_step_never_counts_a_row_twice(step, small_files, tmp_path):
    src, want = small_files
    d = str(tmp_path / "lake")
    shutil.copytree(src, d)
    marker = tmp_path / "marker"
    killed_at_marker([PAUSE, step, str(marker), d], marker, 300)
    # as the crash left it: every reader, the manifests' and the plain globs', sees each
    # row exactly once
    same = {"polars": want, "pyarrow": want, "duckdb": want}
    assert manifest_counts(d) == want
    assert glob_counts(d) == same
    # the next committer settles it: nothing left over, nothing unlisted
    lakes.LakeWriter(d).close()
    assert os.listdir(os.path.join(d, lakes.STAGING)) == []
    listed_files_are_the_files_on_disk(d)
    assert manifest_counts(d) == want and glob_counts(d) == same
    # and compaction runs to its end afterwards
    w = lakes.LakeWriter(d)
    try:
        w.compact(min_files=4)
    finally:
        w.close()
    assert manifest_counts(d) == want and glob_counts(d) == same
    listed_files_are_the_files_on_disk(d)
    names = [json.loads(Path(d, "_manifest", n).read_text()).get("kind")
             for n in lakes.manifests(d)]
    assert "compact" in names


def test_the_next_committer_deletes_every_leftover(tmp_path):
    """A killed worker's `.tmp`, a killed committer's staged Parquet (just written, not an
    hour old) and an unlisted file in a table folder: the next ingest deletes them all."""
    d = str(tmp_path / "lake")
    found, _ = expand([str(SAMPLES / "rage")])
    ingest(found[:1], lake=d, jobs=1)
    want = manifest_counts(d)
    staging = Path(d, lakes.STAGING)
    (staging / "0123abcd.tmp").write_bytes(b"half a file")
    plays = max(Path(d, "plays").rglob("*.parquet"), key=lambda p: p.stat().st_size)
    shutil.copy(plays, staging / "plays-0123abcd.parquet")
    shutil.copy(plays, plays.with_name("part-unlisted.parquet"))
    assert glob_counts(d)["duckdb"]["plays"] == 2 * want["plays"]
    ingest(found[:1], lake=d, jobs=1)  # the next run: loads nothing new
    assert list(staging.iterdir()) == []
    listed_files_are_the_files_on_disk(d)
    assert glob_counts(d) == {"polars": want, "pyarrow": want, "duckdb": want}
