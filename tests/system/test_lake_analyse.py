"""`trickledger analyse --lake`: ratings, rating_history, hand estimates and bid_vs_hand
are committed into the lake like batches, and read the same as from a database file
analysed alike (`sql --lake`, and a plain glob)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from trickledger import main
from trickledger.ingest import lake as lakes
from trickledger.ingest.db import reading
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
HANDS = ["--playouts", "20", "--limit", "3", "--jobs", "1"]
# what is computed, not when or how fast
CHECKS = {
    "ratings": "SELECT * FROM ratings ORDER BY ALL",
    "rating_history": "SELECT * FROM rating_history ORDER BY ALL",
    "hand_estimates": "SELECT * EXCLUDE (seconds, computed_at) FROM hand_estimates "
                      "ORDER BY ALL",
    "bid_vs_hand": "SELECT * FROM bid_vs_hand ORDER BY ALL",
}


@pytest.fixture(scope="module")
def analysed_file_and_lake(tmp_path_factory) -> tuple[str, str]:
    """The rage and plotters samples in a database file and in a lake, each analysed."""
    d = tmp_path_factory.mktemp("analyse")
    found, missing = expand([str(ROOT / "sample_logs" / "rage"),
                             str(ROOT / "sample_logs" / "plotters")])
    assert found and not missing
    db, lake = str(d / "t.duckdb"), str(d / "lake")
    ingest(found, db, jobs=1)
    ingest(found, lake=lake, jobs=1)
    assert main(["analyse", "--db", db, *HANDS]) == 0
    assert main(["analyse", "--lake", lake, *HANDS]) == 0
    return db, lake


@pytest.mark.parametrize("check", list(CHECKS))
def test_analyse_lake_gives_what_analyse_db_gives(check, analysed_file_and_lake):
    db, lake = analysed_file_and_lake
    with reading(db) as con:
        want = con.execute(CHECKS[check]).fetchall()
    with lakes.reading(lake) as con:
        got = con.execute(CHECKS[check]).fetchall()
    assert want, check  # the check is not vacuous
    assert got == want


def test_derived_tables_read_by_a_plain_glob(analysed_file_and_lake):
    _, lake = analysed_file_and_lake
    with lakes.reading(lake) as con:
        want = {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("rating_history", "hand_estimates", "analysis_runs")}
    for table, n in want.items():
        assert n > 0
        got = pl.scan_parquet(f"{lake}/{table}/**/*.parquet", hive_partitioning=True).select(
            pl.len()).collect().item()
        assert got == n, table


def test_analyse_lake_again_is_up_to_date_and_commits_nothing(analysed_file_and_lake, capsys):
    _, lake = analysed_file_and_lake
    before = lakes.manifests(lake)
    capsys.readouterr()
    assert main(["analyse", "--lake", lake, "--no-hands"]) == 0
    assert "(up to date)" in capsys.readouterr().out
    assert lakes.manifests(lake) == before


def test_analyse_lake_refuses_a_folder_that_is_no_lake(tmp_path, capsys):
    assert main(["analyse", "--lake", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a trickledger lake" in err and "Traceback" not in err
