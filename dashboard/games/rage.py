"""rage's part of the dashboard: the queries of its page (Bidding: the script beside this
module, named by the game's declaration), its part of the Player page and of the game
viewer's round."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from trickledger.dashboard import data, ui
from trickledger.dashboard.data import Filters

# a bidding rule is one of these or "all"; plus_minus_one "with", "without" or "either"
_BIDS_UNDER = "(? = 'all' OR bidding = ?) AND (? = 'either' OR plus_minus_one = (? = 'with'))"


def _bid_query(sql: str, f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """`sql` over the bids of the filtered players, `{rule}` standing for the rule chosen."""
    return data.filtered(sql.replace("{rule}", _BIDS_UNDER), f, player_column="player",
                    params=(rule, rule, pm1, pm1))


def bids_by_player(f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """Per player: exact bids, bias and misses (`bid_rounds_of`)."""
    return _bid_query("""
        SELECT player, count(*) AS rounds, count(*) FILTER (WHERE exact) AS exact,
               avg(CASE WHEN exact THEN 1 ELSE 0 END) AS exact_rate,
               wilson_low(count(*) FILTER (WHERE exact), count(*)) AS exact_low,
               wilson_high(count(*) FILTER (WHERE exact), count(*)) AS exact_high,
               round(avg(bid_error), 3) AS bias, round(avg(abs(bid_error)), 3) AS mean_abs_error,
               count(*) FILTER (WHERE bid_error < 0) AS overbids,
               count(*) FILTER (WHERE bid_error > 0) AS underbids
        FROM bid_rounds_of({game_list}) WHERE {players} AND {rule}
        GROUP BY player ORDER BY player""", f, rule, pm1)


def bids_by_hand_size(f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """Per hand size: the exact rate and bias of the bids."""
    return _bid_query("""
        SELECT hand_size, avg(CASE WHEN exact THEN 1 ELSE 0 END) AS exact_rate,
               avg(bid_error) AS bias, count(*) AS rounds
        FROM bid_rounds_of({game_list}) WHERE {players} AND {rule}
        GROUP BY hand_size ORDER BY hand_size""", f, rule, pm1)


def bids_by_trumps(f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """Per number of trumps held (6 = 6 or more): the exact rate and bias of the bids."""
    return _bid_query("""
        SELECT least(trumps_held, 6) AS trumps_held,
               avg(CASE WHEN exact THEN 1 ELSE 0 END) AS exact_rate,
               avg(bid_error) AS bias, count(*) AS rounds
        FROM bid_rounds_of({game_list}) WHERE {players} AND {rule}
        GROUP BY 1 ORDER BY 1""", f, rule, pm1)


def bids_against_tricks(f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """Per bid and tricks won: how many rounds."""
    return _bid_query("""
        SELECT bid, won, count(*) AS rounds FROM bid_rounds_of({game_list})
        WHERE {players} AND {rule} GROUP BY bid, won""", f, rule, pm1)


def bids_by_position(f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """Per bidding position: the exact rate with its 95 % interval."""
    return _bid_query("""
        SELECT bid_position, count(*) AS rounds,
               avg(CASE WHEN exact THEN 1 ELSE 0 END) AS exact_rate,
               wilson_low(count(*) FILTER (WHERE exact), count(*)) AS low,
               wilson_high(count(*) FILTER (WHERE exact), count(*)) AS high
        FROM bid_rounds_of({game_list}) WHERE {players} AND {rule}
        GROUP BY bid_position ORDER BY bid_position""", f, rule, pm1)


def bids_against_hands(f: Filters, rule: str, pm1: str) -> pd.DataFrame:
    """Per player: the bid and the play against what the hand could take (`bid_vs_hand_of`)."""
    return _bid_query("""
        SELECT player, count(*) AS bids, avg(bidding_error) AS bidding_error,
               avg(play_error) AS play_error, avg(abs(bidding_error)) AS abs_bidding_error,
               avg(abs(play_error)) AS abs_play_error, avg(expected_se) AS mc_error,
               avg(bid_made_share) AS bid_made_share
        FROM bid_vs_hand_of({game_list}) WHERE {players} AND {rule}
        GROUP BY player ORDER BY player""", f, rule, pm1)


def hand_coverage(f: Filters) -> tuple[int, int, int, int]:
    """(bids with a hand estimate, settled bids, fewest and most playouts of those
    estimates) among the filtered games."""
    rows = data.filtered("""
        SELECT count(*) AS bids, count(h.sha256) AS estimated,
               coalesce(min(h.playouts), 200) AS lo, coalesce(max(h.playouts), 200) AS hi
        FROM bids b JOIN games g USING (game_id)
        LEFT JOIN hand_estimates h ON h.sha256 = g.sha256 AND h.round = b.round
             AND h.player = b.player
        WHERE b.game_id IN ({games})""", f)
    r = rows.iloc[0]
    return int(r["estimated"]), int(r["bids"]), int(r["lo"]), int(r["hi"])


def player_bid_accuracy(f: Filters, player: str) -> pd.DataFrame:
    """The player's exact bids and mean miss (`bid_accuracy_of`)."""
    return data.filtered("SELECT * FROM bid_accuracy_of({game_list}) WHERE player = ?", f,
                    params=(player,))


def player_bids_against_hands(f: Filters, player: str) -> pd.DataFrame:
    """The player's bid and play against what the hands could take (`bid_vs_hand_of`)."""
    return data.filtered("""
        SELECT count(*) AS bids, avg(bidding_error) AS bidding, avg(play_error) AS play,
               avg(abs(bidding_error)) AS abs_bidding, avg(abs(play_error)) AS abs_play
        FROM bid_vs_hand_of({game_list}) WHERE player = ?""", f, params=(player,))


def round_bids(game_id: str, round_no: int) -> pd.DataFrame:
    """Each player's bid and tricks won in a round."""
    return data.query("""SELECT player, bid, won, bid_error AS "won − bid", score FROM bids
                         WHERE game_id = ? AND round = ? ORDER BY player""", (game_id, round_no))


def player_section(f: Filters, player: str) -> None:
    """The player's bidding, and whether the bid or the play cost them (the Player page's
    part about rage)."""
    acc = player_bid_accuracy(f, player)
    if acc.empty:
        return
    st.subheader("Bidding")
    a = acc.iloc[0]
    c1, c2, c3 = st.columns(3)
    c1.metric("Exact bids", f"{a['exact_rate']:.0%}",
              f"{int(a['exact']):,} of {ui.count(int(a['rounds']), 'round')}",
              delta_color="off", delta_arrow="off")
    c2.metric("Mean won − bid", f"{a['mean_bid_error']:+.2f}",
              help="Below 0: they win fewer tricks than they bid.")
    hands = player_bids_against_hands(f, player)
    n = int(hands["bids"].iloc[0])
    if not n:
        c3.metric("Bids judged against the hand", "none yet",
                  help="`trickledger analyse` estimates what each hand could take.")
        return
    h = hands.iloc[0]
    c3.metric("Bids judged against the hand", f"{n:,}")
    verdict = ("the bids" if h["abs_bidding"] > h["abs_play"] else "the play")
    bid, won = float(h["bidding"]), float(h["play"])
    st.markdown(f"Against what their hands could be expected to take, {ui.md(player)} bid "
                f"**{abs(bid):.2f}** tricks a round {'more' if bid >= 0 else 'fewer'} "
                f"(bid − expected) and took **{abs(won):.2f}** tricks a round "
                f"{'more' if won >= 0 else 'fewer'} (won − expected), on average over "
                f"{ui.count(n, 'bid')} judged. The larger miss is in **{ui.md(verdict)}** "
                f"({h['abs_bidding']:.2f} against {h['abs_play']:.2f} tricks a round, "
                f"whichever the direction).")
    fig = go.Figure()
    fig.add_bar(x=["bidding: bid − expected", "play: won − expected"],
                y=[h["bidding"], h["play"]], name="mean per round")
    fig.add_bar(x=["bidding: bid − expected", "play: won − expected"],
                y=[h["abs_bidding"], h["abs_play"]], name="mean size of the miss")
    fig.add_hline(y=0, line_dash="dot")
    fig.update_layout(barmode="group", yaxis_title="tricks per round",
                      title="The bid or the play?")
    ui.chart(st, fig, width="stretch")


def round_section(game_id: str, round_no: int) -> None:
    """The bids of a round against the tricks won (the viewer's part about rage)."""
    bids = round_bids(game_id, round_no)
    if not bids.empty:
        st.subheader("Bids against tricks")
        st.dataframe(bids, hide_index=True, width="stretch")
