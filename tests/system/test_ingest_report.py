"""What `trickledger ingest` says about the logs it loaded: the first few files that need
a word (not loaded, illegal, disputed: in that order) and a count of the rest, every one
with --show-all; the exit status of a load that went through is 0."""

from __future__ import annotations

from pathlib import Path

from trickledger import main
from trickledger.ingest.commands import SHOWN_FILES
from trickledger.ingest.db import reading

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_logs" / "corpus" / "plotters"  # illegal ones, and many disputed


def test_the_files_that_need_a_word_are_the_first_few_and_a_count(tmp_path, capsys):
    db = tmp_path / "t.duckdb"
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"not a log\n")
    assert main(["ingest", str(CORPUS), "--db", str(db), "--jobs", "1"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    with reading(str(db)) as con:
        illegal, disputed = con.execute(
            "SELECT count(*) FILTER (WHERE status = 'illegal'), "
            "count(*) FILTER (WHERE claims_mismatched > 0) FROM games").fetchone() or (0, 0)
    assert illegal > 0 and disputed > SHOWN_FILES
    named = err[:-1]
    assert len(named) == SHOWN_FILES
    # illegal first (each with its line), then the disputed ones
    assert all(": illegal: " in line for line in named[:illegal])
    assert all(": disputed: " in line for line in named[illegal:])
    rest = illegal + disputed - SHOWN_FILES
    assert err[-1].startswith(f"... and {rest} more ({rest} disputed): --show-all lists every "
                              f"one"), err[-1]
    # every one, asked for; a file not loaded comes first, and makes the status 2
    again = tmp_path / "again.duckdb"
    assert main(["ingest", str(CORPUS), str(junk), "--db", str(again), "--jobs", "1",
                 "--show-all"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"{junk}:") and "unreadable" in err[0]
    assert len(err) == 1 + illegal + disputed
    assert sum(": disputed: " in line for line in err) == disputed
