"""Bidding (rage): who bids well, their bias, and where bids go wrong."""

import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Bidding")
st.caption("Rage: bid error = tricks won − bid; negative means overbid.")
f = ui.filters()


def render() -> None:
    per = data.filtered("""
        SELECT player, count(*) AS rounds,
               round(avg(CASE WHEN exact THEN 1 ELSE 0 END), 3) AS exact_rate,
               round(avg(bid_error), 3) AS bias,
               round(avg(abs(bid_error)), 3) AS mean_abs_error,
               count(*) FILTER (WHERE bid_error < 0) AS overbids,
               count(*) FILTER (WHERE bid_error > 0) AS underbids
        FROM bids WHERE game_id IN ({games}) AND {players}
        GROUP BY player ORDER BY player""", f, game="rage", player_column="player")
    if ui.empty(per, "rage bids"):
        return
    most = int(per["rounds"].max())
    min_rounds = st.slider("Minimum rounds for the leaderboard", 1, max(most, 1),
                           min(10, most), key="min_rounds")
    board = per[per["rounds"] >= min_rounds].sort_values(
        ["exact_rate", "mean_abs_error", "player"], ascending=[False, True, True])
    if not board.empty:
        best = board.iloc[0]
        c1, c2, c3 = st.columns(3)
        c1.metric("Most accurate bidder", best["player"], f"{best['exact_rate']:.0%} exact")
        c2.metric("Rounds bid", f"{int(per['rounds'].sum()):,}")
        c3.metric("Overall exact rate",
                  f"{(per['exact_rate'] * per['rounds']).sum() / per['rounds'].sum():.1%}")
    st.subheader("Leaderboard")
    st.dataframe(board, hide_index=True, width="stretch")
    st.plotly_chart(px.bar(per, x="player", y="bias",
                           title="Bias: mean bid error (below 0 = overbids)"),
                    width="stretch")
    by_size = data.filtered("""
        SELECT hand_size, round(avg(CASE WHEN exact THEN 1 ELSE 0 END), 3) AS exact_rate,
               round(avg(bid_error), 3) AS bias, count(*) AS rounds
        FROM bids WHERE game_id IN ({games}) AND {players}
        GROUP BY hand_size ORDER BY hand_size""", f, game="rage", player_column="player")
    by_trumps = data.filtered("""
        SELECT least(trumps_held, 6) AS trumps_held,
               round(avg(CASE WHEN exact THEN 1 ELSE 0 END), 3) AS exact_rate,
               round(avg(bid_error), 3) AS bias, count(*) AS rounds
        FROM bids WHERE game_id IN ({games}) AND {players}
        GROUP BY 1 ORDER BY 1""", f, game="rage", player_column="player")
    left, right = st.columns(2)
    left.plotly_chart(px.line(by_size, x="hand_size", y=["exact_rate", "bias"], markers=True,
                              title="Accuracy by hand size"), width="stretch")
    right.plotly_chart(px.bar(by_trumps, x="trumps_held", y=["exact_rate", "bias"],
                              barmode="group", title="Accuracy by trumps held (6 = 6+)"),
                       width="stretch")
    heat = data.filtered("""
        SELECT bid, won, count(*) AS rounds FROM bids
        WHERE game_id IN ({games}) AND {players} GROUP BY bid, won""", f, game="rage",
        player_column="player")
    grid = heat.pivot_table(index="won", columns="bid", values="rounds", fill_value=0)
    st.plotly_chart(px.imshow(grid, origin="lower", text_auto=True, aspect="auto",
                              labels={"x": "bid", "y": "tricks won", "color": "rounds"},
                              title="Bid against tricks won"), width="stretch")


ui.guarded(render)
