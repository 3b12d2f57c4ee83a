"""One replayed log -> columns for every table. It reshapes the engine's facts; it decides
nothing: each fact goes through its game's projection (`GameInfo.project`, or the core's),
which fills the tables' column holders (replay.state.RowSink); the log-level tables below
are ingest's own."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

import orjson

from replay.engine import Replay, verdict
from replay.reader import decompress
from replay.state import Column, RowSink, StringLists, TableRows, project

from .schema import COLUMNS  # every table's columns, games' own tables included


class LogsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.sha256: list[str | None] = []
        self.file_name: list[str] = []
        self.size_bytes: list[int] = []
        self.ingested_at: list[dt.datetime] = []
        self.raw_text: list[str] = []
        self.status: list[str] = []
        self.game_id: list[str | None] = []
        self.error_line: list[int | None] = []
        self.error_message: list[str | None] = []

    def add(self, sha256: str | None, file_name: str, size_bytes: int, ingested_at: dt.datetime,
            raw_text: str, status: str, game_id: str | None, error_line: int | None,
            error_message: str | None) -> None:
        self.sha256.append(sha256)
        self.file_name.append(file_name)
        self.size_bytes.append(size_bytes)
        self.ingested_at.append(ingested_at)
        self.raw_text.append(raw_text)
        self.status.append(status)
        self.game_id.append(game_id)
        self.error_line.append(error_line)
        self.error_message.append(error_message)

    def columns(self) -> list[tuple[str, Column]]:
        return [("sha256", self.sha256), ("file_name", self.file_name),
                ("size_bytes", self.size_bytes), ("ingested_at", self.ingested_at),
                ("raw_text", self.raw_text), ("status", self.status), ("game_id", self.game_id),
                ("error_line", self.error_line), ("error_message", self.error_message)]


class GamesRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.sha256: list[str | None] = []
        self.file_name: list[str] = []
        self.game: list[str] = []
        self.edition: list[str | None] = []
        self.variants = StringLists()
        self.n_players: list[int] = []
        self.rounds_planned: list[int] = []
        self.rounds_played: list[int] = []
        self.status: list[str] = []
        self.error_line: list[int | None] = []
        self.error_message: list[str | None] = []
        self.winners = StringLists()
        self.played_on: list[dt.date | None] = []
        self.events: list[int] = []
        self.claims_checked: list[int] = []
        self.claims_mismatched: list[int] = []
        self.meta: list[str] = []
        self.ingested_at: list[dt.datetime] = []

    def add(self, game_id: str, sha256: str | None, file_name: str, game: str, edition: str | None,
            variants: Iterable[str], n_players: int, rounds_planned: int, rounds_played: int,
            status: str, error_line: int | None, error_message: str | None,
            winners: Iterable[str], played_on: dt.date | None, events: int,
            claims_checked: int, claims_mismatched: int, meta: str,
            ingested_at: dt.datetime) -> None:
        self.game_id.append(game_id)
        self.sha256.append(sha256)
        self.file_name.append(file_name)
        self.game.append(game)
        self.edition.append(edition)
        self.variants.append(variants)
        self.n_players.append(n_players)
        self.rounds_planned.append(rounds_planned)
        self.rounds_played.append(rounds_played)
        self.status.append(status)
        self.error_line.append(error_line)
        self.error_message.append(error_message)
        self.winners.append(winners)
        self.played_on.append(played_on)
        self.events.append(events)
        self.claims_checked.append(claims_checked)
        self.claims_mismatched.append(claims_mismatched)
        self.meta.append(meta)
        self.ingested_at.append(ingested_at)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("sha256", self.sha256),
                ("file_name", self.file_name), ("game", self.game), ("edition", self.edition),
                ("variants", self.variants), ("n_players", self.n_players),
                ("rounds_planned", self.rounds_planned), ("rounds_played", self.rounds_played),
                ("status", self.status), ("error_line", self.error_line),
                ("error_message", self.error_message), ("winners", self.winners),
                ("played_on", self.played_on), ("events", self.events),
                ("claims_checked", self.claims_checked),
                ("claims_mismatched", self.claims_mismatched), ("meta", self.meta),
                ("ingested_at", self.ingested_at)]


class PlayersRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.game_id: list[str] = []
        self.seat: list[int] = []
        self.player: list[str] = []
        self.total: list[int] = []
        self.is_winner: list[bool] = []

    def add(self, game_id: str, seat: int, player: str, total: int, is_winner: bool) -> None:
        self.game_id.append(game_id)
        self.seat.append(seat)
        self.player.append(player)
        self.total.append(total)
        self.is_winner.append(is_winner)

    def columns(self) -> list[tuple[str, Column]]:
        return [("game_id", self.game_id), ("seat", self.seat), ("player", self.player),
                ("total", self.total), ("is_winner", self.is_winner)]


class ErrorsRows(TableRows):
    def __init__(self) -> None:
        super().__init__()
        self.file_name: list[str] = []
        self.sha256: list[str | None] = []
        self.status: list[str] = []
        self.line: list[int | None] = []
        self.message: list[str] = []
        self.recorded_at: list[dt.datetime] = []

    def add(self, file_name: str, sha256: str | None, status: str, line: int | None,
            message: str, recorded_at: dt.datetime) -> None:
        self.file_name.append(file_name)
        self.sha256.append(sha256)
        self.status.append(status)
        self.line.append(line)
        self.message.append(message)
        self.recorded_at.append(recorded_at)

    def columns(self) -> list[tuple[str, Column]]:
        return [("file_name", self.file_name), ("sha256", self.sha256), ("status", self.status),
                ("line", self.line), ("message", self.message),
                ("recorded_at", self.recorded_at)]


class Rows:
    """Rows of many logs (a batch's, of one partition) or of one: the log-level tables,
    filled here, and the games' tables, filled by their projections (`facts`)."""

    def __init__(self) -> None:
        self.logs = LogsRows()
        self.games = GamesRows()
        self.players = PlayersRows()
        self.ingest_errors = ErrorsRows()
        self.facts = RowSink(COLUMNS)

    def tables(self) -> dict[str, TableRows]:
        """Every table's holder, by name."""
        return {"logs": self.logs, "games": self.games, "players": self.players,
                "ingest_errors": self.ingest_errors, **self.facts.tables()}

    @property
    def columns(self) -> dict[str, dict[str, list[Any]]]:
        """The tables that have rows, each by column as Python values (tests, snapshots)."""
        return {t: holder.python(0, n) for t, holder in self.tables().items()
                if (n := holder.rows())}


def check_holders(holders: dict[str, TableRows]) -> None:
    """Each holder has its table's declared columns, in their order (ingest.schema): else
    the loader would write a column under another's name. Raises ValueError naming both."""
    for table, holder in holders.items():
        have = tuple(name for name, _ in holder.columns())
        if have != COLUMNS[table]:
            raise ValueError(f"the {table} rows hold the columns {', '.join(have)}; the "
                             f"schema declares {', '.join(COLUMNS[table])}")


check_holders(Rows().tables())


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


def replay_rows(r: Replay, data: bytes, now: dt.datetime, sink: Rows | None = None) -> Rows:
    """All rows of one log, added to `sink` (a batch's, shared by its logs) or to a new
    one. Unreadable logs give a `logs` and an `ingest_errors` row only."""
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
                  raw_text=decode_text(data), status=status, game_id=gid, error_line=line,
                  error_message=message)
    if err is not None:
        sink.ingest_errors.add(file_name=r.file, sha256=r.sha256, status=r.status,
                               line=err.line, message=err.message, recorded_at=now)
    if st is None or h is None:
        return sink
    v = verdict(r)
    winners = v["winners"]
    sink.games.add(game_id=h.id, sha256=r.sha256, file_name=r.file, game=h.game,
                   edition=h.edition, variants=sorted(h.variants), n_players=st.n,
                   rounds_planned=st.rounds_total, rounds_played=len(st.rounds),
                   status=status, error_line=line, error_message=message, winners=winners,
                   played_on=played_on(h.meta), events=r.events, claims_checked=len(st.claims),
                   claims_mismatched=sum(1 for c in st.claims if not c.match),
                   meta=orjson.dumps(h.meta).decode(), ingested_at=now)
    for i, p in enumerate(st.players):
        sink.players.add(game_id=h.id, seat=i, player=p, total=st.totals[i],
                         is_winner=p in winners)
    project(st.info, st.facts, sink.facts)
    return sink
