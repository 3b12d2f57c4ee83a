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
    """Every final total of one game, with the table size."""
    return filtered("""
        SELECT f.total, f.n_players FROM finishes f
        WHERE f.game_id IN ({games}) AND {players}""", f, game=game,
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


def rating_history(game: str, players: list[str]) -> pd.DataFrame:
    """How the ratings of `players` in `game` went, game by game."""
    return query("""
        SELECT seq, player, ordinal, mu, sigma, played_on
        FROM rating_history WHERE game = ? AND list_contains(?, player)
        ORDER BY seq, player""", (game, tuple(players)))


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
