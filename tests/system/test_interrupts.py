"""Ctrl-C during a real `trickledger ingest`: a real SIGINT to the ingest's whole process
group (as a terminal sends it, to the workers too) at five moments — while the workers
replay, inside a batch's transaction while DuckDB runs a statement (twice: once with the
KeyboardInterrupt lost before the statement, as DuckDB sometimes loses it), while the run
closes the file (its final checkpoint), and while it writes its audit row. Every time:
exit 130, one line on standard error saying what was loaded and that a rerun continues,
no traceback, no process left, the database holding exactly what the line says, and a
rerun loading the rest with nothing lost or doubled.

The moments are patched into the real command by the test (the product has no test
hooks); each waits for a condition, never for time. A real process and a real corpus take
some seconds per moment: that is the point of the test.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trickledger.ingest.db import reading

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_logs" / "corpus"
LOGS = 80  # at least 64: the ingest runs worker processes
BATCH = 20

# batch 2's transaction, once its plays are inserted: `before`, then an endless statement
IN_THE_TRANSACTION = """
from trickledger.ingest.load import DatabaseWriter
real = DatabaseWriter.insert
def insert(self, con, table, files):
    real(self, con, table, files)
    if self.batches == 1 and table == "plays":
        Path(sys.argv[1]).write_text("in the transaction"){before}
        con.execute("SELECT count(*) FROM range(1000000000000000)").fetchall()
DatabaseWriter.insert = insert
"""

# `python -c SCRIPT MARKER ARGS...`: the real command, with the moment's patch.
PATCHES = {
    # the workers have their first chunks and the parent waits for them: nothing committed
    "workers": """
from trickledger.ingest.executors import LocalPool
real = LocalPool._submit
def _submit(self, task):
    fut = real(self, task)
    if task.seq == 3:  # the last chunk (all four are in flight): every worker has work
        Path(sys.argv[1]).write_text("workers busy")
    return fut
LocalPool._submit = _submit
""",
    # batch 2's transaction: the plays are inserted, then a statement DuckDB is still running
    # when Ctrl-C comes (DuckDB turns the interrupt into its own error)
    "insert": IN_THE_TRANSACTION.format(before=""),
    # as "insert", but the KeyboardInterrupt is lost before the statement runs, as DuckDB
    # 2.0 loses it when Ctrl-C comes while a statement starts (one try in a few there)
    "lost": IN_THE_TRANSACTION.format(before="""
        try:
            while True:
                time.sleep(0.01)
        except KeyboardInterrupt:
            pass"""),
    # every log loaded and the file let go; the run writes its audit row when Ctrl-C comes
    "audit": """
import trickledger.ingest.usecases as usecases
def audit(*args, **kw):
    Path(sys.argv[1]).write_text("auditing")
    while True:
        time.sleep(0.01)
usecases.audit = audit
""",
    # every batch committed; the run lets go of the file (DuckDB's checkpoint) and Ctrl-C
    # comes while it does
    "checkpoint": """
import signal
from trickledger.ingest.load import DatabaseWriter
real = DatabaseWriter._let_go
def _let_go(self, quietly=False):
    if self._stop.is_set() and self._con is not None:  # close(): the end of the run
        Path(sys.argv[1]).write_text("closing")
        owner = getattr(signal.getsignal(signal.SIGINT), "__self__", None)
        while not owner.seen:
            time.sleep(0.01)
    real(self, quietly)
DatabaseWriter._let_go = _let_go
""",
}


def script(moment: str) -> str:
    # SIGUSR1 prints every thread's stack: a run that does not end is failed with where it is
    return ("import faulthandler, signal, sys, time\nfrom pathlib import Path\n"
            "faulthandler.register(signal.SIGUSR1, all_threads=True)\n" + PATCHES[moment]
            + "from trickledger import main\nraise SystemExit(main(sys.argv[2:]))\n")


def stacks_of_a_run_that_did_not_end(proc: subprocess.Popen[bytes]) -> str:
    """What the run was doing (its threads' stacks, then whatever it printed), once it is
    killed."""
    proc.send_signal(signal.SIGUSR1)
    try:
        proc.communicate(timeout=10)  # the stacks are written meanwhile; it does not end
    except subprocess.TimeoutExpired:
        pass
    os.killpg(proc.pid, signal.SIGKILL)
    _, err = proc.communicate()
    return err.decode(errors="replace")[-6000:]


@pytest.fixture(scope="module")
def copied_logs(tmp_path_factory) -> Path:
    """LOGS logs of the sample corpus (every game), copied: regular files of their own."""
    folder = tmp_path_factory.mktemp("corpus")
    logs = sorted(CORPUS.rglob("*.jsonl"))
    for path in logs[::max(1, len(logs) // LOGS)][:LOGS]:
        shutil.copy(path, folder / path.name)
    assert len(list(folder.iterdir())) == LOGS
    return folder


def counts(db: Path) -> tuple[int, int, int]:
    """(logs, distinct hashes, games)."""
    with reading(str(db)) as con:
        row = con.execute("SELECT count(*), count(DISTINCT sha256), "
                          "(SELECT count(*) FROM games) FROM logs").fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


def group_gone(pgid: int, limit_s: float = 60.0) -> bool:
    """Whether every process of the group has ended (workers, forkserver), waiting for it."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("moment", ["workers", "insert", "lost", "checkpoint", "audit"])
def test_ctrl_c_says_what_was_loaded_exits_130_and_a_rerun_loads_the_rest(tmp_path, copied_logs,
                                                                          moment):
    db, marker = tmp_path / "t.duckdb", tmp_path / "marker"
    args = ["ingest", str(copied_logs), "--db", str(db), "--batch", str(BATCH), "--jobs", "2"]
    proc = subprocess.Popen([sys.executable, "-c", script(moment), str(marker), *args],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)  # its own group: the terminal's Ctrl-C
    try:
        while not marker.exists() and proc.poll() is None:
            time.sleep(0.02)
        assert marker.exists(), proc.communicate()[1].decode()[-3000:]
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            pytest.fail("the run did not end within 300 s of Ctrl-C:\n"
                        + stacks_of_a_run_that_did_not_end(proc))
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = err.decode()
    assert proc.returncode == 130, text
    assert "Traceback" not in text and out == b"", text
    lines = text.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("trickledger ingest: interrupted"), text
    said = re.search(r"([\d,]+) logs? loaded", lines[0])
    assert said, lines[0]
    loaded = int(said.group(1).replace(",", ""))
    assert group_gone(proc.pid), "a process of the interrupted ingest is still running"
    logs, distinct, games = counts(db)
    assert logs == distinct == loaded and games <= logs, (lines[0], logs)
    if moment in ("insert", "lost"):  # batch 2 was rolled back whole; batch 1 stays
        assert loaded == BATCH and "the same command again loads the rest" in lines[0]
    elif moment in ("checkpoint", "audit"):  # everything was committed before Ctrl-C came
        assert loaded == LOGS and f"all {LOGS} logs done" in lines[0], lines[0]
    else:
        assert loaded < LOGS and f"of {LOGS} logs done" in lines[0], lines[0]
    again = subprocess.run([sys.executable, "-m", "trickledger", *args], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"already loaded {loaded}," in again.stdout, again.stdout
    assert counts(db)[:2] == (LOGS, LOGS)
