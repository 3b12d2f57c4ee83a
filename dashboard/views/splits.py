"""Splits (plotters): first winners, second winners, and what each took home."""

import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Splits")
st.caption("Plotters: the highest card of the led colour picks first; the lowest card of "
           "another colour gets the rest and leads next.")
f = ui.filters()


def render() -> None:
    stats = data.filtered("""
        WITH played AS (
            SELECT p.player, count(*) AS tricks_played FROM plays p
            WHERE p.game_id IN ({games}) AND p.kind = 'play' GROUP BY p.player
        ), took AS (
            SELECT player, role, count(*) AS n, sum(kept_cards) AS kept,
                   sum(n_cards - kept_cards) AS discarded
            FROM takes WHERE game_id IN ({games}) AND role IN ('first_pick', 'second')
            GROUP BY player, role
        )
        SELECT pl.player, pl.tricks_played,
               coalesce(max(n) FILTER (WHERE role = 'first_pick'), 0) AS first_wins,
               coalesce(max(n) FILTER (WHERE role = 'second'), 0) AS second_wins,
               coalesce(max(kept) FILTER (WHERE role = 'first_pick'), 0) AS first_kept,
               coalesce(max(discarded) FILTER (WHERE role = 'first_pick'), 0) AS first_discarded,
               coalesce(max(kept) FILTER (WHERE role = 'second'), 0) AS second_kept,
               coalesce(max(discarded) FILTER (WHERE role = 'second'), 0) AS second_discarded
        FROM played pl LEFT JOIN took t USING (player)
        WHERE {players}
        GROUP BY pl.player, pl.tricks_played
        ORDER BY pl.player""", f, game="plotters", player_column="pl.player")
    if ui.empty(stats, "plotters tricks"):
        return
    stats["second_share"] = (stats["second_wins"] / stats["tricks_played"]).round(3)
    stats["first_share"] = (stats["first_wins"] / stats["tricks_played"]).round(3)
    stuck = stats.sort_values(["second_share", "player"], ascending=[False, True]).iloc[0]
    c1, c2, c3 = st.columns(3)
    c1.metric("Stuck with the second half most", stuck["player"],
              f"{stuck['second_share']:.0%} of their tricks")
    c2.metric("First picks", f"{int(stats['first_wins'].sum()):,}")
    c3.metric("Second halves", f"{int(stats['second_wins'].sum()):,}")
    long = stats.melt(id_vars="player", value_vars=["first_share", "second_share"],
                      var_name="role", value_name="share of tricks played")
    st.plotly_chart(px.bar(long, x="player", y="share of tricks played", color="role",
                           barmode="group",
                           title="How often each player wins first pick or gets the rest"),
                    width="stretch")
    took = stats.melt(id_vars="player", value_vars=["first_kept", "first_discarded",
                                                    "second_kept", "second_discarded"],
                      var_name="cards", value_name="count")
    st.plotly_chart(px.bar(took, x="player", y="count", color="cards",
                           title="Cards taken: onto kept-colour stacks vs the discard pile"),
                    width="stretch")
    value = data.filtered("""
        SELECT role, round(avg(kept_cards), 3) AS kept_cards_per_take,
               round(avg(n_cards - kept_cards), 3) AS discarded_per_take, count(*) AS takes
        FROM takes WHERE game_id IN ({games}) AND role IN ('first_pick', 'second')
        GROUP BY role ORDER BY role""", f, game="plotters")
    st.subheader("The value of first pick")
    st.dataframe(value, hide_index=True, width="stretch")
    st.dataframe(stats.sort_values("second_share", ascending=False), hide_index=True,
                 width="stretch")


ui.guarded(render)
