"""Backup and restore: an export imported into a new database gives the same rows, table
for table; a damaged export is refused and writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from trickledger.ingest.backup import BackupError, checksum, export, import_, tables
from trickledger.ingest.db import open_db
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]


def all_checksums(db: str) -> dict[str, tuple[int, str]]:
    con = open_db(db, read_only=True, sandbox=False)
    try:
        return {t: checksum(con, t) for t in [*tables(), "schema_version"]}
    finally:
        con.close()


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    db = str(tmp_path_factory.mktemp("src") / "src.duckdb")
    ingest(expand([str(ROOT / "sample_logs" / "plotters"), str(ROOT / "sample_logs" / "rage")])[0],
           db, jobs=1)
    return db


def test_export_then_import_round_trips_every_table(source, tmp_path):
    report = export(source, str(tmp_path / "backup"))
    assert report.rows["games"] == 6 and report.rows["plays"] > 0
    restored = str(tmp_path / "restored.duckdb")
    import_(str(tmp_path / "backup"), restored)
    assert all_checksums(restored) == all_checksums(source)


def test_a_damaged_export_is_refused_and_writes_nothing(source, tmp_path):
    export(source, str(tmp_path / "backup"))
    games = tmp_path / "backup" / "games.parquet"
    games.write_bytes(games.read_bytes()[:-100])
    target = tmp_path / "restored.duckdb"
    with pytest.raises(BackupError):
        import_(str(tmp_path / "backup"), str(target))
    assert not target.exists()


def test_export_and_import_refuse_to_overwrite(source, tmp_path):
    export(source, str(tmp_path / "backup"))
    with pytest.raises(BackupError, match="not empty"):
        export(source, str(tmp_path / "backup"))
    with pytest.raises(BackupError, match="exists"):
        import_(str(tmp_path / "backup"), source)
