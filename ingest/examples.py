"""The example questions of docs/sql.md, answered in SQL: the dashboard's SQL console offers
them one click away, and the tests check that docs/sql.md shows exactly these."""

from __future__ import annotations

EXAMPLES: tuple[tuple[str, str], ...] = (
    ('Who gets stuck with the rest most often, against chance?',
     """SELECT player, games, splits_played, second_halves,
       expected_second_halves AS by_chance,
       round(second_halves / expected_second_halves, 2) AS times_chance
FROM split_stats
WHERE games >= 5
ORDER BY times_chance DESC, player
LIMIT 10;"""),
    ('Who could not play when a plotters round ended early, and whose card caused it?',
     """SELECT player, rounds, early_rounds, could_not_play, caused, expected_each
FROM early_end_players
ORDER BY could_not_play DESC, caused DESC, player
LIMIT 10;"""),
    ('Who overbids when holding many trumps?',
     """SELECT player, count(*) AS rounds, ratio(sum(bid_error), count(bid_error), 2) AS mean_bid_error
FROM bid_rounds
WHERE trumps_held >= 3
GROUP BY player
HAVING count(*) >= 5
ORDER BY mean_bid_error ASC, player
LIMIT 10;"""),
    ('Who are the most accurate bidders (at least 20 rounds)?',
     """SELECT player, rounds, exact_rate, exact_rate_low, exact_rate_high, mean_abs_error
FROM bid_accuracy
WHERE rounds >= 20
ORDER BY exact_rate DESC, mean_abs_error ASC, player
LIMIT 10;"""),
    ('Are bids more accurate when they are hidden, secret or under plus_minus_one?',
     """SELECT bidding, plus_minus_one, count(*) AS bids,
       ratio(count(*) FILTER (WHERE exact), count(*), 3) AS exact_rate,
       ratio(sum(bid_error), count(bid_error), 2) AS mean_bid_error
FROM bid_rounds
GROUP BY bidding, plus_minus_one
ORDER BY bidding, plus_minus_one;"""),
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
    ('How often do plotters rounds end early at each table size, and when?',
     """SELECT n_players,
       count(*) AS rounds,
       ratio(count(*) FILTER (WHERE ended_early), count(*), 3) AS early_share,
       ratio(sum(early_end_trick), count(early_end_trick), 1) AS mean_early_trick
FROM early_ends
GROUP BY n_players
ORDER BY n_players;"""),
    ('Who loses most points when a plotters round ends early?',
     """SELECT player, early_rounds, mean_when_early, mean_when_full, points_lost
FROM early_end_players
WHERE early_rounds >= 3
ORDER BY points_lost DESC, player
LIMIT 10;"""),
    ('Is first pick worth more than the rest?',
     """SELECT role, count(*) AS takes, ratio(sum(n_cards), count(n_cards), 2) AS cards,
       ratio(sum(placed_open), count(placed_open), 2) AS placed_open,
       ratio(sum(kept_cards), count(kept_cards), 2) AS kept
FROM split_takes JOIN game_counting USING (game_id)
WHERE counted_as IN ('complete', 'disputed', 'sheet')
GROUP BY role
ORDER BY role;"""),
    ('Does the seat matter?',
     """SELECT game, seat_from_dealer, rounds, mean_above_table, se
FROM seat_effects
ORDER BY game, seat_from_dealer;"""),
    ('Did they bid badly or play badly?',
     """SELECT player, count(*) AS bids,
       ratio(sum(CAST(bidding_error * 1000 AS BIGINT)), 1000 * count(*), 2)
           AS bid_minus_expected,
       ratio(sum(CAST(play_error * 1000 AS BIGINT)), 1000 * count(*), 2)
           AS won_minus_expected
FROM bid_vs_hand
GROUP BY player
HAVING count(*) >= 10
ORDER BY abs(bid_minus_expected) DESC, player
LIMIT 10;"""),
    ('In color_stacks, does ending the game pay off?',
     """SELECT r.ender AS player, count(*) AS games_ended,
       ratio(sum(s.score), count(s.score), 2) AS mean_score_when_ending
FROM rounds r
JOIN round_scores s ON s.game_id = r.game_id AND s.round = r.round AND s.player = r.ender
JOIN game_counting c ON c.game_id = r.game_id
WHERE c.counted_as IN ('complete', 'disputed', 'sheet')
GROUP BY r.ender
ORDER BY games_ended DESC, player
LIMIT 10;"""),
    ('Which under_the_radar tricks went round the table the most?',
     """SELECT t.game_id, t.round, t.trick, t.length, t.laps, t.closed, t.winner AS taker
FROM tricks t JOIN games g USING (game_id)
WHERE g.game = 'under_the_radar'
ORDER BY t.laps DESC, t.length DESC, t.game_id, t.round, t.trick
LIMIT 10;"""),
    ('Which uploaded files hold an illegal move, and where?',
     """SELECT file_name, status, line, message
FROM ingest_errors
ORDER BY recorded_at DESC, file_name, line
LIMIT 20;"""),
)
