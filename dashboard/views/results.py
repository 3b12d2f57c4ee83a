"""Results: totals, winners, score distributions and win rates in all four games."""

import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Results")
st.caption("under_the_radar is won by the lowest total; the other games by the highest. "
           "Complete games count, whether replayed from their moves or entered as a score "
           "sheet.")
f = ui.filters()


def render() -> None:
    rates = data.filtered("""
        SELECT g.game, p.player, count(*) AS games,
               count(*) FILTER (WHERE p.is_winner) AS wins,
               round(count(*) FILTER (WHERE p.is_winner) / count(*), 3) AS win_rate,
               round(avg(p.total), 2) AS mean_total
        FROM players p JOIN games g USING (game_id)
        WHERE g.status IN ('complete', 'sheet') AND g.game_id IN ({games}) AND {players}
        GROUP BY g.game, p.player ORDER BY g.game, win_rate DESC, p.player""", f,
        player_column="p.player")
    if ui.empty(rates, "complete games"):
        return
    games = sorted(rates["game"].unique())
    for game, tab in zip(games, st.tabs(games)):
        with tab:
            rg = rates[rates["game"] == game]
            top = rg.iloc[0]
            st.metric(f"Best win rate in {game}", top["player"],
                      f"{top['win_rate']:.0%} of {int(top['games'])} games")
            st.plotly_chart(px.bar(rg.head(25), x="player", y="win_rate",
                                   title=f"Win rate per player — {game}"),
                            width="stretch")
            totals = data.filtered("""
                SELECT p.total FROM players p JOIN games g USING (game_id)
                WHERE g.status IN ('complete', 'sheet') AND g.game_id IN ({games}) AND {players}""",
                f, game=game, player_column="p.player")
            st.plotly_chart(px.histogram(totals, x="total", nbins=40,
                                         title=f"Distribution of final totals — {game}"),
                            width="stretch")
            recent = data.filtered("""
                SELECT g.game_id, coalesce(g.played_on, CAST(g.ingested_at AS DATE)) AS played,
                       g.n_players, array_to_string(g.winners, ', ') AS winners,
                       string_agg(p.player || ' ' || p.total, ', ' ORDER BY p.seat) AS totals
                FROM games g JOIN players p USING (game_id)
                WHERE g.status IN ('complete', 'sheet') AND g.game_id IN ({games})
                GROUP BY ALL ORDER BY played DESC, g.game_id LIMIT 50""", f, game=game)
            st.dataframe(recent, hide_index=True, width="stretch")
            st.dataframe(rg, hide_index=True, width="stretch")


ui.guarded(render)
