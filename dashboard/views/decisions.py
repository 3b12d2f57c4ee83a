"""Decisions: players ranked by the accuracy of their plays and bids (move_quality)."""

import pandas as pd
import streamlit as st

from trickledger.dashboard import game_parts, tables, ui
from trickledger.dashboard.data import decisions

# decisions a player needs before the page names them the most accurate of a game: with
# fewer, one lucky game decides it (a share of 3 decisions is noise)
MIN_DECISIONS = 30

ui.page("Decisions")
LOW = game_parts.lowest_wins()
f = ui.filters()
st.caption("Every decision of a complete game — each play, bid, trump, pick, keep, placement "
           "— judged against its legal alternatives: the hidden cards are dealt again many "
           "times in ways that fit what the player had seen, and each alternative is played "
           "out (or, near the end of a round, solved exactly). **Accuracy** is the share of "
           "decisions where no alternative was surely better (by half the game's first "
           "threshold or more: closer is a tie); the others are **good** (worse, but "
           "by less than the game's first threshold for sure), **inaccuracies**, "
           "**mistakes** and **blunders**; **average cost** is how many of the game's points "
           "a decision gave away on average"
           + (f" (in {ui.md(LOW)}, where fewer points are better, a cost is the points taken "
              "more)" if LOW else "")
           + ". A blunder costs a lot for sure, not by chance. Computed by "
           "`trickledger analyse --moves`; after each move the judge has greedy bots play on "
           "until few enough cards are left to solve the rest of the round exactly, so it is "
           "not a perfect player (see docs/analytics.md). " + ui.md(f.counted(tricks=True)))


def render() -> None:
    board = decisions.decisions_by_player(f)
    if board.empty:
        judged = decisions.decisions_judged()
        if judged == 0:
            st.info("No decision has been judged yet: run `trickledger analyse --moves` "
                    "on this database.")
        else:
            st.info("None of the games the sidebar counts has judged decisions.")
        return
    board["best"] = (board["decisions"] - board["goods"] - board["inaccuracies"]
                     - board["mistakes"] - board["blunders"])
    games = sorted(board["game"].unique())
    for game, tab in zip(games, st.tabs([ui.md(game_parts.game_title(g)) for g in games])):
        with tab:
            _game(game, board[board["game"] == game])


def _game(game: str, mine: pd.DataFrame) -> None:
    title = game_parts.game_title(game)
    most = int(mine["games"].max())
    # 5 games by default (the docs' rule); while nobody has five, everybody is shown
    min_games = ui.minimum("Minimum games judged", most, key=f"decisions_min_games_{game}",
                           default=5 if most >= 5 else 1)
    shown = mine[mine["games"] >= min_games].sort_values(
        ["accuracy", "avg_cost", "player"], ascending=[False, True, True])
    if shown.empty:
        st.info(f"Nobody has {ui.count(min_games, 'judged game')} of {ui.md(title)} yet.")
        return
    named = shown[shown["decisions"] >= MIN_DECISIONS]
    if named.empty:
        st.caption(f"Nobody shown has {MIN_DECISIONS} judged decisions of {ui.md(title)} yet: too "
                   f"few to name the most accurate player.")
    else:
        top = named.iloc[0]
        ui.metric(st, f"Most accurate in {game_parts.game_title(game)} "
                  f"(at least {MIN_DECISIONS} decisions)",
                  top["player"],
                  f"{top['accuracy']:.0%} of {ui.count(int(top['decisions']), 'decision')}",
                  delta_color="off", delta_arrow="off")
    tables.show(shown, {"player": "player", "accuracy": "accuracy",
                        "avg_cost": "average cost (points)", "decisions": "decisions",
                        "games": "games", "best": "best", "goods": "good",
                        "inaccuracies": "inaccuracies", "mistakes": "mistakes",
                        "blunders": "blunders"},
                players=("player",), percent=("accuracy",), decimals={"avg_cost": 2},
                key=f"decisions_{game}")


ui.guarded(render)
