"""A misused command answers with one line naming the path and what is wrong, exit 2:
never a traceback, never a run that reports success while keeping nothing (issue 27)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import trickledger

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_logs" / "plotters" / "plotters-6p.jsonl"


def refused(capsys: pytest.CaptureFixture[str], argv: list[str], *words: str) -> str:
    """Run the command: exit 2, nothing on stdout, one line on stderr holding `words`."""
    code = trickledger.main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRICKLEDGER_DB", raising=False)
    (tmp_path / "folder").mkdir()
    shutil.copy(SAMPLE, tmp_path / "game.jsonl")
    return tmp_path


@pytest.mark.parametrize("argv", [
    ["ingest", str(SAMPLE), "--db", "folder"],
    ["analyse", "--db", "folder"],
    ["export", "backup", "--db", "folder"],
    ["sql", "SELECT 1", "--db", "folder"],
    ["audit", "--db", "folder"],
])
def test_a_folder_is_not_a_database(here, capsys, argv):
    refused(capsys, argv, "folder", "is a folder")


@pytest.mark.parametrize("argv", [
    ["ingest", str(SAMPLE), "--db", "game.jsonl"],
    ["analyse", "--db", "game.jsonl"],
    ["sql", "SELECT 1", "--db", "game.jsonl"],
    ["export", "backup", "--db", "game.jsonl"],
])
def test_a_file_that_is_not_a_duckdb_database_is_refused(here, capsys, argv):
    refused(capsys, argv, "game.jsonl", "not a DuckDB database")
    assert (here / "game.jsonl").read_bytes() == SAMPLE.read_bytes()  # left as it was


@pytest.mark.parametrize("name", [":memory:", ":memory:x", "md:"])
def test_an_in_memory_database_name_is_refused(here, capsys, name):
    refused(capsys, ["ingest", str(SAMPLE), "--db", name], name, "in-memory")


def test_a_new_file_becomes_a_database_and_a_missing_folder_is_named(here, capsys):
    refused(capsys, ["ingest", str(SAMPLE), "--db", "nowhere/t.duckdb"], "nowhere",
            "does not exist")
    assert trickledger.main(["ingest", str(SAMPLE), "--db", "new.jsonl"]) == 0
    capsys.readouterr()
    assert trickledger.main(["sql", "SELECT count(*) FROM logs", "--db", "new.jsonl"]) == 0
    assert "1" in capsys.readouterr().out.splitlines()[2]


def test_simulate_into_an_existing_file(here, capsys):
    refused(capsys, ["simulate", "--game", "rage", "--games", "1", "--out", "game.jsonl"],
            "game.jsonl", "is a file")


def test_sheet_of_into_a_missing_folder(here, capsys):
    refused(capsys, ["sheet-of", str(SAMPLE), "-o", "missing/dir/x.jsonl"], "missing/dir",
            "does not exist")


def test_a_missing_file_has_the_same_words_everywhere(here, capsys):
    for command in ("verify", "replay", "sheet-of"):
        line = refused(capsys, [command, "missing.jsonl"])
        assert line == "missing.jsonl: no such file or folder", (command, line)


def test_ingest_counts_a_missing_file_as_unreadable_and_audits_a_conflict(here, capsys):
    assert trickledger.main(["ingest", "missing.jsonl", "--db", "t.duckdb"]) == 2
    out = capsys.readouterr().out
    assert "unreadable 1" in out
    changed = SAMPLE.read_bytes().replace(b'"seed":1', b'"seed":2', 1)
    assert changed != SAMPLE.read_bytes()
    (here / "same-id.jsonl").write_bytes(changed)
    assert trickledger.main(["ingest", str(SAMPLE), "--db", "t.duckdb"]) == 0
    assert trickledger.main(["ingest", "same-id.jsonl", "--db", "t.duckdb"]) == 2
    capsys.readouterr()
    assert trickledger.main(["audit", "--db", "t.duckdb", "--limit", "1"]) == 0
    newest = capsys.readouterr().out
    assert "id conflict 1" in newest and "loaded 0" in newest


def test_sql_misuse_is_2_a_failed_query_1_and_csv_has_plain_lines(here, capsys):
    assert trickledger.main(["ingest", str(SAMPLE), "--db", "t.duckdb"]) == 0
    capsys.readouterr()
    refused(capsys, ["sql", "  ", "--db", "t.duckdb"], "no SQL statement given")
    assert trickledger.main(["sql", "SELECT nonsense FROM nowhere", "--db", "t.duckdb"]) == 1
    capsys.readouterr()
    assert trickledger.main(["sql", "SELECT true AS yes, NULL AS nothing, 'x' AS word",
                             "--db", "t.duckdb", "--format", "csv"]) == 0
    assert capsys.readouterr().out == "yes,nothing,word\ntrue,,x\n"


def test_sql_help_gives_the_exit_statuses(capsys):
    assert trickledger.main(["sql", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "exit status: 0 when the query ran; 1 when it failed" in text
    assert "2 when the command is misused" in text
