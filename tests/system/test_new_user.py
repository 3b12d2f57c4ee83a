"""What a new user met (issue 27): every page and control works under any filter, on a
database holding a single plotters game for 5 players."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import DASHBOARD, dashboard_database, every_page, page_file
from streamlit.testing.v1 import AppTest

from trickledger.dashboard.data import access, filters
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
PAGES = DASHBOARD / "views"
ONE_GAME = ROOT / "sample_logs" / "plotters" / "plotters-5p-claims.jsonl"
# every page a visitor may open (Admin needs an admin; its own tests cover it)
VISITOR_PAGES = sorted(name for name in every_page() if name != "admin")


@pytest.fixture(scope="module")
def one_game(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("one") / "one.duckdb")
    sources, _ = expand([str(ONE_GAME)])
    ingest(sources, path, jobs=1)
    with dashboard_database(path):
        yield path


FILTERS = {
    "no filter": filters.Filters(),
    "plotters, 5 players, one player": filters.Filters(games=("plotters",), player_counts=(5,),
                                                    players=("Yan",)),
    "a filter no game passes": filters.Filters(games=("plotters",), player_counts=(3,)),
}


@pytest.mark.parametrize("name", VISITOR_PAGES)
@pytest.mark.parametrize("chosen", list(FILTERS))
def test_every_page_works_for_one_game_under_any_filter(one_game, name, chosen):
    at = AppTest.from_file(str(page_file(name)), default_timeout=90)
    at.session_state["filters"] = FILTERS[chosen]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    broken = [e.value for e in at.error if "Something went wrong" in e.value]
    assert not broken, broken
    for slider in at.slider:  # every slider that is drawn can be moved to either end
        for value in (slider.min, slider.max):
            slider.set_value(value)
            at.run()
            assert not at.exception, [e.value for e in at.exception]
            assert not [e.value for e in at.error if "Something went wrong" in e.value]


def verify_page(text: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / "verify.py"), default_timeout=90)
    at.run()
    at.text_area(key="verify_text").input(text).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_saving_a_conflicting_log_from_verify_says_it_was_not_saved_and_why(one_game):
    # the same game id as the loaded game, other bytes: the loader refuses it
    other = ONE_GAME.read_text().replace('"seed":', '"seed": 7, "was_seed":', 1)
    assert other != ONE_GAME.read_text()
    at = verify_page(other)
    at.button(key="save").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [s.value for s in at.success if "Saved" in s.value]
    said = " ".join(e.value for e in at.error)
    assert "Not saved" in said and "already loaded from" in said and "another" in said
    logs = access.query("SELECT count(*) AS n FROM games")
    assert int(logs["n"].iloc[0]) == 1


def test_the_sql_page_charts_only_the_columns_chosen(one_game):
    at = AppTest.from_file(str(PAGES / "sql.py"), default_timeout=90)
    at.session_state["sql_text"] = ("SELECT player, count(*) AS rounds, 7 AS seven "
                                    "FROM players GROUP BY player ORDER BY player")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.get("plotly_chart")  # nothing plotted until the reader picks
    at.selectbox(key="sql_chart_y").set_value("rounds").run()
    at.selectbox(key="sql_chart_x").set_value("player").run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.get("plotly_chart")) == 1


def whole_app() -> AppTest:
    return AppTest.from_file(str(DASHBOARD / "app.py"), default_timeout=90)


def test_the_filter_lives_in_the_url_so_a_reload_or_a_shared_link_keeps_it(one_game):
    at = whole_app()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [w.value for w in at.warning if "Session State" in w.value]
    assert "players" not in at.query_params and "games" not in at.query_params
    at.multiselect(key="f_players").set_value(["Yan"]).run()
    at.multiselect(key="f_counts").set_value([5]).run()
    url = {k: v if isinstance(v, list) else [v] for k, v in at.query_params.items()}
    assert url["players"] == ["Yan"] and url["table"] == ["5"]
    shared = url

    # a new session (a reload, or someone the link was sent to) opens with that choice
    other = whole_app()
    for k, v in shared.items():
        other.query_params[k] = v
    other.run()
    assert not other.exception, [e.value for e in other.exception]
    assert not [w.value for w in other.warning if "Session State" in w.value]
    assert other.multiselect(key="f_players").value == ["Yan"]
    assert other.multiselect(key="f_counts").value == [5]
    chosen = other.session_state["filters"]
    assert chosen.players == ("Yan",) and chosen.player_counts == (5,)

    # a value the database does not hold is dropped, not an error
    odd = whole_app()
    odd.query_params["players"] = ["Nobody"]
    odd.query_params["counted"] = ["illegal", "bogus"]
    odd.run()
    assert not odd.exception, [e.value for e in odd.exception]
    assert odd.multiselect(key="f_players").value == []
    assert odd.multiselect(key="f_statuses").value == ["illegal"]


def test_upload_accounts_for_every_file_and_gives_a_conflict_in_full(one_game):
    import orjson

    lines = ONE_GAME.read_bytes().splitlines()
    head = orjson.loads(lines[0])
    fresh = b"\n".join([orjson.dumps({**head, "id": "uploaded-fresh"}), *lines[1:]]) + b"\n"
    clash = ONE_GAME.read_bytes().replace(b'"seed":', b'"seed":8,"was_seed":', 1)
    at = AppTest.from_file(str(PAGES / "upload.py"), default_timeout=90)
    at.run()
    at.file_uploader(key="upload_files").set_value([
        ("again.jsonl", ONE_GAME.read_bytes(), "application/octet-stream"),
        ("clash.jsonl", clash, "application/octet-stream"),
        ("fresh.jsonl", fresh, "application/octet-stream"),
    ]).run()
    at.button(key="load").click().run()
    assert not at.exception, [e.value for e in at.exception]
    tiles = {m.label: m.value for m in at.metric}
    assert tiles["Already loaded"] == "1" and tiles["Refused"] == "1"
    assert tiles["Complete"] == "1"
    assert sum(int(v) for v in tiles.values()) == 3  # the tiles add up to the files
    refused = next(e.value for e in at.error if "Not loaded" in e.value)
    assert "clash" in refused and "give the log another" in refused.replace("\\", "")
    table = at.dataframe[0].value.set_index("file")
    assert table.at["fresh.jsonl", "result"] == "complete, disputed"


def test_the_viewers_next_goes_on_into_the_next_round_and_previous_back(one_game):
    from trickledger.ingest.db import reading

    with reading(one_game) as con:
        gid, last = con.execute("SELECT game_id, max(trick) FROM tricks WHERE round = 1 "
                                "GROUP BY game_id").fetchone()
    at = AppTest.from_file(str(PAGES / "viewer.py"), default_timeout=90)
    at.query_params["game"] = gid
    at.query_params["round"] = "1"
    at.query_params["trick"] = str(last)
    at.run()
    text = " ".join(m.value for m in at.markdown)
    assert f"Round 1, trick {last}" in text
    at.button(key=f"next_step_{gid}_1").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Round 2, trick 1" in " ".join(m.value for m in at.markdown)
    assert at.selectbox(key=f"round_{gid}").value == 2
    at.button(key=f"next_step_{gid}_2").click().run()
    assert "Round 2, trick 2" in " ".join(m.value for m in at.markdown)
    at.button(key=f"prev_step_{gid}_2").click().run()
    at.button(key=f"prev_step_{gid}_2").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"Round 1, trick {last}" in " ".join(m.value for m in at.markdown)
