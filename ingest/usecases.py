"""The ingest use case, written once: expand the sources, record the arguments that named
nothing, load, audit.

`trickledger ingest` (ingest.commands), the Python API (`trickledger.ingest_logs`, through
`Store.load`), the dashboard's sample logs (`trickledger dashboard` into an empty store)
and the dashboard's uploads and saves (the `upload` job, ingest.jobs) all call
`ingest_sources` (or `ingest_paths`, which expands the arguments first), so each writes the
same audit: what happened, never a bare "loaded N" (a run whose only log was an id
conflict says "loaded 0, id conflict 1"), into a database file's `audit_log` or a lake's
`_audit.jsonl` alike.

Two ways of auditing, chosen by the caller:

- one row per run (the command line, the API, the sample logs): written after the load,
  its result `audit_result`, its detail the summary line;
- one row per log (`per_log`: an upload or a save, where a visitor wants to see what
  became of each file): into a database file, in each batch's own transaction; into a
  lake, after the load.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from .admin import Actor, audit, audit_lake
from .batch import Source
from .db import DatabaseBusy
from .load import IngestInterrupted, Summary, ingest, record_missing
from .sources import expand

Missing = list[tuple[str, str]]  # an argument that named nothing, and why


@dataclass
class IngestRun:
    """What one ingest did: the summary (its `unreadable` counts only the files read, as
    `ingest` returns it), the arguments that named nothing (recorded in `ingest_errors`),
    and, when the audit could not be written (a database file kept busy), why."""

    summary: Summary
    missing: Missing = field(default_factory=list)
    audit_problem: str | None = None


def audit_result(summary: Summary, missing: Sequence[tuple[str, str]] = ()) -> str:
    """An ingest run in the audit log's result column: what was loaded and, beside it, what
    was not (a conflict is not 'loaded 0'); an argument that named nothing is unreadable."""
    parts = [f"loaded {summary.loaded}"]
    for n, what in ((summary.already, "already loaded"), (summary.conflicts, "id conflict"),
                    (summary.unreadable + len(missing), "unreadable"),
                    (summary.quarantined, "quarantined")):
        if n:
            parts.append(f"{what} {n}")
    return ", ".join(parts)


def ingest_paths(paths: Sequence[str], *, db: str | None, lake: str | None, actor: Actor,
                 follow_symlinks: bool = False, jobs: int | None = None,
                 batch_size: int = 500, cluster: str | None = None, compact: bool = False,
                 progress: Callable[[int, int], None] | None = None,
                 on_busy: Callable[[float], None] | None = None,
                 keep_all: bool = True,
                 on_expanded: Callable[[list[Source], Missing], None] | None = None
                 ) -> IngestRun:
    """Ingest what `paths` name (files, folders, globs, `-`, URLs) into the database file
    `db` or the lake `lake`, audited as one run of `actor` named by its arguments. Raises
    ingest.sources.SourceError when the arguments cannot be expanded at all.
    `on_expanded(sources, missing)` is told what was found before anything is loaded."""
    sources, missing = expand(list(paths), follow_symlinks=follow_symlinks)
    if on_expanded is not None:
        on_expanded(sources, missing)
    return ingest_sources(sources, db=db, lake=lake, actor=actor,
                          label=", ".join(paths), missing=missing, jobs=jobs,
                          batch_size=batch_size, cluster=cluster, compact=compact,
                          progress=progress, on_busy=on_busy, keep_all=keep_all)


def ingest_sources(sources: list[Source], *, db: str | None, lake: str | None,
                   actor: Actor, action: str = "ingest", label: str = "",
                   missing: Missing | None = None, per_log: bool = False,
                   jobs: int | None = None, batch_size: int = 500,
                   cluster: str | None = None, compact: bool = False,
                   progress: Callable[[int, int], None] | None = None,
                   on_busy: Callable[[float], None] | None = None,
                   keep_all: bool = True) -> IngestRun:
    """Record `missing`, load `sources` into `db` or `lake` (exactly one), and audit it as
    `action` by `actor`: one row per run named `label`, or with `per_log` one row per
    log."""
    missing = list(missing or [])
    record_missing(missing, db, lake=lake)
    summary = ingest(sources, None if lake else db, jobs=jobs, batch_size=batch_size,
                     progress=progress, on_busy=on_busy, keep_all=keep_all, lake=lake,
                     cluster=cluster, compact=compact,
                     audit_as=(actor, action) if per_log and not lake else None)
    try:  # the logs are loaded: a Ctrl-C from here says so, not "nothing loaded"
        return _audit_run(summary, missing, db, lake, actor, action, label, per_log)
    except KeyboardInterrupt:
        raise IngestInterrupted(summary, "interrupted") from None


def _audit_run(summary: Summary, missing: Missing, db: str | None, lake: str | None,
               actor: Actor, action: str, label: str, per_log: bool) -> IngestRun:
    run = IngestRun(summary, missing)
    if per_log:
        if lake:  # a database file's rows were written in each batch's transaction
            _audit(run, lake, None, actor, action, [
                {"file_name": o.name, "sha256": o.sha256, "game_id": o.game_id,
                 "result": o.status, "detail": o.message} for o in summary.results])
        return run
    # the run's detail counts the arguments that named nothing as unreadable, as
    # `trickledger ingest` prints it
    counted = dataclasses.replace(summary, unreadable=summary.unreadable + len(missing))
    _audit(run, lake, db, actor, action, [{"file_name": label[:500],
                                           "result": audit_result(summary, missing),
                                           "detail": counted.line()}])
    return run


def _audit(run: IngestRun, lake: str | None, db: str | None, actor: Actor, action: str,
           rows: list[dict[str, object]]) -> None:
    try:
        if lake:
            audit_lake(lake, actor, action, rows)
        else:
            audit(db or "", actor, action, rows)
    except (DatabaseBusy, OSError) as e:  # loaded all the same: said, not raised
        run.audit_problem = str(e)
