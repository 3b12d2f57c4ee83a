"""The loader's one long-lived connection to the database file (ingest.load.DatabaseWriter):
opened once for a whole ingest when nobody else wants the file, and let go between two
batches as soon as a reader or writer of another process waits for it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from helpers import PAUSE_BETWEEN_BATCHES

from trickledger.ingest import db as dbmod
from trickledger.ingest.db import READER_WAITING, others_waiting, reading
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
# the ingests here need many batches, not many games: the 80 simulated rage games of the
# sample corpus (the whole sample set is four times as much work)
RAGE_CORPUS = SAMPLES / "corpus" / "rage"

# A real `trickledger ingest` that, after committing its first batch, marks the moment and
# waits until the test lets it go on: here its connection stays open all the while
PAUSE_AFTER_FIRST_BATCH = PAUSE_BETWEEN_BATCHES


def test_an_ingest_opens_the_file_once_when_nobody_waits(tmp_path, monkeypatch):
    """Many batches, one connection: no open, schema check and checkpoint per batch."""
    opened: list[bool] = []
    real = dbmod._connect

    def connect(path, read_only, config, allow):
        opened.append(read_only)
        return real(path, read_only, config, allow)

    monkeypatch.setattr(dbmod, "_connect", connect)
    # 30 logs in batches of 5: six batches show one connection as well as all 337 sample
    # logs' 68 batches did, for a tenth of the work
    sources = expand([str(RAGE_CORPUS)])[0][:30]
    summary = ingest(sources, str(tmp_path / "t.duckdb"), jobs=1, batch_size=5)
    assert summary.batches >= 4 and summary.loaded == 30
    assert opened == [False], f"{len(opened)} connections for {summary.batches} batches"


def test_a_reader_gets_its_answer_while_an_ingest_holds_the_file(tmp_path):
    db = tmp_path / "held.duckdb"
    paused, go = tmp_path / "paused", tmp_path / "go"
    writer = subprocess.Popen([sys.executable, "-c", PAUSE_AFTER_FIRST_BATCH, str(paused),
                               str(go), "ingest", "--db", str(db), "--batch", "5", "--jobs",
                               "1", str(RAGE_CORPUS)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        deadline = time.monotonic() + 300  # a safety net; the condition is the marker
        while not paused.exists():
            assert writer.poll() is None and time.monotonic() < deadline, \
                writer.communicate()
            time.sleep(0.05)
        # the ingest holds the file between its batches: a plain reader, raising no flag,
        # is locked out
        with pytest.raises(duckdb.IOException, match="lock"):
            duckdb.connect(str(db), read_only=True).close()
        # the product's readers raise their flag and get in while the ingest still runs:
        # `trickledger sql` (a console worker) and a page's connection
        answer = subprocess.run([sys.executable, "-m", "trickledger", "sql", "--db", str(db),
                                 "--format", "csv", "--timeout", "600",  # not the subject
                                 "SELECT count(*) AS n FROM logs"],
                                cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert answer.returncode == 0, answer.stderr
        first_batch = int(answer.stdout.split()[-1])
        assert first_batch > 0
        with reading(str(db), wait_s=300) as con:
            assert con.execute("SELECT count(*) FROM logs").fetchone() == (first_batch,)
        assert writer.poll() is None, "the ingest ended before the readers got in"
        assert not others_waiting(str(db))  # the readers' flags went with them
    finally:
        go.write_text("go")
        out, err = writer.communicate(timeout=600)
    assert writer.returncode in (0, 1), out + err  # 1: some sample logs are illegal
    assert "Traceback" not in err
    everything = len(expand([str(RAGE_CORPUS)])[0])
    with reading(str(db)) as con:
        assert con.execute("SELECT count(*) FROM logs").fetchone() == (everything,)


def test_a_dead_readers_flag_is_stale_and_the_waiters_own_flag_is_not_counted(tmp_path):
    db = tmp_path / "t.duckdb"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = Path(f"{db}{READER_WAITING}{dead}")
    stale.touch()
    assert not others_waiting(str(db)) and not stale.exists()
    with dbmod.waiting_flag(str(db), read_only=True):
        assert not others_waiting(str(db))  # this process's own flag
        assert list(tmp_path.glob(f"t.duckdb{READER_WAITING}{dbmod.os.getpid()}.*"))
    assert not list(tmp_path.glob("*waiting*"))
