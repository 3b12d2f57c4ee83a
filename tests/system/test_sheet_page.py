"""The Score sheet page under AppTest, on a real DuckDB file: a table enters a round and sees
the scores with their arithmetic, an impossible number with the reason, a dispute with the
computed score and why; the sheet is saved and counted; names are shown as text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from helpers import DASHBOARD
from streamlit.testing.v1 import AppTest

from trickledger.ingest.db import reading

PAGE = DASHBOARD / "views" / "sheet.py"


@pytest.fixture()
def db(empty_dashboard_db: str) -> str:
    return empty_dashboard_db


def unescape(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def ok(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error if "Something went wrong" in e.value]
    return at


def started(game: str, players: str, rounds: int | None = None,
            variants: list[str] | None = None) -> AppTest:
    """The page with the game and players chosen and the sheet started."""
    at = ok(AppTest.from_file(str(PAGE), default_timeout=60))
    at.selectbox(key="sheet_game").set_value(game)
    at.text_input(key="sheet_players").set_value(players)
    ok(at)
    if variants:
        at.multiselect(key=f"sheet_v_{game}").set_value(variants)
        ok(at)
    if rounds is not None:
        at.number_input(key=f"sheet_rounds_{game}").set_value(rounds)
        ok(at)
    at.button(key="sheet_start").click()
    return ok(at)


def editor(at: AppTest, suffix: str) -> str:
    """The key of the table editor whose key ends with `suffix` (players_r1, round_r1)."""
    keys = [d.key for d in at.data_editor if d.key and d.key.endswith(suffix)]
    assert keys, [d.key for d in at.data_editor]
    return keys[0]


def type_in(at: AppTest, suffix: str, rows: dict[int, dict[str, Any]]) -> AppTest:
    """What a table types into a round's editor: {row: {column: number}}."""
    at.session_state[editor(at, suffix)] = {"edited_rows": rows, "added_rows": [],
                                            "deleted_rows": []}
    return ok(at)


def text(at: AppTest) -> str:
    """The page's markdown as a reader sees it (no escapes, no bold marks)."""
    return unescape(" ".join(m.value for m in at.markdown)).replace("**", "")


ROUND_1 = {0: {"bid": 4, "won": 4, "+5": 1}, 1: {"bid": 3, "won": 5, "-5": 1},
           2: {"bid": 2, "won": 1}}


def test_a_round_is_scored_as_it_is_typed_with_its_arithmetic(db):
    at = started("rage", "Ann, Ben, Cat")
    assert [c for c in at.caption if "Rage · Ann, Ben, Cat" in unescape(c.value)]
    table = at.data_editor[0].value
    assert list(table.columns) == ["bid", "won", "+5", "-5", "wrote"]
    assert list(table.index) == ["Ann", "Ben", "Cat"]
    # half a round: what is still to type, no verdict yet
    type_in(at, "players_r1", {0: {"bid": 4}})
    assert any("still to type — Ann's won; Ben's bid and won; Cat's bid and won" in
               unescape(i.value) for i in at.info)
    type_in(at, "players_r1", ROUND_1)
    shown = text(at)
    assert "Ann 19 · 4 tricks, bid 4 -> 4 + 10 = 14, +5 card -> 19" in shown
    assert "Ben -5 · 5 tricks, bid 3 -> 5 - 5 = 0, -5 card -> -5" in shown
    assert "Cat -4 · 1 trick, bid 2 -> 1 - 5 = -4" in shown
    totals = [d.value for d in at.dataframe if d.editing_mode == "read_only"][0]
    assert totals.set_index("player")["total"].to_dict() == {"Ann": 19, "Ben": -5, "Cat": -4}
    assert not at.error


def test_an_impossible_number_is_named_at_once_with_the_reason(db):
    at = started("rage", "Ann, Ben, Cat", variants=["plus_minus_one"])
    type_in(at, "players_r1", {**ROUND_1, 1: {"bid": 3, "won": 6, "-5": 1}})
    assert [unescape(e.value) for e in at.error] == [
        "Round 1 cannot be: the tricks won add up to 11, but round 1 has 10 tricks "
        "(10 cards each) and every trick has one winner"]
    type_in(at, "players_r1", {**ROUND_1, 1: {"bid": 4, "won": 5, "-5": 1}})
    assert any("with plus_minus_one the bids may not add up to 10" in unescape(e.value)
               for e in at.error)
    # a later round cannot be scored before the impossible one is fixed
    at.segmented_control[0].set_value(2)
    ok(at)
    type_in(at, "players_r2", {0: {"bid": 2, "won": 2}, 1: {"bid": 4, "won": 3},
                               2: {"bid": 4, "won": 4}})
    assert any("Round 1 holds an entry that cannot be: fix it to score round 2" in w.value
               for w in at.warning)


def test_a_dispute_shows_the_computed_score_and_why(db):
    at = started("rage", "Ann, Ben, Cat")
    type_in(at, "players_r1", {**ROUND_1, 2: {"bid": 2, "won": 1, "wrote": 12}})
    warning = unescape(at.warning[0].value).replace("**", "")
    assert "1 written score of round 1 differs from the rules" in warning
    assert "Cat: you wrote 12, the rules give -4 — 1 trick, bid 2 -> 1 - 5 = -4" in warning


def test_rounds_keep_what_was_typed_and_a_finished_game_has_a_winner(db):
    at = started("under_the_radar", "Ann, Ben, Cat, Dan", rounds=2)
    type_in(at, "players_r1", {0: {"tricks": 3}, 1: {"tricks": 5}, 2: {"tricks": 0},
                               3: {"tricks": 2}})
    at.segmented_control[0].set_value(2)
    ok(at)
    type_in(at, "players_r2", {0: {"tricks": 1}, 1: {"tricks": 2}, 2: {"tricks": 4},
                               3: {"tricks": 3, "wrote": 3}})
    assert any("Winners: Ann, Cat" in unescape(s.value) for s in at.success)
    at.segmented_control[0].set_value(1)
    ok(at)  # back to round 1: what was typed is still there
    assert at.data_editor[0].value["tricks"].tolist() == [3, 5, 0, 2]
    assert "Ben 5 · 5 tricks taken -> 5" in text(at)


def test_color_stacks_takes_the_stacks_and_who_ended_it(db):
    at = started("color_stacks", "Ann, Ben, Cat")
    hands = {0: {"R": 1, "Y": 2, "G": 1, "B": 2}, 1: {"R": 2, "Y": 1, "G": 2, "B": 1},
             2: {"Y": 2, "G": 3, "B": 3}}
    at.multiselect(key="sheet_suits_color_stacks_4").set_value(["R", "Y", "G", "B"])
    ok(at)
    type_in(at, "round_r1", {0: {"R": 6, "Y": 4, "G": 3, "B": 3}})
    type_in(at, "players_r1", hands)
    # no ender named yet: the rules say why one is needed
    assert any("must name the 'ender'" in unescape(e.value) for e in at.error)
    next(s for s in at.selectbox if s.label == "Who ended the game").set_value("Ben")
    ok(at)
    shown = text(at)
    assert "Ben 15 · R: 2 in hand × stack 6 = 0, Y: 1 in hand × stack 4 = 4, " \
           "G: 2 in hand × stack 3 = 6, B: 1 in hand × stack 3 = 3, ender +2 -> 15" in shown
    assert "Cat 26" in shown and not at.error


def test_save_stores_the_sheet_and_it_counts_in_results(db):
    at = started("rage", "Ann, Ben, Cat", rounds=1)
    type_in(at, "players_r1", {**ROUND_1, 0: {"bid": 4, "won": 4, "+5": 1, "wrote": 19}})
    assert any("Winner: Ann" in unescape(s.value) for s in at.success)
    assert at.get("download_button")
    at.button(key="sheet_save").click()
    ok(at)
    assert any("Saved as sheet" in unescape(s.value) for s in at.success)
    with reading(db) as con:
        status, winners, claims = con.execute(
            "SELECT status, winners, claims_checked FROM games").fetchone()
        assert (status, winners, claims) == ("sheet", ["Ann"], 1)
        assert con.execute("SELECT wins FROM player_results WHERE player = 'Ann'"
                           ).fetchone() == (1,)
        assert con.execute("SELECT count(*) FROM tricks").fetchone() == (0,)
        gid = con.execute("SELECT game_id FROM games").fetchone()[0]
    # the viewer shows the sheet as the engine read it, with nothing to step through
    viewer = AppTest.from_file(str(PAGE.parent / "viewer.py"), default_timeout=60)
    viewer.query_params["game"] = gid
    ok(viewer)
    assert any("Entered as a score sheet" in i.value for i in viewer.info)
    code = "\n".join(c.value for c in viewer.code)
    assert "== Round 1 (score sheet, line 2): Cat deals" in code
    assert "4 tricks, bid 4 -> 4 + 10 = 14, +5 card -> 19" in code
    assert viewer.selectbox(key="viewer_game").format_func(gid).startswith("SHEET · rage")


def test_a_reader_beyond_loopback_cannot_save(db, monkeypatch):
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    at = started("rage", "Ann, Ben, Cat", rounds=1)
    type_in(at, "players_r1", ROUND_1)
    assert not [b for b in at.button if b.key == "sheet_save"]
    assert any("needs an account" in c.value for c in at.caption)


def test_names_are_text_and_bad_names_are_refused(db):
    at = started("under_the_radar", "*Bo*, [x](http://e.vil), Cy")
    type_in(at, "players_r1", {0: {"tricks": 1}, 1: {"tricks": 2}, 2: {"tricks": 0}})
    raw = " ".join(m.value for m in at.markdown)
    assert "\\*Bo\\*" in raw and "\\[x\\]" in raw  # escaped for markdown, shown as typed
    assert "*Bo* 1" in text(at)
    at = ok(AppTest.from_file(str(PAGE), default_timeout=60))
    at.selectbox(key="sheet_game").set_value("rage")
    at.text_input(key="sheet_players").set_value("Ann, Ann, Cat")
    ok(at)
    assert any("names 'Ann' twice" in unescape(e.value) for e in at.error)
    assert not at.data_editor


def test_verify_and_upload_take_sheets(db):
    sheet = (PAGE.parent.parent.parent / "sample_logs" / "sheets" / "plotters-4p.sheet.jsonl")
    at = AppTest.from_file(str(PAGE.parent / "verify.py"), default_timeout=60)
    ok(at)
    at.file_uploader(key="verify_file").upload("s.jsonl", sheet.read_bytes())
    ok(at)
    banner = unescape(at.warning[0].value)
    assert banner.startswith("**Disputed: 1 claimed score") and "Dan, round 2 (line 3)" in banner
    assert "open G×5 Y×3, other 2 -> 5×3=15 // 2 = 7" in banner
    assert any("a score sheet whose every round can be" in unescape(s.value) for s in at.success)
    up = AppTest.from_file(str(PAGE.parent / "upload.py"), default_timeout=60)
    ok(up)
    up.file_uploader(key="upload_files").set_value([("s.jsonl", sheet.read_bytes(),
                                                     "application/octet-stream")])
    ok(up)
    up.button(key="load").click()
    ok(up)
    # the sample sheet's table wrote one score the rules do not give
    assert up.dataframe[0].value.set_index("file").at["s.jsonl", "result"] == "sheet, disputed"
    assert {m.label: m.value for m in up.metric}["Score sheets"] == "1"


def boxes(at: AppTest) -> dict[str, Any]:
    """The round's number boxes by what a screen reader calls them ("Ann bid")."""
    return {unescape(n.label): n for n in at.number_input
            if (n.key or "").startswith("sheet_") and "boxes" in (n.key or "")}


def test_the_boxes_take_the_numbers_the_table_takes(db):
    """Boxes, a plain number field per number (for a phone that will not type into the
    table's grid), start from what the table holds, make the same sheet, and the table shows
    what they took."""
    at = started("rage", "Ann, Ben, Cat")
    type_in(at, "players_r1", {0: {"bid": 4, "won": 4, "+5": 1}})
    at.segmented_control(key="sheet_entry").set_value("boxes")
    ok(at)
    assert not at.data_editor  # the boxes instead of the table
    box = boxes(at)
    assert sorted(box) == sorted(f"{p} {c}" for p in ("Ann", "Ben", "Cat")
                                 for c in ("bid", "won", "+5", "-5", "wrote"))
    assert (box["Ann bid"].value, box["Ann +5"].value, box["Ben bid"].value) == (4, 1, None)
    assert (box["Ann bid"].max, box["Ann +5"].max) == (10, 3)  # the game's limits
    for label, value in {"Ben bid": 3, "Ben won": 5, "Ben -5": 1, "Cat bid": 2,
                         "Cat won": 1, "Cat wrote": 12}.items():
        boxes(at)[label].set_value(value)
        ok(at)
    shown = text(at)
    assert "Ann 19 · 4 tricks, bid 4 -> 4 + 10 = 14, +5 card -> 19" in shown
    assert "Ben -5 · 5 tricks, bid 3 -> 5 - 5 = 0, -5 card -> -5" in shown
    warning = unescape(at.warning[0].value).replace("**", "")
    assert "Cat: you wrote 12, the rules give -4 — 1 trick, bid 2 -> 1 - 5 = -4" in warning
    at.segmented_control(key="sheet_entry").set_value("table")
    ok(at)
    table = at.data_editor[0].value
    assert table.loc["Ben", "won"] == 5 and table.loc["Cat", "wrote"] == 12
    assert "Ann 19" in text(at)  # the same sheet, whichever way it was typed
