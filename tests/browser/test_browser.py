"""One real-browser pass: `trickledger dashboard` started for real, every page in headless Chromium."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import POLL_MS, dashboard_server

ROOT = Path(__file__).resolve().parents[2]
PAGES = {
    "overview": "Overview", "splits": "Splits", "early_ends": "Early ends",
    "bidding": "Bidding", "results": "Results", "ratings": "Ratings",
    "head_to_head?player=Ann": "Head-to-head", "seats": "Seat effects",
    "player?player=Ann": "Player",
    "viewer?game=plotters-6p-s1-000000&round=2&trick=3": "Game viewer",
    "verify": "Verify a log", "upload": "Upload logs", "sql": "SQL console",
}

# forms: nothing to chart until a log is given (verify, upload) or columns are picked (sql)
NO_CHART = {"verify", "upload", "sql"}

# A bound on every wait, not a race: CI machines run at load 40, where a rerun can take far
# longer than on a desk; only a page that never gets there fails.
PATIENCE = 300_000
IDLE = ("() => document.querySelector(\"[data-testid='stApp']\")"
        ".getAttribute('data-test-script-state') === 'notRunning'")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("browser") / "dash.duckdb"
    log = tmp_path_factory.mktemp("log") / "server.log"
    with dashboard_server(str(db), str(log)) as url:
        yield url


@pytest.mark.long
def test_every_page_renders_title_chart_and_no_error(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        for path, title in PAGES.items():
            page.goto(f"{server}/{path}", wait_until="domcontentloaded")
            page.get_by_role("heading", name=title).first.wait_for(timeout=PATIENCE)
            if path.split("?")[0] not in NO_CHART:
                page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=PATIENCE)
            else:  # a form: its first widget, once the script has run
                page.locator("[data-testid='stFileUploader'],[data-testid='stTextArea']"
                             ).first.wait_for(timeout=PATIENCE)
            page.wait_for_function(IDLE, timeout=PATIENCE, polling=POLL_MS)  # the script has run to its end
            assert page.locator("[data-testid='stException']").count() == 0, path
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, path
            assert page.get_by_text("Page not found").count() == 0, path  # /overview too
    finally:
        page.context.close()


def _shows(page, words: str) -> None:
    """Wait until the page's main part says `words`: what the server rendered after the
    rerun a player's action caused, however long the machine takes to get there. (Counting
    reruns by the app's script state is not enough: under load the browser may draw a
    quick rerun's start and end in one frame, and the count never moves.)"""
    from playwright.sync_api import TimeoutError as Timeout

    main = page.locator("[data-testid='stMain']")
    try:
        page.wait_for_function(
            "(w) => { const m = document.querySelector(\"[data-testid='stMain']\");"
            " return m !== null && m.innerText.includes(w); }", arg=words, timeout=PATIENCE,
            polling=POLL_MS)
    except Timeout:
        raise AssertionError(f"the page never said {words!r}; it says:\n{main.inner_text()}") from None


def _box(page, player: str, label: str):
    """The score sheet's box for a player's number: a number field, named for assistive
    technology "Ann bid" (as Streamlit names a widget: its label's markdown source)."""
    from trickledger.dashboard.ui import md

    return page.get_by_role("spinbutton", name=md(f"{player} {label}"), exact=True)


def _type_box(page, player: str, label: str, value: int) -> None:
    """Tap a player's box and type a number, as a player does with the phone's keyboard:
    Enter keeps it. The box is a plain number field, so the browser itself says when it
    holds the number; what the number changes on the page is awaited by the caller
    (`_shows`)."""
    from playwright.sync_api import expect

    box = _box(page, player, label)
    box.tap(timeout=PATIENCE)
    box.fill(str(value))
    box.press("Enter")
    expect(box).to_have_value(str(value), timeout=PATIENCE)


def test_the_score_sheet_on_a_phone(server, browser, tmp_path):
    """A round of rage typed on a phone held upright, into the page's number boxes (the
    table's grid is drawn on a canvas, which a test can only tap at coordinates): the boxes
    fit the phone, the scores come with their arithmetic, an impossible number is named
    with its reason, a dispute with the computed score, and the table shows what the boxes
    hold."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                            has_touch=True, device_scale_factor=2)
    try:
        page.goto(f"{server}/sheet", wait_until="domcontentloaded")
        page.get_by_role("heading", name="Score sheet").first.wait_for(timeout=PATIENCE)
        page.get_by_label("Players, clockwise, separated by commas").wait_for(timeout=PATIENCE)
        page.get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name="Rage").click()
        _shows(page, "Rage is for 3 to")
        players = page.get_by_label("Players, clockwise, separated by commas")
        players.fill("Ann, Ben, Cat")
        players.press("Enter")
        page.get_by_role("button", name="Start the sheet").click(timeout=PATIENCE)
        _shows(page, "Rage · Ann, Ben, Cat · first dealer Cat")
        page.screenshot(path=str(tmp_path / "sheet-start.png"))
        grid = page.get_by_test_id("stDataFrame").first
        grid.locator("canvas").first.wait_for(state="visible", timeout=PATIENCE)
        grid.scroll_into_view_if_needed()
        assert grid.bounding_box()["width"] <= 390 - 16  # the table fits the phone's width
        # the numbers are typed into boxes: plain number fields, a line per player
        page.wait_for_function(IDLE, timeout=PATIENCE, polling=POLL_MS)  # a choice made mid-run could be lost
        page.get_by_role("radio", name="Boxes").click(timeout=PATIENCE)
        _box(page, "Cat", "wrote").wait_for(timeout=PATIENCE)
        for player in ("Ann", "Ben", "Cat"):  # every box fits the phone's width, beside the name
            boxes = [_box(page, player, label).bounding_box()
                     for label in ("bid", "won", "+5", "-5", "wrote")]
            assert all(b["x"] >= 0 and b["x"] + b["width"] <= 390 and b["width"] >= 40
                       for b in boxes), boxes
            assert len({round(b["y"]) for b in boxes}) == 1, boxes  # on one line
        typed = {"Ann": {"bid": 4, "won": 4, "+5": 1}, "Ben": {"bid": 3, "won": 5, "-5": 1},
                 "Cat": {"bid": 2, "won": 1, "wrote": 12}}
        for player, numbers in typed.items():
            for label, value in numbers.items():
                _type_box(page, player, label, value)
        for words in ("Ann 19", "4 tricks, bid 4", "Ben -5", "Cat -4",
                      "you wrote 12, the rules give -4"):
            _shows(page, words)
        page.screenshot(path=str(tmp_path / "sheet-round.png"), full_page=True)
        _type_box(page, "Ben", "won", 6)  # Ben won 6: eleven tricks in a round of ten
        _shows(page, "the tricks won add up to 11, but round 1 has 10 tricks")
        error = page.get_by_test_id("stAlertContentError").first
        assert "the tricks won add up to 11" in error.inner_text()  # said as an error
        page.screenshot(path=str(tmp_path / "sheet-impossible.png"))
        # the table shows what the boxes hold (its accessible table, kept beside the canvas)
        page.get_by_role("radio", name="Table").click(timeout=PATIENCE)
        expect(grid.locator("tr", has_text="Ben").first).to_have_text(
            re.compile(r"Ben\s*3\s*6\s*1"), timeout=PATIENCE)  # bid 3, won 6, one -5
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        page.context.close()
