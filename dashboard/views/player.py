"""One player across every game: rating, form, results, head-to-head, each game's own part
(its declaration's `player_section`: plotters' splits and early ends, rage's bidding),
decisions, disputes. Opened by `?player=`."""

from urllib.parse import quote

import plotly.express as px
import streamlit as st

from trickledger.dashboard import game_parts, tables, ui
from trickledger.dashboard.data import analyses, filters, players
from trickledger.replay.lookalike import lookalike_letters, seen_as

ui.page("Player")
f = ui.filters()


def render() -> None:
    people = filters.player_names()
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
    st.caption(ui.md(f.counted()) + " Ratings count every complete game. A game's own "
               "figures (its tricks, bids, ...) come from move logs only (a score sheet has "
               "none).")
    _lookalikes(player, people)
    _summary(player)
    _ratings(player)
    _form(player)
    _head_to_head(player)
    for section in game_parts.player_sections():  # each game's own part
        section(f, player)
    _decisions(player)
    _disputes(player)


def _summary(player: str) -> None:
    res = players.player_results(f, player)
    played = players.player_games(f, player)
    c1, c2, c3 = st.columns(3)
    c1.metric("Games under this filter", f"{played:,}")
    if len(res):
        c2.metric("Wins (ties shared)", f"{res['win_share'].sum():,.1f}",
                  f"{res['win_share'].sum() / res['expected_wins'].sum():.2f}× chance",
                  delta_color="off", delta_arrow="off")
        c3.metric("Finished games", f"{int(res['games'].sum()):,}")
        res["title"] = [game_parts.game_title(g) for g in res["game"]]
        tables.show(res, {"title": "game", "games": "finished games",
                          "win_share": "wins (ties shared)", "expected_wins": "by chance",
                          "win_rate": "win rate", "win_rate_low": "95 % from",
                          "win_rate_high": "95 % to", "vs_baseline": "× chance",
                          "mean_total": "mean total", "mean_finish": "mean place"},
                    percent=("win_rate", "win_rate_low", "win_rate_high"),
                    decimals={"expected_wins": 2, "vs_baseline": 2, "win_share": 2})


def _lookalikes(player: str, people: list[str]) -> None:
    """Another player whose name looks the same, spelt with letters of another script
    (Cyrillic А for Latin A): two players to the database, one to the eye."""
    seen = seen_as(player)
    twins = [p for p in people if p != player and seen_as(p) == seen]
    if twins:
        letters = [c for name in (player, *twins) for c in lookalike_letters(name)]
        st.warning(f"{ui.md(player)} looks like {ui.md(', '.join(twins))}, spelt with other "
                   f"letters: {ui.md('; '.join(letters))}. They count as different players; "
                   f"check that they are not one person.")


def _ratings(player: str) -> None:
    note = analyses.ensure_ratings()
    if note:
        st.warning(ui.md(note))
    rated = players.player_ratings(player)
    st.subheader("Rating")
    if rated.empty:
        st.info("No complete game rated yet.")
        return
    rated["title"] = [game_parts.game_title(g) for g in rated["game"]]
    rated["standing"] = [f"{int(p):,} of {int(n):,}"
                         for p, n in zip(rated["place"], rated["rated"])]
    tables.show(rated, {"title": "game", "ordinal": "rating (μ − 3σ)", "mu": "skill μ",
                        "sigma": "uncertainty σ", "games": "games rated",
                        "standing": "place among rated players"},
                decimals={"ordinal": 2, "mu": 2, "sigma": 2})
    history = players.player_rating_history(player)
    history["game"] = [game_parts.game_title(g) for g in history["game"]]
    ui.chart(st, px.line(history, x="n", y="ordinal", color="game", markers=True,
                            render_mode="svg",
                            hover_data=["played_on", "finish", "players", "mu", "sigma"],
                            labels={"n": "their games, in played order",
                                    "ordinal": "rating (μ − 3σ)", "game": "game"},
                            title="Rating history"), width="stretch")
    ui.thinned_note(history)


def _form(player: str) -> None:
    st.subheader("Form")
    form = players.player_form(f, player)
    if form.empty:
        st.info("No finished game under this filter.")
        return
    form["game"] = [game_parts.game_title(g) for g in form["game"]]
    total = int(form["of"].iloc[0])
    fig = px.scatter(form, x="n", y="placing", color="game", render_mode="svg",
                     hover_data=["played_on", "finish", "n_players", "total"],
                     labels={"n": "finished games, in played order",
                             "placing": "placing (1 = first, 0 = last)", "game": "game"},
                     title="Every finished game, and the mean of the last ten"
                     if total <= players.FORM_GAMES else
                     f"The last {players.FORM_GAMES:,} finished games, and the mean of the "
                     f"last ten")
    fig.add_scatter(x=form["n"], y=form["last_ten"], mode="lines", name="mean of the last ten",
                    line={"color": "black"})
    fig.add_hline(y=0.5, line_dash="dot", annotation_text="the middle of the table")
    ui.chart(st, fig, width="stretch")
    if total > players.FORM_GAMES:
        st.caption(f"{ui.md(player)} has finished {total:,} games under this filter: the "
                   f"chart shows the latest {players.FORM_GAMES:,} (the histograms below "
                   f"count them all).")
    st.markdown("**Final totals, game by game**")
    totals = players.player_totals(f, player)
    totals["game"] = [game_parts.game_title(g) for g in totals["game"]]
    games = sorted(totals["game"].unique())
    cols = st.columns(min(len(games), 4))
    for i, game in enumerate(games):
        part = totals[totals["game"] == game]
        # one bar per range of totals, counted from how often each total came
        fig = ui.counted_histogram(part, "total", "games", nbins=15, title=game,
                                   labels={"total": "final total", "games": "games"})
        fig.update_layout(height=260, showlegend=False, yaxis_title="games",
                          margin={"l": 10, "r": 10, "t": 40, "b": 10})
        ui.chart(cols[i % len(cols)], fig, width="stretch", key=f"totals_{i}")


def _head_to_head(player: str) -> None:
    st.subheader("Head-to-head")
    pairs = players.player_head_to_head(f, player)
    if pairs.empty:
        st.info("No finished game with others under this filter.")
        return
    pairs["title"] = [game_parts.game_title(g) for g in pairs["game"]]
    tables.show(pairs, {"opponent": "opponent", "title": "game", "games": "games together",
                        "ahead": f"{player} ahead", "behind": f"{player} behind",
                        "tied": "tied"}, players=("opponent",))


def _disputes(player: str) -> None:
    claims = players.player_disputes(player)
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
    """The player's game reviews: accuracy and average cost in each judged game, over
    time, and their key moments (their costliest decisions), each a link to the viewer
    at that decision."""
    st.subheader("Decisions")
    per_game = players.player_decisions(f, player)
    if per_game.empty:
        st.caption(f"No decision of {ui.md(player)} has been judged under this filter yet "
                   "(`trickledger analyse --moves` judges them; see the Decisions page).")
        return
    per_game["n"] = range(1, len(per_game) + 1)
    per_game["title"] = [game_parts.game_title(g) for g in per_game["game"]]
    ui.chart(st, px.line(per_game, x="n", y="accuracy", color="title", markers=True,
                         hover_data=["game_id", "played_on", "decisions", "avg_cost",
                                     "blunders"],
                         labels={"n": "judged games, in played order",
                                 "accuracy": "accuracy (share of best moves)",
                                 "title": "game"},
                         title="Accuracy, game by game").update_yaxes(tickformat=".0%"),
             width="stretch")  # percent, as the tables beside it
    st.markdown("**Game reviews** — each judged game: open it for the whole table's review")
    tables.show(per_game.iloc[::-1], {"game_id": "game", "title": "kind",
                                      "played_on": "played on", "accuracy": "accuracy",
                                      "avg_cost": "average cost (points)",
                                      "decisions": "decisions", "goods": "good",
                                      "inaccuracies": "inaccuracies", "mistakes": "mistakes",
                                      "blunders": "blunders"},
                games=("game_id",), percent=("accuracy",), decimals={"avg_cost": 2},
                height=min(400, 38 + 35 * len(per_game)), key="player_reviews")
    worst = players.player_costliest_moves(f, player)
    if worst.empty:
        st.caption("Key moments: none — every judged decision was a best move.")
        return
    worst["open"] = [
        f"viewer?game={quote(str(g), safe='')}&round={int(r)}&line={int(ln)}"
        f"#{g}, round {int(r)}"
        for g, r, ln in zip(worst["game_id"], worst["round"], worst["line"])]
    worst["verdict"] = [VERDICTS.get(b, b) for b in worst["band"]]
    worst["cost_text"] = [f"{c:.1f} ± {e:.1f}" if e == e else f"{c:.1f}"
                          for c, e in zip(worst["cost"], worst["cost_se"])]
    st.markdown("**Key moments** — the ten costliest decisions (cost in the game's points, "
                "± one standard error), each opening the viewer at that decision")
    tables.show(worst, {"open": "decision", "move": "played", "best_move": "better move",
                        "cost_text": "cost (points)", "verdict": "verdict"},
                links=("open",), key="player_moments")


VERDICTS = {"good": "good", "inaccuracy": "?! inaccuracy", "mistake": "? mistake",
            "blunder": "?? blunder"}


ui.guarded(render)
