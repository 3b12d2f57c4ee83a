"""The Python API (docs/python.md): the functions behind the `verify`, `replay`, `ingest`
and `sql` commands, for notebooks and scripts.

`verify` and `replay` run the engine the commands run (replay.engine) and give the same
verdict `verify --json` prints; `connect` and `ingest` go through ingest.store, the one
`Store` value of a database file or a lake. `trickledger` imports this module on the
first use of one of its names, so that the commands start without DuckDB.
"""

from __future__ import annotations

import getpass
import os
import sys
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from trickledger.ingest.load import Summary
from trickledger.ingest.store import Store
from trickledger.replay.engine import Replay, replay_bytes, replay_path, verdict
from trickledger.sample_logs import SAMPLES

__all__ = ["SAMPLES", "IngestSummary", "Replay", "Source", "Store", "Verdict", "connect",
           "ingest_logs", "replay_log", "verify"]

Source = str | os.PathLike[str]


@dataclass(frozen=True)
class Verdict:
    """A log's verdict: the fields of `trickledger verify --json` (docs/format.md,
    "The verdict"), which `to_dict()` gives back as that very object."""

    file: str
    kind: str | None  # "moves" or "sheet"; None when unreadable
    game: str | None
    players: list[str]
    id: str | None
    sha256: str | None
    status: str  # "complete", "incomplete", "illegal" or "unreadable"
    error: dict[str, Any] | None  # {"line": ..., "message": ...}
    rounds: list[dict[str, Any]]
    totals: dict[str, int]
    winners: list[str]
    claims: list[dict[str, Any]]  # each {"round", "player", "claimed", "computed", "match"}

    @classmethod
    def of(cls, r: Replay) -> Verdict:
        return cls(**verdict(r))

    @property
    def disputed(self) -> bool:
        """Whether some claimed score does not match the replay."""
        return any(not c["match"] for c in self.claims)

    def to_dict(self) -> dict[str, Any]:
        """The verdict as `verify --json` prints it (same keys, same order)."""
        return {f.name: _copy(getattr(self, f.name)) for f in fields(self)}


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def _replay(source: Source | bytes, name: str | None) -> Replay:
    if isinstance(source, bytes | bytearray | memoryview):
        return replay_bytes(bytes(source), name or "<bytes>")
    path = os.fspath(source)
    if os.path.isdir(path):
        raise IsADirectoryError(f"{path}: a folder; give one log (e.g. "
                                f"[trickledger.verify(p) for p in Path({path!r}).rglob('*.jsonl')])")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such file")
    return replay_path(path, name)


def verify(source: Source | bytes, *, name: str | None = None) -> Verdict:
    """Replay one log (a path, or its bytes) under the rules and check its claims.
    Never raises for what the log holds: an unreadable or illegal log is a verdict
    (`status`, `error`); a path that names no file raises FileNotFoundError. `name`
    labels the log in the verdict (default: the path, or "<bytes>")."""
    return Verdict.of(_replay(source, name))


def replay_log(source: Source | bytes, *, name: str | None = None) -> Replay:
    """Replay one log and keep everything: `.status`, `.error`, `.header`, `.state`
    (rounds, scores, claims), `.facts` (every play, trick and take, in order) and
    `.render()` (the lines `trickledger replay` prints)."""
    return _replay(source, name)


def connect(db: Source | None = None, *, lake: Source | None = None,
            timeout: float | None = None) -> Store:
    """A read-only store: the database file `db` (default: $TRICKLEDGER_DB or
    trickledger.duckdb), or the lake folder `lake`. It must exist. `timeout`: the
    seconds each query may run before it is stopped (QueryTimeout); None, no limit.
    Ctrl-C stops a query either way."""
    return Store.connect(db, lake=lake, timeout=timeout)


@dataclass
class IngestSummary(Summary):
    """The counts `trickledger ingest` prints (`loaded`, `already`, `complete`, ...,
    `line()`, and `results`: every log's outcome), and the arguments that named nothing
    (`refused`: each with the reason, also recorded in `ingest_errors`)."""

    refused: list[tuple[str, str]] = field(default_factory=list)


def ingest_logs(sources: Source | Iterable[Source], db: Source | None = None, *,
           lake: Source | None = None, cluster: str | None = None, jobs: int | None = None,
           batch_size: int = 500, follow_symlinks: bool = False) -> IngestSummary:
    """Load logs (files, folders, globs or fsspec URLs) into the database file `db`
    (default: $TRICKLEDGER_DB or trickledger.duckdb) or the lake folder `lake`, on
    `jobs` local processes or the Dask cluster `cluster` (tcp://HOST:8786 or local:N).
    Returns the counts `trickledger ingest` prints, and the arguments that named
    nothing (IngestSummary.refused; each is also warned about)."""
    from trickledger.ingest.admin import Actor
    from trickledger.ingest.executors import WorkerLost

    mp = sys.modules.get("multiprocessing")
    if mp is not None and getattr(mp.current_process(), "_inheriting", False):
        # a worker process, starting, imports the user's script again (forkserver): an
        # unguarded call would start workers of its own, and die in a page of traceback
        raise RuntimeError("trickledger.ingest was called while a worker process imported "
                           "the script again: put the script's work under "
                           "`if __name__ == \"__main__\":` (docs/python.md, \"In a script\")")
    args = [os.fspath(sources)] if isinstance(sources, str | os.PathLike) else \
        [os.fspath(s) for s in sources]
    store = Store.connect(db, lake=lake, writable=True)
    try:
        user: str | None = getpass.getuser()
    except (KeyError, OSError):
        user = None
    try:
        summary, refused = store.load(args, jobs=jobs, batch_size=batch_size, cluster=cluster,
                                      follow_symlinks=follow_symlinks,
                                      actor=Actor(user, "python"))
    except WorkerLost as e:
        if getattr(sys.modules.get("__main__"), "__file__", None) is None:
            raise
        raise WorkerLost(f"{e} (if the workers died importing this script: put its work under "
                         f"`if __name__ == \"__main__\":`)") from None
    for arg, why in refused:
        warnings.warn(f"{arg}: {why}", stacklevel=2)
    return IngestSummary(**{f.name: getattr(summary, f.name) for f in fields(summary)},
                         refused=refused)
