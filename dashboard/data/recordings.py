"""A game recorded at the table (the Record page): every tap is written as it happens by the
server's one recordings writer (ingest.recordings.Recorder: a worker process kept running,
so a tap costs a short write, not a Python start), and read back uncached, so that a
reload or a second phone sees the recording as it stands."""

from __future__ import annotations

import atexit
import threading
from typing import Any

from .access import BUSY, LOCK_WAIT_S, Busy, WriteFailed, database, reading, without_paths


class _ServerRecorder:
    """The server's one Recorder, held outside Streamlit's caches (a visitor's "clear
    cache" would otherwise drop it with its worker still running)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._recorder: Any = None

    def __call__(self) -> Any:
        from trickledger.ingest.recordings import Recorder

        with self._lock:
            if self._recorder is None:
                self._recorder = Recorder()
            return self._recorder

    def clear(self) -> None:
        with self._lock:
            if self._recorder is not None:
                self._recorder.close()
            self._recorder = None


_recorder = _ServerRecorder()
atexit.register(_recorder.clear)


def recording_db() -> str | None:
    """The database file recordings are kept in; None on a lake (append-only Parquet)."""
    store = database()
    return None if store.lake else store.db


def _record(request: dict[str, Any]) -> dict[str, Any]:
    from trickledger.ingest.recordings import RecorderFailed

    db = recording_db()
    if db is None:
        raise WriteFailed("recording needs the database file; this dashboard reads a lake")
    try:
        answer: dict[str, Any] = _recorder().ask({**request, "db": db,
                                                  "wait_s": LOCK_WAIT_S})
        return answer
    except RecorderFailed as e:
        if "busy" in str(e):
            raise Busy(BUSY) from None
        raise WriteFailed(without_paths(str(e))) from None


def record_start(header: dict[str, Any], who: dict[str, Any], rid: str) -> str:
    """A new recording `rid` of a game with this header (checked by the engine). Audited."""
    got: str = _record({"op": "start", "header": header, "who": who,
                        "recording_id": rid})["recording_id"]
    return got


def record_tap(rid: str, seq: int, kind: str, event: dict[str, Any] | None,
               who: dict[str, Any]) -> int:
    """Store tap number `seq` of a recording (an event, or an undo); the taps now. Raises
    ingest.recordings.TapConflict when another phone has moved the recording on."""
    taps: int = _record({"op": "tap", "recording_id": rid, "seq": seq, "kind": kind,
                         "event": event, "who": who})["taps"]
    return taps


def record_loaded(rid: str, seq: int, sha256: str, game_id: str | None) -> None:
    """The recording's log was loaded: the recording is closed."""
    _record({"op": "loaded", "recording_id": rid, "seq": seq, "sha256": sha256,
             "game_id": game_id})


def recording(rid: str) -> Any:
    """A recording as it stands now (never cached): ingest.recordings.Recording."""
    from trickledger.ingest.recordings import has_tables, load

    def work(con: Any) -> Any:
        from trickledger.ingest.recordings import RecordingError

        if not has_tables(con):
            raise RecordingError(f"there is no recording {rid!r}")
        return load(con, rid)

    return reading(work)


def recording_taps(rid: str) -> int | None:
    """How many taps a recording has now (never cached; None when there is none)."""
    from trickledger.ingest.recordings import has_tables

    def work(con: Any) -> int | None:
        if not has_tables(con):
            return None
        row = con.execute("SELECT taps FROM recordings WHERE recording_id = ?", [rid]).fetchone()
        return None if row is None else int(row[0])

    return reading(work)


def recordings_list(limit: int = 30) -> list[Any]:
    """The recordings, the latest touched first (ingest.recordings.Listed)."""
    from trickledger.ingest.recordings import has_tables, listing

    if recording_db() is None:
        return []
    return reading(lambda con: listing(con, limit) if has_tables(con) else [])
