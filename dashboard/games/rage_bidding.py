"""Bidding: who bids well, their bias, and — against what the hand could take — whether a
miss came from the bid or from the play."""

import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from trickledger.dashboard import auth, data, tables, ui
from trickledger.dashboard.games import rage

ui.page("Bidding")
f = ui.filters()
st.caption("Rage: bid error = tricks won − bid; below 0 means overbid. "
           + ui.md(f.counted(tricks=True)))

RULES = {"all": "every bidding rule", "open": "open (in turn, seeing earlier bids)",
         "hidden": "hidden (written down at once)", "secret": "secret (revealed at the end)"}


def render() -> None:
    c1, c2 = st.columns([3, 2])
    rule = c1.radio("Bidding rule", list(RULES), format_func=lambda r: RULES[r], horizontal=True,
                    key="bid_rule")
    pm1 = c2.radio("Plus or minus one", ["either", "with", "without"], horizontal=True,
                   key="bid_pm1", help="plus_minus_one: the bids may not add up to the "
                                       "number of tricks (the last bidder is constrained).")
    per = rage.bids_by_player(f, rule, pm1)
    if ui.empty(per, "bids"):
        return
    most = int(per["rounds"].max())
    min_rounds = ui.minimum("Minimum rounds for the leaderboard", most, key="min_rounds")
    board = per[per["rounds"] >= min_rounds].sort_values(
        ["exact_rate", "mean_abs_error", "player"], ascending=[False, True, True])
    m1, m2, m3 = st.columns(3)
    if not board.empty:
        best = board.iloc[0]
        ui.metric(m1, "Most accurate bidder", best["player"],
                  f"{best['exact_rate']:.0%} exact in {ui.count(int(best['rounds']), 'round')}",
                  delta_color="off", delta_arrow="off")
        with m1:
            tables.player_link(best["player"], f"{best['player']}'s page")
    m2.metric("Rounds bid", f"{int(per['rounds'].sum()):,}")
    m3.metric("Overall exact rate", f"{per['exact'].sum() / per['rounds'].sum():.1%}")
    st.subheader("Leaderboard")
    tables.show(board, {"player": "player", "rounds": "rounds", "exact": "exact bids",
                        "exact_rate": "exact rate", "exact_low": "95 % from",
                        "exact_high": "95 % to", "bias": "mean won − bid",
                        "mean_abs_error": "mean miss (tricks)", "overbids": "overbids",
                        "underbids": "underbids"},
                players=("player",), percent=("exact_rate", "exact_low", "exact_high"))
    ui.chart(st, px.bar(board, x="player", y="bias",
                           labels={"player": "player", "bias": "mean won − bid (tricks)"},
                           title="Bias: below 0 = overbids"), width="stretch")
    _against_the_hand(rule, pm1)
    _by_position(rule, pm1)
    by_size = rage.bids_by_hand_size(f, rule, pm1)
    by_trumps = rage.bids_by_trumps(f, rule, pm1)
    left, right = st.columns(2)
    ui.chart(left, px.line(by_size, x="hand_size", y="exact_rate", markers=True,
                              hover_data=["rounds", "bias"],
                              labels={"hand_size": "cards in hand", "exact_rate": "exact rate"},
                              title="Exact bids by hand size"), width="stretch")
    ui.chart(right, px.bar(by_trumps, x="trumps_held", y="bias", hover_data=["rounds"],
                              labels={"trumps_held": "trumps held (6 = 6 or more)",
                                      "bias": "mean won − bid"},
                              title="Bias by trumps held"), width="stretch")
    heat = rage.bids_against_tricks(f, rule, pm1)
    grid = heat.pivot_table(index="won", columns="bid", values="rounds", fill_value=0)
    if not grid.empty:
        # every count from 0 up, each cell 0 when it never happened: a number nobody won
        # is a row of zeros, not a blank row beside them
        grid = grid.reindex(index=range(0, int(max(grid.index)) + 1),
                            columns=range(0, int(max(grid.columns)) + 1), fill_value=0)
    ui.chart(st, px.imshow(grid, origin="lower", text_auto=True, aspect="auto",
                              labels={"x": "bid", "y": "tricks won", "color": "rounds"},
                              title="Bid against tricks won"), width="stretch")


def _against_the_hand(rule: str, pm1: str) -> None:
    st.subheader("Bidding against the hand")
    done, bids, lo, hi = rage.hand_coverage(f)
    times = f"{lo}" if lo == hi else f"{lo} to {hi}"
    st.caption(
        f"For each bid, the tricks the hand could be expected to take: the round is played "
        f"out {ui.md(times)} times with the player's real hand, the unseen cards dealt again at "
        "random to the others, the real trump, and the greedy bot bidding and playing every "
        "seat. The Monte-Carlo error ± is the standard error of that mean. Bidding error = "
        "bid − expected (above 0: bid more than the hand was worth); play "
        "error = won − expected (above 0: took more than the hand promised). "
        "Won − bid = play error − bidding error. See docs/analytics.md for the method and "
        "its calibration.")
    if not bids:
        return
    if done < bids:
        st.info(f"{done:,} of {ui.count(bids, 'bid')} here have a hand estimate. "
                f"`trickledger analyse` estimates the rest and keeps them in the database "
                f"(about half a second of CPU a hand; see docs/analytics.md).")
        # a write (the estimates are stored): for those who may write, like an upload
        if auth.visitor().may_write and st.button("Estimate 5 more rounds now",
                                                  key="estimate_now"):
            bar = st.progress(0.0, text="playing the rounds out…")

            def progress(k: int, total: int) -> None:
                bar.progress(min(1.0, k / max(total, 1)), text=f"{k:,} hands")

            data.estimate_hands(f, rounds=5, progress=progress)
            bar.empty()
            st.rerun()
    if not done:
        return
    per = rage.bids_against_hands(f, rule, pm1)
    if per.empty:
        st.info("No estimated bid under this filter.")
        return
    fig = go.Figure()
    fig.add_bar(x=per["player"], y=per["bidding_error"], name="bidding: bid − expected")
    fig.add_bar(x=per["player"], y=per["play_error"], name="play: won − expected")
    fig.add_hline(y=0, line_dash="dot")
    fig.update_layout(barmode="group", xaxis_title="player", yaxis_title="tricks per round",
                      title="Where the tricks went: the bid or the play (mean per round)")
    ui.chart(st, fig, width="stretch")
    tables.show(per, {"player": "player", "bids": "bids estimated",
                      "bidding_error": "bid − expected", "play_error": "won − expected",
                      "abs_bidding_error": "mean |bid − expected|",
                      "abs_play_error": "mean |won − expected|",
                      "bid_made_share": "playouts hitting the bid",
                      "mc_error": "Monte-Carlo error ±"},
                players=("player",), percent=("bid_made_share",),
                decimals={"bidding_error": 2, "play_error": 2, "abs_bidding_error": 2,
                          "abs_play_error": 2, "mc_error": 3})


def _by_position(rule: str, pm1: str) -> None:
    pos = rage.bids_by_position(f, rule, pm1)
    if pos.empty:
        return
    overall = float((pos["exact_rate"] * pos["rounds"]).sum() / pos["rounds"].sum())
    fig = px.bar(pos, x="bid_position", y="exact_rate", hover_data=["rounds"],
                 error_y=pos["high"] - pos["exact_rate"],
                 error_y_minus=pos["exact_rate"] - pos["low"],
                 labels={"bid_position": "bidding position (1 = the dealer's left, bids first)",
                         "exact_rate": "exact rate"},
                 title="Exact bids by bidding position (95 % interval)")
    fig.add_hline(y=overall, line_dash="dot", annotation_text="no effect: the overall rate",
                  annotation_position="bottom left")
    ui.chart(st, fig, width="stretch")


ui.guarded(render)
