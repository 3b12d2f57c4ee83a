"""The example questions of docs/sql.md, answered in SQL: the dashboard's SQL console offers
them one click away, and the tests check that docs/sql.md shows exactly these. The core's
questions are here; a game's own are declared in its module (`GameInfo.examples`) and follow
them, game by game in name order."""

from __future__ import annotations

from collections.abc import Iterable

from trickledger.replay.info import GameInfo
from trickledger.replay.registry import registry

CORE_EXAMPLES: tuple[tuple[str, str], ...] = (
    ('Which score sheets were wrong, and what should they have said?',
     """SELECT g.file_name, c.line, c.round, c.player, c.claimed, c.computed, c.derivation
FROM claims c JOIN games g USING (game_id)
WHERE NOT c.match
ORDER BY g.file_name, c.line, c.player;"""),
    ('Who wins most often against chance, per game?',
     """SELECT game, player, games, win_share, expected_wins, vs_baseline,
       win_rate_low, win_rate_high
FROM player_results
WHERE games >= 5
ORDER BY game, vs_baseline DESC, player;"""),
    ('Who are the three highest-rated players of each game?',
     """SELECT game, player, games, ordinal AS rating, mu, sigma
FROM ratings
WHERE games >= 5
QUALIFY row_number() OVER (PARTITION BY game ORDER BY ordinal DESC, player) <= 3
ORDER BY game, rating DESC, player;"""),
    ('Whom does Ann finish ahead of?',
     """SELECT game, opponent, games, ahead, behind, tied
FROM head_to_head
WHERE player = 'Ann' AND games >= 3
ORDER BY ahead - behind DESC, games DESC, game, opponent
LIMIT 10;"""),
    ('Does the seat matter?',
     """SELECT game, seat_from_dealer, rounds, mean_above_table, se
FROM seat_effects
ORDER BY game, seat_from_dealer;"""),
    ('Which uploaded files hold an illegal move, and where?',
     """SELECT file_name, status, line, message
FROM ingest_errors
ORDER BY recorded_at DESC, file_name, line
LIMIT 20;"""),
)


def examples(games: Iterable[GameInfo] | None = None) -> list[tuple[str, str]]:
    """Every example, (question, SQL): the core's, then each game's (every registered
    game's, or these games')."""
    chosen = sorted(registry().values() if games is None else games, key=lambda g: g.name)
    return [*CORE_EXAMPLES, *(e for g in chosen for e in g.examples)]
