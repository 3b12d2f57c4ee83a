"""Opening the database: connections retried while another process holds the file.

DuckDB lets one process write a database file, or several processes read it,
never both at once. Readers open one short connection per query; whoever
finds the file locked waits and retries ("busy, retrying"), and says so with
a flag beside the file (`WRITER_WAITING` or `READER_WAITING` + its pid). The
loader keeps one connection for a whole ingest (ingest.load.DatabaseWriter)
and gives the file up between batches as soon as such a flag appears.
"""

from __future__ import annotations

import os
import stat
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb

from . import schema

DEFAULT_DB = "trickledger.duckdb"
# The storage format a new database file is written in: DuckDB writes its newest format
# unless told otherwise, and then no older DuckDB (a user's CLI, another notebook's
# package) opens the file. v1.1.0 is what DuckDB 1.1 and every later version read (see
# docs/schema.md). It applies when a file is created; an existing file keeps its format.
STORAGE: dict[str, str | bool | int | float | list[str]] = {"storage_compatibility_version": "v1.1.0"}
OLDEST_READER = "1.1.3"  # the oldest DuckDB the tests open our file with
SANDBOX: dict[str, str | bool | int | float | list[str]] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    # DuckDB's buffer pool would otherwise grow towards 80 % of RAM as the file grows;
    # a cap keeps a long ingest's memory flat (DuckDB spills what does not fit)
    "memory_limit": "512MB",
    "lock_configuration": True,
}


# the loader's connection: DuckDB spills what does not fit, and the loading process stays
# small however large the file grows
WRITER_MEMORY = "256MB"
LOADER_CHECKPOINT = "1GB"


class DatabaseBusy(RuntimeError):
    """The database stayed locked by another process for longer than we wait."""


class NoDatabase(FileNotFoundError):
    """A database file asked for by name does not exist (and reading must not create it)."""


def must_exist(path: str) -> None:
    if not os.path.exists(path):
        raise NoDatabase(f"{path}: no such database file (create it with trickledger ingest "
                         f"SOURCE --db {path})")
    refuse_special(path)


def refuse_special(path: str) -> None:
    """A pipe, socket, device or folder where a database file should be: refused at once
    (opening a FIFO would wait for a writer for ever)."""
    if os.path.exists(path) and not os.path.isfile(path):
        raise NoDatabase(f"{path}: not a database file (a folder, pipe, socket or device); "
                         f"refused")


def db_path(explicit: str | None = None) -> str:
    return explicit or os.environ.get("TRICKLEDGER_DB") or DEFAULT_DB


def _locked(e: Exception) -> bool:
    msg = str(e)
    return "lock" in msg.lower() and ("Could not set lock" in msg or "conflicting lock" in msg)


WRITER_WAITING = ".writer-waiting."  # + pid.token: a flag file beside the database
READER_WAITING = ".reader-waiting."  # + pid.token: a reader that found the file held
# Anyone who may write in the database's folder may put anything there under a flag's name
# (a FIFO, a link to /dev/zero, a folder, a huge file, a flag naming a live process), so a
# flag is read as a small regular file only, never following a link nor blocking, and it
# is current only while its waiter keeps it fresh (`Flag.keep_up`).
FLAG_MAX_BYTES = 32  # a flag holds its process's start time: a number
FLAG_FRESH_S = 15.0  # a flag not touched for this long is stale, whoever it names
FLAG_TOUCH_S = 1.0  # how often a waiter touches its flag
FLAG_AHEAD_S = 5.0  # a flag dated further ahead than this (a forged date) is stale too
PID_MAX = 1 << 22  # Linux's highest process id; a flag naming a bigger one names nobody
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def _beside(path: str) -> tuple[str, str]:
    """The folder and name flags are raised by: the file's real place, so that a reader
    that reaches it through a symbolic link is seen by the writer that holds it."""
    folder, name = os.path.split(os.path.realpath(path))
    return folder, name


def _started(pid: int) -> str | None:
    """When process `pid` started (clock ticks since boot, from /proc), None where that is
    unknown: a flag records its process's, so that a process id reused after a kill does
    not keep a dead waiter's flag alive."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat_line = f.read()
    except OSError:
        return None
    # past the command name, which may hold spaces
    fields = stat_line[stat_line.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else None  # field 22, starttime


def process_gone(pid: int, started: str) -> bool:
    """Whether process `pid`, which started at `started` (`_started`), has ended: no such
    process, or its id is now another process's."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, ValueError):
        return False  # another user's live process, or not a process id
    now = _started(pid)
    return now is not None and now != started


def owner_tag() -> str:
    """This process as a name part, `PID-STARTTIME`: what it leaves beside the database
    (a run's staged files) is known as its own, and as stale once it has ended."""
    return f"{os.getpid()}-{_started(os.getpid()) or 0}"


def owner_of(name: str) -> tuple[int, str] | None:
    """The process an `owner_tag`-named thing belongs to, None for another name."""
    parts = name.split("-", 2)
    if len(parts) < 3 or not all(p.isascii() and p.isdigit() and len(p) <= 20
                                 for p in parts[:2]):
        return None
    return int(parts[0]), parts[1]


class Flag:
    """This process's flag for one wait: raised beside the database, touched while the
    wait lasts (a flag left untouched for FLAG_FRESH_S is stale to everyone else), raised
    again if someone took it down meanwhile, and taken down when the wait ends."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.touched = 0.0
        self.raised = self._raise()

    def _raise(self) -> bool:
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC,
                         0o644)
        except OSError:  # a folder this process may not write: it waits all the same
            return False
        try:
            os.write(fd, (_started(os.getpid()) or "").encode())
        except OSError:
            pass
        finally:
            os.close(fd)
        self.touched = time.monotonic()
        return True

    def keep_up(self) -> None:
        """Called as the wait goes on: the flag's date says its waiter still waits."""
        if time.monotonic() - self.touched < FLAG_TOUCH_S:
            return
        if not self.raised:
            self.raised = self._raise()  # the folder may have become writable
            self.touched = time.monotonic()
            return
        try:
            os.utime(self.path, follow_symlinks=False)
            self.touched = time.monotonic()
        except FileNotFoundError:  # judged stale while this process stood still: again
            self.raised = self._raise()
        except OSError:
            self.touched = time.monotonic()

    def lower(self) -> None:
        if self.raised:
            try:
                os.unlink(self.path)
            except OSError:
                pass


@contextmanager
def waiting_flag(path: str, read_only: bool) -> Iterator[Flag]:
    """A flag beside the database while this wait lasts: a writer's makes the dashboard's
    reads hold back, a reader's makes a long-lived writer let go of the file between its
    batches. Each wait has its own (two threads of one server waiting at once each keep
    theirs); the waiter calls `keep_up` as it waits, and the flag goes when the block
    ends. A killed process's flag is stale, and so is one nobody touches (`_live_flag`)."""
    folder, name = _beside(path)
    kind = READER_WAITING if read_only else WRITER_WAITING
    flag = Flag(os.path.join(folder, f"{name}{kind}{os.getpid()}.{uuid.uuid4().hex[:12]}"))
    try:
        yield flag
    finally:
        flag.lower()


def open_db(path: str, read_only: bool, wait_s: float = 30.0,
            on_busy: Callable[[float], None] | None = None,
            sandbox: bool = True, allow: str | None = None) -> duckdb.DuckDBPyConnection:
    """Connect, retrying while another process holds the file; DatabaseBusy after `wait_s`.
    `allow`: one folder the connection may read (the loader's staged Parquet files); DuckDB
    takes that list only after connecting, before file access is switched off."""
    config = dict(SANDBOX) if sandbox else {}
    if allow is not None:
        for key in ("enable_external_access", "lock_configuration"):
            config.pop(key, None)
        config["preserve_insertion_order"] = False  # a loader: inserts on all cores
        config["memory_limit"] = WRITER_MEMORY
        # the loader keeps its connection for a whole run: batches go to the write-ahead
        # log and the file is checkpointed when it lets go (on close), not every few MB
        config["checkpoint_threshold"] = LOADER_CHECKPOINT
    deadline = time.monotonic() + wait_s
    try:
        return _connect(path, read_only, config, allow)
    except duckdb.IOException as e:
        if not _locked(e):
            raise
    delay = 0.02
    with waiting_flag(path, read_only) as flag:  # raised only once the file was found held
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise DatabaseBusy(f"{path} is busy (another process is writing to it); "
                                   f"gave up after {wait_s:.0f} s") from None
            if on_busy:
                on_busy(left)
            flag.keep_up()
            time.sleep(min(delay, left))
            delay = min(delay * 2, 0.5)
            try:
                return _connect(path, read_only, config, allow)
            except duckdb.IOException as e:
                if not _locked(e):
                    raise


def _connect(path: str, read_only: bool, config: dict[str, Any],
             allow: str | None) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(path, read_only=read_only, config={**STORAGE, **config})
    if allow is not None:
        con.execute("SET allowed_directories = $1", [[os.path.abspath(allow) + "/"]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    return con


def writer_waiting(path: str) -> bool:
    """Whether a writer (an upload, an ingest) is waiting for the file right now."""
    return _waiting(path, (WRITER_WAITING,))


def others_waiting(path: str) -> bool:
    """Whether another process, reader or writer, is waiting for the file right now (a
    long-lived writer then lets go of it)."""
    return _waiting(path, (READER_WAITING, WRITER_WAITING), os.getpid())


def waits_for(path: str, pid: int) -> bool:
    """Whether process `pid` is waiting for the file right now (its flag is up)."""
    folder, name = _beside(path)
    mine = tuple(f"{name}{kind}{pid}." for kind in (READER_WAITING, WRITER_WAITING))
    try:
        return any(n.startswith(mine) for n in os.listdir(folder or "."))
    except OSError:
        return False


def _waiting(path: str, kinds: tuple[str, ...], me: int | None = None) -> bool:
    folder, name = _beside(path)
    prefixes = tuple(name + kind for kind in kinds)
    try:
        flags = [n for n in os.listdir(folder or ".") if n.startswith(prefixes)]
    except OSError:
        return False
    for flag in flags:
        rest = flag[len(next(p for p in prefixes if flag.startswith(p))):]
        pid_text = rest.split(".", 1)[0]
        if not (pid_text.isascii() and pid_text.isdigit() and len(pid_text) <= 7) or \
                not 0 < int(pid_text) <= PID_MAX or int(pid_text) == me:
            continue  # not a flag (a copy, a backup, no process's), or this process's own
        if _live_flag(os.path.join(folder, flag), int(pid_text)):
            return True
    return False


def read_flag(flag: str) -> tuple[str | None, float] | None:
    """A flag's text (None: another user's flag, which this process may not read) and its
    date (seconds since the epoch), or None when `flag` is not a flag: anything but a small
    regular file (a FIFO, a device, a folder, a symbolic link, a file of more than
    FLAG_MAX_BYTES, text that is not a start time). It is opened without following a link
    and without blocking, and read within its bound."""
    try:
        seen = os.lstat(flag)
    except OSError:
        return None
    if not stat.S_ISREG(seen.st_mode) or seen.st_size > FLAG_MAX_BYTES:
        return None
    try:
        fd = os.open(flag, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _NOCTTY | _CLOEXEC)
    except PermissionError:  # another user's flag, unreadable: judged by its date and pid
        return None, seen.st_mtime
    except OSError:
        return None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) or opened.st_size > FLAG_MAX_BYTES or \
                (opened.st_dev, opened.st_ino) != (seen.st_dev, seen.st_ino):
            return None  # swapped for something else meanwhile
        text = os.read(fd, FLAG_MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    started = text.strip()
    if len(text) > FLAG_MAX_BYTES or not (started == b"" or started.isdigit()):
        return None
    return started.decode("ascii"), opened.st_mtime


def _live_flag(flag: str, pid: int) -> bool:
    """Whether `flag` is raised by a live process that still waits. A stale one is
    removed: its process gone, its id now another process's, left untouched for
    FLAG_FRESH_S (so a flag naming a live process that does not wait, or dated ahead,
    holds nobody back for long), or empty where every waiter writes its start time (an
    empty file naming a live process is nobody's flag). Anything that is not a flag is
    left alone."""
    got = read_flag(flag)
    if got is None:
        return False  # nothing trickledger raises, or a flag taken down meanwhile
    started, dated = got
    age = time.time() - dated
    alive = -FLAG_AHEAD_S <= age <= FLAG_FRESH_S
    if alive and started == "" and _started(os.getpid()) is not None:
        alive = False  # this system tells start times, so every waiter wrote its own
    if alive:
        try:
            os.kill(pid, 0)
            alive = not started or _started(pid) in (None, started)
        except ProcessLookupError:
            alive = False
        except PermissionError:  # another user's live process
            alive = True
        except (OverflowError, OSError):
            alive = False
    if not alive:
        try:
            if stat.S_ISREG(os.lstat(flag).st_mode):
                os.unlink(flag)
        except OSError:
            pass
    return alive


def yield_to_writers(path: str, limit_s: float = 10.0, readers_too: bool = False) -> None:
    """Wait (at most `limit_s`) while a writer waits for the file: the dashboard's many
    short reads would otherwise keep the file from a writer for as long as visitors come.
    A writer's commit takes a moment; its flag goes when it has the file. `readers_too`:
    while any other process waits (a long-lived writer giving way before it opens the
    file again)."""
    waiting = others_waiting if readers_too else writer_waiting
    deadline = time.monotonic() + limit_s
    delay = 0.02
    while waiting(path) and time.monotonic() < deadline:
        time.sleep(delay)
        delay = min(delay * 2, 0.25)


@contextmanager
def writing(path: str, wait_s: float = 60.0,
            on_busy: Callable[[float], None] | None = None,
            allow: str | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short read-write connection with the schema in place (`allow`: see open_db)."""
    con = open_db(path, read_only=False, wait_s=wait_s, on_busy=on_busy, allow=allow)
    try:
        schema.create(con)
        yield con
    finally:
        con.close()


@contextmanager
def reading(path: str, wait_s: float = 30.0,
            on_busy: Callable[[float], None] | None = None) -> Iterator[duckdb.DuckDBPyConnection]:
    """A short read-only, sandboxed connection (no file access, no settings changes)."""
    if not os.path.exists(path):
        with writing(path):  # an empty database with the schema, so reads find tables
            pass
    con = open_db(path, read_only=True, wait_s=wait_s, on_busy=on_busy)
    try:
        yield con
    finally:
        con.close()


def is_empty(path: str) -> bool:
    """Whether the database holds no log yet (a missing file is created empty)."""
    with reading(path) as con:
        row = con.execute("SELECT count(*) FROM logs").fetchone()
        return row is None or row[0] == 0


def log_texts(con: Any, shas: list[str]) -> dict[str, bytes]:
    """The stored bytes of the logs with these SHA-256s (for the analyses that replay them)."""
    return {sha: text.encode("utf-8") for sha, text in con.execute(
        "SELECT sha256, raw_text FROM logs WHERE list_contains(?, sha256)", [shas]
    ).fetchall()}
