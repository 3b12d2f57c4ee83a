"""A full disk during a real `trickledger ingest`: a tmpfs of a few megabytes, mounted in a
mount namespace of the test's own (`unshare --user --map-root-user --mount`, which needs
no privilege where the kernel allows user namespaces), holds the database; the corpus does
not fit. The ingest says in one line which file system is full and what was loaded,
exits 3 (an environment failure, not a log's), and leaves the database whole: it opens
elsewhere holding exactly the logs the line names, with no orphan fact, and a rerun
with room loads the rest.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from trickledger.ingest.db import reading

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "sample_logs" / "corpus"
SIZE = "6m"  # the corpus's database (about 12 MB with its staged files) does not fit
EXIT_STORAGE = 3


def namespace_tmpfs_works() -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    probe = subprocess.run([unshare, "--user", "--map-root-user", "--mount", "sh", "-c",
                            "mount -t tmpfs -o size=1m tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with reading(str(db)) as con:
        return con.execute(sql).fetchall()


@pytest.mark.skipif(not namespace_tmpfs_works(),
                    reason="this kernel lets no unprivileged user mount a tmpfs (user "
                           "namespaces are off)")
def test_a_full_disk_names_the_file_system_exits_3_and_keeps_whole_batches(tmp_path):
    mnt, kept = tmp_path / "small", tmp_path / "kept"
    mnt.mkdir()
    kept.mkdir()
    db = mnt / "games.duckdb"
    command = [sys.executable, "-m", "trickledger", "ingest", str(CORPUS), "--batch", "40",
               "--jobs", "2"]
    ingest = [*command, "--db", str(db)]
    # inside the namespace: mount, ingest (its output kept outside the tmpfs), then copy what
    # the tmpfs holds out of it before the namespace, and the tmpfs with it, ends
    inner = (f"mount -t tmpfs -o size={SIZE} tmpfs {shlex.quote(str(mnt))} && "
             f"{shlex.join(ingest)} > {shlex.quote(str(tmp_path / 'out'))} "
             f"2> {shlex.quote(str(tmp_path / 'err'))}; echo $? > "
             f"{shlex.quote(str(tmp_path / 'rc'))}; cp -a {shlex.quote(str(mnt))}/. "
             f"{shlex.quote(str(kept))}/")
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", inner],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rc = int((tmp_path / "rc").read_text())
    err = (tmp_path / "err").read_text()
    assert rc == EXIT_STORAGE, err
    assert "Traceback" not in err and (tmp_path / "out").read_text() == "", err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"trickledger ingest: the file system at {mnt} (which holds "
                               f"{db}) is full: ") and "run the same command again" in lines[0]
    said = re.search(r"([\d,]+) logs? loaded before it", lines[0])
    assert said, lines[0]
    loaded = int(said.group(1).replace(",", ""))
    # the database, copied out of the full file system, is whole: exactly the logs said
    copy = kept / "games.duckdb"
    assert rows(copy, "SELECT count(*), count(DISTINCT sha256) FROM logs") == [(loaded, loaded)]
    total = len(list(CORPUS.rglob("*.jsonl")))
    assert 0 < loaded < total  # the disk filled mid-run: some batches in, the rest not
    for table in ("games", "players", "rounds", "tricks", "plays", "round_scores", "claims"):
        orphans = rows(copy, f"SELECT count(*) FROM {table} WHERE game_id NOT IN "
                             f"(SELECT game_id FROM logs WHERE game_id IS NOT NULL)")
        assert orphans == [(0,)], table
    # with room, the same command loads the rest
    again = subprocess.run([*command, "--db", str(copy)], cwd=ROOT, capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"already loaded {loaded}," in again.stdout
    assert rows(copy, "SELECT count(*), count(DISTINCT sha256) FROM logs") == [(total, total)]


@pytest.mark.skipif(not namespace_tmpfs_works(),
                    reason="this kernel lets no unprivileged user mount a tmpfs (user "
                           "namespaces are off)")
@pytest.mark.parametrize("step", [[], ["--moves", "--limit", "2"]], ids=["analyse", "moves"])
def test_a_full_disk_during_analyse_names_the_file_system_and_exits_3(tmp_path, step):
    """Attack on issue 35's fix (item 6) beyond ingest: `trickledger analyse` (ratings and
    hand estimates, or --moves) on a database whose file system is full. Before: a
    22-line traceback ending in DuckDB's TransactionException 'No space left on device',
    exit 1 (the status of an illegal move). Now the one line and the exit status of
    `ingest`'s full disk."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    db = mnt / "games.duckdb"
    logs = [str(ROOT / "sample_logs" / game) for game in ("rage", "plotters")]
    ingest = [sys.executable, "-m", "trickledger", "ingest", *logs, "--db", str(db)]
    analyse = [sys.executable, "-m", "trickledger", "analyse", "--db", str(db),
               "--playouts", "2", *step]
    q = shlex.quote
    # inside the namespace: mount, load, fill what is left, analyse (its output kept outside)
    inner = (f"mount -t tmpfs -o size={SIZE} tmpfs {q(str(mnt))} && "
             f"{shlex.join(ingest)} > /dev/null 2>&1 && "
             f"(dd if=/dev/zero of={q(str(mnt / 'fill'))} bs=64k 2>/dev/null; true) && "
             f"{shlex.join(analyse)} > {q(str(tmp_path / 'out'))} "
             f"2> {q(str(tmp_path / 'err'))}; echo $? > {q(str(tmp_path / 'rc'))}")
    done = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", inner],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rc = int((tmp_path / "rc").read_text())
    err = (tmp_path / "err").read_text()
    assert "Traceback" not in err, err
    assert rc == EXIT_STORAGE, err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"trickledger analyse: the file system at {mnt} (which holds "
                           f"{db}) is full") and "run the same command again" in last, err
