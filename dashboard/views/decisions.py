"""Decisions: players ranked by the accuracy of their plays and bids (move_quality)."""

import streamlit as st

from trickledger.dashboard import data, game_parts, tables, ui

ui.page("Decisions")
LOW = game_parts.lowest_wins()
f = ui.filters()
st.caption("Every decision of a complete game — each play, bid, trump, pick, keep, placement "
           "— judged against its legal alternatives: the hidden cards are dealt again many "
           "times in ways that fit what the player had seen, and the greedy bot plays the "
           "round out after each alternative. **Accuracy** is the share of decisions within "
           "one standard error of the best; **average cost** is how many of the game's "
           "points a decision gave away on average"
           + (f" (in {LOW}, where fewer points are better, a cost is the points taken more)"
              if LOW else "")
           + ". A blunder costs a lot for sure, not by chance. Computed by "
           "`trickledger analyse --moves`; the judge is the project's greedy bot, not a "
           "perfect player (see docs/analytics.md). " + ui.md(f.counted(tricks=True)))


def render() -> None:
    board = data.decisions_by_player(f)
    if board.empty:
        judged = data.decisions_judged()
        if judged == 0:
            st.info("No decision has been judged yet: run `trickledger analyse --moves` "
                    "on this database.")
        else:
            st.info("None of the games the sidebar counts has judged decisions.")
        return
    most = int(board["games"].max())
    # a slider from 1 to 1 is refused by Streamlit: with one judged game there is no choice
    min_games = ui.minimum("Minimum games judged", most, key="decisions_min_games") \
        if most > 1 else 1
    games = sorted(board["game"].unique())
    for game, tab in zip(games, st.tabs([ui.md(data.game_title(g)) for g in games])):
        with tab:
            shown = board[(board["game"] == game) & (board["games"] >= min_games)]
            if shown.empty:
                st.info(f"Nobody has {ui.count(min_games, 'judged game')} here yet.")
                continue
            top = shown.iloc[0]
            ui.metric(st, f"Most accurate in {data.game_title(game)}", top["player"],
                      f"{top['accuracy']:.0%} of {ui.count(int(top['decisions']), 'decision')}",
                      delta_color="off", delta_arrow="off")
            tables.show(shown, {"player": "player", "accuracy": "accuracy",
                                "avg_cost": "average cost (points)",
                                "decisions": "decisions", "games": "games",
                                "inaccuracies": "inaccuracies", "mistakes": "mistakes",
                                "blunders": "blunders"},
                        players=("player",), percent=("accuracy",), decimals={"avg_cost": 2})


ui.guarded(render)
