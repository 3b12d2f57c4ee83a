"""Boasts: who boasts in Toy high card, and how often the boast comes true (the game's page in
trickledger's dashboard, declared in `GameInfo.pages`)."""

import plotly.express as px
import streamlit as st

from toy_high_card import dashboard
from trickledger.dashboard import tables, ui

ui.page("Boasts")
f = ui.filters()
st.caption("Toy high card: before the first card of a round its leader may boast that they "
           "will take the first trick, for a point more if they do and a point less if they "
           "do not. A boast comes true when its player takes that trick. "
           + f.counted(tricks=True))


def render() -> None:
    per = dashboard.boasts_by_player(f)
    if ui.empty(per, "boasts"):
        return
    c1, c2 = st.columns(2)
    c1.metric("Boasts", f"{int(per['boasts'].sum()):,}")
    judged = int(per["judged"].sum())
    c2.metric("Came true", f"{int(per['came_true'].sum()) / judged:.0%}" if judged else "—",
              help="Of the boasts of move logs (a score sheet does not say).")
    tables.show(per, {"player": "player", "boasts": "boasts", "came_true": "came true",
                      "judged": "from move logs", "true_share": "share that came true"},
                players=("player",), percent=("true_share",))
    bars = per.rename(columns={"came_true": "came true"})  # the legend's words
    ui.chart(st, px.bar(bars, x="player", y=["boasts", "came true"], barmode="group",
                        labels={"player": "player", "value": "boasts", "variable": ""},
                        title="Boasts, and those that came true"), width="stretch")


ui.guarded(render)
