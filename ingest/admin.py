"""Who wrote what, and a way back: the audit log, quarantine and delete.

Every write is recorded in `audit_log` (docs/schema.md): an upload or a save from the
dashboard (one row per file, with who, from where and what became of it), an ingest run
from the command line (one row per run, with its summary: the machine's owner ran it),
and every quarantine or delete. An admin can take a log back out:

- **quarantine**: the log's facts (its game, players, rounds, tricks, ... and the
  analyses derived from them) are deleted and its `logs` row is kept with status
  `quarantined` and the reason, so its text can still be read and the same bytes
  uploaded again are reported as quarantined, not loaded. Its game id is free again:
  the logs refused as conflicts because it held their id are forgotten, so the real
  game's log (a forged log may have squatted its id) now loads.
- **delete**: the same, and the `logs` and `ingest_errors` rows go too; the bytes could
  be loaded again.

Each is one transaction, with its audit row: all of it happens or nothing does. A lake
(`--lake`) is append-only Parquet: these work on a database file only.
"""

from __future__ import annotations

import datetime as dt
import getpass
import json
import os
from dataclasses import dataclass
from typing import Any

import duckdb

from . import schema
from .analytics import DERIVED_TABLES, SUMMARISED, summaries
from .db import writing
from .transactions import transaction

QUARANTINED = "quarantined"
ACTIONS = ("upload", "save", "ingest", "quarantine", "delete")


class AdminError(ValueError):
    """A quarantine or delete that cannot be done; the message says why."""


@dataclass(frozen=True)
class Actor:
    """Who did something: a name (None: nobody logged in), how they came in, from where."""

    name: str | None
    via: str
    address: str | None = None

    @classmethod
    def command_line(cls) -> Actor:
        try:
            user = getpass.getuser()
        except (KeyError, OSError):
            user = None
        return cls(user, "command line")

    @classmethod
    def of(cls, described: dict[str, Any] | None) -> Actor:
        d = described or {}
        return cls(d.get("user"), str(d.get("via") or "unknown"), d.get("address"))


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def record(con: duckdb.DuckDBPyConnection, actor: Actor, action: str,
           rows: list[dict[str, Any]]) -> None:
    """Audit rows (file_name, sha256, game_id, result, detail each) for one action."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    at = _now()
    con.executemany(
        "INSERT INTO audit_log (happened_at, actor, via, address, action, file_name, sha256, game_id, "
        "result, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [[at, actor.name, actor.via, actor.address, action, r.get("file_name"),
          r.get("sha256"), r.get("game_id"), r.get("result"), r.get("detail")] for r in rows])


def audit(path: str, actor: Actor, action: str, rows: list[dict[str, Any]]) -> None:
    """Record `rows` in the database file at `path` (one transaction)."""
    if not rows:
        return
    with writing(path) as con:
        with transaction(con):
            record(con, actor, action, rows)


LAKE_AUDIT = "_audit.jsonl"


def audit_lake(lake: str, actor: Actor, action: str, rows: list[dict[str, Any]]) -> None:
    """A lake keeps its audit as JSON lines in `_audit.jsonl` (appended, never rewritten),
    with the fields of `audit_log`."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    if not rows:
        return
    at = _now().isoformat(sep=" ")
    with open(os.path.join(lake, LAKE_AUDIT), "a", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps({"happened_at": at, "actor": actor.name, "via": actor.via,
                                "address": actor.address, "action": action, **r},
                               default=str) + "\n")


@dataclass(frozen=True)
class Removed:
    """What a quarantine or delete took out."""

    action: str
    sha256: str
    game_id: str | None
    file_name: str
    rows: int  # fact and analysis rows deleted

    def line(self) -> str:
        what = "quarantined" if self.action == "quarantine" else "deleted"
        game = f" (game {self.game_id})" if self.game_id else ""
        return f"{self.file_name}{game}: {what}; {self.rows:,} rows of its facts removed"


@dataclass(frozen=True)
class FoundLog:
    """A log that a SHA-256, a prefix of one or a game id names (`find_logs`)."""

    sha256: str
    file_name: str
    status: str
    game_id: str | None
    game: str | None
    n_players: int | None
    ingested_at: dt.datetime
    owner: bool  # its game is the one loaded (a conflict's or a quarantined log's is not)


def find_logs(con: duckdb.DuckDBPyConnection, wanted: str,
              limit: int | None = None) -> list[FoundLog]:
    """The logs `wanted` names, oldest first (at most `limit`): by SHA-256, by a prefix of
    one (8 characters or more) or by game id (a game id can name several logs: the one
    whose game is loaded, and those refused as conflicts with it)."""
    wanted = wanted.strip()
    cur = con.execute(
        "SELECT l.sha256, l.file_name, l.status, l.game_id, g.game, g.n_players, "
        "l.ingested_at, g.sha256 IS NOT NULL AS owner "
        "FROM logs l LEFT JOIN games g ON g.sha256 = l.sha256 "
        "WHERE l.sha256 = ? OR l.game_id = ? OR (length(?) >= 8 AND starts_with(l.sha256, ?)) "
        "ORDER BY l.ingested_at, l.sha256",
        [wanted, wanted, wanted, wanted.lower()])
    rows = cur.fetchall() if limit is None else cur.fetchmany(limit)
    return [FoundLog(*row) for row in rows]


def find_log(con: duckdb.DuckDBPyConnection, wanted: str) -> tuple[str, str | None, str, str]:
    """(sha256, game_id, file_name, status) of the one log `wanted` names (`find_logs`):
    of several logs with that game id, the one whose game is loaded."""
    rows = find_logs(con, wanted)
    wanted = wanted.strip()
    if not rows:
        raise AdminError(f"no log has the SHA-256 or game id {wanted!r}")
    owners = [r for r in rows if r.owner and r.game_id == wanted]
    if len(rows) > 1 and len(owners) == 1:
        rows = owners
    if len(rows) > 1:
        names = ", ".join(f"{r.file_name} ({r.sha256[:12]})" for r in rows[:5])
        raise AdminError(f"{wanted!r} names {len(rows)} logs ({names}); give a SHA-256")
    found = rows[0]
    return found.sha256, found.game_id, found.file_name, found.status


def _remove_facts(con: duckdb.DuckDBPyConnection, sha: str, gid: str | None) -> int:
    removed = 0
    if gid is not None:
        # the game's facts: every fact table keyed by game id, and what was derived
        for table, cols in {**schema.TABLES, **DERIVED_TABLES}.items():
            names = {c for c, _ in cols}
            if table == "logs" or "game_id" not in names:
                continue
            row = con.execute(f"DELETE FROM {table} WHERE game_id = ? RETURNING 1",
                              [gid]).fetchall()
            removed += len(row)
        # its per-game summaries (ingest.summaries), derived from the facts just taken out
        for table in (*summaries(), SUMMARISED):
            con.execute(f"DELETE FROM {table} WHERE game_id = ?", [gid])
    return removed


def remove(path: str, wanted: str, action: str, actor: Actor, reason: str = "") -> Removed:
    """Quarantine or delete the log `wanted` names (see the module's docstring), with its
    audit row, in one transaction."""
    if action not in ("quarantine", "delete"):
        raise ValueError(action)
    with writing(path) as con:
        with transaction(con):
            sha, gid, name, status = find_log(con, wanted)
            if action == "quarantine" and status == QUARANTINED:
                raise AdminError(f"{name} is quarantined already")
            # a log whose game id is loaded from other bytes (a conflict) has no facts
            owner = con.execute("SELECT sha256 FROM games WHERE game_id = ?",
                                [gid]).fetchone() if gid is not None else None
            rows = _remove_facts(con, sha, gid) if owner and owner[0] == sha else 0
            if gid is not None and owner and owner[0] == sha:
                # the logs refused because this one held their id (the real game's, when
                # this one is forged) are forgotten, so that loading them again works
                refused = [r[0] for r in con.execute(
                    "SELECT sha256 FROM logs WHERE game_id = ? AND status = 'conflict'",
                    [gid]).fetchall()]
                if refused:
                    con.execute("DELETE FROM ingest_errors WHERE list_contains(?, sha256)",
                                [refused])
                    con.execute("DELETE FROM logs WHERE list_contains(?, sha256)", [refused])
            if action == "quarantine":
                con.execute("UPDATE logs SET status = ?, error_line = NULL, error_message = ? "
                            "WHERE sha256 = ?",
                            [QUARANTINED, f"by an admin: {reason or 'no reason given'}", sha])
            else:
                rows += len(con.execute("DELETE FROM ingest_errors WHERE sha256 = ? RETURNING 1",
                                        [sha]).fetchall())
                con.execute("DELETE FROM logs WHERE sha256 = ?", [sha])
            record(con, actor, action, [{"file_name": name, "sha256": sha, "game_id": gid,
                                         "result": f"was {status}",
                                         "detail": reason or None}])
    return Removed(action, sha, gid, name, rows)


__all__ = ["QUARANTINED", "Actor", "AdminError", "FoundLog", "Removed", "audit", "find_log",
           "find_logs", "record", "remove"]
