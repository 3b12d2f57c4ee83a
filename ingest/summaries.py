"""Keeping the per-game summaries of the analytics layer (ingest.analytics.summaries(): the
core's and every registered game's declared ones) in step with the facts.

A summary row belongs to one game. The games summarised are listed in `summarised` with
the SHA-256 of their log; `refresh` makes the summaries of every game not listed (a new
game, or a game id loaded again from other bytes) and takes out the rows of games that
are gone (deleted or quarantined, which also take them out at once). Ingest refreshes at
the end of each run, `analyse` and the dashboard when they find the summaries behind the
facts (a killed run), and a new definition of the analytics layer makes them all again.
"""

from __future__ import annotations

import duckdb

from .analytics import SUMMARISED, summaries
from .transactions import transaction

# a game not summarised (new, or loaded again from other bytes); a summarised one gone
_MISSING = f"""FROM games g WHERE NOT EXISTS (
    SELECT 1 FROM {SUMMARISED} s WHERE s.game_id = g.game_id
    AND s.sha256 IS NOT DISTINCT FROM g.sha256)"""
_GONE = f"""FROM {SUMMARISED} s WHERE NOT EXISTS (
    SELECT 1 FROM games g WHERE g.game_id = s.game_id
    AND g.sha256 IS NOT DISTINCT FROM s.sha256)"""


def behind(con: duckdb.DuckDBPyConnection) -> int:
    """How many games the summaries lack or hold for nothing (0: they are up to date)."""
    try:
        row = con.execute(f"SELECT (SELECT count(*) {_MISSING}) + (SELECT count(*) {_GONE})"
                          ).fetchone()
    except duckdb.CatalogException:  # a lake, or a database before the summaries
        return 0
    return int(row[0]) if row else 0


def refresh(con: duckdb.DuckDBPyConnection, in_transaction: bool = False) -> int:
    """Bring the summaries in step with the games (one transaction, or the caller's);
    returns the games summarised now."""
    if in_transaction:
        return _refresh(con)
    if not behind(con):
        return 0
    with transaction(con):
        return _refresh(con)


def _refresh(con: duckdb.DuckDBPyConnection) -> int:
    new = [r[0] for r in con.execute(f"SELECT g.game_id {_MISSING} ORDER BY 1").fetchall()]
    gone = [r[0] for r in con.execute(f"SELECT s.game_id {_GONE} ORDER BY 1").fetchall()]
    out = sorted(set(new) | set(gone))  # a game loaded from other bytes: out, then in
    made = summaries()
    if out:
        for name in (*made, SUMMARISED):
            con.execute(f"DELETE FROM {name} WHERE game_id IN (SELECT unnest(?))", [out])
    if new:
        for name in made:
            con.execute(f"INSERT INTO {name} SELECT * FROM {name}_by_game(?)", [new])
        con.execute(f"INSERT INTO {SUMMARISED} SELECT game_id, sha256 FROM games "
                    f"WHERE game_id IN (SELECT unnest(?))", [new])
    return len(new)
