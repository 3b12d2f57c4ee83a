"""One ingest use case (issue 32): whichever way a log comes in — the command line, the
Python API, the dashboard's sample logs, an upload — the audit says what happened (an id
conflict is not "loaded 0"), into a database file and into a lake alike."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest
from helpers import rows

import trickledger
from trickledger import main
from trickledger.ingest import jobs

ROOT = Path(__file__).resolve().parents[2]
RAGE = ROOT / "sample_logs" / "rage" / "rage-5p-hidden-bid.jsonl"


@pytest.fixture()
def twins(tmp_path) -> Path:
    """A folder of two logs with one game id and different bytes: the second is refused."""
    folder = tmp_path / "twins"
    folder.mkdir()
    (folder / "a-real.jsonl").write_bytes(RAGE.read_bytes())
    (folder / "b-forged.jsonl").write_bytes(
        RAGE.read_bytes().replace(b'"platform"', b'"note":"x","platform"', 1))
    return folder


def lake_audit(lake: Path) -> list[dict[str, object]]:
    with open(lake / "_audit.jsonl", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_the_command_line_audits_a_conflict_and_a_path_that_names_nothing(tmp_path, twins,
                                                                         capsys):
    db = str(tmp_path / "t.duckdb")
    assert main(["ingest", "--db", db, str(twins), str(tmp_path / "nothing-here")]) == 2
    (via, action, name, result, detail), = rows(
        db, "SELECT via, action, file_name, result, detail FROM audit_log")
    assert (via, action) == ("command line", "ingest")
    assert name == f"{twins}, {tmp_path / 'nothing-here'}"
    assert result == "loaded 1, id conflict 1, unreadable 1"
    assert detail.startswith("loaded 1 (1 complete") and "unreadable 1" in detail


def test_a_command_line_ingest_into_a_lake_is_audited(tmp_path, twins, capsys):
    lake = tmp_path / "lake"
    assert main(["ingest", "--lake", str(lake), str(twins)]) == 2
    (row,) = lake_audit(lake)
    assert (row["via"], row["action"], row["file_name"], row["result"]) == \
        ("command line", "ingest", str(twins), "loaded 1, id conflict 1")
    assert main(["ingest", "--lake", str(lake), str(twins)]) == 2
    assert lake_audit(lake)[1]["result"] == "loaded 0, already loaded 1, id conflict 1"


@pytest.mark.parametrize("into", ["db", "lake"])
def test_the_python_api_audits_what_happened(tmp_path, twins, into):
    where = str(tmp_path / ("t.duckdb" if into == "db" else "lake"))
    summary = trickledger.ingest_logs(twins, **{into: where}, jobs=1)
    assert (summary.loaded, summary.conflicts) == (1, 1)
    if into == "db":
        (via, result), = rows(where, "SELECT via, result FROM audit_log")
    else:
        (row,) = lake_audit(Path(where))
        via, result = row["via"], row["result"]
    assert (via, result) == ("python", "loaded 1, id conflict 1")


@pytest.mark.parametrize("into", ["db", "lake"])
def test_the_dashboards_sample_logs_are_audited_as_what_happened(tmp_path, twins, into,
                                                                monkeypatch, capsys):
    import trickledger.sample_logs

    started: list[list[str]] = []
    # the command becomes the server at its end: stop it there
    monkeypatch.setattr(os, "execve", lambda exe, cmd, env: started.append(cmd))
    monkeypatch.setattr(trickledger.sample_logs, "SAMPLES", twins)
    where = str(tmp_path / ("t.duckdb" if into == "db" else "lake"))
    with socket.socket() as sock:  # a port free now (the command only checks it)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert main(["dashboard", f"--{into}", where, "--port", str(port)]) == 0, \
        capsys.readouterr().err
    assert len(started) == 1
    if into == "db":
        (name, result), = rows(where, "SELECT file_name, result FROM audit_log")
    else:
        (row,) = lake_audit(Path(where))
        name, result = row["file_name"], row["result"]
    assert (name, result) == ("the sample logs", "loaded 1, id conflict 1")


def test_an_upload_into_a_lake_is_audited_file_by_file(tmp_path, twins):
    lake = tmp_path / "lake"
    summary = jobs.upload([(p.name, p.read_bytes()) for p in sorted(twins.iterdir())],
                          None, str(lake), {"user": "ann", "via": "password"})
    assert [o.status for o in summary.results] == ["complete", "conflict"]
    assert [(r["actor"], r["action"], r["file_name"], r["result"]) for r in lake_audit(lake)] \
        == [("ann", "upload", "a-real.jsonl", "complete"),
            ("ann", "upload", "b-forged.jsonl", "conflict")]
