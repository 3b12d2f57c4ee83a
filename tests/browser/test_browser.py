"""One real-browser pass: `trickledger dashboard` started for real, every page in headless Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import CHROMIUM_ARGS, dashboard_server

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
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


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("browser") / "dash.duckdb"
    log = tmp_path_factory.mktemp("log") / "server.log"
    with dashboard_server(str(db), str(log)) as url:
        yield url


def test_every_page_renders_title_chart_and_no_error(server):
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), "Debian's chromium is needed (.ci/run installs it)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for path, title in PAGES.items():
            page.goto(f"{server}/{path}", wait_until="domcontentloaded")
            page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
            if path.split("?")[0] not in NO_CHART:
                page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
            else:  # a form: its first widget, once the script has run
                page.locator("[data-testid='stFileUploader'],[data-testid='stTextArea']"
                             ).first.wait_for(timeout=60_000)
            page.wait_for_timeout(500)
            assert page.locator("[data-testid='stException']").count() == 0, path
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, path
            assert page.get_by_text("Page not found").count() == 0, path  # /overview too
        browser.close()


# The app reports its script state on the root element; count the runs that finish, so a
# test waits for the rerun its own action caused (no sleeps).
WATCH_RUNS = """() => {
    const app = document.querySelector("[data-testid='stApp']");
    window.__runs = 0; window.__busy = false;
    new MutationObserver(() => {
        const state = app.getAttribute("data-test-script-state");
        if (state !== "notRunning") { window.__busy = true; }
        else if (window.__busy) { window.__busy = false; window.__runs += 1; }
    }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""


def _after_rerun(page, action, timeout: float = 60_000) -> None:
    """Do `action`, then wait until the rerun it causes has finished."""
    before = page.evaluate("() => window.__runs")
    action()
    page.wait_for_function(f"() => window.__runs > {before} && !window.__busy",
                           timeout=timeout)


def _type_cell(page, grid, row: int, col: int, value: int, widths: list[float],
               header: float = 36, row_height: float = 40) -> None:
    """Tap a cell of the round's table and type a number, as a player does. The grid is
    drawn on a canvas that a rerun may redraw under the tap: a tap it did not take is
    tapped again (the rerun the number causes is the proof it was taken)."""
    from playwright.sync_api import TimeoutError as Timeout

    def edit() -> None:
        box = grid.bounding_box()
        x = box["x"] + sum(widths[:col]) + widths[col] / 2
        y = box["y"] + header + row_height * row + row_height / 2
        page.mouse.click(x, y)
        digits = str(value)
        page.keyboard.type(digits[0])  # a digit on a cell opens its editor with it
        page.locator("#portal input, #portal textarea").first.wait_for(state="visible",
                                                                        timeout=10_000)
        page.keyboard.type(digits[1:])
        page.wait_for_function(
            "(v) => { const e = document.querySelector('#portal input, #portal textarea');"
            " return e !== null && e.value === v; }", arg=digits, timeout=10_000)
        page.keyboard.press("Enter")

    for attempt in range(3):
        try:
            _after_rerun(page, edit, timeout=20_000)
            return
        except Timeout:
            if attempt == 2:
                raise
            page.keyboard.press("Escape")


def test_the_score_sheet_on_a_phone(server, tmp_path):
    """A round of rage typed on a phone held upright: the scores with their arithmetic,
    an impossible number named with its reason, a dispute with the computed score."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, device_scale_factor=2)
        page.goto(f"{server}/sheet", wait_until="domcontentloaded")
        page.get_by_role("heading", name="Score sheet").first.wait_for(timeout=60_000)
        page.get_by_label("Players, clockwise, separated by commas").wait_for(timeout=60_000)
        page.evaluate(WATCH_RUNS)
        _after_rerun(page, lambda: (page.get_by_test_id("stSelectbox").first.click(),
                                    page.get_by_role("option", name="Rage").click()))
        players = page.get_by_label("Players, clockwise, separated by commas")
        _after_rerun(page, lambda: (players.fill("Ann, Ben, Cat"), players.press("Enter")))
        _after_rerun(page, lambda: page.get_by_role("button", name="Start the sheet").click())
        page.screenshot(path=str(tmp_path / "sheet-start.png"))
        grid = page.get_by_test_id("stDataFrame").first
        grid.locator("canvas").first.wait_for(state="visible", timeout=60_000)
        grid.scroll_into_view_if_needed()
        box = grid.bounding_box()
        assert box["width"] <= 390 - 16  # the table fits the phone's width
        # the name column, then bid, won, +5, -5, wrote
        widths = [box["width"] - 5 * 56 - 10] + [56] * 4 + [66]
        typed = {0: {1: 4, 2: 4, 3: 1}, 1: {1: 3, 2: 5, 4: 1}, 2: {1: 2, 2: 1, 5: 12}}
        for row, cells in typed.items():
            for col, value in cells.items():
                _type_cell(page, grid, row, col, value, widths)
        body = page.locator("[data-testid='stMain']")
        for words in ("Ann 19", "4 tricks, bid 4", "Ben -5", "Cat -4",
                      "you wrote 12, the rules give -4"):
            assert words in body.inner_text(), words
        page.screenshot(path=str(tmp_path / "sheet-round.png"), full_page=True)
        _type_cell(page, grid, 1, 2, 6, widths)  # Ben won 6: eleven tricks in a round of ten
        error = page.get_by_test_id("stAlertContentError").first
        assert "the tricks won add up to 11, but round 1 has 10 tricks" in error.inner_text()
        page.screenshot(path=str(tmp_path / "sheet-impossible.png"))
        assert page.locator("[data-testid='stException']").count() == 0
        browser.close()
