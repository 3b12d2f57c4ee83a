"""Pages at a club's scale (issue 36): what a chart draws and how many queries a page asks
stay bounded however many games are loaded. The limits are made small here so that the
sample logs reach them; the figures at 20,000 and 100,000 games are bench/pages.py's."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from helpers import DASHBOARD, rows, run_page
from streamlit.testing.v1 import AppTest

from trickledger.dashboard.data import access, players, standings
from trickledger.ingest.analyse import refresh_ratings


@pytest.fixture(scope="module")
def db(dashboard_db: str) -> str:
    # the ratings, as `analyse` makes them after a load: the tests pick the player with the
    # longest rating history, in whatever order they run (before, they found it only when a
    # page had brought the ratings up to date earlier in the same process)
    refresh_ratings(dashboard_db)
    return dashboard_db


def figures(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def values(array) -> list:
    """A trace's numbers as plotly sends them: a list, or a typed array in base 64."""
    if isinstance(array, dict) and "bdata" in array:
        return np.frombuffer(base64.b64decode(array["bdata"]), dtype=array["dtype"]).tolist()
    return list(array)


def busiest(db) -> str:
    return rows(db, "SELECT player FROM rating_history GROUP BY player "
                   "ORDER BY count(*) DESC, player LIMIT 1")[0][0]


def test_a_long_rating_history_is_drawn_with_at_most_its_points(db, monkeypatch):
    """Ratings: each leader's line has at most HISTORY_POINTS points, the first and the
    last of their games among them (the rating as it stands now), and the page says the
    lines are thinned."""
    monkeypatch.setattr(standings, "HISTORY_POINTS", 3)
    at = run_page("ratings")
    game = rows(db, "SELECT game FROM ratings ORDER BY game LIMIT 1")[0][0]
    history = figures(at)[-1]
    lines = [t for t in history["data"] if t.get("mode") == "lines"]
    assert lines
    for line in lines:
        player = line["name"]
        seqs = [s for (s,) in rows(db, "SELECT seq FROM rating_history WHERE game = ? AND "
                                      "player = ? ORDER BY seq", [game, player])]
        assert len(values(line["x"])) <= 3, (player, values(line["x"]))
        assert values(line["x"])[0] == seqs[0] and values(line["x"])[-1] == seqs[-1]
        assert set(values(line["x"])) <= set(seqs)
    longest = max(len(values(line["x"])) for line in lines)
    assert longest == 3  # the sample's leaders play more than three games
    assert any("shows the rating after every k-th game" in c.value.replace("\\", "")
               for c in at.caption)


def test_a_short_rating_history_is_drawn_whole_without_a_note(db):
    at = run_page("ratings")
    lines = [t for t in figures(at)[-1]["data"] if t.get("mode") == "lines"]
    game = rows(db, "SELECT game FROM ratings ORDER BY game LIMIT 1")[0][0]
    for line in lines:
        n = rows(db, "SELECT count(*) FROM rating_history WHERE game = ? AND player = ?",
                [game, line["name"]])[0][0]
        assert len(values(line["x"])) == n
    assert not any("k-th game" in c.value.replace("\\", "") for c in at.caption)


def test_the_player_page_draws_the_latest_games_and_counts_them_all(db, monkeypatch):
    """Player: the rating history is thinned like the Ratings page's, the Form chart shows
    the latest FORM_GAMES finished games (said in its title and under it), and the
    histograms of final totals still count every finished game, drawn from counts."""
    monkeypatch.setattr(standings, "HISTORY_POINTS", 2)
    monkeypatch.setattr(players, "FORM_GAMES", 5)
    player = busiest(db)
    at = run_page("player", player=player)
    played = rows(db, "SELECT count(DISTINCT f.game) FROM finishes f JOIN game_counting g "
                     "USING (game_id) WHERE f.player = ? AND g.counted_as IN ('complete', "
                     "'disputed', 'sheet')", [player])[0][0]
    rating, form, *totals = figures(at)[:2 + played]  # then one histogram per game
    for line in rating["data"]:
        assert len(values(line["x"])) <= 2
    finished = rows(db, "SELECT count(*) FROM finishes f JOIN game_counting g USING (game_id) "
                       "WHERE f.player = ? AND g.counted_as IN ('complete', 'disputed', "
                       "'sheet')", [player])[0][0]
    assert finished > 5
    dots = [x for t in form["data"] if t.get("mode") == "markers" for x in values(t["x"])]
    assert sorted(dots) == list(range(finished - 4, finished + 1))
    assert any(f"has finished {finished:,} games" in c.value for c in at.caption)
    assert "The last 5 finished games" in "".join(m.value for m in at.markdown)
    histograms = [t for fig in totals for t in fig["data"] if t["type"] == "histogram"]
    assert sum(sum(values(t["y"])) for t in histograms) == finished
    assert all(t["histfunc"] == "sum" for t in histograms)


def test_the_sidebar_asks_one_query_for_what_it_offers(db):
    """The filter every page draws asks the database once (each query opens the file)."""
    seen: list[tuple[str, tuple]] = []
    access.query.clear()
    at = AppTest.from_file(str(DASHBOARD / "app.py"), default_timeout=120)
    at.switch_page("views/verify.py").run()  # a page without queries of its own...
    access.query.clear()
    with access.observe_queries(lambda q, p: seen.append((q, p))):
        at.switch_page("views/seats.py").run()  # ...and one with the filter drawn
    assert not at.exception
    offered = [q for q, _ in seen if "DISTINCT player" in q or "DISTINCT game" in q]
    assert len(offered) == 1, offered
    assert at.sidebar.multiselect(key="f_players").options  # the players are offered


def test_the_results_histogram_is_drawn_from_counts_of_every_final_total(db):
    """Results: the final totals' histogram counts every finish of the game, per table
    size, from how often each total came (a few numbers, not one per finish)."""
    at = run_page("results")
    game = rows(db, "SELECT min(game) FROM finishes")[0][0]
    histograms = [t for fig in figures(at) for t in fig["data"] if t["type"] == "histogram"]
    assert histograms and all(t["histfunc"] == "sum" for t in histograms)
    by_table = {t["name"]: values(t["y"]) for t in histograms}
    expected = dict(rows(db, "SELECT f.n_players || ' players', count(*) FROM finishes f "
                            "JOIN game_counting g USING (game_id) WHERE f.game = ? AND "
                            "g.counted_as IN ('complete', 'disputed', 'sheet') GROUP BY 1",
                        [game]))
    assert {k: sum(v) for k, v in by_table.items()} == expected
    assert all("sum of" not in t["hovertemplate"] for t in histograms)
    distinct = rows(db, "SELECT count(DISTINCT (f.total, f.n_players)) FROM finishes f "
                       "JOIN game_counting g USING (game_id) WHERE f.game = ? AND "
                       "g.counted_as IN ('complete', 'disputed', 'sheet')", [game])[0][0]
    assert sum(len(v) for v in by_table.values()) == distinct


def test_the_player_page_picks_from_the_sidebars_players(db):
    """Player: its picker offers everybody from the sidebar's one query, not a second."""
    seen: list[tuple[str, tuple]] = []
    at = AppTest.from_file(str(DASHBOARD / "app.py"), default_timeout=120)
    at.switch_page("views/verify.py").run()
    access.query.clear()
    at.query_params["player"] = busiest(db)
    with access.observe_queries(lambda q, p: seen.append((q, p))):
        at.switch_page("views/player.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert len([q for q, _ in seen if "DISTINCT player" in q]) == 1
    everybody = [p for (p,) in rows(db, "SELECT DISTINCT player FROM players ORDER BY 1")]
    assert at.selectbox(key="player_pick").options == everybody
