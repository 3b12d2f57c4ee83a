"""What a new user met, third round (issue 36): the dashboard's side, on the real Streamlit
app (AppTest) over a real database of sample logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import DASHBOARD, dashboard_database
from streamlit.testing.v1 import AppTest

from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
PAGES = DASHBOARD / "views"
SAMPLES = ROOT / "sample_logs"
EARLY_END = SAMPLES / "plotters" / "plotters-4p-early-end.jsonl"
EARLY_END_ID = "plotters-4p-early-end-s2-000000"


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """The curated sample logs of every game (not the corpus), loaded."""
    path = str(tmp_path_factory.mktemp("samples") / "s.duckdb")
    sources, _ = expand([str(SAMPLES / g) for g in ("plotters", "rage", "color_stacks",
                                                    "under_the_radar", "sheets")])
    ingest(sources, path, jobs=1)
    with dashboard_database(path):
        yield path


def viewer(**params: str) -> AppTest:
    at = AppTest.from_file(str(PAGES / "viewer.py"), default_timeout=90)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def stacks_table(at: AppTest):
    tables = [d.value for d in at.dataframe if "player" in d.value.columns
              and "B" in d.value.columns]
    assert len(tables) == 1, [list(d.value.columns) for d in at.dataframe]
    return tables[0].set_index("player")


def test_the_viewers_stacks_say_face_down_where_the_trick_says_discarded(samples):
    """plotters-4p-early-end, trick 3 (all red): the trick's text says R9 R10 are discarded
    — RULES.md: with no second winner "the rest are discarded", they leave the game, in
    nobody's stack — so the stacks table's last column, each player's discard pile of
    colours not kept, is called "face down" (as RULES.md and the score sheet call it), not
    "discarded" beside zeros. Trick 9: Tom's two face-down cards are the ones his keep
    turned over, in the table and in the text."""
    at = viewer(game=EARLY_END_ID, round="1", trick="3")
    text = "\n".join(c.value for c in at.code)
    assert "all red: no second winner, R9 R10 discarded; Ned leads next" in text
    table = stacks_table(at)
    assert list(table.columns) == ["B", "G", "R", "Y", "face down"]
    assert table["face down"].tolist() == [0, 0, 0, 0]
    assert table.loc["Ned", "R"] == 2  # his pick, R8 R1; R9 and R10 are nobody's
    # 12 cards played in three tricks; Y4 Y1 and R9 R10 left the game: 8 in the stacks
    assert table.to_numpy().sum() == 12 - 4
    assert all(str(t) == "int64" for t in table.dtypes)  # counts, shown as 2 and not 2.0
    at = viewer(game=EARLY_END_ID, round="1", trick="9")
    text = "\n".join(c.value for c in at.code)
    assert "Tom B×4 G×6 (+2 face down)" in text and "discarded)" not in text
    assert stacks_table(at).loc["Tom", "face down"] == 2


def test_an_upload_refused_as_an_id_conflict_still_gets_its_verdict(samples):
    """An edited copy of a loaded sample (same game id, other bytes) is not saved — and the
    Upload page says what the engine makes of it all the same, as the Verify page would;
    its file name is shown as it is, without an invisible character."""
    sample = SAMPLES / "plotters" / "plotters-5p-claims.jsonl"
    edited = sample.read_bytes().replace(b'"seed":', b'"seed":8,"was_seed":', 1)
    at = AppTest.from_file(str(PAGES / "upload.py"), default_timeout=90)
    at.run()
    at.file_uploader(key="upload_files").set_value([
        ("edited copy.jsonl", edited, "application/octet-stream")]).run()
    at.button(key="load").click().run()
    assert not at.exception, [e.value for e in at.exception]
    refused = next(e.value for e in at.error if "Not loaded" in e.value)
    assert "- `edited copy.jsonl`: game id" in refused  # a code span: nothing inserted
    assert "**Its verdict:** complete, disputed: 1 claimed score does not match (Ben round 2: " \
           "the sheet says 10, the replay computes 12)" in refused.replace("\\", "")


def whole_app() -> AppTest:
    return AppTest.from_file(str(DASHBOARD / "app.py"), default_timeout=90)


def test_the_sidebar_filter_is_on_the_pages_that_use_it_and_kept_across_the_others(samples):
    """Verify, Upload, Score sheet and SQL count no games: no filter in their sidebar. The
    choice made on a statistics page survives a visit to them, in the session and in the
    address."""
    at = whole_app()
    at.run()
    at.multiselect(key="f_games").set_value(["rage"]).run()
    assert at.session_state["filters"].games == ("rage",)
    for page in ("verify", "upload", "sheet", "sql"):
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not [m for m in at.sidebar.multiselect], page  # no filter drawn
        assert at.query_params.get("games") in (["rage"], "rage"), (page, at.query_params)
    at.switch_page("games/plotters_splits.py").run()  # a game's page (its declaration)
    assert at.multiselect(key="f_games").value == ["rage"]
    assert at.session_state["filters"].games == ("rage",)


def charts(at: AppTest) -> list[dict]:
    import json

    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_a_one_round_game_gets_bars_of_its_scores_not_a_line_of_lone_dots(tmp_path):
    """A color_stacks game of one round: its running totals would be one dot per player;
    the viewer draws the round's scores as bars, titled in words above the chart (not in
    plotly, where a phone cuts a title and the legend runs into it)."""
    from trickledger import main

    assert main(["simulate", "--game", "color_stacks", "--games", "1", "--rounds", "1",
                 "--seed", "4", "--out", str(tmp_path / "logs")]) == 0
    db = str(tmp_path / "one.duckdb")
    sources, _ = expand([str(tmp_path / "logs")])
    ingest(sources, db, jobs=1)
    with dashboard_database(db):
        at = viewer(game="color_stacks-s4-000000")
    drawn = charts(at)
    assert [t["type"] for t in drawn[-1]["data"]] == ["bar"]
    assert not drawn[-1]["layout"].get("title", {}).get("text")
    assert any("Scores of round 1, the only round played" in m.value.replace("\\", "")
               for m in at.markdown)


def _a_table_of_numbers() -> None:
    import pandas as pd

    from trickledger.dashboard import tables

    tables.show(pd.DataFrame({"player": ["Ann", "Ben"], "splits": [35409, 6995],
                              "wins": [683.633, 2.0], "mixed": [1.2, 1.57],
                              "whole": [3.0, 12.0]}),
                {"splits": "splits", "wins": "wins (ties shared)", "mixed": "mixed",
                 "whole": "whole"}, decimals={"wins": 1})


def test_numbers_in_tables_are_for_people():
    """Counts with thousands separators (35,409, as the metrics beside them), each column
    of fractions one number of decimals (no 1.2 beside 1.57; 683.6 and not 683.633), whole
    numbers held as floats shown whole."""
    import json

    at = AppTest.from_function(_a_table_of_numbers, default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    frame = at.dataframe[0]
    config = json.loads(frame.proto.columns)
    formats = {k: v.get("type_config", {}).get("format") for k, v in config.items()
               if k != "_index"}
    assert formats == {"splits": "%,d", "wins": "%,.1f", "mixed": "%,.2f",
                       "whole": "%,d"}, config
    assert frame.value["wins"].tolist() == [683.6, 2.0]
    assert frame.value["mixed"].tolist() == [1.2, 1.57]  # shown 1.20 and 1.57
