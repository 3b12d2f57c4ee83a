"""plotters' part of the dashboard: the queries of its pages (Splits, Early ends: the scripts
beside this module, named by the game's declaration) and its part of the Player page."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from trickledger.dashboard import data
from trickledger.dashboard.data import Filters


def splits_by_player(f: Filters) -> pd.DataFrame:
    """Per player: first picks and the rest against chance (`split_stats_of`)."""
    return data.filtered("SELECT * FROM split_stats_of({game_list}) WHERE {players} "
                    "ORDER BY player", f, player_column="player")


def split_takes_by_table(f: Filters) -> pd.DataFrame:
    """Per table size and take (first pick, the rest): cards taken, placed open, kept, per
    take of a finished round (`split_take_sums`, the takes summed per game)."""
    return data.filtered("""
        SELECT CASE role WHEN 'first_pick' THEN 'first pick' ELSE 'the rest' END AS take,
               g.n_players, CAST(sum(takes) AS BIGINT) AS takes,
               round(sum(cards) / sum(takes), 2) AS cards,
               round(sum(placed_open) / sum(takes), 2) AS placed_open,
               round(sum(kept) / sum(takes), 2) AS kept
        FROM split_take_sums t JOIN games g USING (game_id)
        WHERE t.game_id IN ({games})
        GROUP BY ALL ORDER BY g.n_players, take""", f)


def early_ends(f: Filters) -> pd.DataFrame:
    """Every round of a game that can end early, and how it ended (`early_ends_of`)."""
    return data.filtered("SELECT * FROM early_ends_of({game_list})", f)


def early_ends_by_table(f: Filters) -> pd.DataFrame:
    """Per table size: the share of rounds ended early, with its 95 % interval."""
    return data.filtered("""
        SELECT n_players, count(*) AS rounds, count(*) FILTER (WHERE ended_early) AS early,
               round(avg(CASE WHEN ended_early THEN 1 ELSE 0 END), 4) AS early_share,
               round(wilson_low(count(*) FILTER (WHERE ended_early), count(*)), 4) AS low,
               round(wilson_high(count(*) FILTER (WHERE ended_early), count(*)), 4) AS high
        FROM early_ends_of({game_list}) GROUP BY n_players ORDER BY n_players""", f)


def early_ends_by_player(f: Filters) -> pd.DataFrame:
    """Per player: who could not play and who caused it (`early_end_players_of`)."""
    return data.filtered("""
        SELECT * FROM early_end_players_of({game_list}) WHERE {players}
        ORDER BY could_not_play DESC, caused DESC, player""", f, player_column="player")


def player_splits(f: Filters, player: str) -> pd.DataFrame:
    """The player's first picks and the rest (`split_stats_of`)."""
    return data.filtered("SELECT * FROM split_stats_of({game_list}) WHERE player = ?", f,
                    params=(player,))


def player_early_ends(f: Filters, player: str) -> pd.DataFrame:
    """The early ends the player could not play or caused (`early_end_players_of`)."""
    return data.filtered("SELECT * FROM early_end_players_of({game_list}) WHERE player = ?",
                    f, params=(player,))


def player_section(f: Filters, player: str) -> None:
    """The player's first picks, the rest and early ends (the Player page's part about
    plotters)."""
    split = player_splits(f, player)
    early = player_early_ends(f, player)
    if split.empty and early.empty:
        return
    st.subheader("Splits and early ends")
    left, right = st.columns(2)
    if len(split):
        s = split.iloc[0]
        left.metric("Picks first", f"{s['first_share']:.1%} of tricks",
                    f"chance {s['first_baseline']:.1%}", delta_color="off", delta_arrow="off")
        if s["splits_played"]:
            left.metric("Gets the rest", f"{s['second_share']:.1%} of splits",
                        f"chance {s['second_baseline']:.1%}", delta_color="off", delta_arrow="off")
        left.metric("Cards kept (that scored)",
                    f"{int(s['first_kept'] + s['second_kept']):,} of "
                    f"{int(s['first_cards'] + s['second_cards']):,} taken")
    if len(early):
        e = early.iloc[0]
        right.metric("Could not play (ended the round)", f"{int(e['could_not_play']):,}",
                     f"by chance {e['expected_each']:.1f}", delta_color="off", delta_arrow="off")
        right.metric("Caused an early end (played the last card)", f"{int(e['caused']):,}",
                     f"by chance {e['expected_each']:.1f}", delta_color="off", delta_arrow="off")
        if e["early_rounds"] and e["mean_when_full"] == e["mean_when_full"]:
            right.metric("Points lost per early end", f"{e['points_lost']:.1f}",
                         help="Mean round score in full rounds minus in rounds that ended "
                              "early; below 0: they scored more when rounds ended early.")
