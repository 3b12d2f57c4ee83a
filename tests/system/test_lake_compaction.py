"""A lake's compaction keeps DuckDB out of the committing process: the merge of a
partition's small files runs in a process of its own (its buffers never in the ingest's
memory), while the steps that make it crash-safe (tests/system/test_lake_readers.py) stay
in the committer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from trickledger.ingest import lake as lakes
from trickledger.ingest.load import LakeCommitter, expand, ingest
from trickledger.ingest.schema import TABLES

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def counts(lake: str) -> dict[str, int]:
    with lakes.reading(lake) as con:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def test_compaction_merges_in_a_process_of_its_own(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    d = str(tmp_path / "lake")
    found, _ = expand([str(SAMPLES / "corpus" / "rage")])
    # one-log batches and no end-of-run compaction: many small files per partition
    monkeypatch.setattr(LakeCommitter, "finish", lambda self: None)
    ingest(found[:6], lake=d, jobs=1, batch_size=1)
    monkeypatch.undo()
    want = counts(d)
    assert want["logs"] == 6

    def no_duckdb_here(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"DuckDB opened in the committing process {os.getpid()}")

    monkeypatch.setattr(lakes.duckdb, "connect", no_duckdb_here)
    w = lakes.LakeWriter(d)
    try:
        merged = w.compact(min_files=4)
    finally:
        w.close()
    monkeypatch.undo()
    assert merged >= 4
    assert counts(d) == want
    st = lakes.read_state(d)
    # every file a manifest lists is on disk, and the merged ones are among them
    assert all(os.path.exists(os.path.join(d, p)) for ps in st.files.values() for p in ps)
    assert any(os.path.basename(p).startswith("part-") for ps in st.files.values() for p in ps)
