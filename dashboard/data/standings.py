"""Who is ahead: the questions of the Results, Ratings, Head-to-head and Seat effects pages
(the analytics macros `results_of`, `head_to_head_of`, `seat_effects_of`,
`leader_effects_of`, and the stored ratings)."""

from __future__ import annotations

import pandas as pd

from .access import query
from .filters import Filters, filtered


def results(f: Filters) -> pd.DataFrame:
    """Per game and player: wins against chance (`results_of`)."""
    return filtered("""
        SELECT * FROM results_of({game_list}) WHERE {players}
        ORDER BY game, win_rate DESC, player""", f, player_column="player")


def final_totals(f: Filters, game: str) -> pd.DataFrame:
    """How often each final total of one game came (`finishes`), per table size: a
    histogram's bars from a few hundred counts rather than from every player's total
    (100,000 of them in a club's history of 100,000 games)."""
    return filtered("""
        SELECT f.total, f.n_players, count(*) AS finishes FROM finishes f
        WHERE f.game_id IN ({games}) AND {players}
        GROUP BY f.total, f.n_players ORDER BY f.n_players, f.total""", f, game=game,
        player_column="f.player")


def latest_games(f: Filters, game: str) -> pd.DataFrame:
    """The 50 latest finished games of one game: winners and totals."""
    return filtered("""
        SELECT g.game_id, g.played_on, g.n_players,
               array_to_string(g.winners, ', ') AS winners,
               string_agg(p.player || ' ' || p.total, ', ' ORDER BY p.seat) AS totals
        FROM games g JOIN players p USING (game_id)
        WHERE g.status IN ('complete', 'sheet') AND g.game_id IN ({games})
        GROUP BY ALL ORDER BY g.played_on DESC NULLS LAST, g.game_id LIMIT 50""",
        f, game=game)


def ratings_by_game(f: Filters) -> pd.DataFrame:
    """The ratings of the filtered players in the filtered games, each with its place."""
    return filtered("""
        SELECT r.*, rank() OVER (PARTITION BY r.game ORDER BY r.ordinal DESC, r.player) AS place
        FROM ratings r WHERE {players}
          AND r.game IN (SELECT game FROM games WHERE game_id IN ({games}))
          AND r.player IN (SELECT player FROM players WHERE game_id IN ({games}))
        ORDER BY r.game, r.ordinal DESC, r.player""", f, player_column="r.player")


# A rating history is drawn with at most this many points per line: a line across a chart
# a few hundred pixels wide looks the same with more, and thousands of points per player
# (a club's history of 100,000 games) make the page slow to build and to draw.
HISTORY_POINTS = 300


def thinned(rows_sql: str, line: str, order: str) -> str:
    """`rows_sql`'s rows, at most HISTORY_POINTS (one parameter, `?`, after the query's
    own; at least 2) per `line`, in `order`: the first row, every k-th after it and the
    line's last one, which are the rating as it stood after those games. `n` numbers a
    line's rows before thinning, `of` says how many it had."""
    return f"""
        SELECT * EXCLUDE (step) FROM (
            SELECT t.*, greatest(1, ceil((t.of - 1) / (most.points - 1)))::BIGINT AS step FROM (
                SELECT *, row_number() OVER (PARTITION BY {line} ORDER BY {order}) AS n,
                       count(*) OVER (PARTITION BY {line}) AS of
                FROM ({rows_sql})) t, (SELECT ?::DOUBLE AS points) most)
        WHERE (n - 1) % step = 0 OR n = of"""


def rating_history(game: str, players: list[str]) -> pd.DataFrame:
    """How the ratings of `players` in `game` went, game by game (at most HISTORY_POINTS
    games per player: `thinned`)."""
    return query(thinned("""
        SELECT seq, player, ordinal, mu, sigma, played_on
        FROM rating_history WHERE game = ? AND list_contains(?, player)""", "player", "seq")
        + " ORDER BY seq, player", (game, tuple(players), HISTORY_POINTS))


def head_to_head(f: Filters) -> pd.DataFrame:
    """Per game and pair of players who met: ahead, behind, tied (`head_to_head_of`)."""
    return filtered("""
        SELECT * FROM head_to_head_of({game_list}) WHERE {players}
        ORDER BY game, player, opponent""", f, player_column="player")


def seat_effects(f: Filters) -> pd.DataFrame:
    """Per game and seat from the dealer: points above the table's mean (`seat_effects_of`)."""
    return filtered("""
        SELECT * FROM seat_effects_of({game_list}) ORDER BY game, seat_from_dealer""", f)


def leader_effects(f: Filters) -> pd.DataFrame:
    """Per game: the first leader's points above the table's mean (`leader_effects_of`)."""
    return filtered("""
        SELECT * FROM leader_effects_of({game_list}) ORDER BY game, first_round DESC""", f)
