"""Overview: what is in the database, by game; how many games are disputed; the latest uploads."""

from dataclasses import replace

import pandas as pd
import plotly.express as px
import streamlit as st

from trickledger.dashboard import data, tables, ui

ui.page("Overview")
f = ui.filters()
st.caption(ui.md(f.counted()))


def render() -> None:
    by_game = data.totals_by_game(f)
    people = data.players_counted(f)
    # every status, whatever the sidebar counts: how many games are disputed or broken
    every = replace(f, statuses=data.STATUSES)
    verdicts = data.games_by_status(every)
    n_disputed = int(verdicts["disputed"].iloc[0]) if len(verdicts) else 0
    cols = st.columns(5)
    for col, key in zip(cols, ("games", "rounds", "tricks")):
        ui.metric(col, key.capitalize(), f"{int(by_game[key].sum()) if len(by_game) else 0:,}")
    cols[3].metric("Players", f"{people:,}")
    cols[4].metric("Disputed games", f"{n_disputed:,}",
                   help="Games whose score sheet disagrees with the replay in at least one "
                        "claim, whatever their status (the Game viewer marks them).")
    if n_disputed:
        st.warning(f"{ui.count(n_disputed, 'game')} {'has' if n_disputed == 1 else 'have'} a "
                   f"claimed score that disagrees with the replay (whatever its status; the "
                   f"table of statuses below counts a disputed game that is also illegal as "
                   f"illegal). Each link below opens the Game viewer at its first disputed "
                   f"round, with each claim, the computed score and how it is made up.")
        with st.expander(f"The disputed games ({n_disputed:,}), newest first"):
            # the one a visitor just uploaded comes first, and a name finds any other
            wanted = st.text_input("Find a file or game id", key="disputed_find",
                                   placeholder="part of a file name or game id")
            disputed = data.disputed_games(every, wanted)
            disputed["open"] = [tables.viewer_url(g, r, None, f"round {r}") if pd.notna(r)
                                else tables.viewer_url(g, None, None, "the totals")
                                for g, r in zip(disputed["game_id"], disputed["first_round"])]
            if wanted and disputed.empty:
                st.info(ui.md(f"No disputed game's file or id holds “{wanted}”."))
            else:
                tables.show(disputed, {"open": "open it in the viewer", "file_name": "file",
                                       "game": "game", "status": "status",
                                       "claims": "claims that disagree",
                                       "ingested_at": "loaded at (UTC)"},
                            links=("open",), key="disputed_games")
                if len(disputed) == 200:
                    st.caption("The 200 newest are shown: type a name to find older ones.")
    if ui.empty(by_game, "games"):
        return
    by_game["title"] = [data.game_title(g) for g in by_game["game"]]
    # a game of turns (Color Stacks) has no tricks: a dash, not a count of 0
    by_game["tricks"] = by_game["tricks"].astype("Int64").where(by_game["tricks"] > 0)
    st.subheader("By game")
    tables.show(by_game, {"title": "game", "games": "games", "rounds": "rounds played",
                          "tricks": "tricks", "players": "different players"})
    long = by_game.melt(id_vars="title", value_vars=["games", "rounds"], var_name="what",
                        value_name="count")
    ui.chart(st, px.bar(long, x="title", y="count", color="what", barmode="group",
                           labels={"title": "game", "count": "count", "what": ""},
                           title="Games and rounds by game"), width="stretch")

    st.subheader("Games by status")
    st.caption("Every game is counted as exactly one of these; statistics count the statuses "
               "chosen in the sidebar (complete, disputed and score sheets by default). This table counts "
               "all of them.")
    counts = dict(zip(verdicts["counted_as"], verdicts["games"]))
    status_rows = pd.DataFrame({
        "status": [data.STATUS_LABELS[s] for s in data.STATUSES],
        "games": [int(counts.get(s, 0)) for s in data.STATUSES],
        "counted": ["yes" if s in f.statuses else "no" for s in data.STATUSES]})
    left, right = st.columns(2)
    with left:
        tables.show(status_rows, {"status": "status", "games": "games",
                                  "counted": "counted by the statistics now"})
    ui.chart(right, px.bar(status_rows, x="status", y="games",
                              labels={"status": "status", "games": "games"},
                              title="Games by status"), width="stretch")

    st.subheader("Recent uploads")
    recent = data.recent_uploads()
    tables.show(recent, {"file_name": "file", "status": "status",
                         "error_message": "message", "error_line": "line", "game_id": "game",
                         "ingested_at": "loaded at (UTC)", "size_bytes": "bytes"},
                games=("game_id",))


ui.guarded(render)
st.caption(f"Replays on this server run on the engine {ui.md(ui.engine())}.")
