"""Early ends: how often, when, who could not play, whose card caused it, who pays."""

import plotly.express as px
import streamlit as st

from trickledger.dashboard import tables, ui
from trickledger.dashboard.games import plotters

ui.page("Early ends")
f = ui.filters()
st.caption("Plotters: a round ends at once when the next player holds only the colour a "
           "three-colour trick cannot take. Two players are named: the one who **could not "
           "play**, and the one who **caused** it — who played the last card to the "
           "unfinished trick before the round ended. " + ui.md(f.counted(tricks=True)))


def render() -> None:
    rounds = plotters.early_ends(f)
    if ui.empty(rounds, "rounds of a game that can end early"):
        return
    total = len(rounds)
    early = rounds[rounds["ended_early"]]
    c1, c2, c3 = st.columns(3)
    c1.metric("Rounds ended early", f"{len(early):,} of {total:,}",
              f"{len(early) / total:.0%}", delta_color="off", delta_arrow="off")
    if len(early):
        c2.metric("Mean trick of an early end", f"{early['early_end_trick'].mean():.1f}")
        c3.metric("Cards in the unfinished trick", f"{early['cards_in_trick'].mean():.1f}",
                  help="On average: the cards discarded with the unfinished trick.")
    share = plotters.early_ends_by_table(f)
    share["table"] = [f"{n} players" for n in share["n_players"]]
    left, right = st.columns(2)
    ui.chart(left, px.bar(share, x="table", y="early_share",
                             error_y=share["high"] - share["early_share"],
                             error_y_minus=share["early_share"] - share["low"],
                             hover_data={"rounds": True, "early": True},
                             labels={"table": "table size", "early_share": "share ended early"},
                             title="Share of rounds ended early, by table size (95 % interval)"),
                      width="stretch")
    if len(early):
        when = early.groupby("early_end_trick").size().reset_index(name="rounds")
        ui.chart(right, px.bar(when, x="early_end_trick", y="rounds",
                                  labels={"early_end_trick": "trick in which the round ended",
                                          "rounds": "rounds"},
                                  title="In which trick rounds end early"), width="stretch")
    who = plotters.early_ends_by_player(f)
    most = int(who["rounds"].max()) if len(who) else 1
    min_rounds = ui.minimum("Minimum rounds played", most, key="early_min_rounds")
    who = who[who["rounds"] >= min_rounds]
    st.subheader("Who could not play, and who caused it")
    st.caption("Expected by chance: how often each would be named if early ends fell on "
               "any player at the table alike (1/n of the early-ended rounds they sat in). "
               "Points lost: their mean round score in full rounds minus in rounds that "
               "ended early.")
    tables.show(who, {"player": "player", "rounds": "rounds played",
                      "early_rounds": "ended early", "could_not_play": "could not play",
                      "caused": "caused", "expected_each": "each, by chance",
                      "mean_when_full": "mean, full rounds",
                      "mean_when_early": "mean, early ends",
                      "points_lost": "points lost"},
                players=("player",), decimals={"expected_each": 1})
    long = who.head(20).melt(id_vars="player", value_vars=["could_not_play", "caused"],
                             var_name="role", value_name="count")
    long["role"] = long["role"].map({"could_not_play": "could not play",
                                     "caused": "caused the end"})
    ui.chart(st, px.bar(long, x="player", y="count", color="role", barmode="group",
                           labels={"player": "player", "count": "rounds", "role": ""},
                           title="Early ends by player"), width="stretch")
    if len(early):
        st.subheader("The latest early ends")
        latest = early.sort_values(["played_on", "game_id", "round"],
                                   ascending=[False, True, True]).head(50).copy()
        latest["open"] = [tables.viewer_url(g, r, t, f"round {r}, trick {t}") for g, r, t in
                          zip(latest["game_id"], latest["round"], latest["early_end_trick"])]
        tables.show(latest, {"game_id": "game", "played_on": "played on",
                             "open": "see it in the viewer",
                             "could_not_play": "could not play",
                             "caused_by": "caused by", "causing_card": "with the card",
                             "n_players": "players"},
                    players=("could_not_play", "caused_by"), games=("game_id",),
                    links=("open",))


ui.guarded(render)
