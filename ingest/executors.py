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
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing import get_context
from multiprocessing.context import BaseContext
from typing import Protocol

from .batch import Done, Task, run_batch

_SKIP: frozenset[str] = frozenset()


def forkserver_context() -> BaseContext:
    """The forkserver start method, whose workers ignore Ctrl-C from their first instruction
    (ingest/quiet_workers.py, imported in the forkserver before anything else of ours)."""
    ctx = get_context("forkserver")
    ctx.set_forkserver_preload(["__main__", "trickledger.ingest.quiet_workers"])
    return ctx


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


_MAIN_HIDDEN = threading.Lock()
_ABSENT = object()


@contextmanager
def script_not_imported() -> Iterator[None]:
    """Start worker processes without running the caller's script in them again.

    With the forkserver (and spawn) start methods, Python runs the main script once more
    in the forkserver and in each worker, so that functions defined in it can be
    unpickled there: a plain script that calls `trickledger.ingest_logs` would print
    what it printed again, and call the ingest again inside a worker. A worker needs
    nothing of the script (its function and its task are trickledger's), so while
    workers start, `__main__` hides the attributes multiprocessing reads to find the
    script (`__file__`, `__spec__`); a notebook, which has no script, is unchanged."""
    main = sys.modules.get("__main__")
    if main is None or (getattr(main, "__file__", None) is None
                        and getattr(main, "__spec__", None) is None):
        yield
        return
    with _MAIN_HIDDEN:
        saved = {k: main.__dict__.get(k, _ABSENT) for k in ("__file__", "__spec__")}
        main.__dict__.pop("__file__", None)
        main.__dict__["__spec__"] = None
        try:
            yield
        finally:
            for k, v in saved.items():
                if v is _ABSENT:
                    main.__dict__.pop(k, None)
                else:
                    main.__dict__[k] = v


def _init_worker(skip: frozenset[str], owner: int | None = None) -> None:
    global _SKIP
    _SKIP = skip
    # Ctrl-C reaches every process of the terminal's group: the ingest stops its workers and
    # says what was loaded, so a worker ignores it rather than dying with a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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

    def abort(self) -> None:
        """Stop at once, the batches under way thrown away (the run failed or was
        interrupted: nothing of theirs would be committed)."""


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

    def abort(self) -> None:
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
        return ProcessPoolExecutor(self.jobs, mp_context=forkserver_context(),
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
                        flight[i] = (t, self._submit(t))
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

    def _submit(self, task: Task) -> Future[Done]:
        with script_not_imported():  # a submit may start a worker (and the forkserver)
            return self.pool.submit(_run_pooled, task)

    def run_one(self, task: Task) -> Done:
        while True:
            try:
                return self._submit(task).result()
            except BrokenProcessPool:
                self._restart()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)

    def abort(self) -> None:
        # the workers' batches would be thrown away: end them rather than wait (their
        # half-written files are in the run's staging folder, which the run deletes)
        workers = list((getattr(self.pool, "_processes", None) or {}).values())
        self.pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()
        for w in workers:
            w.join()


def local(jobs: int | None, logs: int, skip: frozenset[str]) -> Executor:
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or logs < 64:
        return InProcess(skip)
    return LocalPool(jobs, skip)


def cluster(address: str, skip: frozenset[str]) -> Executor:
    """A Dask executor (the `cluster` extra); imported only when asked for."""
    from .cluster import DaskExecutor

    return DaskExecutor(address, skip)
