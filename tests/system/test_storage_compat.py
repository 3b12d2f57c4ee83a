"""The database file opens in DuckDBs older than the one that writes it: the oldest
supported reader (the Python package, installed at test time into a folder of its own)
and the DuckDB CLI a user gets from PyPI read every table of a fresh ingest and of an
imported export, row for row."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import pip_target

from trickledger.ingest.backup import export, import_
from trickledger.ingest.db import OLDEST_READER, reading
from trickledger.ingest.load import expand, ingest
from trickledger.ingest.schema import TABLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
CLI_VERSION = "1.5.6"  # the `duckdb-cli` the user had

READ_ALL = """
import json, sys
import duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
tables = json.loads(sys.argv[2])
print(json.dumps({"version": duckdb.__version__,
                  "counts": {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                             for t in tables}}))
"""


@pytest.fixture(scope="session")
def duckdb_cli(tmp_path_factory) -> Path:
    folder = pip_target(tmp_path_factory.mktemp("duckdb-cli"), f"duckdb-cli=={CLI_VERSION}")
    binary = folder / "duckdb_cli" / "duckdb"
    assert binary.exists()
    return binary


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, tuple[Path, dict[str, int]]]:
    """A fresh ingest, and the same exported and imported: with their row counts as this
    trickledger's DuckDB reads them."""
    d = tmp_path_factory.mktemp("storage")
    found, missing = expand([str(SAMPLES)])
    assert found and not missing
    db = d / "ingested.duckdb"
    ingest(found, str(db), jobs=1)
    export(str(db), str(d / "export"))
    imported = d / "imported.duckdb"
    import_(str(d / "export"), str(imported))
    out = {}
    for name, path in (("ingested", db), ("imported", imported)):
        with reading(str(path)) as con:
            counts = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                      for t in TABLES}
        assert counts["logs"] > 0
        out[name] = (path, counts)
    return out


@pytest.mark.parametrize("which", ["ingested", "imported"])
def test_the_oldest_supported_duckdb_reads_every_table(which, files, oldest_duckdb):
    path, counts = files[which]
    env = {**os.environ, "PYTHONPATH": str(oldest_duckdb)}
    done = subprocess.run([sys.executable, "-c", READ_ALL, str(path), json.dumps(list(TABLES))],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["version"] == OLDEST_READER
    assert got["counts"] == counts


def test_the_duckdb_cli_from_pypi_opens_the_file(files, duckdb_cli):
    path, counts = files["ingested"]
    query = " UNION ALL ".join(f"SELECT '{t}', count(*) FROM {t}" for t in TABLES)
    done = subprocess.run([str(duckdb_cli), "-readonly", "-csv", "-noheader", str(path),
                           "-c", query], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    got = {t: int(n) for t, n in (line.split(",") for line in done.stdout.split())}
    assert got == counts
