"""Toy high card's part of trickledger's dashboard: the queries of its page (`page.py`), and
its parts of trickledger's Player page and game viewer (named by `GameInfo.dashboard`).
Queries go through trickledger's `data.filtered` (the sidebar's filter) and `data.query`,
with every value a parameter."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from trickledger.dashboard import data, ui
from trickledger.dashboard.data import Filters


def boasts_by_player(f: Filters) -> pd.DataFrame:
    """Per player: boasts, how many came true (from move logs) and the share."""
    return data.filtered("""
        SELECT player, count(*) AS boasts, count(made) AS judged,
               count(*) FILTER (WHERE made) AS came_true,
               ratio(count(*) FILTER (WHERE made), count(made), 3) AS true_share
        FROM toy_boasts_made WHERE game_id IN ({games}) AND {players}
        GROUP BY player ORDER BY boasts DESC, player""", f, player_column="player")


def player_boasts(f: Filters, player: str) -> pd.DataFrame:
    """The player's boasts and how many came true."""
    return data.filtered("""
        SELECT count(*) AS boasts, count(made) AS judged,
               count(*) FILTER (WHERE made) AS came_true
        FROM toy_boasts_made WHERE game_id IN ({games}) AND player = ?""", f,
                         params=(player,))


def round_boasts(game_id: str, round_no: int) -> pd.DataFrame:
    """Who boasted in a round, and whether it came true."""
    return data.query("""
        SELECT player, line, made AS "came true" FROM toy_boasts_made
        WHERE game_id = ? AND round = ? ORDER BY line""", (game_id, round_no))


def player_section(f: Filters, player: str) -> None:
    """The player's boasts (the Player page's part about Toy high card)."""
    got = player_boasts(f, player)
    if got.empty or not int(got["boasts"].iloc[0]):
        return
    row = got.iloc[0]
    st.subheader("Boasts (Toy high card)")
    c1, c2 = st.columns(2)
    c1.metric("Boasts", f"{int(row['boasts']):,}")
    judged = int(row["judged"])
    c2.metric("Came true", f"{int(row['came_true']):,} of {judged:,}" if judged else "—",
              help="A boast comes true when its player takes the round's first trick "
                   "(a score sheet does not say).")


def round_section(game_id: str, round_no: int) -> None:
    """The round's boast (the game viewer's part about Toy high card)."""
    boasts = round_boasts(game_id, round_no)
    if not boasts.empty:
        st.subheader("Boast")
        st.markdown(", ".join(f"{ui.md(p)} boasted (line {int(line)})"
                              for p, line in zip(boasts["player"], boasts["line"])))
