"""One replayed log -> columns for every table. It reshapes the engine's facts; it decides
nothing: each fact goes through its game's projection (`GameInfo.project`, or the core's),
which names the columns it fills."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson

from replay.engine import Replay, verdict
from replay.reader import decompress
from replay.state import RowSink, project

from .schema import COLUMNS  # every table's columns, games' own tables included


def decode_text(data: bytes) -> str:
    """The log as text for the `logs` table (gunzipped; invalid UTF-8 shown as U+FFFD)."""
    try:
        text = decompress(data, "")
    except Exception:  # an unreadable gzip keeps its bytes as they are
        text = data
    return text.decode("utf-8", errors="replace").replace("\x00", "\ufffd")


def played_on(meta: dict[str, Any]) -> dt.date | None:
    """`meta.date` when it starts with an ISO date, else None (undated)."""
    d = meta.get("date")
    if isinstance(d, str):
        try:
            return dt.date.fromisoformat(d[:10])
        except ValueError:
            return None
    return None


SHEET_STATUS = "sheet"


def stored_status(r: Replay) -> str:
    """The status a log is stored and reported with: the verdict's, except that a complete
    score sheet is `sheet` (it counts in results like a complete game, and a page that
    counts tricks or rounds' ends leaves it out: a sheet cannot inform them)."""
    if r.status == "complete" and r.state is not None and r.state.is_sheet:
        return SHEET_STATUS
    return r.status


def replay_rows(r: Replay, data: bytes, now: dt.datetime, sink: RowSink | None = None) -> RowSink:
    """All rows of one log, by table and column, added to `sink` (a batch's, shared by
    its logs) or to a new one. Unreadable logs give a `logs` and an `ingest_errors` row
    only."""
    h = r.header
    st = r.state
    if sink is None:
        sink = RowSink(h.id if h else "", h.players if h else (), COLUMNS)
    else:
        sink.game_id = h.id if h else ""
        sink.players = h.players if h else ()
        sink.notes = {}
    err = r.error
    gid = h.id if h else None
    status = stored_status(r)
    sink.add("logs", sha256=r.sha256, file_name=r.file, size_bytes=len(data), ingested_at=now,
             raw_text=decode_text(data), status=status, game_id=gid,
             error_line=err.line if err else None, error_message=err.message if err else None)
    if err is not None:
        sink.add("ingest_errors", file_name=r.file, sha256=r.sha256, status=r.status,
                 line=err.line, message=err.message, recorded_at=now)
    if st is None or h is None:
        return sink
    v = verdict(r)
    winners = v["winners"]
    sink.add("games", sha256=r.sha256, file_name=r.file, game=h.game, edition=h.edition,
             variants=sorted(h.variants), n_players=st.n, rounds_planned=st.rounds_total,
             rounds_played=len(st.rounds), status=status,
             error_line=err.line if err else None, error_message=err.message if err else None,
             winners=winners, played_on=played_on(h.meta), events=r.events,
             claims_checked=len(st.claims),
             claims_mismatched=sum(1 for c in st.claims if not c.match),
             meta=orjson.dumps(h.meta).decode(), ingested_at=now)
    for i, p in enumerate(st.players):
        sink.add("players", seat=i, player=p, total=st.totals[i], is_winner=p in winners)
    project(st.info, st.facts, sink)
    return sink
