"""The example questions of docs/sql.md, answered in SQL: the dashboard's SQL console offers
them one click away, and the tests check that docs/sql.md shows exactly these."""

from __future__ import annotations

EXAMPLES: tuple[tuple[str, str], ...] = (
    ('Who gets stuck with the second half most?',
     """SELECT player, second_wins, tricks_played, second_share
FROM split_stats
ORDER BY second_share DESC
LIMIT 10;"""),
    ('Who ends plotters rounds early, and how often?',
     """SELECT early_end_player AS player, count(*) AS rounds_ended
FROM rounds
WHERE ended_early
GROUP BY early_end_player
ORDER BY rounds_ended DESC;"""),
    ('Who overbids when holding many trumps?',
     """SELECT player, count(*) AS rounds, round(avg(bid_error), 2) AS mean_bid_error
FROM bids
WHERE trumps_held >= 3
GROUP BY player
HAVING count(*) >= 5
ORDER BY mean_bid_error ASC
LIMIT 10;"""),
    ('Who are the most accurate bidders (at least 20 rounds)?',
     """SELECT player, rounds, exact_rate, mean_abs_error
FROM bid_accuracy
WHERE rounds >= 20
ORDER BY exact_rate DESC, mean_abs_error ASC
LIMIT 10;"""),
    ('Which score sheets were wrong, and what should they have said?',
     """SELECT g.file_name, c.line, c.round, c.player, c.claimed, c.computed, c.derivation
FROM claims c JOIN games g USING (game_id)
WHERE NOT c.match
ORDER BY g.file_name, c.line;"""),
    ('Who wins most often, per game?',
     """SELECT game, player, games, wins, win_rate
FROM player_results
WHERE games >= 5
ORDER BY game, win_rate DESC;"""),
    ('How often do plotters rounds end early at each table size, and when?',
     """SELECT n_players,
       count(*) AS rounds,
       round(avg(CASE WHEN ended_early THEN 1 ELSE 0 END), 3) AS early_share,
       round(avg(early_end_trick), 1) AS mean_early_trick
FROM early_ends
GROUP BY n_players
ORDER BY n_players;"""),
    ('Who loses most points when a plotters round ends early?',
     """SELECT s.player,
       round(avg(s.score) FILTER (WHERE r.ended_early), 2) AS mean_when_early,
       round(avg(s.score) FILTER (WHERE NOT r.ended_early), 2) AS mean_when_full,
       round(avg(s.score) FILTER (WHERE NOT r.ended_early)
             - avg(s.score) FILTER (WHERE r.ended_early), 2) AS points_lost
FROM round_scores s
JOIN rounds r USING (game_id, round)
JOIN games g USING (game_id)
WHERE g.game = 'plotters'
GROUP BY s.player
HAVING count(*) FILTER (WHERE r.ended_early) >= 3
ORDER BY points_lost DESC
LIMIT 10;"""),
    ('In rage, how often does a trick go without trump or change it, and who wins those?',
     """SELECT winner, count(*) AS tricks,
       count(*) FILTER (WHERE notrump) AS without_trump,
       count(*) FILTER (WHERE change) AS trump_changed
FROM tricks t JOIN games g USING (game_id)
WHERE g.game = 'rage'
GROUP BY winner
ORDER BY tricks DESC
LIMIT 10;"""),
    ('In color_stacks, does ending the game pay off?',
     """SELECT r.ender AS player, count(*) AS games_ended,
       round(avg(s.score), 2) AS mean_score_when_ending
FROM rounds r
JOIN round_scores s ON s.game_id = r.game_id AND s.round = r.round AND s.player = r.ender
GROUP BY r.ender
ORDER BY games_ended DESC
LIMIT 10;"""),
    ('Which under_the_radar tricks went round the table the most?',
     """SELECT t.game_id, t.round, t.trick, t.length, t.laps, t.closed, t.winner AS taker
FROM tricks t JOIN games g USING (game_id)
WHERE g.game = 'under_the_radar'
ORDER BY t.laps DESC, t.length DESC
LIMIT 10;"""),
    ('Which uploaded files hold an illegal move, and where?',
     """SELECT file_name, status, line, message
FROM ingest_errors
ORDER BY recorded_at DESC, file_name
LIMIT 20;"""),
)
