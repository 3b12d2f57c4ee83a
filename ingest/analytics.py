"""The analytics layer of the schema: derived tables, SQL macros and views (docs/schema.md).

Every statistic is defined once, here, as a table macro over a list of game ids
(`split_stats_of(ids)`, `head_to_head_of(ids)`, ...). The views of the same name
without `_of` apply the default counting policy (`counted_ids()`: complete games, the
disputed ones included); the dashboard calls the macros with the games its sidebar
filter chose. Nothing here names a game: a game's own statistics (plotters' splits and
early ends, rage's bids) are declared in its module (`GameInfo.analytics`) and created
after the core's, and who wins low is read from the games' own winners.

The counting policy. Each game falls in exactly one class (`game_counting.counted_as`):
`illegal` (an illegal move), `incomplete` (legal, not finished), `disputed` (complete,
but the score sheet disagrees with the replay) and `complete` (complete, the sheet
agrees or there is none). Views count `complete` and `disputed` games, i.e. the games
whose status is complete: every round was played and every move was legal, so the
replay's scores are right even where the sheet is not.
"""

from __future__ import annotations

import duckdb

from trickledger.replay.registry import registry

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
        # added later (a database made before gets them by ALTER TABLE, at the end)
        ("equal_moves", "VARCHAR[]"), ("exact_samples", "INTEGER"), ("seconds", "DOUBLE"),
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
    # every game, as a list (the views of the per-game summaries in a lake)
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

]
# The games' own objects (GameInfo.analytics) come here, in the games' name order: where
# they stood when this list held them, so that the analytics digest of a database made
# before is unchanged (it does not redefine its views on upgrade). They may use what the
# list above defines, never what the one below does.
LATER_OBJECTS: list[tuple[str, str, str]] = [
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
    # the judged decisions of the games (move_quality, keyed by the log's bytes) by the
    # judge's current method only (judge_method, written by install: a log not yet judged
    # again after a new method is not judged, rather than judged by two methods at once);
    # accuracy is the share of decisions in band 'best' (no alternative surely better)
    ("macro", "move_quality_of(ids)", """
        SELECT g.game_id, g.game, g.played_on, m.round, m.step, m.line, m.player, m.move,
               m.best_move, m.value, m.best_value, m.cost, m.cost_se, m.samples,
               m.alternatives, m.band, m.equal_moves, m.exact_samples
        FROM move_quality m JOIN games g ON g.sha256 = m.sha256
        WHERE g.game_id IN (SELECT unnest(ids))
          AND m.method IN (SELECT method FROM judge_method)"""),
    ("macro", "game_decisions_of(ids)", """
        SELECT game_id, game, played_on, player, count(*) AS decisions,
               round(avg(CASE WHEN band = 'best' THEN 1.0 ELSE 0.0 END), 3) AS accuracy,
               round(avg(cost), 3) AS avg_cost,
               count(*) FILTER (WHERE band = 'blunder') AS blunders,
               count(*) FILTER (WHERE band = 'good') AS goods,
               count(*) FILTER (WHERE band = 'inaccuracy') AS inaccuracies,
               count(*) FILTER (WHERE band = 'mistake') AS mistakes
        FROM move_quality_of(ids) GROUP BY game_id, game, played_on, player"""),
    ("macro", "decision_quality_of(ids)", """
        SELECT game, player, count(DISTINCT game_id) AS games, count(*) AS decisions,
               round(avg(CASE WHEN band = 'best' THEN 1.0 ELSE 0.0 END), 3) AS accuracy,
               round(avg(cost), 3) AS avg_cost,
               count(*) FILTER (WHERE band = 'good') AS goods,
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


def objects() -> list[tuple[str, str, str]]:
    """Every object of the analytics layer, (kind, name, body) in creation order: the core's
    and every registered game's."""
    games = sorted(registry().values(), key=lambda g: g.name)
    return [*OBJECTS, *(o for g in games for o in g.analytics), *LATER_OBJECTS]


def views() -> list[str]:
    """The names of the layer's views."""
    return [name for kind, name, _ in objects() if kind == "view"]


# The per-game summaries (kind "summary", the core's above and the games' own): what each
# statistic needs of one game, materialized once per game in a database file (ingest makes
# them at the end of a run, `ingest.summaries`), so that a page's question about 100,000
# games sums a few rows per game instead of joining every trick and play again. Each is a
# macro `NAME_by_game(ids)` over the fact tables and, in a file, a table NAME of its rows
# for every game listed in SUMMARISED (by the game's id and the SHA-256 of its log); in a
# lake, NAME is a view of the macro over every game.
SUMMARISED = "summarised"


def summaries() -> list[str]:
    """The names of the per-game summaries, in the order they are made: the core's and every
    registered game's (GameInfo.analytics objects of kind "summary")."""
    return [name for kind, name, _ in objects() if kind == "summary"]


def statements(materialized: bool = True) -> list[str]:
    """The CREATE statements of the analytics layer, in order; `materialized`: the
    summaries are tables (a database file), else views (a lake)."""
    out = []
    for name, cols in DERIVED_TABLES.items():
        body = ", ".join(f'"{c}" {t}' for c, t in cols)
        out.append(f"CREATE TABLE IF NOT EXISTS {name} ({body})")
        # a derived table made by an older trickledger gains the columns added since
        out.extend(f'ALTER TABLE {name} ADD COLUMN IF NOT EXISTS "{c}" {t}' for c, t in cols)
    if materialized:
        out.append(f"CREATE TABLE IF NOT EXISTS {SUMMARISED} (game_id VARCHAR, sha256 VARCHAR)")
    for kind, name, body in objects():
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


def digest() -> str:
    """A fingerprint of the analytics definitions: a database whose stored digest differs
    gets them again (views and macros are derived: replacing them loses nothing)."""
    import hashlib

    return hashlib.sha256("\n".join([*statements(), judge_method()]).encode()).hexdigest()


def write_judge_method(con: duckdb.DuckDBPyConnection) -> None:
    """The one-row table `judge_method` that `move_quality_of` reads: the judge's current
    method (a value, so a parameter, not text in the macro)."""
    con.execute("CREATE TABLE IF NOT EXISTS judge_method (method VARCHAR)")
    con.execute("DELETE FROM judge_method")
    con.execute("INSERT INTO judge_method VALUES (?)", [judge_method()])


def judge_method() -> str:
    """The judge's current method (`move_quality.method`): the pages show its verdicts."""
    from trickledger.replay.judge import METHOD  # the judge is heavy: on first use only

    return METHOD


def install(con: duckdb.DuckDBPyConnection) -> None:
    """Create or replace the analytics layer and record its digest (inside the caller's
    transaction). The summaries are made empty: their definitions may have changed, and
    the caller makes them again from the facts (ingest.summaries.refresh; on a large
    database this takes a while, once)."""
    made = summaries()
    # what each name is now (a summary is a view in a layer from before the summaries, a
    # table since): DuckDB refuses DROP VIEW IF EXISTS of a table, and the reverse
    kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                             "WHERE table_schema = current_schema()").fetchall())
    for kind, name, _ in objects():
        if kind == "view" and kinds.get(name) == "VIEW":
            con.execute(f"DROP VIEW {name}")
    for name in (*made, SUMMARISED):
        if kinds.get(name) == "VIEW":
            con.execute(f"DROP VIEW {name}")
        elif kinds.get(name) == "BASE TABLE":
            con.execute(f"DROP TABLE {name}")
    write_judge_method(con)
    for sql in statements():
        con.execute(sql)
    con.execute("CREATE TABLE IF NOT EXISTS analytics_version (digest VARCHAR)")
    con.execute("DELETE FROM analytics_version")
    con.execute("INSERT INTO analytics_version VALUES (?)", [digest()])


def is_current(con: duckdb.DuckDBPyConnection) -> bool:
    try:
        row = con.execute("SELECT max(digest) FROM analytics_version").fetchone()
    except duckdb.CatalogException:
        return False
    return row is not None and row[0] == digest()
