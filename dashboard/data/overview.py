"""The Overview page's questions: what is in the database by game and by status, the
disputed games, the latest uploads."""

from __future__ import annotations

import pandas as pd

from .access import query
from .filters import Filters, filtered


def totals_by_game(f: Filters) -> pd.DataFrame:
    """Per game: games, rounds played, tricks and different players."""
    return filtered("""
        WITH gs AS (SELECT game_id, game, rounds_played FROM games WHERE game_id IN ({games})),
        t AS (SELECT gs.game, count(*) AS tricks FROM tricks JOIN gs USING (game_id)
              GROUP BY gs.game),
        p AS (SELECT gs.game, count(DISTINCT player) AS players FROM players JOIN gs
              USING (game_id) GROUP BY gs.game)
        SELECT gs.game, count(*) AS games, CAST(sum(gs.rounds_played) AS BIGINT) AS rounds,
               coalesce(any_value(t.tricks), 0) AS tricks, any_value(p.players) AS players
        FROM gs LEFT JOIN t USING (game) LEFT JOIN p USING (game)
        GROUP BY gs.game ORDER BY gs.game""", f)


def players_counted(f: Filters) -> int:
    """How many different players sat at the filtered games."""
    people = filtered("""
        SELECT count(DISTINCT player) AS n FROM players WHERE game_id IN ({games})""", f)
    return int(people["n"].iloc[0])


def games_by_status(f: Filters) -> pd.DataFrame:
    """Per counting class (`game_counting`): games, and the disputed ones of all of them."""
    return filtered("""
        SELECT counted_as, count(*) AS games,
               sum(count(*) FILTER (WHERE disputed)) OVER () AS disputed
        FROM game_counting WHERE game_id IN ({games}) GROUP BY counted_as""", f)


def _like(text: str) -> str:
    """`text` matched literally by ILIKE (its % and _ are not wildcards)."""
    return text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def disputed_games(f: Filters, wanted: str = "") -> pd.DataFrame:
    """The 200 newest games with a claim that does not match, whose file name or game id
    holds `wanted` (literally), with their first disputed round."""
    return filtered("""
        SELECT g.game_id, g.file_name, g.game, g.status, g.ingested_at,
               count(*) AS claims, min(c.round) AS first_round
        FROM games g JOIN claims c USING (game_id)
        WHERE NOT c.match AND g.game_id IN ({games})
          AND (g.file_name ILIKE ? ESCAPE '\\' OR g.game_id ILIKE ? ESCAPE '\\')
        GROUP BY ALL ORDER BY g.ingested_at DESC, g.file_name LIMIT 200""", f,
        params=(f"%{_like(wanted)}%", f"%{_like(wanted)}%"))


def recent_uploads() -> pd.DataFrame:
    """The 20 logs loaded last, whatever became of them (a conflict's game id is the other
    log's, the one it clashes with: not shown)."""
    return query("""
        SELECT file_name, status,
               CASE WHEN status IN ('conflict', 'quarantined', 'unreadable') THEN NULL
                    ELSE game_id END AS game_id, size_bytes, ingested_at, error_line,
               CASE WHEN status = 'quarantined' THEN 'taken out by an admin'
                    ELSE error_message END AS error_message
        FROM logs ORDER BY ingested_at DESC, file_name LIMIT 20""")
