"""The analytics layer of the schema: derived tables, SQL macros and views (docs/schema.md).

Every statistic is defined once, here, as a table macro over a list of game ids
(`split_stats_of(ids)`, `head_to_head_of(ids)`, ...). The views of the same name
without `_of` apply the default counting policy (`counted_ids()`: complete games, the
disputed ones included); the dashboard calls the macros with the games its sidebar
filter chose. Nothing here names a game: split statistics come from the takes whose
role is `first_pick` or `second`, early ends from `rounds.ended_early IS NOT NULL`,
bids from the `bids` table, and who wins low from the games' own winners.

The counting policy. Each game falls in exactly one class (`game_counting.counted_as`):
`illegal` (an illegal move), `incomplete` (legal, not finished), `disputed` (complete,
but the score sheet disagrees with the replay) and `complete` (complete, the sheet
agrees or there is none). Views count `complete` and `disputed` games, i.e. the games
whose status is complete: every round was played and every move was legal, so the
replay's scores are right even where the sheet is not.
"""

from __future__ import annotations

import duckdb

# Tables that analyses fill (never the loader): created with the schema, refreshed by
# `trickledger analyse` (ingest/analyse.py) and, for ratings, by the dashboard when stale.
DERIVED_TABLES: dict[str, list[tuple[str, str]]] = {
    "rating_history": [
        ("game", "VARCHAR"), ("seq", "INTEGER"), ("game_id", "VARCHAR"), ("played_on", "DATE"),
        ("player", "VARCHAR"), ("finish", "INTEGER"), ("players", "INTEGER"),
        ("mu_before", "DOUBLE"), ("sigma_before", "DOUBLE"), ("mu", "DOUBLE"),
        ("sigma", "DOUBLE"), ("ordinal", "DOUBLE"),
    ],
    "hand_estimates": [
        ("sha256", "VARCHAR"), ("game_id", "VARCHAR"), ("round", "INTEGER"),
        ("player", "VARCHAR"), ("method", "VARCHAR"), ("seed", "INTEGER"),
        ("playouts", "INTEGER"), ("expected_tricks", "DOUBLE"), ("expected_sd", "DOUBLE"),
        ("tricks_seen", "INTEGER[]"), ("seconds", "DOUBLE"), ("computed_at", "TIMESTAMP"),
    ],
    "analysis_runs": [
        ("analysis", "VARCHAR"), ("fingerprint", "VARCHAR"), ("rows", "INTEGER"),
        ("detail", "VARCHAR"), ("computed_at", "TIMESTAMP"),
    ],    # every decision of a complete game judged against its alternatives (ingest/moves.py)
    "move_quality": [
        ("sha256", "VARCHAR"), ("game_id", "VARCHAR"), ("round", "INTEGER"),
        ("step", "INTEGER"), ("line", "INTEGER"), ("player", "VARCHAR"), ("move", "VARCHAR"),
        ("best_move", "VARCHAR"), ("value", "DOUBLE"), ("best_value", "DOUBLE"),
        ("cost", "DOUBLE"), ("cost_se", "DOUBLE"), ("samples", "INTEGER"),
        ("alternatives", "INTEGER"), ("band", "VARCHAR"), ("method", "VARCHAR"),
        ("seed", "INTEGER"), ("computed_at", "TIMESTAMP"),
    ],
}

# 95 % Wilson score interval of k successes in n trials (k may be fractional: shared wins)
_WILSON = """CASE WHEN n > 0 THEN {bound}(0.0 + {limit},
    ((CAST(k AS DOUBLE) / n + 1.9208 / n) {sign} 1.96 * sqrt((CAST(k AS DOUBLE) / n)
      * (1 - CAST(k AS DOUBLE) / n) / n + 0.9604 / (n * n))) / (1 + 3.8416 / n)) END"""

# A figure shown to a user must not depend on the reader (DuckDB versions round a
# double's tie differently: 0.45625 is 0.4562 in one, 0.4563 in another) nor on the order
# in which a sum met its rows (a sum of doubles differs in its last bits). So shares and
# means are integer sums divided and rounded once, in integers, by `ratio` (halves away
# from zero); a sum of 1/n (shared wins, chance baselines) is a sum of 27720 // n, exact
# for every n up to 12, and only then divided.
UNITS = 27720  # the least common multiple of 1..12

_RATIO = """CASE WHEN den <> 0 THEN
    sign(num) * sign(den) * ((2 * abs(CAST(num AS HUGEINT)) * CAST(pow(10, places) AS HUGEINT)
        + abs(CAST(den AS HUGEINT))) // (2 * abs(CAST(den AS HUGEINT))))
    / pow(10, places) END"""

# (kind, name, body) in creation order: later objects use earlier ones.
OBJECTS: list[tuple[str, str, str]] = [
    ("macro", "wilson_low(k, n)", _WILSON.format(bound="greatest", limit=0, sign="-")),
    ("macro", "wilson_high(k, n)", _WILSON.format(bound="least", limit=1, sign="+")),
    # num / den rounded to `places` decimals, for integer num and den (see UNITS)
    ("macro", "ratio(num, den, places)", _RATIO),
    # standard error of the mean from exact integer sums (x: HUGEINT-safe), order-free
    ("macro", "se_of(sx, sxx, n)", """CASE WHEN n > 1 THEN
        sqrt((n * CAST(sxx AS HUGEINT) - CAST(sx AS HUGEINT) * sx) / (CAST(n AS HUGEINT) * n * (n - 1)))
        END"""),
    ("view", "game_counting", """
        SELECT g.game_id, g.game, g.edition, g.variants, g.n_players, g.played_on, g.status,
               coalesce(g.claims_mismatched, 0) > 0 AS disputed,
               CASE WHEN g.status = 'illegal' THEN 'illegal'
                    WHEN g.status = 'incomplete' THEN 'incomplete'
                    WHEN coalesce(g.claims_mismatched, 0) > 0 THEN 'disputed'
                    WHEN g.status = 'sheet' THEN 'sheet'
                    ELSE 'complete' END AS counted_as
        FROM games g"""),
    # the default policy as a list of game ids, for the views below
    ("macro", "counted_ids()", """
        (SELECT coalesce(list(game_id ORDER BY game_id), []) FROM game_counting
         WHERE counted_as IN ('complete', 'disputed', 'sheet'))"""),
    # every game, as a list (the views of the per-game macros)
    ("macro", "all_ids()", """
        (SELECT coalesce(list(game_id ORDER BY game_id), []) FROM games)"""),

    # ---------------------------------------------------------------- finishing order
    # complete games and score sheets only (a finishing order needs a finished game; a
    # disputed one keeps its status, complete or sheet); `direction` is -1
    # where the lowest total wins, read off the game's own winners
    ("summary", "finish_rows", """
        WITH p AS (
            SELECT g.game_id, g.game, g.n_players, g.played_on, p.player, p.seat, p.total,
                   p.is_winner, greatest(len(g.winners), 1) AS n_winners,
                   CASE WHEN max(p.total) FILTER (WHERE p.is_winner) OVER w < max(p.total) OVER w
                        THEN -1 ELSE 1 END AS direction
            FROM games g JOIN players p USING (game_id)
            WHERE g.status IN ('complete', 'sheet') AND g.game_id IN (SELECT unnest(ids))
              AND p.game_id IN (SELECT unnest(ids))
            WINDOW w AS (PARTITION BY g.game_id)
        )
        SELECT game_id, game, n_players, played_on, player, seat, total, is_winner,
               CASE WHEN is_winner THEN 1.0 / n_winners ELSE 0.0 END AS win_share,
               CASE WHEN is_winner THEN 27720 // n_winners ELSE 0 END AS win_units,
               direction * total AS standing,
               CAST(rank() OVER (PARTITION BY game_id ORDER BY direction * total DESC)
                    AS INTEGER) AS finish
        FROM p"""),
    ("view", "finishes", "SELECT * FROM finish_rows"),
    ("macro", "results_of(ids)", """
        SELECT game, player, count(*) AS games,
               count(*) FILTER (WHERE is_winner) AS wins,
               ratio(sum(win_units), 27720, 3) AS win_share,
               ratio(sum(27720 // n_players), 27720, 3) AS expected_wins,
               ratio(sum(win_units), 27720 * count(*), 4) AS win_rate,
               ratio(sum(27720 // n_players), 27720 * count(*), 4) AS baseline_rate,
               ratio(sum(win_units), sum(27720 // n_players), 3) AS vs_baseline,
               round(wilson_low(sum(win_units) / 27720, count(*)), 4) AS win_rate_low,
               round(wilson_high(sum(win_units) / 27720, count(*)), 4) AS win_rate_high,
               ratio(sum(total), count(total), 2) AS mean_total,
               ratio(sum(finish), count(finish), 2) AS mean_finish,
               min(total) AS lowest_total, max(total) AS highest_total
        FROM finishes WHERE game_id IN (SELECT unnest(ids))
        GROUP BY game, player"""),
    ("view", "player_results", """
        SELECT game, player, games, wins, win_share, expected_wins, win_rate, baseline_rate,
               vs_baseline, win_rate_low, win_rate_high, mean_total, mean_finish,
               lowest_total AS best_low, highest_total AS best_high
        FROM results_of(counted_ids())"""),
    ("macro", "head_to_head_of(ids)", """
        SELECT a.game, a.player, b.player AS opponent, count(*) AS games,
               count(*) FILTER (WHERE a.standing > b.standing) AS ahead,
               count(*) FILTER (WHERE a.standing < b.standing) AS behind,
               count(*) FILTER (WHERE a.standing = b.standing) AS tied
        FROM finishes a JOIN finishes b ON a.game_id = b.game_id AND a.player <> b.player
        WHERE a.game_id IN (SELECT unnest(ids))
        GROUP BY a.game, a.player, b.player"""),
    ("view", "head_to_head", "SELECT * FROM head_to_head_of(counted_ids())"),
    ("view", "ratings", """
        SELECT game, player, count(*) AS games,
               round(arg_max(mu, seq), 3) AS mu, round(arg_max(sigma, seq), 3) AS sigma,
               round(arg_max(ordinal, seq), 3) AS ordinal, max(played_on) AS last_played
        FROM rating_history GROUP BY game, player"""),

    # ---------------------------------------------------------------- splits
    # every finished trick of a split game, one row per player who played to it
    ("macro", "split_tricks_of(ids)", """
        WITH t AS (SELECT * FROM tricks WHERE game_id IN (SELECT unnest(ids))),
        tk AS (SELECT * FROM takes WHERE game_id IN (SELECT unnest(ids))
                                     AND role IN ('first_pick', 'second'))
        SELECT t.game_id, t.round, t.trick, g.n_players, u.player,
               u.player = f.player AS took_first,
               coalesce(u.player = s.player, false) AS took_second,
               s.player IS NOT NULL AS split
        FROM t
        JOIN games g USING (game_id)
        JOIN tk f ON f.game_id = t.game_id AND f.round = t.round AND f.trick = t.trick
             AND f.role = 'first_pick'
        LEFT JOIN tk s ON s.game_id = t.game_id AND s.round = t.round AND s.trick = t.trick
             AND s.role = 'second'
        CROSS JOIN (SELECT unnest(t.players) AS player) u"""),
    ("view", "split_tricks", "SELECT * FROM split_tricks_of(all_ids())"),
    # every take of a split game with what became of its cards: `placed_open` landed on
    # an open stack at the take (the engine's count, before any keep it triggered);
    # `kept_cards` end up scoring: on one of the two stacks multiplied when the round
    # is scored (NULL while the round is unfinished)
    ("macro", "split_takes_of(ids)", """
        WITH tk AS (
            SELECT * FROM takes WHERE game_id IN (SELECT unnest(ids))
                                  AND role IN ('first_pick', 'second')
        ), tr AS (
            SELECT * FROM tricks WHERE game_id IN (SELECT unnest(ids))
        ), rd AS (
            SELECT * FROM rounds WHERE game_id IN (SELECT unnest(ids))
        ), split_rounds AS (
            SELECT DISTINCT game_id, round FROM tk
        ), last_trick AS (
            SELECT t.game_id, t.round, max(t.trick) AS trick
            FROM tr t JOIN split_rounds USING (game_id, round) GROUP BY t.game_id, t.round
        ), final_stacks AS (
            SELECT t.game_id, t.round, unnest(t.stacks) AS s
            FROM tr t JOIN last_trick USING (game_id, round, trick)
            JOIN rd r USING (game_id, round)
        ), final_open AS (
            SELECT f.game_id, f.round, f.s.player AS player, f.s.stack AS color,
                   f.s.cards AS cards
            FROM final_stacks f
            LEFT JOIN keeps k ON k.game_id = f.game_id AND k.round = f.round
                 AND k.player = f.s.player AND k.game_id IN (SELECT unnest(ids))
            -- not the face-down stack (`discarded` in a database loaded before its rename)
            WHERE f.s.stack NOT IN ('face down', 'discarded') AND f.s.cards > 0
              AND (k.colors IS NULL OR list_contains(k.colors, f.s.stack))
        ), scoring AS (
            SELECT game_id, round, player, color FROM (
                SELECT *, row_number() OVER (PARTITION BY game_id, round, player
                                             ORDER BY cards DESC, color) AS place,
                       count(*) OVER (PARTITION BY game_id, round, player) AS open_colors
                FROM final_open)
            WHERE place <= 2 AND open_colors >= 2
        ), take_cards AS (
            SELECT game_id, round, trick, player, role, unnest(cards) AS card FROM tk
        ), per_take AS (
            SELECT c.game_id, c.round, c.trick, c.player, c.role, count(sc.color) AS kept
            FROM take_cards c LEFT JOIN scoring sc ON sc.game_id = c.game_id
                 AND sc.round = c.round AND sc.player = c.player AND sc.color = left(c.card, 1)
            GROUP BY ALL
        )
        SELECT tk.game_id, tk.round, tk.trick, tk.player, tk.role, tk.n_cards,
               tk.kept_cards AS placed_open,
               CASE WHEN r.round IS NOT NULL THEN coalesce(pt.kept, 0) END AS kept_cards
        FROM tk
        LEFT JOIN per_take pt USING (game_id, round, trick, player, role)
        LEFT JOIN rd r USING (game_id, round)"""),
    ("view", "split_takes", "SELECT * FROM split_takes_of(all_ids())"),
    # per game and player: the parts of the split statistics, summed over games below
    ("summary", "split_games", """
        WITH sp AS (
            SELECT game_id, player, count(*) AS tricks_played,
                   count(*) FILTER (WHERE took_first) AS first_picks,
                   sum(27720 // n_players) AS expected_first,
                   count(*) FILTER (WHERE split) AS splits_played,
                   count(*) FILTER (WHERE took_second) AS second_halves,
                   coalesce(sum(27720 // n_players) FILTER (WHERE split), 0) AS expected_second
            FROM split_tricks_of(ids) GROUP BY game_id, player
        ), tk AS (
            SELECT game_id, player,
                   sum(n_cards) FILTER (WHERE role = 'first_pick') AS first_cards,
                   sum(kept_cards) FILTER (WHERE role = 'first_pick') AS first_kept,
                   sum(n_cards) FILTER (WHERE role = 'second') AS second_cards,
                   sum(kept_cards) FILTER (WHERE role = 'second') AS second_kept
            FROM split_takes_of(ids) GROUP BY game_id, player
        ), unfinished AS (
            -- cards played to tricks that never finished, in games with a finished trick
            -- (every player plays every finished trick: each such player is in `sp`)
            SELECT p.game_id, p.player, count(*) AS unfinished_tricks
            FROM plays p
            WHERE p.game_id IN (SELECT unnest(ids)) AND p.kind = 'play'
              AND p.game_id IN (SELECT game_id FROM takes WHERE role = 'first_pick'
                                AND game_id IN (SELECT unnest(ids)))
              AND NOT EXISTS (SELECT 1 FROM tricks t WHERE t.game_id = p.game_id
                              AND t.round = p.round AND t.trick = p.trick)
            GROUP BY p.game_id, p.player
        )
        SELECT sp.game_id, sp.player, sp.tricks_played, sp.first_picks, sp.expected_first,
               sp.splits_played, sp.second_halves, sp.expected_second, tk.first_cards,
               tk.first_kept, tk.second_cards, tk.second_kept,
               coalesce(u.unfinished_tricks, 0) AS unfinished_tricks
        FROM sp LEFT JOIN tk USING (game_id, player) LEFT JOIN unfinished u
             USING (game_id, player)"""),
    # per game and take: what the takes of finished rounds brought home (the Splits page)
    ("summary", "split_take_sums", """
        SELECT game_id, role, count(*) AS takes, sum(n_cards) AS cards,
               sum(placed_open) AS placed_open, sum(kept_cards) AS kept
        FROM split_takes_of(ids) WHERE kept_cards IS NOT NULL GROUP BY game_id, role"""),
    ("macro", "split_stats_of(ids)", """
        WITH sp AS (
            SELECT player, count(*) AS games,
                   CAST(sum(tricks_played) AS BIGINT) AS tricks_played,
                   CAST(sum(first_picks) AS BIGINT) AS first_picks,
                   sum(expected_first) AS expected_first,
                   CAST(sum(splits_played) AS BIGINT) AS splits_played,
                   CAST(sum(second_halves) AS BIGINT) AS second_halves,
                   sum(expected_second) AS expected_second,
                   sum(first_cards) AS first_cards, sum(first_kept) AS first_kept,
                   sum(second_cards) AS second_cards, sum(second_kept) AS second_kept,
                   CAST(sum(unfinished_tricks) AS BIGINT) AS unfinished_tricks
            FROM split_games WHERE game_id IN (SELECT unnest(ids)) GROUP BY player
        )
        SELECT sp.player, sp.games, sp.tricks_played, sp.first_picks,
               ratio(sp.expected_first, 27720, 2) AS expected_first_picks,
               ratio(sp.first_picks, sp.tricks_played, 4) AS first_share,
               ratio(sp.expected_first, 27720 * sp.tricks_played, 4) AS first_baseline,
               sp.splits_played, sp.second_halves,
               ratio(sp.expected_second, 27720, 2) AS expected_second_halves,
               ratio(sp.second_halves, sp.splits_played, 4) AS second_share,
               ratio(sp.expected_second, 27720 * sp.splits_played, 4) AS second_baseline,
               round(wilson_low(sp.second_halves, sp.splits_played), 4) AS second_share_low,
               round(wilson_high(sp.second_halves, sp.splits_played), 4) AS second_share_high,
               sp.unfinished_tricks,
               coalesce(sp.first_cards, 0) AS first_cards,
               coalesce(sp.first_kept, 0) AS first_kept,
               coalesce(sp.second_cards, 0) AS second_cards,
               coalesce(sp.second_kept, 0) AS second_kept
        FROM sp"""),
    ("view", "split_stats", "SELECT * FROM split_stats_of(counted_ids())"),

    # ---------------------------------------------------------------- early ends
    # rounds of games that can end early; the causing card is the last card played to
    # the unfinished trick, and its player caused the end
    ("summary", "early_end_rounds", """
        WITH rd AS (
            SELECT * FROM rounds
            WHERE game_id IN (SELECT unnest(ids)) AND ended_early IS NOT NULL
        ), cause AS (
            SELECT p.game_id, p.round, arg_max(p.player, p.seq) AS caused_by,
                   arg_max(p.card, p.seq) AS causing_card, count(*) AS cards_in_trick
            FROM plays p JOIN rd r ON r.game_id = p.game_id AND r.round = p.round
                 AND r.ended_early AND p.trick = r.early_end_trick
            WHERE p.game_id IN (SELECT unnest(ids))
            GROUP BY p.game_id, p.round
        )
        SELECT r.game_id, g.n_players, r.round, r.dealer, r.leader, r.tricks, r.ended_early,
               r.early_end_trick, r.early_end_player AS could_not_play, c.caused_by,
               c.causing_card, c.cards_in_trick, g.played_on
        FROM rd r JOIN games g USING (game_id) LEFT JOIN cause c USING (game_id, round)"""),
    ("macro", "early_ends_of(ids)", """
        SELECT * FROM early_end_rounds WHERE game_id IN (SELECT unnest(ids))"""),
    ("view", "early_ends", "SELECT * FROM early_ends_of(counted_ids())"),
    ("summary", "early_end_player_games", """
        SELECT e.game_id, s.player, count(*) AS rounds,
               count(*) FILTER (WHERE e.could_not_play = s.player) AS could_not_play,
               count(*) FILTER (WHERE e.caused_by = s.player) AS caused,
               sum(27720 // e.n_players) FILTER (WHERE e.ended_early) AS expected_each,
               sum(s.score) FILTER (WHERE e.ended_early) AS early_points,
               count(s.score) FILTER (WHERE e.ended_early) AS early_scored,
               sum(s.score) FILTER (WHERE NOT e.ended_early) AS full_points,
               count(s.score) FILTER (WHERE NOT e.ended_early) AS full_scored,
               count(*) FILTER (WHERE e.ended_early) AS early_rounds
        FROM early_end_rounds_by_game(ids) e
        JOIN round_scores s ON s.game_id = e.game_id AND s.round = e.round
        WHERE s.game_id IN (SELECT unnest(ids))
        GROUP BY e.game_id, s.player"""),
    ("macro", "early_end_players_of(ids)", """
        WITH sat AS (
            SELECT player, CAST(sum(rounds) AS BIGINT) AS rounds,
                   CAST(sum(could_not_play) AS BIGINT) AS could_not_play,
                   CAST(sum(caused) AS BIGINT) AS caused,
                   sum(expected_each) AS expected_each, sum(early_points) AS early_points,
                   sum(early_scored) AS early_scored, sum(full_points) AS full_points,
                   sum(full_scored) AS full_scored,
                   CAST(sum(early_rounds) AS BIGINT) AS early_rounds
            FROM early_end_player_games WHERE game_id IN (SELECT unnest(ids))
            GROUP BY player
        )
        SELECT player, rounds, early_rounds, could_not_play, caused,
               ratio(coalesce(expected_each, 0), 27720, 2) AS expected_each,
               ratio(could_not_play, rounds, 4) AS could_not_play_rate,
               ratio(caused, rounds, 4) AS caused_rate,
               ratio(early_points, early_scored, 2) AS mean_when_early,
               ratio(full_points, full_scored, 2) AS mean_when_full,
               -- the difference of the two exact means, as one fraction
               ratio(full_points * early_scored - early_points * full_scored,
                     full_scored * early_scored, 2) AS points_lost
        FROM sat"""),
    ("view", "early_end_players", "SELECT * FROM early_end_players_of(counted_ids())"),

    # ---------------------------------------------------------------- bids
    # every settled bid with how it was bid: `bidding` is open (in turn, seeing the
    # earlier bids), hidden or secret; `bid_position` 1 bids first (the dealer's left)
    ("summary", "bid_round_rows", """
        SELECT b.*, g.n_players,
               CASE WHEN list_contains(g.variants, 'secret_bid') THEN 'secret'
                    WHEN list_contains(g.variants, 'hidden_bid') THEN 'hidden'
                    ELSE 'open' END AS bidding,
               list_contains(g.variants, 'plus_minus_one') AS plus_minus_one,
               CAST((ps.seat - pd.seat - 1 + 2 * g.n_players) % g.n_players + 1 AS INTEGER)
                   AS bid_position
        FROM bids b JOIN games g USING (game_id) JOIN rounds r USING (game_id, round)
        JOIN players ps ON ps.game_id = b.game_id AND ps.player = b.player
        JOIN players pd ON pd.game_id = b.game_id AND pd.player = r.dealer
        WHERE b.game_id IN (SELECT unnest(ids))"""),
    ("macro", "bid_rounds_of(ids)", """
        SELECT * FROM bid_round_rows WHERE game_id IN (SELECT unnest(ids))"""),
    ("view", "bid_rounds", "SELECT * FROM bid_rounds_of(counted_ids())"),
    ("macro", "bid_accuracy_of(ids)", """
        SELECT player, count(*) AS rounds, count(*) FILTER (WHERE exact) AS exact,
               ratio(count(*) FILTER (WHERE exact), count(exact), 4) AS exact_rate,
               round(wilson_low(count(*) FILTER (WHERE exact), count(*)), 4) AS exact_rate_low,
               round(wilson_high(count(*) FILTER (WHERE exact), count(*)), 4)
                   AS exact_rate_high,
               ratio(sum(bid_error), count(bid_error), 3) AS mean_bid_error,
               ratio(sum(abs(bid_error)), count(bid_error), 3) AS mean_abs_error,
               count(*) FILTER (WHERE bid_error < 0) AS overbids,
               count(*) FILTER (WHERE bid_error > 0) AS underbids,
               ratio(sum(score), count(score), 2) AS mean_round_score
        FROM bid_rounds_of(ids)
        GROUP BY player"""),
    ("view", "bid_accuracy", "SELECT * FROM bid_accuracy_of(counted_ids())"),
    ("macro", "bid_vs_hand_of(ids)", """
        SELECT br.game_id, br.round, br.player, br.bid, br.won,
               round(h.expected_tricks, 3) AS expected_tricks,
               round(h.expected_sd, 3) AS expected_sd,
               round(h.expected_sd / sqrt(h.playouts), 3) AS expected_se,
               round(br.bid - h.expected_tricks, 3) AS bidding_error,
               round(br.won - h.expected_tricks, 3) AS play_error,
               ratio(coalesce(h.tricks_seen[br.bid + 1], 0), h.playouts, 3) AS bid_made_share,
               h.playouts, h.tricks_seen, br.hand_size, br.bidding, br.plus_minus_one,
               br.bid_position, h.method
        FROM bid_rounds_of(ids) br JOIN games g USING (game_id)
        JOIN hand_estimates h ON h.sha256 = g.sha256 AND h.round = br.round
             AND h.player = br.player"""),
    ("view", "bid_vs_hand", "SELECT * FROM bid_vs_hand_of(counted_ids())"),

    # ---------------------------------------------------------------- seats and order
    # every scored round and player with their seat counted from the dealer (0 = the
    # dealer, 1 = the dealer's left), whether they led first, and their score against
    # the table's mean in that round (no seat effect: 0 on average)
    ("macro", "round_seats_of(ids)", """
        SELECT g.game, s.game_id, s.round, g.n_players, s.player,
               CAST((ps.seat - pd.seat + g.n_players) % g.n_players AS INTEGER)
                   AS seat_from_dealer,
               s.player = r.leader AS first_leader,
               CAST((pl.seat - pd.seat + g.n_players) % g.n_players AS INTEGER) = 1
                   AS leader_left_of_dealer,
               s.score,
               s.score - avg(s.score) OVER (PARTITION BY s.game_id, s.round) AS above_table,
               -- the same in UNITS, an integer: score * n - the table's sum is n times it
               (s.score * g.n_players - sum(s.score) OVER (PARTITION BY s.game_id, s.round))
                   * (27720 // g.n_players) AS above_units
        FROM round_scores s JOIN rounds r USING (game_id, round) JOIN games g USING (game_id)
        JOIN players ps ON ps.game_id = s.game_id AND ps.player = s.player
        JOIN players pd ON pd.game_id = s.game_id AND pd.player = r.dealer
        LEFT JOIN players pl ON pl.game_id = s.game_id AND pl.player = r.leader
        WHERE s.game_id IN (SELECT unnest(ids))"""),
    # per game: the seats' and the first leaders' sums, summed over games below
    ("summary", "seat_sums", """
        SELECT game, game_id, seat_from_dealer, count(*) AS rounds,
               sum(above_units) AS units, sum(above_units * above_units) AS units_sq,
               count(above_units) AS scored
        FROM round_seats_of(ids) GROUP BY game, game_id, seat_from_dealer"""),
    ("summary", "leader_sums", """
        SELECT game, game_id, round = 1 AS first_round, leader_left_of_dealer,
               count(*) AS rounds, sum(above_units) AS units,
               sum(above_units * above_units) AS units_sq, count(above_units) AS scored
        FROM round_seats_of(ids) WHERE first_leader
        GROUP BY game, game_id, round = 1, leader_left_of_dealer"""),
    ("macro", "seat_effects_of(ids)", """
        SELECT game, seat_from_dealer, CAST(sum(rounds) AS BIGINT) AS rounds,
               ratio(sum(units), 27720 * sum(scored), 3) AS mean_above_table,
               round(se_of(sum(units), sum(units_sq), sum(scored)) / 27720, 3) AS se
        FROM seat_sums WHERE game_id IN (SELECT unnest(ids))
        GROUP BY game, seat_from_dealer"""),
    ("view", "seat_effects", "SELECT * FROM seat_effects_of(counted_ids())"),

    # ---------------------------------------------------------------- decision quality
    # the judged decisions of the games (move_quality, keyed by the log's bytes); accuracy
    # is the share of decisions within one standard error of the best (band 'best')
    ("macro", "move_quality_of(ids)", """
        SELECT g.game_id, g.game, g.played_on, m.round, m.step, m.line, m.player, m.move,
               m.best_move, m.value, m.best_value, m.cost, m.cost_se, m.samples,
               m.alternatives, m.band
        FROM move_quality m JOIN games g ON g.sha256 = m.sha256
        WHERE g.game_id IN (SELECT unnest(ids))"""),
    ("macro", "game_decisions_of(ids)", """
        SELECT game_id, game, played_on, player, count(*) AS decisions,
               round(avg(CASE WHEN band = 'best' THEN 1.0 ELSE 0.0 END), 3) AS accuracy,
               round(avg(cost), 3) AS avg_cost,
               count(*) FILTER (WHERE band = 'blunder') AS blunders
        FROM move_quality_of(ids) GROUP BY game_id, game, played_on, player"""),
    ("macro", "decision_quality_of(ids)", """
        SELECT game, player, count(DISTINCT game_id) AS games, count(*) AS decisions,
               round(avg(CASE WHEN band = 'best' THEN 1.0 ELSE 0.0 END), 3) AS accuracy,
               round(avg(cost), 3) AS avg_cost,
               count(*) FILTER (WHERE band = 'inaccuracy') AS inaccuracies,
               count(*) FILTER (WHERE band = 'mistake') AS mistakes,
               count(*) FILTER (WHERE band = 'blunder') AS blunders
        FROM move_quality_of(ids) GROUP BY game, player"""),
    ("view", "decision_quality", "SELECT * FROM decision_quality_of(counted_ids())"),
    ("view", "game_decisions", "SELECT * FROM game_decisions_of(counted_ids())"),
    ("macro", "leader_effects_of(ids)", """
        SELECT game, first_round, leader_left_of_dealer, CAST(sum(rounds) AS BIGINT) AS rounds,
               ratio(sum(units), 27720 * sum(scored), 3) AS mean_above_table,
               round(se_of(sum(units), sum(units_sq), sum(scored)) / 27720, 3) AS se
        FROM leader_sums WHERE game_id IN (SELECT unnest(ids))
        GROUP BY game, first_round, leader_left_of_dealer"""),
    ("view", "leader_effects", "SELECT * FROM leader_effects_of(counted_ids())"),
]


# The per-game summaries (kind "summary" above), in the order they are made: what each
# statistic needs of one game, materialized once per game in a database file (ingest makes
# them at the end of a run, `ingest.summaries`), so that a page's question about 100,000
# games sums a few rows per game instead of joining every trick and play again. Each is a
# macro `NAME_by_game(ids)` over the fact tables and, in a file, a table NAME of its rows
# for every game listed in SUMMARISED (by the game's id and the SHA-256 of its log); in a
# lake, NAME is a view of the macro over every game.
SUMMARIES = [name for kind, name, _ in OBJECTS if kind == "summary"]
SUMMARISED = "summarised"


def statements(materialized: bool = True) -> list[str]:
    """The CREATE statements of the analytics layer, in order; `materialized`: the
    summaries are tables (a database file), else views (a lake)."""
    out = []
    for name, cols in DERIVED_TABLES.items():
        body = ", ".join(f'"{c}" {t}' for c, t in cols)
        out.append(f"CREATE TABLE IF NOT EXISTS {name} ({body})")
    if materialized:
        out.append(f"CREATE TABLE IF NOT EXISTS {SUMMARISED} (game_id VARCHAR, sha256 VARCHAR)")
    for kind, name, body in OBJECTS:
        if kind == "macro":
            table = " TABLE" if body.lstrip().upper().startswith(("SELECT", "WITH")) else ""
            out.append(f"CREATE OR REPLACE MACRO {name} AS{table} {body}")
        elif kind == "summary":
            out.append(f"CREATE OR REPLACE MACRO {name}_by_game(ids) AS TABLE {body}")
            if materialized:  # its columns as the macro makes them
                out.append(f"CREATE TABLE IF NOT EXISTS {name} AS SELECT * FROM "
                           f"{name}_by_game(CAST([] AS VARCHAR[])) LIMIT 0")
            else:
                out.append(f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM "
                           f"{name}_by_game(all_ids())")
        else:
            out.append(f"CREATE OR REPLACE VIEW {name} AS {body}")
    return out


VIEWS = [name for kind, name, _ in OBJECTS if kind == "view"]


def digest() -> str:
    """A fingerprint of the analytics definitions: a database whose stored digest differs
    gets them again (views and macros are derived: replacing them loses nothing)."""
    import hashlib

    return hashlib.sha256("\n".join(statements()).encode()).hexdigest()


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create or replace the analytics layer and record its digest (inside the caller's
    transaction). The summaries are made again from the facts: their definitions may have
    changed (on a large database this takes a while, once)."""
    from .summaries import refresh

    for name in (*SUMMARIES, SUMMARISED):  # views first: they read the summaries
        con.execute(f"DROP VIEW IF EXISTS {name}")
    for kind, name, _ in OBJECTS:
        if kind == "view":
            con.execute(f"DROP VIEW IF EXISTS {name}")
    for name in (*SUMMARIES, SUMMARISED):
        con.execute(f"DROP TABLE IF EXISTS {name}")
    for sql in statements():
        con.execute(sql)
    refresh(con, in_transaction=True)
    con.execute("CREATE TABLE IF NOT EXISTS analytics_version (digest VARCHAR)")
    con.execute("DELETE FROM analytics_version")
    con.execute("INSERT INTO analytics_version VALUES (?)", [digest()])


def is_current(con: duckdb.DuckDBPyConnection) -> bool:
    try:
        row = con.execute("SELECT max(digest) FROM analytics_version").fetchone()
    except duckdb.CatalogException:
        return False
    return row is not None and row[0] == digest()
