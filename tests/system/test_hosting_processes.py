"""Hosting, round two: processes and files (docs/reliability.md, 'Processes and files').
A killed `ingest` leaves no process, a killed `import` no file that blocks a retry, a
console no temporary folder, and a FIFO is not taken for a database."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from helpers import pause_in_batch, temp_of_its_own

from trickledger import main
from trickledger.ingest.db import reading

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_logs" / "corpus"
GAME = ROOT / "sample_logs" / "rage" / "rage-5p-hidden-bid.jsonl"


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _group(pgid: int) -> list[str]:
    """The processes of a process group, as `ps` shows them (for a failure's message)."""
    out = subprocess.run(["ps", "-o", "pid=,ppid=,args=", "-g", str(pgid)],
                         capture_output=True, text=True).stdout
    return [line.strip()[:160] for line in out.splitlines() if line.strip()]


def _start_paused(script: str, marker: Path, *args: str,
                  env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """`script` run in a session of its own (so that everything it starts, however it is
    orphaned, stays findable by its process group), until it writes `marker`."""
    proc = subprocess.Popen([sys.executable, "-c", script, str(marker), *args], cwd=ROOT,
                            start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 300  # a safety net; the condition is the marker
    while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    if not marker.exists():
        _kill_group(proc)
        pytest.fail(f"never reached its pause: {proc.stderr.read().decode()[-2000:]}")
    return proc


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()
    if proc.stderr is not None:
        proc.stderr.close()


# A real `trickledger ingest` on 2 worker processes that, in its second batch (the pool
# and its forkserver and resource tracker running), marks the moment and waits to be killed.
PAUSE_IN_SECOND_BATCH = pause_in_batch(2)


def test_a_killed_ingest_leaves_no_process_behind(tmp_path):
    # the whole corpus, for a pool of workers; batches of 10 (not 40): its second batch,
    # where it pauses, comes after a quarter of the work
    with temp_of_its_own() as env:
        proc = _start_paused(PAUSE_IN_SECOND_BATCH, tmp_path / "marker", "ingest", "--db",
                             str(tmp_path / "t.duckdb"), "--batch", "10", "--jobs", "2",
                             str(CORPUS), env=env)
        try:
            before = _group(proc.pid)
            assert len(before) >= 4, before  # the ingest, its forkserver, tracker, workers
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            # workers notice their ingest's end at once; the forkserver and the resource
            # tracker end when the last holder of their pipes has
            deadline = time.monotonic() + 120  # a safety net; the condition: an empty group
            while _group_alive(proc.pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert not _group_alive(proc.pid), _group(proc.pid)
        finally:
            _kill_group(proc)


def test_a_killed_ingests_staged_files_go_with_the_next_run(tmp_path):
    """A killed ingest leaves its staged Parquet files beside the database; the next
    ingest into the file removes them at once (they used to stay for an hour), and leaves
    those of a run still going."""
    db = tmp_path / "t.duckdb"
    staged = Path(f"{db}.ingest")
    proc = _start_paused(pause_in_batch(2), tmp_path / "marker", "ingest", "--db", str(db),
                         "--batch", "20", "--jobs", "1", str(CORPUS / "plotters"))
    try:
        killed = [p.name for p in staged.iterdir()]
        assert len(killed) == 1 and any((staged / killed[0]).rglob("*.parquet")), killed
        from trickledger.ingest.db import owner_tag

        live = staged / f"{owner_tag()}-{'a' * 32}"  # a run of a live process: kept
        (live / "staging").mkdir(parents=True)
    finally:
        _kill_group(proc)
    assert main(["ingest", "--db", str(db), str(GAME)]) == 0
    assert [p.name for p in staged.iterdir()] == [live.name]


PAUSE_IN_IMPORT = """
import sys, time
from pathlib import Path
from trickledger.ingest import backup
real = backup.checksum
def checksum(con, relation):
    Path(sys.argv[1]).write_text("importing")
    time.sleep(3600)
backup.checksum = checksum
from trickledger import main
from trickledger.ingest.db import reading
raise SystemExit(main(sys.argv[2:]))
"""


def test_a_killed_import_leaves_nothing_that_blocks_a_retry(tmp_path, capsys):
    db = tmp_path / "t.duckdb"
    assert main(["ingest", "--db", str(db), str(GAME)]) == 0
    assert main(["export", str(tmp_path / "backup"), "--db", str(db)]) == 0
    restored = tmp_path / "restored" / "r.duckdb"
    restored.parent.mkdir()
    proc = _start_paused(PAUSE_IN_IMPORT, tmp_path / "marker", "import",
                         str(tmp_path / "backup"), "--db", str(restored))
    _kill_group(proc)
    assert not restored.exists()
    capsys.readouterr()
    assert main(["import", str(tmp_path / "backup"), "--db", str(restored)]) == 0, \
        capsys.readouterr().err
    assert sorted(os.listdir(restored.parent)) == ["r.duckdb"]  # the killed run's work file too


def test_an_import_writes_through_no_link_and_any_name_beside_it_is_refused_quietly(
        tmp_path, capsys):
    """Attack on issue 35's fixes, beside the database an import makes: someone who may
    write in its folder plants, under the work file's name for the importing process (a
    process id is easy to guess), a link to a file elsewhere, and work files named with
    odd digits (`²`) and with a number beyond any process id. Before: the import built the
    database through the link, wherever it led, and put a link at `--db`; the odd names
    ended it in a traceback (ValueError, OverflowError). The import builds in a folder of
    its own that nobody else may write, and an entry it did not make is left alone."""
    db = tmp_path / "t.duckdb"
    assert main(["ingest", "--db", str(db), str(GAME)]) == 0
    assert main(["export", str(tmp_path / "backup"), "--db", str(db)]) == 0
    folder, elsewhere = tmp_path / "restored", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    restored = folder / "r.duckdb"
    planted = folder / f".r.duckdb.importing-{os.getpid()}"
    planted.symlink_to(elsewhere / "planted.duckdb")
    odd = [folder / ".r.duckdb.importing-\u00b2",
           folder / ".r.duckdb.importing-99999999999999999999999"]
    for path in odd:
        path.write_text("")
    capsys.readouterr()
    assert main(["import", str(tmp_path / "backup"), "--db", str(restored)]) == 0, \
        capsys.readouterr().err
    assert not (elsewhere / "planted.duckdb").exists()
    assert restored.is_file() and not restored.is_symlink()
    with reading(str(restored)) as con:
        assert con.execute("SELECT count(*) FROM logs").fetchall() == [(1,)]
    assert all(path.exists() for path in odd)  # not ours: left alone
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [restored.name, planted.name] + [p.name for p in odd])


def test_a_console_leaves_no_temporary_folder(tmp_path, monkeypatch):
    from trickledger.ingest.console import Console, Target

    db = tmp_path / "t.duckdb"
    assert main(["ingest", "--db", str(db), str(GAME)]) == 0
    temp = tmp_path / "temp"
    temp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    console = Console()  # as the dashboard keeps one: never closed while the server runs
    try:
        assert console.run(Target(db=str(db)), "SELECT count(*) FROM logs").rows == [(1,)]
        assert os.listdir(temp) == []
    finally:
        console.close()
    assert os.listdir(temp) == []


def test_a_database_that_is_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "db.duckdb"
    os.mkfifo(fifo)
    for args in (["ingest", "--db", str(fifo), str(GAME)], ["sql", "--db", str(fifo), "SELECT 1"]):
        # the bound is a safety net against a hang, not a measure of speed
        done = subprocess.run([sys.executable, "-m", "trickledger", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and "not a database file" in done.stderr, done.stderr


LEAKS = '''
import subprocess

def test_leaves_a_process():
    subprocess.Popen(["sleep", "600"])

def test_cleans_up():
    subprocess.run(["true"], check=True)
'''


def test_a_test_run_fails_when_a_process_it_started_outlives_it(tmp_path):
    """The suite's own check (tests/conftest.py): a process started by the run and alive
    at its end fails the run, and is killed."""
    folder = tmp_path / "units"  # a folder the suite's conftest knows
    folder.mkdir()
    (folder / "test_leak.py").write_text(LEAKS)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests"),
           "TRICKLEDGER_LEFTOVER_GRACE_S": "3"}  # its `sleep 600` never ends by itself
    env.pop("TRICKLEDGER_TEST_SESSION", None)

    def inner(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-q",
                               "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestUnknownMarkWarning",
                               "--rootdir", str(tmp_path),
                               str(folder / "test_leak.py"), *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)

    clean = inner("-k", "cleans_up")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    leaky = inner()
    assert leaky.returncode == 1, leaky.stdout + leaky.stderr
    assert "outlived it (killed now)" in leaky.stdout and "sleep 600" in leaky.stdout
    pid = int(leaky.stdout.split("outlived it (killed now):")[1].split(":")[0])
    deadline = time.monotonic() + 60  # a safety net; the condition is the process's end
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:][:1] not in (b"Z", b"X")


def test_a_console_dropped_without_closing_stops_its_spare_worker():
    import gc

    from trickledger.ingest.console import Console

    console = Console(spares=1)
    console._take().proc.kill()  # the one a query would use; the spare stays ready
    spare = console.ready[0].proc
    assert _alive(spare.pid)
    del console
    gc.collect()
    deadline = time.monotonic() + 60  # a safety net; the condition is the spare's end
    while _alive(spare.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(spare.pid)
    spare.wait()


WATCHER = """
import sys, time
from trickledger.ingest.executors import die_with
die_with(int(sys.argv[1]))
print("watching", flush=True)
time.sleep(3600)
"""


def test_a_process_that_dies_with_its_owner_ends_when_the_owner_is_killed():
    """The watch that pool workers and dashboard jobs (ingest.jobs) keep on their owner."""
    owner = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    watcher = subprocess.Popen([sys.executable, "-c", WATCHER, str(owner.pid)], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        assert watcher.stdout is not None and watcher.stdout.readline() == "watching\n"
        assert watcher.poll() is None
        owner.kill()
        owner.wait()
        watcher.wait(timeout=120)  # a safety net; without the watch it sleeps an hour
        assert watcher.returncode == 1
    finally:
        for proc in (owner, watcher):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if watcher.stdout is not None:
            watcher.stdout.close()
