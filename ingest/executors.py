"""Where batches run: in this process, on local worker processes, or on a Dask cluster.

Every executor runs the same function, `ingest.batch.run_batch`, and yields the results
in the order the batches were given (so which of two logs with one game id wins does
not depend on timing), with a bounded number of batches in flight (memory stays flat
however large the corpus). A batch may run twice (a worker lost, a pool restarted):
that only writes files nobody lists, which the committer deletes.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Protocol

from .batch import Done, Task, run_batch

_SKIP: frozenset[str] = frozenset()


def die_with(pid: int) -> None:
    """End this process as soon as process `pid` ends, however it ends (SIGKILL included).

    A pool's workers are the forkserver's children, not the ingest's, and each holds the
    write ends of the pipes that would tell the forkserver and the resource tracker that
    the ingest is gone: a killed ingest would leave all of them running for ever. So each
    worker watches the ingest itself, through a pidfd (which cannot be fooled by a pid
    used again later), or on a system without pidfds by asking every second."""

    def watch() -> None:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            os._exit(1)  # already gone
        except (AttributeError, OSError):  # no pidfd on this system
            while True:
                time.sleep(1.0)
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    os._exit(1)
                except PermissionError:
                    pass  # alive, another user's: cannot be ours, but keep waiting
        watch_fd = select.poll()  # not select(): a descriptor may be numbered past 1024
        watch_fd.register(fd, select.POLLIN)
        while not watch_fd.poll():  # readable once the process has ended
            pass
        os._exit(1)

    threading.Thread(target=watch, name=f"die-with-{pid}", daemon=True).start()


def _init_worker(skip: frozenset[str], owner: int | None = None) -> None:
    global _SKIP
    _SKIP = skip
    if owner is not None:
        die_with(owner)


def _run_pooled(task: Task) -> Done:
    return run_batch(task, _SKIP)


class WorkerLost(RuntimeError):
    """Worker processes kept dying (killed, or out of memory) while running batches."""


class Executor(Protocol):
    def run(self, tasks: Iterable[Task]) -> Iterator[Done]: ...

    def run_one(self, task: Task) -> Done: ...

    def close(self) -> None: ...


class InProcess:
    """Small loads (an upload, a handful of files): no process to start."""

    def __init__(self, skip: frozenset[str]) -> None:
        self.skip = skip

    def run(self, tasks: Iterable[Task]) -> Iterator[Done]:
        for t in tasks:
            yield run_batch(t, self.skip)

    def run_one(self, task: Task) -> Done:
        return run_batch(task, self.skip)

    def close(self) -> None:
        pass


class LocalPool:
    """`jobs` worker processes (forkserver: the caller may run threads whose locks a
    forked child would inherit held). A worker that dies (SIGKILL, out of memory) breaks
    the pool: a new pool takes over and the batches in flight run again."""

    def __init__(self, jobs: int, skip: frozenset[str], restarts: int = 3) -> None:
        self.jobs = jobs
        self.skip = skip
        self.restarts = restarts
        self.window = 2 * jobs + 1
        self.pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.jobs, mp_context=get_context("forkserver"),
                                   initializer=_init_worker, initargs=(self.skip, os.getpid()))

    def _restart(self) -> None:
        if self.restarts <= 0:
            raise WorkerLost("worker processes kept dying while running batches (killed, "
                             "or out of memory?); what was committed stays, run the same "
                             "command again to load the rest")
        self.restarts -= 1
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._new()

    def run(self, tasks: Iterable[Task]) -> Iterator[Done]:
        it = iter(tasks)
        flight: deque[tuple[Task, Future[Done] | None]] = deque()  # None: not yet submitted
        exhausted = False
        while True:
            try:
                while not exhausted and len(flight) < self.window:
                    t = next(it, None)
                    if t is None:
                        exhausted = True
                        break
                    flight.append((t, None))
                for i, (t, fut) in enumerate(flight):
                    if fut is None:  # a broken pool refuses new work too
                        flight[i] = (t, self.pool.submit(_run_pooled, t))
                if not flight:
                    return
                head = flight[0][1]
                assert head is not None
                done = head.result()
            except BrokenProcessPool:
                # a worker died (killed, out of memory): every batch in flight runs again
                self._restart()
                flight = deque((t, None) for t, _ in flight)
                continue
            flight.popleft()
            yield done

    def run_one(self, task: Task) -> Done:
        while True:
            try:
                return self.pool.submit(_run_pooled, task).result()
            except BrokenProcessPool:
                self._restart()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def local(jobs: int | None, logs: int, skip: frozenset[str]) -> Executor:
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or logs < 64:
        return InProcess(skip)
    return LocalPool(jobs, skip)


def cluster(address: str, skip: frozenset[str]) -> Executor:
    """A Dask executor (the `cluster` extra); imported only when asked for."""
    from .cluster import DaskExecutor

    return DaskExecutor(address, skip)
