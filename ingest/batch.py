"""One batch of logs -> one Parquet file per table: the function every worker runs.

A worker (a local process, or a Dask worker on another machine) reads each log of its
batch, replays it, puts its rows into each table's column holders (flat lists: a list
column's values end to end with where each row ends), builds one Arrow table per table
from them and writes it as a Parquet file (zstd in a lake; uncompressed when
staged for the database file, which reads it once). A file is written under a
temporary name in the staging folder and renamed, once complete, to a name made of the
SHA-256 of its own bytes: a file that exists under its final name is whole, and the
same name always means the same content. The worker returns only what the parent needs
to decide and commit: per log its name, hash, verdict and game id; per file its table,
partition, path and row count. The parent never sees a row.

The worker decides nothing that needs the rest of the corpus. Within its batch it keeps
the first log of each game id (a later one with other bytes is a `conflict`, the same
bytes again are "already loaded"); logs whose hash the parent said are loaded are
skipped unread; game ids the parent said are loaded from other bytes are conflicts.
What the worker could not know (a log loaded by another batch of the same run), the
parent finds when it commits, and it runs the batch again with that knowledge
(`ingest.load`). Running a batch twice is harmless: it only writes new files.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trickledger.replay.engine import replay_bytes_text
from trickledger.replay.errors import UnreadableLog
from trickledger.replay.reader import MAX_LOG_BYTES, read_file
from trickledger.replay.rows import ColumnValues, StringLists, TableRows

from . import schema
from .rows import Rows, decode_text, replay_rows, stored_status
from .sources import Source, open_url

MAX_FILE_BYTES = MAX_LOG_BYTES  # one cap, the reader's, on every log however it arrives
STAGING = "_staging"
NO_GAME = "__HIVE_DEFAULT_PARTITION__"  # the hive name of a NULL partition value

_STACK = pa.struct([("player", pa.string()), ("stack", pa.string()), ("cards", pa.int32())])
_ARROW_TYPES = {"VARCHAR": pa.string(), "BIGINT": pa.int64(), "INTEGER": pa.int32(),
                "TIMESTAMP": pa.timestamp("us"), "BOOLEAN": pa.bool_(), "DATE": pa.date32(),
                "VARCHAR[]": pa.list_(pa.string()), schema.STACKS: pa.list_(_STACK)}
# by table: its Arrow schema, made when first asked, again when the table's columns changed
# (a game that registered later)
ARROW_SCHEMAS: dict[str, pa.Schema] = {}

Columns = dict[str, list[Any]]
Recorded = tuple[str, int | None, str | None]  # a log not loaded: status, line, message


@dataclass(frozen=True)
class Task:
    """What a worker needs for one batch. `skip`: hashes known to be loaded (not read
    again); `loaded_ids`: game id -> file it was loaded from, for ids the parent knows
    are taken by other bytes; `recorded`: hashes of logs recorded before as unreadable
    or conflicting (status, line, message), reported again without rows; `partition`: write
    hive folders (game, ingest date) of a lake, else flat files for the embedded loader."""

    seq: int
    sources: tuple[Source, ...]
    out: str
    day: str
    partition: bool = False
    skip: frozenset[str] = frozenset()
    loaded_ids: Mapping[str, str] = field(default_factory=dict)
    recorded: Mapping[str, Recorded] = field(default_factory=dict)


@dataclass
class Outcome:
    """One log's fate in its batch (no rows: what the parent reports and commits)."""

    name: str
    sha256: str | None
    status: str  # complete / incomplete / illegal / unreadable / conflict / already loaded
    events: int = 0
    line: int | None = None
    message: str | None = None
    game_id: str | None = None
    game: str | None = None
    disputed: int = 0  # claimed scores that do not match the replay


@dataclass(frozen=True)
class Part:
    """One Parquet file a worker wrote: its table, partition, place and size."""

    table: str
    game: str | None
    path: str  # relative to the task's `out` folder
    rows: int
    bytes: int


@dataclass
class Done:
    """A batch's result: the outcome of every log, in input order, and its files."""

    seq: int
    outcomes: list[Outcome]
    parts: list[Part]
    day: str

    @property
    def logs(self) -> int:
        return len(self.outcomes)


class _Refused(OSError):
    """The reader refused the file; its message says why in full."""


def read_source(src: Source) -> bytes:
    """The source's bytes: an upload's, a local file's, or an fsspec URL's. Raises
    OSError (with a message a person can act on) when they cannot be read."""
    if src.data is not None:
        return src.data
    path = src.path or ""
    if "://" in path and not path.startswith("file://"):

        with open_url(path) as f:
            data = f.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise OSError(f"file is larger than {MAX_FILE_BYTES} bytes; the limit is "
                          f"{MAX_FILE_BYTES} bytes")
        return bytes(data)
    try:  # incrementally, never past the cap (a pipe or device too)
        return read_file(path.removeprefix("file://"), src.name)
    except UnreadableLog as e:
        raise _Refused(e.message) from None


Spans = dict[str | None, dict[str, tuple[int, int]]]  # sink -> table -> rows [start, end)


def _marks(sink: Rows) -> dict[str, int]:
    return {t: holder.rows() for t, holder in sink.tables().items()}


class _Sinks:
    """Per game (the partition), one `Rows` that collects a whole batch's rows, and for
    each log the rows it added (so that a value no column can hold is traced to its log)."""

    def __init__(self, partition: bool) -> None:
        self.partition = partition
        self.by_game: dict[str | None, Rows] = {}
        self.spans: dict[int, Spans] = {}  # by the log's index in the batch

    def for_game(self, game: str | None) -> Rows:
        key = game if self.partition else None
        sink = self.by_game.get(key)
        if sink is None:
            sink = self.by_game[key] = Rows()
        return sink

    def marks(self) -> dict[str | None, dict[str, int]]:
        return {k: _marks(sink) for k, sink in self.by_game.items()}

    def note(self, index: int, before: dict[str | None, dict[str, int]]) -> None:
        """Remember the rows log `index` added since `before` (its marks)."""
        spans: Spans = {}
        for key, sink in self.by_game.items():
            was = before.get(key, {})
            grew = {t: (was.get(t, 0), n) for t, n in _marks(sink).items() if n > was.get(t, 0)}
            if grew:
                spans[key] = grew
        self.spans[index] = spans


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def run_batch(task: Task, skip: frozenset[str] = frozenset()) -> Done:
    """Replay a batch and write its Parquet files (in a worker); never raises for a bad
    log: every log gets an outcome, and a log that could not be read is recorded.
    `skip`: hashes loaded before the run started (given to each worker once).

    A log with a value its column cannot hold (a claim of 20 digits in a 32-bit column)
    must not take its batch down: the batch runs again without it (no later log of the
    batch may be judged against it, e.g. as a game id conflict), and it is recorded as not
    loaded, with the line and the value that kept it out."""
    unstorable: dict[str, tuple[int | None, str]] = {}
    while True:
        sinks = _Sinks(task.partition)
        outcomes: list[Outcome] = []
        seen_shas: set[str] = set()
        ids: dict[str, str] = dict(task.loaded_ids)  # game id -> the file that has it
        for src in task.sources:
            before = sinks.marks()
            outcomes.append(_one(src, task, skip, sinks, seen_shas, ids, unstorable))
            sinks.note(len(outcomes) - 1, before)
        try:
            tables = _to_arrow(sinks)
            break
        except _UNSTORABLE:
            bad = _unstorable(sinks, outcomes)
            if not bad or bad.keys() <= unstorable.keys():
                raise  # not one log's value: a bug of ours, reported as the batch's failure
            unstorable.update(bad)
    del sinks  # the row lists, before the files are written
    # a database file's staged files live for one commit: not worth compressing
    compression = "zstd" if task.partition else "none"
    parts = [write_parquet(tbl, task.out, table, game if task.partition else None, task.day,
                           task.partition, compression)
             for game, by_table in tables.items() for table, tbl in by_table.items()]
    return Done(task.seq, outcomes, parts, task.day)


# what pyarrow raises for a value its column's type cannot hold (ArrowInvalid is a
# ValueError, ArrowTypeError a TypeError)
_UNSTORABLE = (OverflowError, TypeError, ValueError)


def _to_arrow(sinks: _Sinks) -> dict[str | None, dict[str, pa.Table]]:
    return {key: {t: holder_arrow(t, holder) for t, holder in sink.tables().items()
                  if holder.rows()}
            for key, sink in sinks.by_game.items()}


def _unstorable(sinks: _Sinks, outcomes: list[Outcome]) -> dict[str, tuple[int | None, str]]:
    """By hash, the logs whose rows hold a value their column cannot: (its line, why)."""
    bad: dict[str, tuple[int | None, str]] = {}
    for i, spans in sinks.spans.items():
        sha = outcomes[i].sha256
        for key, tables in spans.items():
            why = _why_unstorable(sinks.by_game[key], tables)
            if why is not None and sha is not None:
                bad.setdefault(sha, why)
    return bad


def _why_unstorable(sink: Rows, spans: dict[str, tuple[int, int]]
                    ) -> tuple[int | None, str] | None:
    """The first value of these rows that its column cannot hold: (its line, why)."""
    holders = sink.tables()
    for t, (start, end) in spans.items():
        columns = holders[t].python(start, end)
        for f in _arrow_schema(t):
            values = columns[f.name]
            try:
                pa.array(values, type=f.type)
                continue
            except _UNSTORABLE:
                pass
            for row, v in enumerate(values):
                try:
                    pa.array([v], type=f.type)
                except _UNSTORABLE:
                    lines = columns.get("line")
                    line = lines[row] if lines is not None else None
                    text = str(v)
                    if len(text) > 40:
                        text = f"{text[:20]}…{text[-8:]} ({len(text)} characters)"
                    return line, (f"the {t} table cannot hold {f.name} = {text}: "
                                  f"{_holds(f.type)}; the log is not loaded")
    return None


def _holds(typ: pa.DataType) -> str:
    if pa.types.is_integer(typ):
        lo, hi = -(1 << (typ.bit_width - 1)), (1 << (typ.bit_width - 1)) - 1
        return f"it holds integers from {lo:,} to {hi:,}"
    return f"it holds {typ}"


def _one(src: Source, task: Task, skip: frozenset[str], sinks: _Sinks, seen: set[str],
         ids: dict[str, str], unstorable: dict[str, tuple[int | None, str]]) -> Outcome:
    now = _now()
    try:
        data = read_source(src)
    except (OSError, ValueError) as e:
        msg = str(e) if isinstance(e, _Refused) else \
            f"cannot read the file ({getattr(e, 'strerror', None) or e})"
        # without bytes there is no sha256 to key `logs` by: only the error is recorded
        sinks.for_game(None).ingest_errors.add(file_name=src.name, sha256=None,
                                               status="unreadable", line=None, message=msg,
                                               recorded_at=now)
        return Outcome(src.name, None, "unreadable", message=msg)
    sha = hashlib.sha256(data).hexdigest()
    if sha in skip or sha in task.skip or sha in seen:
        return Outcome(src.name, sha, "already loaded")
    seen.add(sha)
    known = task.recorded.get(sha)
    if known is not None:  # recorded before as unreadable or conflicting: not loaded
        return Outcome(src.name, sha, known[0], line=known[1], message=known[2])
    if sha in unstorable:
        line, msg = unstorable[sha]  # the line goes in its own column, as for any error
        sink = sinks.for_game(None)
        sink.logs.add(sha256=sha, file_name=src.name, size_bytes=len(data), ingested_at=now,
                      raw_text=decode_text(data), status="unreadable", game_id=None,
                      error_line=line, error_message=msg)
        sink.ingest_errors.add(file_name=src.name, sha256=sha, status="unreadable",
                               line=line, message=msg, recorded_at=now)
        return Outcome(src.name, sha, "unreadable", 0, line, msg)
    try:
        # the SHA-256 above and one decompression serve the replay and the stored text
        r, text = replay_bytes_text(data, src.name, src.max_bytes, sha256=sha)
        gid = r.header.id if r.header else None
        game = r.header.game if r.header else None
        taken = ids.get(gid) if gid is not None else None
        if taken is not None:
            msg = (f"game id {gid!r} is already loaded from {taken}; these bytes differ "
                   f"(give the log another 'id' to load both)")
            sink = sinks.for_game(game)
            sink.logs.add(sha256=sha, file_name=src.name, size_bytes=len(data),
                          ingested_at=now, raw_text=decode_text(data, text), status="conflict",
                          game_id=gid, error_line=None, error_message=msg)
            sink.ingest_errors.add(file_name=src.name, sha256=sha, status="conflict",
                                   line=None, message=msg, recorded_at=now)
            return Outcome(src.name, sha, "conflict", 0, None, msg, gid, game)
        sink = sinks.for_game(game)
        mark = _marks(sink)
        try:
            replay_rows(r, data, now, sink, text)
        except Exception:
            for t, holder in sink.tables().items():  # drop the failed log's partial rows
                holder.truncate(mark.get(t, 0))
            raise
    except Exception as e:  # a bug must not lose the file: it is recorded, not dropped
        msg = f"internal error while replaying ({type(e).__name__}: {e})"
        sink = sinks.for_game(None)
        sink.logs.add(sha256=sha, file_name=src.name, size_bytes=len(data), ingested_at=now,
                      raw_text=decode_text(data), status="unreadable", game_id=None,
                      error_line=None, error_message=msg)
        sink.ingest_errors.add(file_name=src.name, sha256=sha, status="unreadable",
                               line=None, message=msg, recorded_at=now)
        return Outcome(src.name, sha, "unreadable", 0, None, msg)
    if gid is not None:
        ids[gid] = src.name
    err = r.error
    return Outcome(src.name, sha, stored_status(r), r.events, err.line if err else None,
                   err.message if err else None, gid, game, len(r.mismatched_claims()))


def _arrow_schema(table: str) -> pa.Schema:
    fields = ARROW_SCHEMAS.get(table)
    if fields is None or tuple(fields.names) != schema.COLUMNS[table]:
        fields = ARROW_SCHEMAS[table] = pa.schema(
            [(c, _ARROW_TYPES[ty.removesuffix(" PRIMARY KEY")]) for c, ty in schema.TABLES[table]])
    return fields


def to_arrow(table: str, columns: Columns) -> pa.Table:
    """Column lists of Python values (by name) -> a typed Arrow table; pyarrow builds each
    column in C."""
    fields = _arrow_schema(table)
    return pa.Table.from_arrays([pa.array(columns[f.name], type=f.type) for f in fields],
                                schema=fields)


def holder_arrow(table: str, holder: TableRows) -> pa.Table:
    """A table's column holder -> a typed Arrow table: each flat column by one `pa.array`,
    a list column from its flat values and row ends (`ListArray.from_arrays`), the stacks
    from their entries' flat fields (`StructArray.from_arrays`) and row ends. The holder's
    columns are the table's, in order (ingest.rows checks them at import)."""
    fields = _arrow_schema(table)
    return pa.Table.from_arrays([_array(column, f.type)
                                 for (_, column), f in zip(holder.columns(), fields)],
                                schema=fields)


def _array(column: ColumnValues, typ: pa.DataType) -> pa.Array:
    if isinstance(column, list):
        return pa.array(column, type=typ)
    ends = pa.array(column.ends, type=pa.int32())
    mask = None
    if column.nulls:
        flags = [False] * column.rows()
        for i in column.nulls:
            flags[i] = True
        mask = pa.array(flags, type=pa.bool_())
    if isinstance(column, StringLists):
        values: pa.Array = pa.array(column.values, type=pa.string())
    else:
        entry = typ.value_type
        values = pa.StructArray.from_arrays(
            [pa.array(column.player, type=entry.field("player").type),
             pa.array(column.stack, type=entry.field("stack").type),
             pa.array(column.cards, type=entry.field("cards").type)], fields=list(entry))
    return pa.ListArray.from_arrays(ends, values, type=typ, mask=mask)


def write_parquet(tbl: pa.Table, out: str, table: str, game: str | None, day: str,
                  partition: bool, compression: str = "zstd") -> Part:
    """Write under a temporary name, fsync, then rename to `<sha256 of the bytes>`: a
    reader or a committer only ever finds whole files."""
    staging = os.path.join(out, STAGING)
    os.makedirs(staging, exist_ok=True)
    tmp = os.path.join(staging, f"{uuid.uuid4().hex}.tmp")
    pq.write_table(tbl, tmp, compression=compression)
    h = hashlib.sha256()
    with open(tmp, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
        os.fsync(f.fileno())
    name = f"{table}-{h.hexdigest()[:32]}.parquet"
    os.rename(tmp, os.path.join(staging, name))
    return Part(table, game, f"{STAGING}/{name}", tbl.num_rows,
                os.path.getsize(os.path.join(staging, name)))
