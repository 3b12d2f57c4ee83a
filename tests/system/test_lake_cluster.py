"""A real Dask cluster as docs/scale.md starts it: `dask scheduler` and `dask worker`
processes on 127.0.0.1 from the documented commands. They listen on loopback only
(dashboards included), and ingesting the same logs into a lake a second time replays
none of them: every worker skips the loaded logs unread."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "scale.md"
DASK = Path(sys.executable).parent / "dask"

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")


def documented(kind: str, port: int) -> list[str]:
    """docs/scale.md's `dask scheduler` or `dask worker` command, on this machine: both
    addresses 127.0.0.1, a free port instead of 8786 and the dashboard's 8787 (other
    tests run beside this one), two worker processes."""
    lines = [ln for ln in DOC.read_text().splitlines()
             if ln.startswith(f".venv/bin/dask {kind} ")]
    assert len(lines) == 1, f"docs/scale.md should show one `dask {kind}` command"
    line = (lines[0].replace("SCHEDULER_IP", "127.0.0.1").replace("NODE_IP", "127.0.0.1")
            .replace("$(nproc)", "2").replace("127.0.0.1:8787", "127.0.0.1:0"))
    line = re.sub(r"\b8786\b", str(port), line)
    args = shlex.split(line)
    return [str(DASK), *args[1:]]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening(proc: subprocess.Popen[bytes]) -> set[tuple[str, int]]:
    """Every (address, port) the process and its children listen on."""
    out = set()
    root = psutil.Process(proc.pid)
    for p in [root, *root.children(recursive=True)]:
        try:
            for c in p.net_connections(kind="inet"):
                if c.status == psutil.CONN_LISTEN:
                    out.add((c.laddr.ip, c.laddr.port))
        except psutil.NoSuchProcess:
            pass
    return out


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(60)


@pytest.fixture(scope="module")
def documented_cluster() -> Iterator[tuple[str, subprocess.Popen[bytes],
                                           subprocess.Popen[bytes]]]:
    from dask.distributed import Client

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = subprocess.Popen(documented("scheduler", port), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
    workers = None
    try:
        workers = subprocess.Popen(documented("worker", port), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        # the condition: both workers registered (the timeouts are only a safety net)
        with Client(address, timeout=300) as client:
            client.wait_for_workers(2, timeout=300)
        yield address, scheduler, workers
    finally:
        if workers is not None:
            stop(workers)
        stop(scheduler)


def test_the_documented_commands_listen_on_loopback_only(documented_cluster):
    _, scheduler, workers = documented_cluster
    for proc in (scheduler, workers):
        sockets = listening(proc)
        assert sockets, "the process listens nowhere?"
        assert {ip for ip, _ in sockets} == {"127.0.0.1"}, sockets
    # the scheduler serves a dashboard (on loopback), besides its own port
    assert len(listening(scheduler)) == 2


def test_a_second_ingest_on_a_real_cluster_replays_no_loaded_log(documented_cluster,
                                                                  tmp_path):
    address = documented_cluster[0]
    found, missing = expand([str(ROOT / "sample_logs" / "corpus" / "rage"),
                             str(ROOT / "sample_logs" / "plotters")])
    assert found and not missing
    lake = str(tmp_path / "lake")
    first = ingest(found, lake=lake, batch_size=40, cluster=address)
    assert first.loaded == len(found)
    again = ingest(found, lake=lake, batch_size=40, cluster=address)
    assert again.loaded == 0 and again.already == len(found)
    # a replayed log shows as a rerun: the worker loaded it, the commit found it loaded
    assert again.reruns == 0
