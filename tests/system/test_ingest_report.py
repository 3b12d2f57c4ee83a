"""What `trickledger ingest` says about the logs it loaded: the first few files that need
a word (not loaded, illegal, disputed: in that order) and a count of the rest, every one
with --show-all; the exit status of a load that went through is 0."""

from __future__ import annotations

import shutil
from pathlib import Path

from helpers import logs_of_each_status, run_cli

from trickledger import main
from trickledger.ingest.commands import SHOWN_FILES
from trickledger.ingest.db import reading

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_logs" / "corpus" / "plotters"  # illegal ones, and many disputed
# of the corpus's 80 plotters games: the 4 illegal ones, the 21 disputed ones and 10 that need
# no word (more than SHOWN_FILES of each kind the report names or counts, for half the work)
PICKED = [15, 47, 53, 56,
          2, 8, 11, 13, 16, 18, 25, 33, 35, 36, 49, 50, 62, 65, 66, 71, 72, 73, 75, 76, 79,
          0, 1, 3, 4, 5, 6, 7, 9, 10, 12]
SAMPLE = ROOT / "sample_logs" / "plotters" / "plotters-5p-claims.jsonl"  # disputed
SAMPLE_4P = ROOT / "sample_logs" / "plotters" / "plotters-4p-early-end.jsonl"


def test_the_files_that_need_a_word_are_the_first_few_and_a_count(tmp_path, capsys):
    db = tmp_path / "t.duckdb"
    logs = tmp_path / "plotters"
    logs.mkdir()
    for number in PICKED:
        name = f"plotters-s7-{number:06d}.jsonl"
        shutil.copyfile(CORPUS / name, logs / name)
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"not a log\n")
    assert main(["ingest", str(logs), "--db", str(db), "--jobs", "1"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    with reading(str(db)) as con:
        illegal, disputed = con.execute(
            "SELECT count(*) FILTER (WHERE status = 'illegal'), "
            "count(*) FILTER (WHERE claims_mismatched > 0) FROM games").fetchone() or (0, 0)
    assert illegal == 4 and disputed > SHOWN_FILES
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
    assert main(["ingest", str(logs), str(junk), "--db", str(again), "--jobs", "1",
                 "--show-all"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[0].startswith(f"{junk}:") and "unreadable" in err[0]
    assert len(err) == 1 + illegal + disputed
    assert sum(": disputed: " in line for line in err) == disputed


def test_the_exit_status_says_whether_the_load_went_through(tmp_path, capsys):
    """Loading is not checking: the logs of verify's and replay's exit statuses
    (tests/format/test_verify.py) give ingest's. (The command's status from `main`, as
    `python -m trickledger` exits with it; one run is a process of its own.)"""
    good, illegal, junk = logs_of_each_status(tmp_path, SAMPLE_4P)
    # an illegal or disputed log is loaded (a fact in the database): 0, named on standard
    # error; 1 only for who asks (--fail-on-dispute)
    db = str(tmp_path / "t.duckdb")
    assert main(["ingest", "--db", db, str(good)]) == 0
    disputed = run_cli("ingest", "--db", db, str(SAMPLE))
    assert disputed.returncode == 0 and "disputed: 1 claimed score does not match" in \
        disputed.stderr
    assert main(["ingest", "--db", db, str(illegal)]) == 0
    strict = str(tmp_path / "strict.duckdb")
    for log in (SAMPLE, illegal):
        assert main(["ingest", "--db", strict, "--fail-on-dispute", str(log)]) == 1
    assert main(["ingest", "--db", strict, "--fail-on-dispute", str(good)]) == 0
    assert main(["ingest", "--db", db, str(junk)]) == 2
    capsys.readouterr()
    assert main(["ingest", "--help"]) == 0
    ingest_help = " ".join(capsys.readouterr().out.split())
    for words in ("0 when every file given was loaded", "loading is not checking",
                  "1 only with --fail-on-dispute", "2 when a file was not loaded",
                  "3 when the file system failed", "130 when stopped with Ctrl-C"):
        assert words in ingest_help, words
