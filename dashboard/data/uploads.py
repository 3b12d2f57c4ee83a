"""What a visitor brings: logs uploaded, a verified paste or a score sheet saved, loaded in a
child process; whether a log is loaded; the replay of one that is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from trickledger.ingest import jobs
from trickledger.ingest.load import Summary

from .access import database, query, write_job


def load(items: list[tuple[str, bytes]], who: dict[str, Any] | None = None,
         action: str = "upload") -> Summary:
    """Ingest uploaded logs (name, bytes) in a child process on behalf of `who`
    (auth.describe of the visitor), each audited; clears the query cache so pages show
    them. Names are kept as names only (a browser may send a path); every log is read
    within the one cap of the reader."""
    store = database()
    named = [(Path(name.replace("\\", "/")).name or "upload.jsonl", data)
             for name, data in items]
    with write_job():
        summary = jobs.upload(named, store.db, store.lake, who, action)
    query.clear()
    return summary


def has_log(sha256: str) -> bool:
    """Whether the database holds the game of the file with these bytes."""
    return not query("SELECT 1 FROM games WHERE sha256 = ?", (sha256,)).empty


def claims_not_matching(game_ids: tuple[str, ...]) -> pd.DataFrame:
    """The claimed scores that do not match, for these games, in words."""
    if not game_ids:
        return pd.DataFrame()
    return query("""
        SELECT c.game_id, g.file_name AS file, c.line, c.round, c.player,
               c.claimed AS "sheet says", c.computed AS "replay computes", c.derivation AS how
        FROM claims c JOIN games g USING (game_id)
        WHERE NOT c.match AND list_contains(?, c.game_id)
        ORDER BY g.file_name, c.line, c.player""", (game_ids,))


def timeline_of_bytes(raw: bytes, name: str) -> Any:
    """The engine's step-by-step replay of a log that is not (yet) in the database."""
    from trickledger.replay.timeline import timeline_bytes

    return timeline_bytes(raw, name)
