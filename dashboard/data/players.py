"""One player across every game (the Player page): results, ratings, form, head-to-head,
decisions, and the claims about them that disagree with the replay."""

from __future__ import annotations

import pandas as pd

from . import standings
from .access import query
from .filters import Filters, filtered


def player_results(f: Filters, player: str) -> pd.DataFrame:
    """Per game: the player's wins against chance (`results_of`)."""
    return filtered("""
        SELECT game, games, win_share, expected_wins, win_rate, baseline_rate, vs_baseline,
               win_rate_low, win_rate_high, mean_total, mean_finish
        FROM results_of({game_list}) WHERE player = ? ORDER BY game""", f, params=(player,))


def player_games(f: Filters, player: str) -> int:
    """How many of the filtered games the player sat at."""
    played = filtered("""
        SELECT count(*) AS games FROM players WHERE player = ? AND game_id IN ({games})""", f,
        params=(player,))
    return int(played["games"].iloc[0])


def player_ratings(player: str) -> pd.DataFrame:
    """Per game: the player's rating and place among the rated players."""
    return query("""
        SELECT r.game, r.games, r.mu, r.sigma, r.ordinal,
               (SELECT count(*) + 1 FROM ratings o WHERE o.game = r.game
                AND (o.ordinal > r.ordinal OR (o.ordinal = r.ordinal AND o.player < r.player)))
                   AS place,
               (SELECT count(*) FROM ratings o WHERE o.game = r.game) AS rated
        FROM ratings r WHERE r.player = ? ORDER BY r.game""", (player,))


def player_rating_history(player: str) -> pd.DataFrame:
    """The player's rating after each of their rated games (at most
    `standings.HISTORY_POINTS` per game: `standings.thinned`; `n` numbers their games of that game)."""
    return query(standings.thinned("""
        SELECT game, seq, played_on, finish, players, mu, sigma, ordinal
        FROM rating_history WHERE player = ?""", "game", "seq") + " ORDER BY game, seq",
        (player, standings.HISTORY_POINTS))


# The Form chart shows a player's latest finished games: form is recent play, and a
# scatter of thousands of games (a club's history of 100,000) is a grey band that is slow
# to build and to draw.
FORM_GAMES = 500


def player_form(f: Filters, player: str) -> pd.DataFrame:
    """The player's latest FORM_GAMES finished games in played order: placing, and its mean
    over the last ten; `n` numbers all their finished games, `of` says how many."""
    return filtered("""
        SELECT * FROM (
            SELECT game, game_id, played_on, n_players, finish, total, win_share,
                   CASE WHEN n_players > 1 THEN (n_players - finish) / (n_players - 1) END
                       AS placing,
                   avg(CASE WHEN n_players > 1 THEN (n_players - finish) / (n_players - 1) END)
                       OVER (ORDER BY played_on NULLS LAST, game_id
                             ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS last_ten,
                   row_number() OVER (ORDER BY played_on NULLS LAST, game_id) AS n,
                   count(*) OVER () AS of
            FROM finishes WHERE player = ? AND game_id IN ({games}))
        WHERE n > of - ? ORDER BY n""", f, params=(player, FORM_GAMES))


def player_totals(f: Filters, player: str) -> pd.DataFrame:
    """How often the player finished a game with each final total (`games`), per game: the
    histograms of the Form section, drawn from counts rather than from every game."""
    return filtered("""
        SELECT game, total, count(*) AS games FROM finishes
        WHERE player = ? AND game_id IN ({games}) GROUP BY game, total ORDER BY game, total""",
        f, params=(player,))


def player_head_to_head(f: Filters, player: str) -> pd.DataFrame:
    """The player's 30 most frequent opponents (`head_to_head_of`)."""
    return filtered("""
        SELECT game, opponent, games, ahead, behind, tied
        FROM head_to_head_of({game_list}) WHERE player = ?
        ORDER BY games DESC, game, opponent LIMIT 30""", f, params=(player,))


def player_decisions(f: Filters, player: str) -> pd.DataFrame:
    """Per judged game of the player: accuracy, cost, blunders (`game_decisions_of`)."""
    return filtered("""
        SELECT game, game_id, played_on, decisions, accuracy, avg_cost, blunders, goods,
               inaccuracies, mistakes
        FROM game_decisions_of({game_list}) WHERE player = ?
        ORDER BY played_on NULLS LAST, game_id""", f, params=(player,))


def player_costliest_moves(f: Filters, player: str) -> pd.DataFrame:
    """The player's ten costliest judged decisions (`move_quality_of`): their key moments."""
    return filtered("""
        SELECT game_id, game, played_on, round, line, move, best_move, cost, cost_se, band
        FROM move_quality_of({game_list}) WHERE player = ? AND band <> 'best'
        ORDER BY cost DESC, game_id, line LIMIT 10""", f, params=(player,))


def player_disputes(player: str) -> pd.DataFrame:
    """Every claimed score about the player that does not match the replay, newest first."""
    return query("""
        SELECT c.game_id, g.file_name, c.line, coalesce(CAST(c.round AS VARCHAR), 'totals')
                   AS round, c.claimed, c.computed, c.derivation
        FROM claims c JOIN games g USING (game_id)
        WHERE c.player = ? AND NOT c.match ORDER BY g.played_on DESC NULLS LAST, c.game_id,
              c.line""", (player,))
