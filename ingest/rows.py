"""One replayed log -> columns for every table. It reshapes the engine's facts; it decides
nothing: each fact goes through its game's projection (`GameInfo.project`, or the core's),
which fills the tables' column holders (replay.rows.RowSink); the log-level tables (logs,
games, players, ingest_errors) are filled here."""

from __future__ import annotations

import datetime as dt
from typing import Any

from trickledger.replay.engine import Replay, exact_json, winners
from trickledger.replay.reader import decompress
from trickledger.replay.rows import RowSink, TableRows, project

from .schema import FACT_TABLES, declared  # every table, games' own included


class Rows:
    """Rows of many logs (a batch's, of one partition) or of one: the log-level tables,
    filled here, and the games' tables, filled by their projections (`facts`)."""

    def __init__(self) -> None:
        # a row or two a log: made from the schema's columns, filled by keyword
        self.logs = TableRows("logs", declared("logs"), False)
        self.games = TableRows("games", declared("games"), False)
        self.players = TableRows("players", declared("players"), False)
        self.ingest_errors = TableRows("ingest_errors", declared("ingest_errors"), False)
        self.facts = RowSink(FACT_TABLES)

    def tables(self) -> dict[str, TableRows]:
        """Every table's holder, by name."""
        return {"logs": self.logs, "games": self.games, "players": self.players,
                "ingest_errors": self.ingest_errors, **self.facts.tables()}

    @property
    def columns(self) -> dict[str, dict[str, list[Any]]]:
        """The tables that have rows, each by column as Python values (tests, snapshots)."""
        return {t: holder.python(0, n) for t, holder in self.tables().items()
                if (n := holder.rows())}


def decode_text(data: bytes, text: bytes | None = None) -> str:
    """The log as text for the `logs` table (gunzipped; invalid UTF-8 shown as U+FFFD).
    `text`: its decompressed bytes, when the replay has them already (one decompression
    per log)."""
    if text is None:
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


def replay_rows(r: Replay, data: bytes, now: dt.datetime, sink: Rows | None = None,
                text: bytes | None = None) -> Rows:
    """All rows of one log, added to `sink` (a batch's, shared by its logs) or to a new
    one. Unreadable logs give a `logs` and an `ingest_errors` row only. `text`: the
    decompressed bytes, when the replay has them (ingest.batch)."""
    h = r.header
    st = r.state
    if sink is None:
        sink = Rows()
    sink.facts.begin(h.id if h else "", h.players if h else ())
    err = r.error
    gid = h.id if h else None
    status = stored_status(r)
    line = err.line if err else None
    message = err.message if err else None
    sink.logs.add(sha256=r.sha256, file_name=r.file, size_bytes=len(data), ingested_at=now,
                  raw_text=decode_text(data, text), status=status, game_id=gid, error_line=line,
                  error_message=message)
    if err is not None:
        sink.ingest_errors.add(file_name=r.file, sha256=r.sha256, status=r.status,
                               line=err.line, message=err.message, recorded_at=now)
    if st is None or h is None:
        return sink
    won = winners(r)  # the verdict's winners, without building the whole verdict
    sink.games.add(game_id=h.id, sha256=r.sha256, file_name=r.file, game=h.game,
                   edition=h.edition, variants=sorted(h.variants), n_players=st.n,
                   rounds_planned=st.rounds_total, rounds_played=len(st.rounds),
                   status=status, error_line=line, error_message=message, winners=won,
                   played_on=played_on(h.meta), events=r.events, claims_checked=len(st.claims),
                   claims_mismatched=sum(1 for c in st.claims if not c.match),
                   meta=exact_json(h.meta).decode(), ingested_at=now)
    for i, p in enumerate(st.players):
        sink.players.add(game_id=h.id, seat=i, player=p, total=st.totals[i],
                         is_winner=p in won)
    project(st.info, st.facts, sink.facts)
    return sink
