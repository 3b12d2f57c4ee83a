"""Head-to-head: for each pair of players who met, how often each finished ahead."""

import plotly.express as px
import streamlit as st

from trickledger.dashboard import data, game_parts, tables, ui

ui.page("Head-to-head")
f = ui.filters()
LOW = game_parts.lowest_wins()
st.caption("Two players met when they sat at the same finished game; one is ahead when their "
           "total is better ("
           + (f"lower in {ui.md(LOW)}, higher elsewhere" if LOW else "higher") + "), and equal "
           "totals are a tie. One player's ahead is the other's behind. Finished games only. "
           + ui.md(f.counted()))


def render() -> None:
    pairs = data.head_to_head(f)
    if ui.empty(pairs, "finished games"):
        return
    games = sorted(pairs["game"].unique())
    c1, c2, c3 = st.columns(3)
    game = c1.selectbox("Game", games, format_func=data.game_title, key="h2h_game")
    of_game = pairs[pairs["game"] == game]
    people = sorted(of_game["player"].unique())
    wanted = st.query_params.get("player")
    start = people.index(wanted) if wanted in people else 0
    player = c2.selectbox("Player", people, index=start, key="h2h_player")
    most = int(of_game["games"].max())
    min_games = ui.minimum("Minimum games together", most, key="h2h_min_games", default=1,
                           where=c3)
    mine = of_game[(of_game["player"] == player) & (of_game["games"] >= min_games)].copy()
    tables.player_link(player, f"{player}'s page")
    if mine.empty:
        st.info(f"{ui.md(player)} met nobody {ui.count(min_games, 'time')} or more here.")
    else:
        mine["ahead_share"] = mine["ahead"] / mine["games"]
        mine = mine.sort_values(["ahead_share", "games", "opponent"],
                                ascending=[False, False, True])
        tables.show(mine, {"opponent": "opponent", "games": "games together",
                           "ahead": "ahead", "behind": "behind", "tied": "tied",
                           "ahead_share": "share ahead"},
                    players=("opponent",), percent=("ahead_share",))
        long = mine.melt(id_vars="opponent", value_vars=["ahead", "tied", "behind"],
                         var_name="result", value_name="count")
        ui.chart(st, px.bar(long, x="opponent", y="count", color="result",
                               labels={"opponent": "opponent", "count": "games",
                                       "result": f"{player} finished"},
                               title=f"{player} against each opponent"), width="stretch")
    regulars = of_game[of_game["games"] >= min_games]
    if len(regulars):
        grid = regulars.assign(share=regulars["ahead"] / regulars["games"]).pivot_table(
            index="player", columns="opponent", values="share")
        matrix = px.imshow(grid, text_auto=".0%" if len(grid) <= 12 else False, aspect="auto",
                           zmin=0, zmax=1,
                           # an even record (0.5) is a colour of its own, never the white
                           # of "never met"
                           color_continuous_scale=[(0.0, "#c0392b"), (0.5, "#f2b233"),
                                                   (1.0, "#2f6fdb")],
                           labels={"x": "opponent", "y": "player", "color": "share ahead"})
        # a heading of the page's own, not plotly's title: it wraps on a phone
        st.markdown("**Share of games the row player finished ahead of the column player**")
        # every name, upright and small (slanted, 30 of them ran into each other on a
        # phone), and the colour scale under the matrix, not beside it (a third of a
        # phone's width)
        matrix.update_layout(height=max(420, 22 * len(grid) + 200),
                             coloraxis_colorbar={"orientation": "h", "y": -0.02,
                                                 "yanchor": "top", "thickness": 12,
                                                 "len": 0.9, "title": {"side": "top"}},
                             margin={"l": 10, "r": 10, "t": 10, "b": 10})
        matrix.update_xaxes(tickangle=-90, dtick=1, tickfont={"size": 10}, side="top",
                            title=None)
        matrix.update_yaxes(dtick=1, tickfont={"size": 10}, title=None)
        ui.chart(st, matrix, width="stretch")
        st.caption("Red: always behind; amber: even (half the games ahead); blue: always "
                   "ahead; blank: never met at this minimum.")


ui.guarded(render)
