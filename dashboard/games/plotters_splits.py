"""Splits: who wins first pick, who gets the rest, against the 1/n of chance; what each
take brings home."""

import plotly.graph_objects as go
import streamlit as st

from trickledger.dashboard import tables, ui
from trickledger.dashboard.games import plotters

ui.page("Splits")
f = ui.filters()
st.caption("Plotters: the highest card of the led colour picks first; the lowest card of "
           "another colour gets the rest and leads next. A trick whose cards all have the "
           "led colour is not split. Shares are per trick played (first pick) and per split "
           "played (the rest); tricks cut short by an early end are counted apart. "
           "At a table of n, chance alone gives each player 1/n of both. " + ui.md(f.counted(tricks=True)))


def render() -> None:
    stats = plotters.splits_by_player(f)
    if ui.empty(stats, "split tricks"):
        return
    most = int(stats["games"].max())
    min_games = ui.minimum("Minimum games for the leaderboard", most, key="split_min_games")
    board = stats[stats["games"] >= min_games].copy()
    board["second_vs_chance"] = board["second_halves"] / board["expected_second_halves"]
    board["first_vs_chance"] = board["first_picks"] / board["expected_first_picks"]
    c1, c2, c3, c4 = st.columns(4)
    if not board.empty:
        stuck = board.sort_values(["second_vs_chance", "player"],
                                  ascending=[False, True]).iloc[0]
        ui.metric(c1, "Stuck with the rest most", stuck["player"],
                  f"{stuck['second_vs_chance']:.2f}× chance "
                  f"({int(stuck['second_halves']):,} of {int(stuck['splits_played']):,} "
                  f"splits)",
                  delta_color="off", delta_arrow="off")
        with c1:
            tables.player_link(stuck["player"], f"{stuck['player']}'s page")
    c2.metric("First picks", f"{int(stats['first_picks'].sum()):,}",
              help="One per finished trick.")
    c3.metric("Tricks split", f"{int(stats['second_halves'].sum()):,}",
              help="Finished tricks with a second winner (not all of the led colour).")
    c4.metric("Unfinished tricks played to", f"{int(stats['unfinished_tricks'].sum()):,}",
              help="Cards played to tricks that never finished (an early end, or a log "
                   "that stops): they are in no share.")
    if board.empty:
        st.info(f"No player has {ui.count(min_games, 'game')} yet; lower the minimum.")
        return
    st.subheader("Against chance")
    st.caption("1.0 = as often as chance at the tables they sat at (1/n of the tricks and "
               "splits they played); the bars show a 95 % interval for the rest.")
    board = board.sort_values(["second_vs_chance", "player"], ascending=[False, True])
    fig = go.Figure()
    low = board["second_share_low"] / board["second_baseline"]
    high = board["second_share_high"] / board["second_baseline"]
    fig.add_bar(x=board["player"], y=board["second_vs_chance"], name="gets the rest",
                error_y={"type": "data", "array": high - board["second_vs_chance"],
                         "arrayminus": board["second_vs_chance"] - low})
    fig.add_bar(x=board["player"], y=board["first_vs_chance"], name="picks first")
    fig.add_hline(y=1.0, line_dash="dot", annotation_text="chance (1/n)",
                  annotation_position="top left")
    fig.update_layout(barmode="group", xaxis_title="player",
                      yaxis_title="times as often as chance",
                      title="How often each player picks first or gets the rest, against chance")
    ui.chart(st, fig, width="stretch")
    tables.show(board, {
        "player": "player", "games": "games", "tricks_played": "tricks played",
        "first_picks": "first picks", "expected_first_picks": "by chance",
        "first_share": "first-pick share", "splits_played": "splits played",
        "second_halves": "got the rest", "expected_second_halves": "by chance",
        "second_share": "share of splits", "second_share_low": "95 % from",
        "second_share_high": "95 % to", "unfinished_tricks": "unfinished tricks",
    }, players=("player",), percent=("first_share", "second_share", "second_share_low",
                                     "second_share_high"),
        decimals={"expected_first_picks": 1, "expected_second_halves": 1})

    st.subheader("What a take brings home")
    st.caption("Kept cards are cards that end up scoring: on one of the two stacks that are "
               "multiplied when the round is scored. Placed open counts the cards that went "
               "onto an open stack at the take, including those turned face down later by "
               "a keep (the one this take triggered, or a later one).")
    value = plotters.split_takes_by_table(f)
    tables.show(value, {"n_players": "players at the table", "take": "take",
                        "takes": "takes", "cards": "cards per take",
                        "placed_open": "placed open per take",
                        "kept": "kept (scoring) per take"})
    per_take = board.assign(
        first=board["first_kept"] / board["first_picks"].where(board["first_picks"] > 0),
        rest=board["second_kept"] / board["second_halves"].where(board["second_halves"] > 0))
    fig2 = go.Figure()
    fig2.add_bar(x=per_take["player"], y=per_take["first"], name="from a first pick")
    fig2.add_bar(x=per_take["player"], y=per_take["rest"], name="from the rest")
    fig2.update_layout(barmode="group", xaxis_title="player",
                       yaxis_title="cards that scored, per take",
                       title="Cards that ended up scoring, per take")
    ui.chart(st, fig2, width="stretch")


ui.guarded(render)
