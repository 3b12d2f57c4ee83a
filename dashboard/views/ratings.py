"""Ratings: OpenSkill (Plackett–Luce) per game and player, game by game in played order."""

import plotly.express as px
import streamlit as st

from trickledger.dashboard import game_parts, tables, ui
from trickledger.dashboard.data import analyses, standings

ui.page("Ratings")
LOW = game_parts.lowest_wins()
st.caption("A multiplayer rating per game (OpenSkill, Plackett–Luce model), updated after "
           "every complete game in the order played — by date, undated games last, then by "
           "game id. Equal totals are a tie; "
           + (f"{LOW} ranks the lowest total first. " if LOW else "")
           + "Everyone starts at μ 25, σ 8.33; the rating shown is μ − 3σ, which rises as a "
           "player wins and as the model grows sure of them. Counts every complete game "
           "(disputed ones included) whatever the sidebar says: a rating is a history. "
           "The sidebar's game, table size and player choices pick who is shown.")
f = ui.filters()


def render() -> None:
    note = analyses.ensure_ratings()
    if note:
        st.warning(ui.md(note))
    rated = standings.ratings_by_game(f)
    if ui.empty(rated, "ratings"):
        return
    most = int(rated["games"].max())
    min_games = ui.minimum("Minimum games rated", most, key="ratings_min_games")
    games = sorted(rated["game"].unique())
    game = ui.game_choice(games, key="ratings_game")
    board = rated[(rated["game"] == game) & (rated["games"] >= min_games)]
    if board.empty:
        st.info(f"Nobody has {ui.count(min_games, 'rated game')} here yet.")
        return
    top = board.iloc[0]
    ui.metric(st, f"Highest rating in {game_parts.game_title(game)}", top["player"],
              f"{top['ordinal']:.1f} (μ {top['mu']:.1f}, σ {top['sigma']:.1f}) "
              f"after {ui.count(int(top['games']), 'game')}", delta_color="off", delta_arrow="off")
    tables.player_link(top["player"], f"{top['player']}'s page")
    tables.show(board, {"player": "player", "ordinal": "rating (μ − 3σ)",
                        "mu": "skill μ", "sigma": "uncertainty σ",
                        "games": "games rated", "last_played": "last played"},
                players=("player",),
                decimals={"ordinal": 2, "mu": 2, "sigma": 2})
    shown = board["player"].head(8).tolist()
    history = standings.rating_history(game, shown)
    ui.chart(st, px.line(history, x="seq", y="ordinal", color="player", render_mode="svg",
                            hover_data=["mu", "sigma", "played_on"],
                            labels={"seq": f"{game_parts.game_title(game)} games, in played order",
                                    "ordinal": "rating (μ − 3σ)", "player": "player"},
                            title="Rating history of the leaders"),
                    width="stretch", key=f"history_{game}")
    ui.thinned_note(history)


ui.guarded(render)
