"""One player across every game: rating, form, results, head-to-head, splits, early ends,
bidding (and whether the bid or the play cost them), disputes. Opened by `?player=`."""

import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from trickledger.dashboard import data, tables, ui

ui.page("Player")
f = ui.filters()


def render() -> None:
    people = data.player_names()
    if not people:
        st.info("No player is in the database yet.")
        return
    wanted = st.query_params.get("player")
    if wanted and wanted not in people:
        st.error(f"No player {ui.md(wanted)} is in the database; pick one below.")
        wanted = None
    if wanted and st.session_state.get("player_from_url") != wanted:
        st.session_state["player_pick"] = wanted
        st.session_state["player_from_url"] = wanted
    player = st.selectbox("Player", people, key="player_pick")
    if st.query_params.get("player") != player:
        st.query_params["player"] = player
    st.caption(f.counted() + " Ratings count every complete game. Splits, early ends and "
               "bidding come from move logs only (a score sheet has no tricks).")
    _summary(player)
    _ratings(player)
    _form(player)
    _head_to_head(player)
    _splits_and_early_ends(player)
    _bidding(player)
    _decisions(player)
    _disputes(player)


def _summary(player: str) -> None:
    res = data.player_results(f, player)
    played = data.player_games(f, player)
    c1, c2, c3 = st.columns(3)
    c1.metric("Games under this filter", f"{played:,}")
    if len(res):
        c2.metric("Wins (ties shared)", f"{res['win_share'].sum():,.1f}",
                  f"{res['win_share'].sum() / res['expected_wins'].sum():.2f}× chance",
                  delta_color="off", delta_arrow="off")
        c3.metric("Finished games", f"{int(res['games'].sum()):,}")
        res["title"] = [data.game_title(g) for g in res["game"]]
        tables.show(res, {"title": "game", "games": "finished games",
                          "win_share": "wins (ties shared)", "expected_wins": "by chance",
                          "win_rate": "win rate", "win_rate_low": "95 % from",
                          "win_rate_high": "95 % to", "vs_baseline": "× chance",
                          "mean_total": "mean total", "mean_finish": "mean place"},
                    percent=("win_rate", "win_rate_low", "win_rate_high"),
                    decimals={"expected_wins": 2, "vs_baseline": 2, "win_share": 2})


def _ratings(player: str) -> None:
    note = data.ensure_ratings()
    if note:
        st.warning(note)
    rated = data.player_ratings(player)
    st.subheader("Rating")
    if rated.empty:
        st.info("No complete game rated yet.")
        return
    rated["title"] = [data.game_title(g) for g in rated["game"]]
    rated["standing"] = [f"{int(p):,} of {int(n):,}"
                         for p, n in zip(rated["place"], rated["rated"])]
    tables.show(rated, {"title": "game", "ordinal": "rating (μ − 3σ)", "mu": "skill μ",
                        "sigma": "uncertainty σ", "games": "games rated",
                        "standing": "place among rated players"},
                decimals={"ordinal": 2, "mu": 2, "sigma": 2})
    history = data.player_rating_history(player)
    history["game"] = [data.game_title(g) for g in history["game"]]
    history["n"] = history.groupby("game").cumcount() + 1
    ui.chart(st, px.line(history, x="n", y="ordinal", color="game", markers=True,
                            hover_data=["played_on", "finish", "players", "mu", "sigma"],
                            labels={"n": "their games, in played order",
                                    "ordinal": "rating (μ − 3σ)", "game": "game"},
                            title="Rating history"), width="stretch")


def _form(player: str) -> None:
    st.subheader("Form")
    form = data.player_form(f, player)
    if form.empty:
        st.info("No finished game under this filter.")
        return
    form["n"] = range(1, len(form) + 1)
    form["game"] = [data.game_title(g) for g in form["game"]]
    fig = px.scatter(form, x="n", y="placing", color="game",
                     hover_data=["played_on", "finish", "n_players", "total"],
                     labels={"n": "finished games, in played order",
                             "placing": "placing (1 = first, 0 = last)", "game": "game"},
                     title="Every finished game, and the mean of the last ten")
    fig.add_scatter(x=form["n"], y=form["last_ten"], mode="lines", name="mean of the last ten",
                    line={"color": "black"})
    fig.add_hline(y=0.5, line_dash="dot", annotation_text="the middle of the table")
    ui.chart(st, fig, width="stretch")
    st.markdown("**Final totals, game by game**")
    games = sorted(form["game"].unique())
    cols = st.columns(min(len(games), 4))
    for i, game in enumerate(games):
        part = form[form["game"] == game]
        fig = px.histogram(part, x="total", nbins=15, title=game,
                           labels={"total": "final total", "count": "games"})
        fig.update_layout(height=260, showlegend=False, yaxis_title="games",
                          margin={"l": 10, "r": 10, "t": 40, "b": 10})
        ui.chart(cols[i % len(cols)], fig, width="stretch", key=f"totals_{i}")


def _head_to_head(player: str) -> None:
    st.subheader("Head-to-head")
    pairs = data.player_head_to_head(f, player)
    if pairs.empty:
        st.info("No finished game with others under this filter.")
        return
    pairs["title"] = [data.game_title(g) for g in pairs["game"]]
    tables.show(pairs, {"opponent": "opponent", "title": "game", "games": "games together",
                        "ahead": f"{player} ahead", "behind": f"{player} behind",
                        "tied": "tied"}, players=("opponent",))


def _splits_and_early_ends(player: str) -> None:
    split = data.player_splits(f, player)
    early = data.player_early_ends(f, player)
    if split.empty and early.empty:
        return
    st.subheader("Splits and early ends")
    left, right = st.columns(2)
    if len(split):
        s = split.iloc[0]
        left.metric("Picks first", f"{s['first_share']:.1%} of tricks",
                    f"chance {s['first_baseline']:.1%}", delta_color="off", delta_arrow="off")
        if s["splits_played"]:
            left.metric("Gets the rest", f"{s['second_share']:.1%} of splits",
                        f"chance {s['second_baseline']:.1%}", delta_color="off", delta_arrow="off")
        left.metric("Cards kept (that scored)",
                    f"{int(s['first_kept'] + s['second_kept']):,} of "
                    f"{int(s['first_cards'] + s['second_cards']):,} taken")
    if len(early):
        e = early.iloc[0]
        right.metric("Could not play (ended the round)", f"{int(e['could_not_play']):,}",
                     f"by chance {e['expected_each']:.1f}", delta_color="off", delta_arrow="off")
        right.metric("Caused an early end (played the last card)", f"{int(e['caused']):,}",
                     f"by chance {e['expected_each']:.1f}", delta_color="off", delta_arrow="off")
        if e["early_rounds"] and e["mean_when_full"] == e["mean_when_full"]:
            right.metric("Points lost per early end", f"{e['points_lost']:.1f}",
                         help="Mean round score in full rounds minus in rounds that ended "
                              "early; below 0: they scored more when rounds ended early.")


def _bidding(player: str) -> None:
    acc = data.player_bid_accuracy(f, player)
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
    hands = data.player_bids_against_hands(f, player)
    n = int(hands["bids"].iloc[0])
    if not n:
        c3.metric("Bids judged against the hand", "none yet",
                  help="`trickledger analyse` estimates what each hand could take.")
        return
    h = hands.iloc[0]
    c3.metric("Bids judged against the hand", f"{n:,}")
    verdict = ("the bids" if h["abs_bidding"] > h["abs_play"] else "the play")
    def side(x: float, more: str, fewer: str) -> str:
        return f"**{abs(x):.2f}** tricks a round {more if x >= 0 else fewer}"

    st.markdown(f"Against what their hands could be expected to take, {ui.md(player)} bid "
                f"{side(h['bidding'], 'more', 'fewer')} (bid − expected) and took "
                f"{side(h['play'], 'more', 'fewer')} (won − expected), on average over "
                f"{ui.count(n, 'bid')} judged. The larger miss is in **{verdict}** "
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


def _disputes(player: str) -> None:
    claims = data.player_disputes(player)
    st.subheader("Disputes")
    if claims.empty:
        st.caption(f"No score-sheet claim about {ui.md(player)} disagrees with the replay.")
        return
    st.warning(f"{ui.count(len(claims), 'claimed score')} about {ui.md(player)} "
               f"{'disagrees' if len(claims) == 1 else 'disagree'} with the replay.")
    claims["open"] = [tables.viewer_url(g, int(r) if r.isdigit() else None,
                                        text=f"round {r}" if r.isdigit() else "totals")
                      for g, r in zip(claims["game_id"], claims["round"])]
    # the derivation is what settles the argument: it comes before the file's details, so
    # a 1400 px screen shows it without scrolling sideways
    tables.show(claims, {"open": "round", "claimed": "sheet says", "computed": "replay says",
                         "derivation": "how the replay's score is made up",
                         "file_name": "file", "line": "line", "game_id": "game"},
                games=("game_id",), links=("open",))


def _decisions(player: str) -> None:
    st.subheader("Decisions")
    per_game = data.player_decisions(f, player)
    if per_game.empty:
        st.caption(f"No decision of {ui.md(player)} has been judged under this filter yet "
                   "(`trickledger analyse --moves` judges them; see the Decisions page).")
        return
    per_game["n"] = range(1, len(per_game) + 1)
    per_game["game"] = [data.game_title(g) for g in per_game["game"]]
    ui.chart(st, px.line(per_game, x="n", y="accuracy", color="game", markers=True,
                         hover_data=["game_id", "played_on", "decisions", "avg_cost",
                                     "blunders"],
                         labels={"n": "judged games, in played order",
                                 "accuracy": "accuracy (share within 1 SE of the best)",
                                 "game": "game"},
                         title="Accuracy over time"), width="stretch")
    worst = data.player_costliest_moves(f, player)
    if worst.empty:
        st.caption("Every judged decision was within one standard error of the best.")
        return
    worst["open"] = [tables.viewer_url(g, int(r), text=f"round {int(r)}")
                     for g, r in zip(worst["game_id"], worst["round"])]
    st.caption("The ten costliest decisions (cost in the game's points, ± one standard "
               "error; the best move is the judge's, with the greedy bot playing on).")
    tables.show(worst, {"game_id": "game", "open": "round", "move": "played",
                        "best_move": "best", "cost": "cost", "cost_se": "± SE",
                        "band": "verdict"},
                games=("game_id",), links=("open",), decimals={"cost": 2, "cost_se": 2})


ui.guarded(render)
