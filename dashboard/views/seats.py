"""Seat and order effects: does where you sit, or leading first, change your score?"""

import plotly.express as px
import streamlit as st

from trickledger.dashboard import data, game_parts, ui

ui.page("Seat effects")
f = ui.filters()
LOW = game_parts.lowest_wins()
st.caption("Each round, every player's score is compared with the table's mean in that "
           "round: with no seat effect the bars stay at 0. Seats are counted clockwise from "
           "the dealer: 1 is the dealer's left, who in most games leads (or bids) first. The "
           "first leader is who led the round's first trick: the dealer's left, unless the "
           "game's rules choose another (an elected leader, the highest total). "
           + (f"In {ui.md(LOW)} the lowest total wins, so below 0 is good. " if LOW else "")
           + "Bars show ±1.96 standard errors. " + ui.md(f.counted()))


def render() -> None:
    seats = data.seat_effects(f)
    if ui.empty(seats, "scored rounds"):
        return
    leaders = data.leader_effects(f)
    games = sorted(seats["game"].unique())
    game = ui.game_choice(games, key="seats_game")
    sg = seats[seats["game"] == game].copy()
    sg["seat"] = [_seat(int(s)) for s in sg["seat_from_dealer"]]
    fig = px.bar(sg, x="seat", y="mean_above_table", error_y=1.96 * sg["se"],
                 hover_data={"rounds": True},
                 labels={"seat": "seat, clockwise from the dealer",
                         "mean_above_table": "points above the table's mean"},
                 title="Score by seat against the no-effect line (0)")
    fig.add_hline(y=0, line_dash="dot", annotation_text="no effect")
    left, right = st.columns(2)
    ui.chart(left, fig, width="stretch", key=f"seats_{game}")
    lg = leaders[leaders["game"] == game].copy()
    if len(lg):
        lg["leader"] = [
            ("round 1" if first else "later rounds") + ", " +
            ("left of the dealer" if left_of else "another seat")
            for first, left_of in zip(lg["first_round"], lg["leader_left_of_dealer"])]
        fig2 = px.bar(lg, x="leader", y="mean_above_table", error_y=1.96 * lg["se"],
                      hover_data={"rounds": True},
                      labels={"leader": "who led first",
                              "mean_above_table": "points above the table's mean"},
                      title="The first leader's score against the no-effect line")
        fig2.add_hline(y=0, line_dash="dot", annotation_text="no effect")
        ui.chart(right, fig2, width="stretch", key=f"leaders_{game}")
    rounds = int(sg["rounds"].sum() // max(len(sg), 1))
    st.caption(f"About {ui.count(rounds, 'round')} per seat.")


def _seat(k: int) -> str:
    return "dealer" if k == 0 else f"{k} left of the dealer"


ui.guarded(render)
