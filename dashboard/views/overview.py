"""Overview: what is in the database, by game, and the latest uploads."""

import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Overview")
f = ui.filters()


def render() -> None:
    by_game = data.filtered("""
        WITH gs AS (SELECT game_id, game, rounds_played FROM games WHERE game_id IN ({games})),
        t AS (SELECT gs.game, count(*) AS tricks FROM tricks JOIN gs USING (game_id)
              GROUP BY gs.game),
        p AS (SELECT gs.game, count(DISTINCT player) AS players FROM players JOIN gs
              USING (game_id) GROUP BY gs.game)
        SELECT gs.game, count(*) AS games, CAST(sum(gs.rounds_played) AS BIGINT) AS rounds,
               coalesce(any_value(t.tricks), 0) AS tricks, any_value(p.players) AS players
        FROM gs LEFT JOIN t USING (game) LEFT JOIN p USING (game)
        GROUP BY gs.game ORDER BY gs.game""", f)
    people = data.filtered("""
        SELECT count(DISTINCT player) AS n FROM players WHERE game_id IN ({games})""", f)
    if ui.empty(by_game, "games"):
        return
    cols = st.columns(4)
    for col, key in zip(cols, ("games", "rounds", "tricks")):
        col.metric(key.capitalize(), f"{int(by_game[key].sum()):,}")
    cols[3].metric("Players", f"{int(people['n'].iloc[0]):,}")
    st.subheader("By game")
    st.dataframe(by_game, hide_index=True, width="stretch")
    st.plotly_chart(px.bar(by_game, x="game", y=["games", "rounds"], barmode="group",
                           title="Games and rounds by game"), width="stretch")

    verdicts = data.filtered("""
        SELECT status AS verdict, count(*) AS games FROM games WHERE game_id IN ({games})
        GROUP BY status
        UNION ALL
        SELECT 'disputed claims', count(*) FROM games
        WHERE game_id IN ({games}) AND claims_mismatched > 0
        ORDER BY verdict""", f)
    st.subheader("Verdicts")
    left, right = st.columns(2)
    left.dataframe(verdicts, hide_index=True, width="stretch")
    right.plotly_chart(px.bar(verdicts, x="verdict", y="games", title="Verdict counts"),
                       width="stretch")

    st.subheader("Recent uploads")
    recent = data.query("""
        SELECT file_name, status, game_id, size_bytes, ingested_at, error_line, error_message
        FROM logs ORDER BY ingested_at DESC, file_name LIMIT 20""")
    st.dataframe(recent, hide_index=True, width="stretch")


ui.guarded(render)
