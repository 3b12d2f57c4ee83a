"""A lake's compaction is a step of its own, off the load path: `ingest --lake` leaves the
files as its batches wrote them unless asked (`--compact`), and `trickledger compact --lake
DIR` merges them later, a plain glob counting every row once before and after."""

from __future__ import annotations

import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import duckdb

from trickledger import main
from trickledger.ingest import commands
from trickledger.ingest import lake as lakes
from trickledger.ingest.load import expand, ingest
from trickledger.ingest.schema import TABLES

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def kinds(lake: str) -> list[str]:
    return [json.loads((Path(lake) / lakes.MANIFEST / n).read_bytes())["kind"]
            for n in lakes.manifests(lake)]


def counts(lake: str) -> dict[str, int]:
    with lakes.reading(lake) as con:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}


def glob_counts(lake: str) -> dict[str, int]:
    con = duckdb.connect()
    try:
        return {t: con.execute("SELECT count(*) FROM read_parquet(?, hive_partitioning=true)",
                               [f"{lake}/{t}/**/*.parquet"]).fetchone()[0] for t in TABLES}
    finally:
        con.close()


def test_an_ingest_leaves_compaction_to_its_own_step(tmp_path, capsys):
    d = str(tmp_path / "lake")
    found, _ = expand([str(SAMPLES / "corpus" / "rage")])
    ingest(found[:8], lake=d, jobs=1, batch_size=1)  # one-log batches: small files
    assert "compact" not in kinds(d)
    want = counts(d)
    assert want["logs"] == 8 and glob_counts(d) == want
    assert main(["compact", "--lake", d, "--min-files", "4"]) == 0
    out = capsys.readouterr().out
    assert "merged" in out and "small files" in out
    assert "compact" in kinds(d)
    assert counts(d) == want and glob_counts(d) == want
    # again: nothing left to merge, said so
    assert main(["compact", "--lake", d, "--min-files", "4"]) == 0
    assert "nothing to merge" in capsys.readouterr().out


def test_ingest_compacts_only_when_asked(tmp_path, capsys):
    d = str(tmp_path / "lake")
    rage = sorted(str(p) for p in (SAMPLES / "corpus" / "rage").glob("*.jsonl"))
    assert main(["ingest", "--lake", d, "--batch", "1", "--jobs", "1", *rage[:17]]) in (0, 1)
    assert "compact" not in kinds(d)
    assert main(["ingest", "--lake", d, "--batch", "1", "--jobs", "1", "--compact",
                 *rage[17:20]]) in (0, 1)
    assert "compact" in kinds(d)
    assert glob_counts(d) == counts(d)
    # --compact is about a lake: with a database file it is misuse
    capsys.readouterr()
    assert main(["ingest", "--db", str(tmp_path / "t.duckdb"), "--compact", rage[0]]) == 2
    assert "--lake" in capsys.readouterr().err
    assert not (tmp_path / "t.duckdb").exists()


def test_compact_refuses_a_folder_that_is_not_a_lake_and_a_busy_lake(tmp_path, capsys):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert main(["compact", "--lake", str(plain)]) == 2
    err = capsys.readouterr().err
    assert "not a trickledger lake" in err and len(err.strip().splitlines()) == 1
    assert not (plain / lakes.MANIFEST).exists()  # refusing made nothing
    d = str(tmp_path / "lake")
    ingest(expand([str(SAMPLES / "rage")])[0][:1], lake=d, jobs=1)
    writer = lakes.LakeWriter(d)  # an ingest under way
    try:
        assert main(["compact", "--lake", d]) == 2
        assert "busy" in capsys.readouterr().err
    finally:
        writer.close()


def test_the_commands_default_is_the_lakes():
    assert commands.COMPACT_MIN_FILES == lakes.COMPACT_MIN_FILES


class _MergerKilled(ProcessPoolExecutor):
    """The merging process ends at its first task, as when the kernel's out-of-memory
    killer takes it: its pool breaks."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        return super().submit(os._exit, 9)


def test_a_merger_that_dies_is_one_line_and_leaves_the_lake_as_it_was(tmp_path, capsys,
                                                                       monkeypatch):
    d = str(tmp_path / "lake")
    found, _ = expand([str(SAMPLES / "corpus" / "rage")])
    ingest(found[:8], lake=d, jobs=1, batch_size=1)  # one-log batches: small files
    want, files = counts(d), lakes.read_state(d).files
    capsys.readouterr()
    monkeypatch.setattr(lakes, "ProcessPoolExecutor", _MergerKilled)
    assert main(["compact", "--lake", d, "--min-files", "4"]) == 2
    err = capsys.readouterr().err
    assert "died (out of memory?)" in err and len(err.strip().splitlines()) == 1, err
    assert "compact" not in kinds(d) and lakes.read_state(d).files == files
    assert counts(d) == want and glob_counts(d) == want
    assert not any(Path(d, lakes.STAGING).iterdir())  # the staged merge went with it
    monkeypatch.undo()
    assert main(["compact", "--lake", d, "--min-files", "4"]) == 0  # and it can be done again
    assert counts(d) == want and glob_counts(d) == want
