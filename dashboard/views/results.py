"""Results: totals, winners, score distributions and fair win rates in every game."""

import plotly.graph_objects as go
import streamlit as st

from trickledger.dashboard import game_parts, tables, ui
from trickledger.dashboard.data import standings

ui.page("Results")
f = ui.filters()
LOW = game_parts.lowest_wins()
st.caption("A win shared by k tied winners counts 1/k for each; at a table of n, chance "
           "alone wins 1/n of the games. "
           + (f"{ui.md(LOW)} is won by the lowest total, the others by the highest. " if LOW
              else "The highest total wins. ")
           + "Finished games only (a win needs a finished game), replayed from their moves "
           "or entered as a score sheet. " + ui.md(f.counted()))


def render() -> None:
    rates = standings.results(f)
    if ui.empty(rates, "finished games"):
        return
    most = int(rates["games"].max())
    min_games = ui.minimum("Minimum games for the leaderboards", most, key="results_min_games")
    games = sorted(rates["game"].unique())
    game = ui.game_choice(games, key="results_game")
    rg = rates[(rates["game"] == game) & (rates["games"] >= min_games)].copy()
    if rg.empty:
        st.info(f"No player has {ui.count(min_games, 'finished game')} of "
                f"{ui.md(game_parts.game_title(game))} under this filter; lower the minimum.")
        return
    rg = rg.sort_values(["vs_baseline", "games", "player"],
                        ascending=[False, False, True])
    top = rg.iloc[0]
    ui.metric(st, f"Best against chance in {game_parts.game_title(game)}", top["player"],
              f"{top['vs_baseline']:.2f}× chance: {top['win_share']:,.1f} "
              f"win{'' if top['win_share'] == 1 else 's'} (ties shared) in "
              f"{ui.count(int(top['games']), 'game')}", delta_color="off",
              delta_arrow="off")
    tables.player_link(top["player"], f"{top['player']}'s page")
    board = rg.head(25)
    fig = go.Figure()
    fig.add_bar(x=board["player"], y=board["win_rate"], name="win rate",
                error_y={"type": "data",
                         "array": board["win_rate_high"] - board["win_rate"],
                         "arrayminus": board["win_rate"] - board["win_rate_low"]})
    fig.add_scatter(x=board["player"], y=board["baseline_rate"], mode="markers",
                    marker={"symbol": "line-ew-open", "size": 26, "color": "black",
                            "line": {"width": 3}},
                    name="chance at their tables (1/n)")
    fig.update_layout(xaxis_title="player", yaxis_title="win rate",
                      yaxis_tickformat=".0%",
                      title="Win rate with its 95 % interval, against chance")
    ui.chart(st, fig, width="stretch", key=f"rates_{game}")
    tables.show(rg, {"player": "player", "games": "games", "wins": "games won",
                     "win_share": "wins (ties shared)",
                     "expected_wins": "by chance", "win_rate": "win rate",
                     "win_rate_low": "95 % from", "win_rate_high": "95 % to",
                     "vs_baseline": "× chance", "mean_total": "mean total",
                     "mean_finish": "mean place"},
                players=("player",),
                percent=("win_rate", "win_rate_low", "win_rate_high"),
                decimals={"expected_wins": 2, "vs_baseline": 2, "win_share": 2})
    totals = standings.final_totals(f, game)
    totals["table"] = [f"{n} players" for n in totals["n_players"]]
    # one bar per range of totals, counted from how often each total came
    ui.chart(st, ui.counted_histogram(totals, "total", "finishes", color="table", nbins=40,
                                      labels={"total": "final total", "table": "table",
                                              "finishes": "count"},
                                      title=f"Final totals — {game_parts.game_title(game)}"),
             width="stretch", key=f"totals_{game}")
    recent = standings.latest_games(f, game)
    st.markdown("**Latest games**")
    tables.show(recent, {"game_id": "game", "played_on": "played on",
                         "n_players": "players", "winners": "winners",
                         "totals": "totals"}, games=("game_id",),
                key=f"recent_{game}")


ui.guarded(render)
