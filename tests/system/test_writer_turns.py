"""An ingest's long-lived connection lets every other process in, within a batch
(docs/reliability.md, "Running alongside each other"), even when its batches come back to
back, when the other process reaches the file through a symbolic link, when two reads of
one process wait at once, and whatever stale flags lie beside the file. Each test here
broke the promise when an outside attack found it (real processes, real files)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import PAUSE_BETWEEN_BATCHES

from trickledger.ingest import db as dbmod
from trickledger.ingest.db import READER_WAITING, WRITER_WAITING, others_waiting, reading, writer_waiting

ROOT = Path(__file__).resolve().parents[2]
LOGS = 120

# A real `trickledger ingest` whose commits take a while (0.25 s once the `logs` rows are
# in, as a large file's inserts do), so that its one-log batches come back to back, and
# which waits before committing its last batch until the test lets it: it cannot end
# before every other process has had its turn
SLOW_COMMITS = """
import sys, time
from pathlib import Path
from trickledger.ingest.load import DatabaseWriter
go, total = Path(sys.argv[1]), int(sys.argv[2])
real_insert, real_commit = DatabaseWriter.insert, DatabaseWriter.commit
def insert(self, con, table, files):
    real_insert(self, con, table, files)
    if table == "logs":
        time.sleep(0.25)
def commit(self, tasks, dones, *rest):
    if self.batches == total - 1:
        while not go.exists():
            time.sleep(0.05)
    return real_commit(self, tasks, dones, *rest)
DatabaseWriter.insert, DatabaseWriter.commit = insert, commit
from trickledger import main
raise SystemExit(main(sys.argv[3:]))
"""


@pytest.fixture(scope="module")
def corpora(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """LOGS logs for the slow ingest and 20 others, copied from the sample corpus (its
    simulated plotters and rage games, every one distinct; simulating them afresh cost a
    process and as much work as the ingest)."""
    root = tmp_path_factory.mktemp("writer-turns")
    corpus = ROOT / "sample_logs" / "corpus"
    plotters = sorted((corpus / "plotters").glob("*.jsonl"))
    rage = sorted((corpus / "rage").glob("*.jsonl"))
    first = plotters + rage[:LOGS - len(plotters)]
    other = rage[LOGS - len(plotters):LOGS - len(plotters) + 20]
    assert len(first) == LOGS and len(other) == 20
    for folder, logs in ((root / "logs", first), (root / "other", other)):
        folder.mkdir()
        for log in logs:
            shutil.copyfile(log, folder / log.name)
    return root / "logs", root / "other"


def _wait_for(cond: Callable[[], bool], proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 600  # a safety net; the condition is what is waited on
    while not cond():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the condition never came"
        time.sleep(0.02)


def _logs(db: Path) -> int:
    """The number of logs, as `trickledger sql` (a process of its own) answers it."""
    answer = subprocess.run([sys.executable, "-m", "trickledger", "sql", "--db", str(db),
                             "--timeout", "600", "--format", "csv",
                             "SELECT count(*) AS n FROM logs"],
                            cwd=ROOT, capture_output=True, text=True)
    assert answer.returncode == 0, answer.stdout + answer.stderr
    return int(answer.stdout.split()[-1])


@pytest.mark.long
def test_every_other_process_gets_its_turn_while_commits_come_back_to_back(
        tmp_path: Path, corpora: tuple[Path, Path]) -> None:
    logs, other = corpora
    db, go = tmp_path / "t.duckdb", tmp_path / "go"
    first = subprocess.Popen([sys.executable, "-c", SLOW_COMMITS, str(go), str(LOGS), "ingest",
                              "--db", str(db), "--batch", "1", "--jobs", "2", str(logs)],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    try:
        wal = Path(f"{db}.wal")
        _wait_for(lambda: wal.exists() and wal.stat().st_size > 100_000, first)
        # a page's read, from this process
        with reading(str(db), wait_s=600) as con:
            row = con.execute("SELECT count(*) FROM logs").fetchone()
        assert row is not None and row[0] < LOGS - 1, \
            f"the read got in only when the ingest stopped before its last batch ({row})"
        assert _logs(db) < LOGS - 1, "trickledger sql got in only at the ingest's end"
        second = subprocess.run([sys.executable, "-m", "trickledger", "ingest", "--db",
                                 str(db), "--batch", "50", "--jobs", "1", str(other)],
                                cwd=ROOT, capture_output=True, text=True)
        assert second.returncode == 0, second.stderr[-2000:]
    finally:
        go.write_text("go")
        out, err = first.communicate()
    assert first.returncode == 0, err[-2000:]
    with reading(str(db)) as con:
        row = con.execute("SELECT count(*), count(DISTINCT sha256) FROM logs").fetchone()
    assert row == (LOGS + 20, LOGS + 20)


def test_a_reader_through_a_symbolic_link_to_the_file_is_let_in(
        tmp_path: Path, corpora: tuple[Path, Path]) -> None:
    _, other = corpora
    db, link = tmp_path / "real.duckdb", tmp_path / "link.duckdb"
    link.symlink_to(db.name)
    paused, go = tmp_path / "paused", tmp_path / "go"
    writer = subprocess.Popen([sys.executable, "-c", PAUSE_BETWEEN_BATCHES, str(paused),
                               str(go), "ingest", "--db", str(db), "--batch", "5", "--jobs",
                               "1", str(other)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        _wait_for(paused.exists, writer)
        n = _logs(link)
        assert writer.poll() is None  # still paused: only its letting go let the reader in
    finally:
        go.write_text("go")
        writer.communicate()
    assert n == 5


def test_a_flag_under_a_reused_process_id_is_stale(tmp_path: Path) -> None:
    """A writer killed while it waited leaves its flag, with the start time of its process;
    the id may since be another live process's."""
    db = tmp_path / "t.duckdb"
    reuser = subprocess.Popen(["sleep", "600"])
    try:
        flag = Path(f"{db}{WRITER_WAITING}{reuser.pid}.dead")
        flag.write_text("1")  # the killed writer started at tick 1; the sleep did not
        backup = Path(f"{db}{READER_WAITING}notapid")  # not a flag at all
        backup.write_text("")
        assert not writer_waiting(str(db)) and not others_waiting(str(db))
        assert not flag.exists() and backup.exists()
        flag.write_text("")  # no start time: nobody's flag (every waiter writes its own)
        assert not writer_waiting(str(db)) and not flag.exists()
        flag.write_text(dbmod._started(reuser.pid) or "")  # the live process's own
        assert writer_waiting(str(db))
    finally:
        reuser.kill()
        reuser.wait()


# Two reads of one dashboard process (Streamlit runs each session in a thread of the server's
# one process) wait for the file at once; the first gives up, the other waits on
TWO_READS = """
import sys, threading, time
from pathlib import Path
from trickledger.ingest.db import DatabaseBusy, READER_WAITING, reading
db, early_done = sys.argv[1], Path(sys.argv[2])
def read(wait_s, done=None):
    try:
        with reading(db, wait_s=wait_s) as con:
            con.execute("SELECT count(*) FROM logs").fetchone()
        print("in", wait_s, flush=True)
    except DatabaseBusy:
        print("busy", wait_s, flush=True)
    if done is not None:
        done.write_text("done")
late = threading.Thread(target=read, args=(600,))
late.start()
folder, name = Path(db).parent, Path(db).name + READER_WAITING
while not any(p.name.startswith(name) for p in folder.iterdir()):
    time.sleep(0.01)  # the late read's flag is up
read(0.5, early_done)
late.join()
"""


def test_one_reads_flag_is_not_taken_down_by_another_read_of_the_same_process(
        tmp_path: Path) -> None:
    import duckdb

    db = tmp_path / "t.duckdb"
    with reading(str(db)):
        pass
    early_done = tmp_path / "early-done"
    held = duckdb.connect(str(db))  # held read-write by this process
    reader = subprocess.Popen([sys.executable, "-c", TWO_READS, str(db), str(early_done)],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    try:
        _wait_for(early_done.exists, reader)
        late_waits = reader.poll() is None
        flagged = others_waiting(str(db))
    finally:
        held.close()  # the late read gets in now
        out, err = reader.communicate()
    assert late_waits and "busy 0.5" in out and "in 600" in out, out + err
    assert flagged, "a read still waits for the file, and no flag says so"
