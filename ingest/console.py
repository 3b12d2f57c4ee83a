"""The SQL console's queries, each in a process of its own that can be stopped.

A visitor's query runs in a fresh worker process (`python -m trickledger.ingest.console`), read-only
and sandboxed, and the caller enforces every limit from outside, so that each holds even
where DuckDB never looks at its interrupt flag (an expression folded while planning, a
string function on a huge argument):

- time: the worker is killed (SIGKILL) at the deadline;
- memory: the worker's address space is capped (RLIMIT_AS), DuckDB's own memory limit is
  set lower, and a watchdog kills a worker whose resident memory passes the cap;
- result size: rows and bytes are capped; the caller reads a message's length before its
  body and stops at the cap, and counts what the rows become once they are Python values
  (an ENUM or NULL column travels small) before it makes them (`shown_bytes`);
- disk: DuckDB may spill only a small quota, into a folder of its own that is removed
  when the query ends (a killed worker cannot clean up after itself).

No lock is held while a query runs: the worker opens its own read-only connection, and
read-only connections of several processes share a database file. Workers are started
ahead of need so a query does not wait for Python to start.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import IO, Any

from .readonly import Result, SqlRefused
from .readonly import check as sql_check

TIMEOUT_S = 10.0
MAX_ROWS = 5_000
MAX_RESULT_BYTES = 16 * 1024 * 1024
MEMORY_BYTES = 1024 * 1024 * 1024  # beyond what the worker has mapped at start
DUCKDB_MEMORY = "256MB"
SPILL_QUOTA = "64MB"
_HEADER = struct.Struct("!cQ")  # kind, length
_SPARES = 1  # workers kept ready
START_LIMIT_S = 120.0  # a worker's start (Python, DuckDB, Arrow), not counted in the query's


class ConsoleError(SqlRefused):
    """A query that was refused, failed or was stopped; the message says why, in one line."""


@dataclass
class Limits:
    timeout_s: float = TIMEOUT_S
    max_rows: int = MAX_ROWS
    max_bytes: int = MAX_RESULT_BYTES
    memory_bytes: int = MEMORY_BYTES

    def check(self) -> None:
        for name, value in (("time limit", self.timeout_s), ("row limit", self.max_rows),
                            ("byte limit", self.max_bytes)):
            if not (value > 0 and math.isfinite(value)):
                raise ConsoleError(f"the {name} must be a finite number above 0, got {value}")


Answer = Result  # a console query's answer: columns, rows, whether and why it was cut


@dataclass
class Target:
    """What a query reads: a database file, or a lake folder (views over its Parquet)."""

    db: str | None = None
    lake: str | None = None

    def as_json(self) -> dict[str, str | None]:
        return {"db": self.db, "lake": self.lake}


# ------------------------------------------------------------------ the worker


def _send(out: IO[bytes], kind: bytes, payload: bytes = b"") -> None:
    out.write(_HEADER.pack(kind, len(payload)))
    out.write(payload)
    out.flush()


def _vmsize() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _connect(target: dict[str, Any], temp: str) -> Any:
    import duckdb

    config: dict[str, Any] = {
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "memory_limit": DUCKDB_MEMORY,
        "max_temp_directory_size": SPILL_QUOTA,
        "temp_directory": temp,
        "threads": 1,
    }
    if target.get("lake"):
        from trickledger.ingest.lake import console_connection

        return console_connection(target["lake"], config)
    config["lock_configuration"] = True
    from trickledger.ingest.db import _locked, waiting_flag

    try:
        return duckdb.connect(target["db"], read_only=True, config=config)
    except duckdb.IOException as e:
        if not _locked(e):
            raise
    delay = 0.02
    # an ingest holds the file until it sees this flag (between two of its batches); the
    # caller's clock rules
    with waiting_flag(target["db"], read_only=True) as flag:
        while True:
            flag.keep_up()
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
            try:
                return duckdb.connect(target["db"], read_only=True, config=config)
            except duckdb.IOException as e:
                if not _locked(e):
                    raise


def _out_of_memory(e: BaseException) -> bool:
    return isinstance(e, MemoryError) or "out of memory" in str(e).lower()


def _ipc(batch: Any, pa: Any) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, batch.schema) as w:
        w.write_batch(batch)
    data: bytes = sink.getvalue().to_pybytes()
    return data


def _send_within(out: IO[bytes], batch: Any, room: int, pa: Any) -> tuple[int, int]:
    """Send `batch`, or the longest head of it that fits `room` bytes (the caller stops
    at its byte cap, so a batch of wide rows is not lost whole): (rows, bytes) sent."""
    buf = _ipc(batch, pa)
    if len(buf) > room:
        lo, hi = 0, batch.num_rows - 1
        while lo < hi:  # the rows that fit, found by halving (a slice costs nothing)
            mid = (lo + hi + 1) // 2
            if len(_ipc(batch.slice(0, mid), pa)) <= room:
                lo = mid
            else:
                hi = mid - 1
        if lo == 0:
            return 0, 0
        batch = batch.slice(0, lo)
        buf = _ipc(batch, pa)
    _send(out, b"B", buf)
    return batch.num_rows, len(buf)


def _stream(out: IO[bytes], rel: Any, request: dict[str, Any], pa: Any) -> int:
    """Send the rows of `rel` as Arrow IPC batches until a cap; returns the rows sent, or
    -1 when memory ran out before the first row went (then the caller may go piecewise)."""
    rows = sent = 0
    try:
        reader = rel.to_arrow_reader(256) if hasattr(rel, "to_arrow_reader") else \
            rel.fetch_record_batch(256)
        for batch in reader:
            cut = rows + batch.num_rows > request["max_rows"]
            if cut:
                batch = batch.slice(0, request["max_rows"] - rows)
            n, size = _send_within(out, batch, request["max_bytes"] - sent, pa)
            sent += size
            rows += n
            if n < batch.num_rows:  # the byte cap fell inside this batch
                _send(out, b"T", BY_BYTES)
                break
            if rows >= request["max_rows"] or sent >= request["max_bytes"]:
                more = cut or rows < request["max_rows"] or \
                    next(iter(reader), None) is not None
                if more:
                    _send(out, b"T", BY_BYTES if sent >= request["max_bytes"] else b"")
                break
    except Exception as e:
        if rows == 0 and _out_of_memory(e):
            return -1
        raise
    return rows


BY_BYTES = b"bytes"  # a cut's reason, sent with the T message (none: the row cap)
PIECE_ROWS = (64, 1)  # rows per piece when the whole result did not fit in memory


def _stream_in_pieces(out: IO[bytes], con: Any, request: dict[str, Any], pa: Any) -> None:
    """The result of a SELECT, a few rows per query (DuckDB pushes the LIMIT down, so a
    piece makes only its own rows): each piece's bytes count against the caps."""
    rows = sent = 0
    step = PIECE_ROWS[0]
    while rows < request["max_rows"] and sent < request["max_bytes"]:
        want = min(step, request["max_rows"] - rows)
        try:
            table = con.sql(request["sql"]).limit(want + 1, offset=rows).to_arrow_table()
        except Exception as e:
            if _out_of_memory(e) and step > PIECE_ROWS[-1]:
                step = PIECE_ROWS[-1]
                gc.collect()
                continue
            raise
        more = table.num_rows > want
        table = table.slice(0, want)
        for batch in table.to_batches():
            n, size = _send_within(out, batch, request["max_bytes"] - sent, pa)
            sent += size
            rows += n
            if n < batch.num_rows:  # the byte cap fell inside this piece
                _send(out, b"T", BY_BYTES)
                return
        del table
        if not more:
            return
    _send(out, b"T", BY_BYTES if sent >= request["max_bytes"] else b"")


def _one_error_line(e: BaseException) -> str:
    text = (str(e).strip().splitlines() or [type(e).__name__])[0][:400]
    if isinstance(e, MemoryError):
        text = "the query needed more memory than the console allows"
    return f"{type(e).__name__}: {text}"


def worker_main() -> None:
    """One query: read the request from stdin, stream Arrow IPC batches to stdout."""
    out = sys.stdout.buffer
    # What every query needs is loaded before the worker says it is ready: the time limit
    # counts from then, so a worker that starts slowly (a cold disk, a loaded machine) does
    # not eat the query's seconds, and a spare waits with its imports done.
    try:
        import duckdb  # noqa: F401
        import pyarrow  # noqa: F401

        import trickledger.ingest.db  # noqa: F401
        import trickledger.ingest.lake  # noqa: F401
    except BaseException as e:  # a broken install says why, before the ready it never sends
        _send(out, b"E", _one_error_line(e).encode())
        os._exit(0)
    _send(out, b"R")
    request = json.loads(sys.stdin.buffer.readline())
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)  # DuckDB's progress output must not reach anyone
    try:
        cap = _vmsize() + int(request["memory_bytes"])
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        import pyarrow as pa

        con = _connect(request["target"], request["temp"])
        sent_columns = False
        try:
            rel = con.sql(request["sql"])
            if rel is None:
                _send(out, b"C", json.dumps([]).encode())
                _send(out, b"Z")
                return
            _send(out, b"C", json.dumps(list(rel.columns)).encode())
            sent_columns = True
            streamed = _stream(out, rel, request, pa)
            del rel
        except Exception as e:
            if not sent_columns or not _out_of_memory(e):
                raise
            streamed = 0
            del e
        if streamed < 0:
            # A chunk of wide rows (DuckDB makes 2,048 rows at a time: 2,048 rows of 80 KB are
            # 160 MB, twice over while they become Arrow) passed the memory cap before any
            # row was sent: the rows again, a few at a time, until a cap is reached.
            con.close()  # what the failed attempt holds goes with its connection
            gc.collect()
            con = _connect(request["target"], request["temp"])
            _stream_in_pieces(out, con, request, pa)
        _send(out, b"Z")
    except BaseException as e:  # everything goes back as one line
        try:
            _send(out, b"E", _one_error_line(e).encode())
        except OSError:
            pass
    finally:
        os._exit(0)  # no destructors: the answer is sent


# ------------------------------------------------------------------ the caller


@dataclass
class _Spare:
    proc: subprocess.Popen[bytes]
    started: float = field(default_factory=time.monotonic)


class Console:
    """Runs console queries in worker processes, keeping spares started."""

    def __init__(self, spares: int = _SPARES, temp_root: str | None = None) -> None:
        self.spares = spares
        self.lock = threading.Lock()  # guards the spare list only, never a running query
        self.ready: deque[_Spare] = deque()
        # Each query's spill folder is made here and removed when the query ends; nothing
        # lives here between queries, so a console that is never closed (the dashboard's,
        # dropped with Streamlit's cache) leaves no folder behind.
        self.temp_root = temp_root  # None: the system's temporary folder
        # A console dropped without close() (the dashboard's, when Streamlit's cache is
        # cleared) still stops its spares: a dropped Popen keeps its pipe open, so a spare
        # waiting for a request would otherwise wait for ever.
        weakref.finalize(self, _stop_spares, self.ready)

    def _start(self) -> _Spare:
        # The worker's address space is capped (RLIMIT_AS): allocators that reserve address
        # space ahead (a glibc arena per thread, Arrow's own pool) would make a wide result
        # fail by chance rather than by size, so both allocate only what they use.
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "MALLOC_ARENA_MAX": "2",
               "ARROW_DEFAULT_MEMORY_POOL": "system"}
        try:
            proc = subprocess.Popen([sys.executable, "-m", "trickledger.ingest.console"],
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, env=env, start_new_session=True)
        except OSError as e:  # this Python gone (a virtualenv replaced under a server)
            raise ConsoleError(f"the console's worker could not start: {e}") from None
        return _Spare(proc)

    def _take(self) -> _Spare:
        with self.lock:
            while self.ready:
                spare = self.ready.popleft()
                if spare.proc.poll() is None:
                    break
            else:
                spare = self._start()
            try:
                while len(self.ready) < self.spares:
                    self.ready.append(self._start())
            except ConsoleError:
                _end(spare.proc)
                raise
        return spare

    def run(self, target: Target, sql: str, limits: Limits | None = None) -> Answer:
        limits = limits or Limits()
        limits.check()
        check(sql)
        spare = self._take()
        proc = spare.proc
        assert proc.stdin is not None and proc.stdout is not None
        temp = tempfile.mkdtemp(prefix="trickledger-console-", dir=self.temp_root)
        request = {"target": target.as_json(), "sql": sql, "temp": temp,
                   "max_rows": limits.max_rows, "max_bytes": limits.max_bytes,
                   "memory_bytes": limits.memory_bytes}
        stopped: list[str] = []
        done = threading.Event()
        ready = threading.Event()

        def watchdog() -> None:
            deadline = time.monotonic() + START_LIMIT_S
            while not ready.is_set():
                if done.wait(0.05):
                    return
                if time.monotonic() > deadline:
                    stopped.append(f"took longer than {START_LIMIT_S:g} s")
                    _kill(proc)
                    return
            deadline = time.monotonic() + limits.timeout_s
            while not done.wait(0.05):
                if time.monotonic() > deadline:
                    stopped.append(_overran(target, proc.pid, limits.timeout_s))
                elif _rss(proc.pid) > limits.memory_bytes:
                    stopped.append(f"used more than {limits.memory_bytes // 2**20} MiB")
                else:
                    continue
                _kill(proc)
                return

        guard = threading.Thread(target=watchdog, daemon=True)
        guard.start()
        try:
            _await_ready(proc.stdout, stopped)
            ready.set()
            proc.stdin.write(json.dumps(request).encode() + b"\n")
            proc.stdin.close()
            return _collect(proc.stdout, limits, stopped, proc)
        except BrokenPipeError:  # the worker ended (or was stopped) before it read the query
            raise ConsoleError(f"the query was stopped: it {stopped[0]}" if stopped else
                               "the console's worker could not start") from None
        finally:
            done.set()
            # the watchdog ends within one poll; joined before the worker is reaped, it
            # cannot kill a process group whose id a new process has taken meanwhile
            guard.join()
            _end(proc)
            shutil.rmtree(temp, ignore_errors=True)

    def close(self) -> None:
        """Stop the spares and reap them: when close() returns, no worker is left."""
        with self.lock:
            _stop_spares(self.ready)


def _await_ready(stream: IO[bytes], stopped: list[str]) -> None:
    """The worker's first frame: ready, or why it could not start (an import that failed)."""
    header = _read_exact(stream, _HEADER.size)
    if header == _HEADER.pack(b"R", 0):
        return
    why = f": it {stopped[0]}" if stopped else ""
    if header is not None:
        kind, length = _HEADER.unpack(header)
        payload = _read_exact(stream, length) if kind == b"E" and length <= 4096 else None
        if payload is not None:
            why = ": " + one_line(payload.decode(errors="replace"))
    raise ConsoleError("the console's worker could not start" + why)


def _overran(target: Target, pid: int, timeout_s: float) -> str:
    """Why a query was stopped at its time limit: a worker still waiting for the file (its
    flag is up) never ran the query."""
    from trickledger.ingest.db import waits_for

    if target.db is not None and waits_for(target.db, pid):
        return (f"waited {timeout_s:g} s for the database, which another process "
                f"(an ingest, an upload) held all that time; try again")
    return f"ran longer than {timeout_s:g} s"


def _stop_spares(ready: deque[_Spare]) -> None:
    while ready:
        _end(ready.popleft().proc)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """Kill a worker and reap it, its pipes closed: SIGKILL is delivered asynchronously, so
    without the wait it could outlive the call (or linger as a zombie); a killed process
    ends at once."""
    _kill(proc)
    proc.wait()
    for pipe in (proc.stdin, proc.stdout):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _read_exact(stream: IO[bytes], n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = stream.read(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


# What one value costs the caller beyond its own bytes once it is a Python object (a
# reference in its row, an object header): counted so that 5,000 rows of 5,000 NULLs,
# nothing on the wire, are not 25 million objects in the caller.
CELL_BYTES = 16


def shown_bytes(array: Any) -> int:
    """The bytes `array` (an Arrow array or chunked array) becomes in the caller, counted
    without making it: a dictionary (ENUM) column counts each row's value in full, a list
    or struct counts every value inside it, a NULL counts as a cell. Arrow computes it
    from the column's own buffers; nothing is expanded."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(array, pa.ChunkedArray):
        return sum(shown_bytes(chunk) for chunk in array.chunks)
    t = array.type
    n = len(array)
    cells = n * CELL_BYTES
    if isinstance(t, pa.ExtensionType):
        return shown_bytes(array.storage)
    if pa.types.is_dictionary(t):
        sizes = _value_sizes(array.dictionary)
        taken = pc.sum(pc.take(sizes, array.indices)).as_py()
        return cells + int(taken or 0)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or \
            pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return cells + int(pc.sum(pc.binary_length(array)).as_py() or 0)
    if getattr(pa.types, "is_string_view", lambda _: False)(t) or \
            getattr(pa.types, "is_binary_view", lambda _: False)(t):
        # views share their bytes: each row counts the bytes it shows
        return cells + int(pc.sum(pc.binary_length(array)).as_py() or 0)
    if pa.types.is_map(t):
        # Arrow has no flatten for a map: its entries (a struct of key and value) are the
        # rows of its values between its first and last offset (a slice keeps them all)
        start, end = array.offsets[0].as_py(), array.offsets[-1].as_py()
        return cells + shown_bytes(array.values.slice(start, end - start))
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t) \
            or getattr(pa.types, "is_list_view", lambda _: False)(t) \
            or getattr(pa.types, "is_large_list_view", lambda _: False)(t):
        return cells + shown_bytes(array.flatten())
    if pa.types.is_struct(t):
        # each value shows its field names again (a dict's keys, a printed {'name': ...})
        names = sum(len(t.field(i).name.encode()) + CELL_BYTES for i in range(t.num_fields))
        return cells + n * names + sum(shown_bytes(field) for field in array.flatten())
    if pa.types.is_union(t):
        return cells + sum(shown_bytes(array.field(i)) for i in range(t.num_fields))
    if pa.types.is_null(t):
        return cells
    width = getattr(t, "bit_width", None)
    if isinstance(width, int) and width > 0:
        return cells + n * max(width // 8, 1)
    # a type DuckDB does not send today (run-end encoded...): refused rather than guessed
    raise ConsoleError(f"the console cannot show a column of type {t}; cast it in the "
                       f"query (for example to VARCHAR)")


def _value_sizes(values: Any) -> Any:
    """Per entry of a dictionary, what it costs when a row shows it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    t = values.type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or \
            pa.types.is_large_binary(t):
        return pc.fill_null(pc.cast(pc.binary_length(values), pa.int64()), 0)
    # other dictionaries (rare): every entry is charged the whole dictionary's size
    whole = shown_bytes(values)
    return pa.array([whole] * len(values), type=pa.int64())


def _table_bytes(table: Any) -> int:
    """What the rows of `table` become where they are shown: their values, and the column
    names once per row (a JSON row, a dict, repeats them)."""
    names = sum(len(name.encode()) for name in table.column_names)
    return table.num_rows * names + \
        sum(shown_bytes(table.column(i)) for i in range(table.num_columns))


def _rows_within(table: Any, budget: int) -> Any:
    """The longest head of `table` whose shown bytes fit `budget` (a binary search: the
    cost only grows with the rows)."""
    lo, hi = 0, table.num_rows
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if _table_bytes(table.slice(0, mid)) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return table.slice(0, lo)


def _collect(stream: IO[bytes], limits: Limits, stopped: list[str],
             proc: subprocess.Popen[bytes]) -> Answer:
    import pyarrow as pa

    columns: list[str] = []
    tables = []
    total = 0  # bytes received
    shown = 0  # what the received rows become in this process (shown_bytes)
    truncated = False
    note = None
    cut_note = (f"the result is larger than {limits.max_bytes:,} bytes (as shown): cut "
                f"there")
    while True:
        header = _read_exact(stream, _HEADER.size)
        if header is None:
            why = stopped[0] if stopped else "the worker stopped (out of memory?)"
            raise ConsoleError(f"the query was stopped: it {why}" if stopped else
                               f"the query was stopped: {why}")
        kind, length = _HEADER.unpack(header)
        if kind == b"B" and total + length > limits.max_bytes:
            _kill(proc)
            truncated = True
            note = cut_note
            break
        if kind != b"B" and length > limits.max_bytes:
            _kill(proc)
            raise ConsoleError(f"the result's column names alone are larger than "
                               f"{limits.max_bytes:,} bytes" if kind == b"C" else
                               "the worker's answer is larger than the console takes")
        payload = _read_exact(stream, length) if length else b""
        if payload is None:
            raise ConsoleError("the query was stopped: " + (stopped[0] if stopped else
                                                             "the worker ended early"))
        if kind == b"C":
            columns = json.loads(payload)
            shown += length
        elif kind == b"B":
            total += length
            table = pa.ipc.open_stream(payload).read_all()
            cost = _table_bytes(table)
            if shown + cost > limits.max_bytes:
                _kill(proc)
                tables.append(_rows_within(table, limits.max_bytes - shown))
                truncated = True
                note = cut_note
                break
            shown += cost
            tables.append(table)
        elif kind == b"T":
            truncated = True
            if payload == BY_BYTES:
                note = cut_note
        elif kind == b"E":
            raise ConsoleError(one_line(payload.decode(errors="replace")))
        elif kind == b"Z":
            break
    rows: list[tuple[Any, ...]] = []
    for t in tables:
        rows.extend(zip(*(t.column(i).to_pylist() for i in range(t.num_columns))))
    rows = rows[:limits.max_rows]
    if truncated and note is None:
        note = f"only the first {len(rows):,} rows are shown"
    return Answer(columns, rows, truncated, note)


def one_line(text: str) -> str:
    """An error as one line; a refused file access says so in words."""
    lines = text.strip().splitlines()
    first = lines[0] if lines else "the query failed"
    if "PermissionException" in first or "disabled by configuration" in first:
        return "refused: the SQL console has no file or network access (" + first + ")"
    return first


# ------------------------------------------------------------------ what may run


def check(sql: str) -> None:
    """Refuse (ConsoleError) anything but one SELECT, an EXPLAIN of one, or a read-only
    PRAGMA: the same gate as every read-only query (ingest.readonly.check). Parsing only."""
    import duckdb

    try:
        sql_check(duckdb.connect(":memory:"), sql)
    except SqlRefused as e:
        raise ConsoleError(str(e)) from None


if __name__ == "__main__":
    worker_main()
