"""Flags beside the database (the turn-taking of readers and a long-lived writer) are read
from a folder others may write: whatever sits there under a flag's name, a page finishes,
an ingest finishes, and nothing ends in a traceback (docs/reliability.md, 'Running
alongside each other'). Real processes on a real DuckDB file: the dashboard's server with
its pages, and `trickledger ingest`."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import dashboard_process
from streamlit_client import Session

from trickledger.ingest import db as dbmod
from trickledger.ingest.db import READER_WAITING, WRITER_WAITING, others_waiting, writer_waiting
from trickledger.ingest.load import Source, ingest

ROOT = Path(__file__).resolve().parents[2]
LOGS = sorted((ROOT / "sample_logs" / "corpus" / "plotters").glob("*.jsonl"))
GIB = 1024 ** 3


def _bounded_memory() -> None:
    """The processes under attack get an address-space limit: a regression that reads a
    flag without bound fails here with a MemoryError, instead of taking the machine."""
    resource.setrlimit(resource.RLIMIT_AS, (6 * GIB, 6 * GIB))


def plant(kind: str, db: Path, pid: int) -> list[Path]:
    """Something that is not a live waiter's flag, under a writer's and a reader's flag
    name naming the live process `pid`."""
    planted = []
    for flag_kind in (WRITER_WAITING, READER_WAITING):
        path = Path(f"{db}{flag_kind}{pid}.{kind.replace(' ', '-').replace('/', '')}")
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "symlink to /dev/zero":
            path.symlink_to("/dev/zero")
        elif kind == "directory":
            path.mkdir()
        elif kind == "oversized file":  # blanks: read whole, they were a flag with no date
            with open(path, "wb") as f:
                for _ in range(64):
                    f.write(b" " * (1024 * 1024))
        elif kind == "flag of a live process nobody keeps up":
            path.write_text(dbmod._started(pid) or "")
            an_hour_ago = time.time() - 3600
            os.utime(path, (an_hour_ago, an_hour_ago))
        elif kind == "empty flag of a live process":  # fresh, but no start time in it
            path.write_text("")
        else:
            raise AssertionError(kind)
        planted.append(path)
    return planted


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A real database with logs in it, the dashboard's server on it, and another live
    process (whose id the planted entries name)."""
    folder = tmp_path_factory.mktemp("flags")
    db = folder / "d.duckdb"
    # loaded here (the ingests under attack are the tests'): no process to start for it
    loaded = ingest([Source(str(p), path=str(p)) for p in LOGS[:5]], str(db), jobs=1)
    assert loaded.loaded == 5, loaded.line()
    live = subprocess.Popen(["sleep", "3600"])
    try:
        with dashboard_process(str(db), str(folder / "server.log"), no_samples=True,
                               preexec_fn=_bounded_memory) as (url, proc):
            yield db, url, proc, live.pid
    finally:
        live.kill()
        live.wait()


KINDS = ["fifo", "symlink to /dev/zero", "directory", "oversized file",
         "flag of a live process nobody keeps up", "empty flag of a live process"]
STALE = ("flag of a live process nobody keeps up", "empty flag of a live process")


@pytest.mark.parametrize("kind", KINDS)
def test_what_sits_beside_the_database_under_a_flags_name_hangs_and_breaks_nothing(
        served, kind, tmp_path):
    db, url, server, live = served
    log_seen = len((db.parent / "server.log").read_text())
    planted = plant(kind, db, live)
    batch = LOGS[5 + 3 * KINDS.index(kind):8 + 3 * KINDS.index(kind)]  # new logs each time
    try:
        ingest = subprocess.Popen(
            [sys.executable, "-m", "trickledger", "ingest", *map(str, batch), "--db", str(db),
             "--batch", "1"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, preexec_fn=_bounded_memory)
        try:
            with Session(url) as visitor:
                runs = [visitor.run(page, limit_s=240) for page in ("", "results", "splits")]
            out, err = ingest.communicate(timeout=300)  # a bound that turns a hang into a failure
        finally:
            if ingest.poll() is None:
                ingest.kill()
                ingest.communicate()
        assert server.poll() is None
        for run in runs:
            assert run.finished == "FINISHED_SUCCESSFULLY" and "exception" not in run.kinds(), \
                run.texts()
            assert not any("went wrong" in t for t in run.texts()), run.texts()
        assert ingest.returncode in (0, 1), out + err
        assert "Traceback" not in err and "Error" not in err, err
        assert f"loaded {len(batch)}" in out, out
        log = (db.parent / "server.log").read_text()[log_seen:]
        assert "Traceback" not in log and "MemoryError" not in log, log[-3000:]
        if kind in STALE:  # stale, whoever it names
            assert not any(p.exists() for p in planted)
        else:  # not a flag: left where it is, never opened for long, never followed
            assert all(p.is_symlink() or p.exists() for p in planted)
        if kind in ("oversized file", *STALE):
            # (a regular file: safe to ask about in this process, whatever the code does)
            assert not writer_waiting(str(db)) and not others_waiting(str(db))
    finally:
        for p in planted:
            if p.is_dir() and not p.is_symlink():
                p.rmdir()
            elif p.exists() or p.is_symlink():
                p.unlink()


def test_a_flag_is_current_only_while_its_waiter_keeps_it_up(tmp_path):
    """A flag naming a live process (any process that does not wait: pid 1, the server
    itself) with that process's start time counts only until FLAG_FRESH_S pass without a
    touch; an empty one, fresh or not, counts for nothing (every waiter writes its start
    time); a flag dated ahead counts for nothing; each is removed. A waiter's own flag is
    touched as it waits, and raised again if it was taken down."""
    db = tmp_path / "t.duckdb"
    other = subprocess.Popen(["sleep", "600"])
    try:
        flag = Path(f"{db}{WRITER_WAITING}{other.pid}.x")
        flag.write_text("")  # issue 35: an empty flag naming a live process was never stale
        assert not writer_waiting(str(db)) and not others_waiting(str(db))
        assert not flag.exists()
        flag.write_text(dbmod._started(other.pid) or "")
        assert writer_waiting(str(db))  # fresh, and its process's: its waiter may be waiting
        old = time.time() - dbmod.FLAG_FRESH_S - 1
        os.utime(flag, (old, old))
        assert not writer_waiting(str(db)) and not flag.exists()  # nobody kept it up
        flag.write_text(dbmod._started(other.pid) or "")
        ahead = time.time() + 3600
        os.utime(flag, (ahead, ahead))
        assert not writer_waiting(str(db)) and not flag.exists()
        for name in ("0", "99999999", "4194305", "٣", "00000000000001"):  # no process's id
            Path(f"{db}{WRITER_WAITING}{name}.x").write_text("")
        assert not writer_waiting(str(db))
    finally:
        other.kill()
        other.wait()
    with dbmod.waiting_flag(str(db), read_only=True) as mine:
        path = Path(mine.path)
        old = time.time() - dbmod.FLAG_FRESH_S - 1
        os.utime(path, (old, old))
        mine.touched -= dbmod.FLAG_TOUCH_S  # a second has passed in the waiter's loop
        mine.keep_up()
        assert path.stat().st_mtime > old + dbmod.FLAG_FRESH_S
        path.unlink()  # taken down by someone who judged it stale
        mine.touched -= dbmod.FLAG_TOUCH_S
        mine.keep_up()
        assert path.exists()
    assert not path.exists()


WAITER = """
import sys
from trickledger.ingest.db import reading
with reading(sys.argv[1], wait_s=600) as con:
    con.execute("SELECT count(*) FROM logs").fetchone()
"""


def test_a_waiters_flag_stays_fresh_for_as_long_as_it_waits(tmp_path):
    import duckdb

    db = tmp_path / "t.duckdb"
    with dbmod.reading(str(db)):
        pass
    held = duckdb.connect(str(db))  # held read-write: the reader below waits
    reader = subprocess.Popen([sys.executable, "-c", WAITER, str(db)], cwd=ROOT,
                              stderr=subprocess.PIPE, text=True)
    try:
        flags = []
        while not flags:
            assert reader.poll() is None, reader.stderr.read() if reader.stderr else ""
            flags = list(tmp_path.glob(f"t.duckdb{READER_WAITING}{reader.pid}.*"))
            time.sleep(0.05)
        first = flags[0].stat().st_mtime
        # the waiter touches it again (well before anyone would take it for stale)
        stale_at = time.monotonic() + dbmod.FLAG_FRESH_S
        while flags[0].stat().st_mtime <= first:
            assert reader.poll() is None
            assert time.monotonic() < stale_at, "the waiter's flag went stale as it waited"
            time.sleep(0.1)
        assert others_waiting(str(db))
    finally:
        held.close()
        reader.communicate(timeout=120)
    assert reader.returncode == 0
    assert not list(tmp_path.glob("*waiting*"))


@pytest.mark.parametrize("kind", ["symlink to a folder", "fifo", "file"])
def test_the_staging_folders_name_beside_the_database_is_never_followed(tmp_path, kind):
    """An ingest keeps its staged files in `FILE.ingest` and removes the folders of runs
    whose process is gone. Issue 35's follow-up attack: that name made a link to a folder
    of someone else's, and the ingest removed the folders there that were named like a
    dead run's (and a FIFO or a file there ended the ingest in a traceback). Anything but
    a real folder is refused in one line, and nothing beyond it is touched."""
    victim = tmp_path / "victim"
    kept = victim / "999999-1-precious"  # named like a dead run's staged files
    kept.mkdir(parents=True)
    (kept / "file").write_text("mine")
    db = tmp_path / "db" / "d.duckdb"
    db.parent.mkdir()
    root = Path(f"{db}.ingest")
    if kind == "symlink to a folder":
        root.symlink_to(victim)
    elif kind == "fifo":
        os.mkfifo(root)
    else:
        root.write_text("")
    run = subprocess.run([sys.executable, "-m", "trickledger", "ingest", str(LOGS[0]),
                          "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    assert run.stderr.strip().splitlines() == [
        f"trickledger ingest: {root}: not a folder (a symbolic link, a file, a pipe or a "
        f"device) where an ingest keeps its staged files; refused (remove it, or write the "
        f"database elsewhere)"]
    assert (kept / "file").read_text() == "mine"
    assert root.is_symlink() or root.exists()


def test_a_dead_runs_staged_files_go_and_a_link_among_them_is_not_followed(tmp_path):
    """Inside a real `FILE.ingest`, a dead run's folder is removed; an entry named like one
    that is a link leads nowhere (it is not followed; what it points at stays)."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "file").write_text("mine")
    db = tmp_path / "d.duckdb"
    root = Path(f"{db}.ingest")
    dead = root / "999999-1-dead" / "_staging"
    dead.mkdir(parents=True)
    (root / "999998-1-link").symlink_to(victim)
    run = subprocess.run([sys.executable, "-m", "trickledger", "ingest", str(LOGS[0]),
                          "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert not dead.parent.exists()
    assert (victim / "file").read_text() == "mine"


def _nest(top: Path, depth: int) -> None:
    """`depth` folders, one in the next, under `top` (made by descriptors: the path of the
    deepest is longer than the system lets one call name)."""
    top.mkdir(parents=True)
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("a", dir_fd=fd)
            inner = os.open("a", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
    finally:
        os.close(fd)


def _unnest(top: Path) -> None:
    """Remove what `_nest` made, a level at a time from the top (pytest's own clean-up of
    its temporary folders recurses once per level too)."""
    spare = top.with_name(top.name + ".up")
    while (top / "a").exists():
        os.rename(top / "a", spare)
        for entry in top.iterdir():
            entry.unlink()
        top.rmdir()
        os.rename(spare, top)
    for entry in top.iterdir():
        entry.unlink()
    top.rmdir()


def test_a_tree_of_any_depth_or_size_beside_the_database_ends_no_ingest(tmp_path):
    """Attack on issue 35's fix: someone who may write beside the database makes, in
    `FILE.ingest`, a folder named like a dead run's that holds 3,000 folders one in the
    next, and another of a few small ones. Before: the ingest removed the dead runs'
    folders with shutil.rmtree, which recurses once per level, and ended in a
    RecursionError traceback. A dead run's folder is removed by descriptors, without
    recursion and bounded (docs/reliability.md): the shallow one goes, the one deeper than
    the bound stays, and the ingest loads its log."""
    db = tmp_path / "d.duckdb"
    root = Path(f"{db}.ingest")
    _nest(root / "999999-1-deep", 3000)
    _nest(root / "999998-1-shallow", 5)
    (root / "999998-1-shallow" / "a" / "file").write_text("x")
    try:
        run = subprocess.run([sys.executable, "-m", "trickledger", "ingest", str(LOGS[0]),
                              "--db", str(db)], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert "Traceback" not in run.stderr, run.stderr
        assert run.returncode == 0, run.stdout + run.stderr
        assert not (root / "999998-1-shallow").exists()
        assert (root / "999999-1-deep").exists()  # deeper than the bound: left as it is
    finally:
        _unnest(root / "999999-1-deep")


def test_removing_a_tree_is_bounded_and_follows_no_link(tmp_path):
    """`remove_tree`: a tree within the bounds goes whole, its links removed and not
    followed; past the bound on depth or on entries it stops, and says it did not remove."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "file").write_text("mine")
    where = tmp_path / "beside"
    _nest(where / "ok", 10)
    (where / "ok" / "a" / "link").symlink_to(victim)
    (where / "ok" / "a" / "fifo").parent.mkdir(exist_ok=True)
    os.mkfifo(where / "ok" / "a" / "fifo")
    _nest(where / "deep", 100)
    (where / "wide").mkdir()
    for i in range(50):
        (where / "wide" / str(i)).write_text("")
    fd = os.open(where, os.O_RDONLY)
    try:
        assert dbmod.remove_tree("ok", fd) is True
        assert dbmod.remove_tree("deep", fd, max_depth=64) is False
        assert dbmod.remove_tree("wide", fd, max_entries=20) is False
        assert dbmod.remove_tree("nothing", fd) is False
    finally:
        os.close(fd)
    assert not (where / "ok").exists()
    assert (victim / "file").read_text() == "mine"
    assert (where / "deep").exists() and (where / "wide").exists()
    _unnest(where / "deep")


def test_a_flag_naming_another_users_process_counts_only_with_its_start_time(
        tmp_path, monkeypatch):
    """Attack on issue 35's fix, a flag naming a live process of another user: a server
    that does not run as root may not signal it, and `os.kill` says only "not permitted".
    Before: such a flag counted as a waiter whatever start time it held (the start time was
    compared only where the signal was permitted). The start time is read from /proc,
    which tells any user's processes; the flag counts only with that process's. (The tests
    run as root, so the refusal a server of another user meets is made here.)"""
    db = tmp_path / "t.duckdb"
    other = subprocess.Popen(["sleep", "600"])
    real_kill = os.kill

    def kill(pid: int, sig: int) -> None:
        if pid == other.pid:
            raise PermissionError(1, "Operation not permitted")
        real_kill(pid, sig)

    monkeypatch.setattr(dbmod.os, "kill", kill)
    try:
        flag = Path(f"{db}{WRITER_WAITING}{other.pid}.x")
        flag.write_text("12345")  # not its start time
        assert not writer_waiting(str(db)) and not flag.exists()
        flag.write_text(dbmod._started(other.pid) or "")
        assert writer_waiting(str(db))
    finally:
        monkeypatch.undo()
        other.kill()
        other.wait()
