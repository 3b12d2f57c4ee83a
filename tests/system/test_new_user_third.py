"""What a new user met, third round (issue 36): the dashboard's side, on the real Streamlit
app (AppTest) over a real database of sample logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import dashboard_database
from streamlit.testing.v1 import AppTest

from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "dashboard" / "views"
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
