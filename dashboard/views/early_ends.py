"""Early ends (plotters): how often, when, who ends them, who pays."""

import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Early ends")
st.caption("A plotters round ends at once when the next player holds only the colour a "
           "three-colour trick cannot take.")
f = ui.filters()


def render() -> None:
    share = data.filtered("""
        SELECT g.n_players, count(*) AS rounds,
               count(*) FILTER (WHERE r.ended_early) AS early,
               round(avg(CASE WHEN r.ended_early THEN 1 ELSE 0 END), 3) AS early_share
        FROM rounds r JOIN games g USING (game_id)
        WHERE r.game_id IN ({games}) AND r.ended_early IS NOT NULL
        GROUP BY g.n_players ORDER BY g.n_players""", f, game="plotters")
    if ui.empty(share, "plotters rounds"):
        return
    total_rounds = int(share["rounds"].sum())
    early = int(share["early"].sum())
    c1, c2 = st.columns(2)
    c1.metric("Rounds ended early", f"{early:,} of {total_rounds:,}",
              f"{early / total_rounds:.0%}")
    share["players"] = share["n_players"].astype(str)
    c2.plotly_chart(px.bar(share, x="players", y="early_share",
                           title="Share of rounds ended early by table size"),
                    width="stretch")
    tricks = data.filtered("""
        SELECT early_end_trick AS trick, count(*) AS rounds FROM rounds
        WHERE game_id IN ({games}) AND ended_early GROUP BY 1 ORDER BY 1""", f,
        game="plotters")
    st.plotly_chart(px.bar(tricks, x="trick", y="rounds",
                           title="In which trick rounds end early"), width="stretch")
    enders = data.filtered("""
        SELECT early_end_player AS player, count(*) AS rounds_ended FROM rounds
        WHERE game_id IN ({games}) AND ended_early AND {players}
        GROUP BY 1 ORDER BY 2 DESC, 1""", f, game="plotters", player_column="early_end_player")
    lost = data.filtered("""
        SELECT s.player,
               round(avg(s.score) FILTER (WHERE r.ended_early), 2) AS mean_when_early,
               round(avg(s.score) FILTER (WHERE NOT r.ended_early), 2) AS mean_when_full,
               round(coalesce(avg(s.score) FILTER (WHERE NOT r.ended_early), 0)
                     - coalesce(avg(s.score) FILTER (WHERE r.ended_early), 0), 2) AS points_lost,
               count(*) FILTER (WHERE r.ended_early) AS early_rounds
        FROM round_scores s JOIN rounds r USING (game_id, round)
        WHERE s.game_id IN ({games}) AND {players}
        GROUP BY s.player HAVING count(*) FILTER (WHERE r.ended_early) > 0
        ORDER BY points_lost DESC, s.player""", f, game="plotters", player_column="s.player")
    left, right = st.columns(2)
    left.plotly_chart(px.bar(enders.head(20), x="player", y="rounds_ended",
                             title="Who could not play (ended the round)"),
                      width="stretch")
    right.plotly_chart(px.bar(lost.head(20), x="player", y="points_lost",
                              title="Points lost per round when it ends early"),
                       width="stretch")
    st.dataframe(lost, hide_index=True, width="stretch")


ui.guarded(render)
