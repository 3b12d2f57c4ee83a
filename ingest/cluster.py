"""Batches on Dask distributed (the optional `cluster` extra: pip install 'trickledger[cluster]').

`--cluster tcp://host:8786` sends each batch to an existing Dask scheduler;
`--cluster local:N` starts a LocalCluster of N worker processes on this machine for the
run. Workers run `ingest.batch.run_batch`, so trickledger must be installed where they
run (`pip install 'trickledger[cluster]'` in the workers' environment), and the lake
folder must be the same path on every worker and on the machine that commits (a shared
filesystem). When a worker dies mid-batch the scheduler runs the batch again elsewhere
(up to `distributed.scheduler.allowed-failures` times); the first run's files, if any,
are listed by no manifest and are deleted by the next committer.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from .batch import Done, Task, run_batch

TASK_TIMEOUT_S = 3600.0  # one batch; a worker that cannot import trickledger never answers


class ClusterError(RuntimeError):
    """The cluster cannot be used (Dask missing, bad address, scheduler unreachable)."""


def parse(address: str) -> tuple[str, int | str]:
    """`local:N` -> ("local", N); `tcp://host:port` (or tls://, ws://...) -> ("remote", it)."""
    m = re.fullmatch(r"local:(\d+)", address)
    if m:
        n = int(m.group(1))
        if n < 1:
            raise ClusterError(f"--cluster {address}: a local cluster needs at least 1 worker")
        return "local", n
    if re.fullmatch(r"(tcp|tls|ws|wss|inproc|ucx)://\S+", address):
        return "remote", address
    raise ClusterError(f"--cluster {address!r}: expected tcp://HOST:PORT (a Dask scheduler) "
                       f"or local:N (N worker processes on this machine)")


class DaskExecutor:
    """The same ordered, bounded stream of batches as ingest.executors.LocalPool, on Dask."""

    def __init__(self, address: str, skip: frozenset[str], connect_timeout_s: float = 15.0
                 ) -> None:
        kind, where = parse(address)
        try:
            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ClusterError("--cluster needs Dask: pip install 'trickledger[cluster]'") \
                from None
        self.cluster: Any = None
        with dask.config.set({"distributed.scheduler.allowed-failures": 3}):
            try:
                if kind == "local":
                    assert isinstance(where, int)
                    self.cluster = LocalCluster(n_workers=where, processes=True,
                                                threads_per_worker=1, dashboard_address=None)
                    self.client = Client(self.cluster, timeout=connect_timeout_s)
                else:
                    self.client = Client(str(where), timeout=connect_timeout_s)
            except OSError as e:
                self.close()
                raise ClusterError(f"--cluster {address}: cannot reach the scheduler ({e})") \
                    from None
        workers = len(self.client.scheduler_info().get("workers", {}))
        self.window = 2 * max(workers, 1) + 1
        # scatter takes a collection as many values (a frozenset of hashes would become a
        # frozenset of Futures, matching no hash): wrapped in a list, the set is one value,
        # sent to every worker once and passed to each batch whole
        self.skip: Any = (self.client.scatter([skip], broadcast=True, hash=False)[0]
                          if skip else frozenset())

    def _submit(self, task: Task) -> Any:
        return self.client.submit(run_batch, task, self.skip, pure=False)

    def run(self, tasks: Iterable[Task]) -> Iterator[Done]:
        it = iter(tasks)
        flight: deque[Any] = deque()
        while True:
            while len(flight) < self.window:
                t = next(it, None)
                if t is None:
                    break
                flight.append(self._submit(t))
            if not flight:
                return
            done = flight.popleft().result(timeout=TASK_TIMEOUT_S)
            yield done

    def run_one(self, task: Task) -> Done:
        result: Done = self._submit(task).result(timeout=TASK_TIMEOUT_S)
        return result

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.cluster is not None:
            self.cluster.close()

    def abort(self) -> None:
        """Closing the client cancels its futures; a local cluster's workers end with it."""
        self.close()
