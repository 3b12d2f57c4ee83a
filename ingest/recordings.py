"""Recordings: games entered at a table, tap by tap (the dashboard's Record page).

A recording is a header and a list of taps, kept in the database file (`recordings`,
`recording_taps`, docs/schema.md) as they happen: each tap is a log event (a `deal`, a
`play`, a `shown`...) or an `undo` of the last event still standing. The log of a
recording is its header and the events left once the undos are folded in: a plays-only log
(docs/format.md), written the same way every time (`log_of`). Nothing is ever deleted: an
undo is a tap too, so the recording also says what was taken back, by whom and when.

Two phones on one recording each append the tap they saw the recording at: a tap is taken
only as the next one (`append` checks the number in the transaction that adds it), so a
tap made on a stale view is refused (`TapConflict`) instead of being put in the wrong place.

The dashboard writes through one long-lived worker process (`Recorder`, `python -m
trickledger.ingest.recordings`): a tap costs a short write connection, not a Python start.
The command line exports a recording as its log (`trickledger recordings export`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import secrets
import subprocess
import sys
import threading
from dataclasses import dataclass
from typing import Any

import duckdb
import orjson

from .db import reading, writing
from .transactions import transaction

UNDO = "undo"
EVENT = "event"
# a recording's state as the recordings table keeps it
RECORDING = "recording"  # taps may come
LOADED = "loaded"  # its log was loaded into the database: closed
MAX_TAPS = 5000  # far beyond any real game (a 10-round rage game at 8 is some 500 events)


class RecordingError(ValueError):
    """A recording that does not exist, or a tap it cannot take; the message says why."""


class TapConflict(RecordingError):
    """A tap made on a view of the recording that another phone has moved on from."""


@dataclass(frozen=True)
class Recording:
    """A recording as stored: its header, its taps (kind, event) in order, who started it."""

    recording_id: str
    header: dict[str, Any]
    taps: list[tuple[str, dict[str, Any] | None]]
    status: str
    created_at: dt.datetime
    created_by: str | None
    updated_at: dt.datetime
    sha256: str | None  # the log loaded, once it is
    game_id: str | None

    @property
    def seq(self) -> int:
        """The number the next tap gets (the taps so far)."""
        return len(self.taps)

    def events(self) -> list[dict[str, Any]]:
        return events_of(self.taps)

    def log(self) -> bytes:
        return log_of(self.header, self.taps)


def events_of(taps: list[tuple[str, dict[str, Any] | None]]) -> list[dict[str, Any]]:
    """The events that stand once every undo has taken back the event before it."""
    out: list[dict[str, Any]] = []
    for kind, event in taps:
        if kind == UNDO:
            if out:
                out.pop()
        elif event is not None:
            out.append(event)
    return out


def log_of(header: dict[str, Any], taps: list[tuple[str, dict[str, Any] | None]]) -> bytes:
    """The recording's log: its header and its standing events, one JSON object a line."""
    lines = [orjson.dumps(header)] + [orjson.dumps(e) for e in events_of(taps)]
    return b"\n".join(lines) + b"\n"


def new_id() -> str:
    """A recording's id: short enough to read out at a table, too many to guess."""
    return secrets.token_hex(6)


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


# ------------------------------------------------------------------ on a connection


def start(con: duckdb.DuckDBPyConnection, header: dict[str, Any], actor: dict[str, Any],
          rid: str | None = None) -> str:
    """A new recording of a game with this header (already checked by the engine), under
    `rid` (a new id when None); RecordingError when that id is taken."""
    rid = rid or new_id()
    if con.execute("SELECT 1 FROM recordings WHERE recording_id = ?", [rid]).fetchone():
        raise RecordingError(f"there is a recording {rid} already")
    now = _now()
    con.execute(
        "INSERT INTO recordings (recording_id, created_at, created_by, via, address, header, "
        "status, taps, updated_at, sha256, game_id) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, NULL, "
        "NULL)",
        [rid, now, actor.get("user"), actor.get("via"), actor.get("address"),
         orjson.dumps(header).decode(), RECORDING, now])
    return rid


def append(con: duckdb.DuckDBPyConnection, rid: str, seq: int, kind: str,
           event: dict[str, Any] | None, actor: dict[str, Any]) -> int:
    """Add the tap number `seq` (the taps the phone saw before it); returns the taps now.
    TapConflict when the recording has moved on since (another phone's tap), RecordingError
    when it is closed or unknown. One transaction: the tap is there, or nothing is."""
    if kind not in (EVENT, UNDO):
        raise RecordingError(f"unknown kind of tap {kind!r}")
    with transaction(con):
        row = con.execute("SELECT status, taps FROM recordings WHERE recording_id = ?",
                          [rid]).fetchone()
        if row is None:
            raise RecordingError(f"there is no recording {rid!r}")
        status, taps = row
        if status != RECORDING:
            raise RecordingError(f"recording {rid} is closed: its game was loaded")
        if taps != seq:
            raise TapConflict(f"recording {rid} has {taps} taps, not {seq}: another phone "
                              f"entered something meanwhile")
        if taps >= MAX_TAPS:
            raise RecordingError(f"recording {rid} holds {MAX_TAPS:,} taps, the most one may")
        now = _now()
        con.execute(
            "INSERT INTO recording_taps (recording_id, seq, happened_at, actor, via, address, "
            "kind, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [rid, seq, now, actor.get("user"), actor.get("via"), actor.get("address"), kind,
             orjson.dumps(event).decode() if event is not None else None])
        con.execute("UPDATE recordings SET taps = ?, updated_at = ? WHERE recording_id = ?",
                    [seq + 1, now, rid])
    return seq + 1


def mark_loaded(con: duckdb.DuckDBPyConnection, rid: str, seq: int, sha256: str,
                game_id: str | None) -> None:
    """The recording's log (as of `seq` taps) was loaded: it is closed."""
    with transaction(con):
        row = con.execute("SELECT taps FROM recordings WHERE recording_id = ?", [rid]).fetchone()
        if row is None:
            raise RecordingError(f"there is no recording {rid!r}")
        if row[0] != seq:
            raise TapConflict(f"recording {rid} has {row[0]} taps, not {seq}: another phone "
                              f"entered something meanwhile")
        con.execute("UPDATE recordings SET status = ?, sha256 = ?, game_id = ?, updated_at = ? "
                    "WHERE recording_id = ?", [LOADED, sha256, game_id, _now(), rid])


def load(con: duckdb.DuckDBPyConnection, rid: str) -> Recording:
    """The recording `rid` as stored (RecordingError when there is none)."""
    row = con.execute(
        "SELECT recording_id, header, status, created_at, created_by, updated_at, sha256, "
        "game_id FROM recordings WHERE recording_id = ?", [rid.strip()]).fetchone()
    if row is None:
        raise RecordingError(f"there is no recording {rid.strip()!r}")
    taps = con.execute("SELECT kind, event FROM recording_taps WHERE recording_id = ? "
                       "ORDER BY seq", [row[0]]).fetchall()
    return Recording(row[0], orjson.loads(row[1]),
                     [(k, orjson.loads(e) if e is not None else None) for k, e in taps],
                     row[2], row[3], row[4], row[5], row[6], row[7])


@dataclass(frozen=True)
class Listed:
    """One recording in the list: enough to pick it."""

    recording_id: str
    game: str
    players: list[str]
    status: str
    taps: int
    created_at: dt.datetime
    created_by: str | None
    updated_at: dt.datetime
    game_id: str | None


def listing(con: duckdb.DuckDBPyConnection, limit: int = 50) -> list[Listed]:
    """The recordings, the latest touched first."""
    rows = con.execute(
        "SELECT recording_id, header, status, taps, created_at, created_by, updated_at, "
        "game_id FROM recordings ORDER BY updated_at DESC, recording_id LIMIT ?",
        [limit]).fetchall()
    out = []
    for rid, header, status, taps, created, by, updated, gid in rows:
        h = orjson.loads(header)
        out.append(Listed(rid, str(h.get("game")), [str(p) for p in h.get("players", [])],
                          status, taps, created, by, updated, gid))
    return out


def read_recording(db: str, rid: str) -> Recording:
    """The recording `rid` of the database file `db`, on a short read-only connection."""
    with reading(db) as con:
        if not has_tables(con):
            raise RecordingError(f"there is no recording {rid.strip()!r}")
        return load(con, rid)


def read_listing(db: str, limit: int = 50) -> list[Listed]:
    with reading(db) as con:
        return listing(con, limit) if has_tables(con) else []


def has_tables(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the file has the recordings' tables (a database made by an older trickledger
    gets them at its first write)."""
    row = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = "
                      "'recordings' AND table_schema = current_schema()").fetchone()
    return bool(row and row[0])


# ------------------------------------------------------------------ the writer worker


def _handle(req: dict[str, Any]) -> dict[str, Any]:
    from .admin import Actor, record

    db = req["db"]
    op = req["op"]
    actor = req.get("who") or {}
    with writing(db, wait_s=float(req.get("wait_s", 30.0))) as con:
        if op == "start":
            with transaction(con):
                rid = start(con, req["header"], actor, req.get("recording_id"))
                header = req["header"]
                record(con, Actor.of(actor), "record", [{
                    "file_name": f"recording {rid}", "sha256": None, "game_id": None,
                    "result": "started",
                    "detail": f"{header.get('game')}: {', '.join(header.get('players', []))}"}])
            return {"recording_id": rid}
        if op == "tap":
            return {"taps": append(con, req["recording_id"], int(req["seq"]), req["kind"],
                                   req.get("event"), actor)}
        if op == "loaded":
            mark_loaded(con, req["recording_id"], int(req["seq"]), req["sha256"],
                        req.get("game_id"))
            return {}
    raise RecordingError(f"unknown request {op!r}")


def worker_main() -> None:
    """The long-lived writer: one JSON request a line on stdin, one answer a line on
    stdout ({"result": ...} or {"error": ..., "kind": ...}), until stdin closes."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything else printed goes to stderr
    owner = os.environ.get("TRICKLEDGER_RECORDER_OWNER")
    if owner and owner.isdigit():
        from .executors import die_with

        die_with(int(owner))  # a killed dashboard leaves no writer behind it
    for line in sys.stdin:
        try:
            req = json.loads(line)
            answer: dict[str, Any] = {"result": _handle(req)}
        except TapConflict as e:
            answer = {"error": str(e), "kind": "conflict"}
        except RecordingError as e:
            answer = {"error": str(e), "kind": "refused"}
        except BaseException as e:  # noqa: BLE001 - the dashboard gets one line
            from .db import DatabaseBusy

            text = (str(e).strip().splitlines() or [type(e).__name__])[0][:400]
            answer = {"error": text, "kind": "busy" if isinstance(e, DatabaseBusy) else "failed"}
        out.write(json.dumps(answer, default=str) + "\n")
        out.flush()


class RecorderFailed(RuntimeError):
    """The writer could not store the tap (the database is busy, the worker died); the
    message says why. Nothing was stored."""


class Recorder:
    """The dashboard's one writer of recordings: a worker process started on first use and
    kept, asked one request at a time (a lock), started again if it has died. Each request
    opens and closes its own write connection, so the file is held only for a tap."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None

    def _worker(self) -> subprocess.Popen[str]:
        proc = self._proc
        if proc is None or proc.poll() is not None:
            proc = self._proc = subprocess.Popen(
                [sys.executable, "-m", "trickledger.ingest.recordings"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, env={**os.environ, "TRICKLEDGER_RECORDER_OWNER": str(os.getpid())})
        return proc

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """Send one request; its result. TapConflict, RecordingError or RecorderFailed."""
        with self._lock:
            answer = None
            for _ in range(2):  # a worker found dead is started again, once
                proc = self._worker()
                assert proc.stdin is not None and proc.stdout is not None
                try:
                    proc.stdin.write(json.dumps(request) + "\n")
                    proc.stdin.flush()
                    reply = proc.stdout.readline()
                except (BrokenPipeError, OSError):
                    reply = ""
                if reply:
                    answer = json.loads(reply)
                    break
                self.close()
            if answer is None:
                raise RecorderFailed("the recordings' writer stopped without an answer")
        if "error" in answer:
            kind = answer.get("kind")
            if kind == "conflict":
                raise TapConflict(answer["error"])
            if kind == "refused":
                raise RecordingError(answer["error"])
            raise RecorderFailed(answer["error"])
        result: dict[str, Any] = answer["result"]
        return result

    def close(self) -> None:
        """Stop the worker (the next request starts another)."""
        proc = self._proc
        self._proc = None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()
            proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------ the command line


def cmd_recordings(args: Any) -> int:
    """`trickledger recordings [list]` and `trickledger recordings export ID`."""
    from trickledger.terminal import say, terminal

    from .arguments import refuse_database
    from .db import DatabaseBusy, NoDatabase, db_path, must_exist

    path = db_path(args.db)
    if refuse_database("recordings", path, must_exist=True):
        return 2
    try:
        must_exist(path)
        if args.what == "export":
            rec = read_recording(path, args.recording)
            data = rec.log()
            if args.output in (None, "-"):
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            else:
                with open(args.output, "wb") as f:
                    f.write(data)
                say(f"recording {rec.recording_id}: {len(rec.events())} events "
                    f"({rec.seq} taps) written to {terminal(args.output)}")
            return 0
        rows = read_listing(path, args.limit)
    except (RecordingError, DatabaseBusy, NoDatabase, duckdb.Error, OSError) as e:
        say(f"trickledger recordings: {str(e).splitlines()[0]}", error=True)
        return 2
    if not rows:
        say("no recordings (the dashboard's Record page makes them)")
        return 0
    for r in rows:
        what = "loaded as " + terminal(r.game_id or "?") if r.status == LOADED else "in progress"
        say(f"{r.recording_id}  {r.updated_at:%Y-%m-%d %H:%M}  {terminal(r.game):<16} "
            f"{terminal(', '.join(r.players))}  {r.taps} taps, {what}")
    return 0


def add_command(sub: Any) -> None:
    """Register `trickledger recordings` (called by ingest.commands)."""
    r = sub.add_parser(
        "recordings", help="games recorded at a table on the Record page: list, export",
        description="List the games recorded tap by tap on the dashboard's Record page, or "
                    "export one as its plays-only log (docs/format.md), which `trickledger "
                    "verify` reads.",
        epilog="exit status: 0 when done; 2 when the database or the recording does not "
               "exist, or the database is busy")
    r.add_argument("what", nargs="?", choices=("list", "export"), default="list",
                   help="list the recordings (the default), or export one")
    r.add_argument("recording", nargs="?", metavar="ID",
                   help="with export: the recording's id, as the list and the page show it")
    r.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="with export: write the log here (default: standard output)")
    r.add_argument("--limit", type=int, default=50, help="with list: at most this many")
    r.add_argument("--db", default=None, help="database file (must exist)")
    r.set_defaults(fn=_checked)


def _checked(args: Any) -> int:
    if args.what == "export" and not args.recording:
        from trickledger.terminal import say

        say("trickledger recordings export: give the recording's id (trickledger recordings "
            "lists them)", error=True)
        return 2
    return cmd_recordings(args)


if __name__ == "__main__":
    worker_main()
