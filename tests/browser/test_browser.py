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


def test_every_page_renders_title_chart_and_no_error(server):
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), "Debian's chromium is needed (.ci/run installs it)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for path, title in PAGES.items():
            page.goto(f"{server}/{path}", wait_until="domcontentloaded")
            page.get_by_role("heading", name=title).first.wait_for(timeout=PATIENCE)
            if path.split("?")[0] not in NO_CHART:
                page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=PATIENCE)
            else:  # a form: its first widget, once the script has run
                page.locator("[data-testid='stFileUploader'],[data-testid='stTextArea']"
                             ).first.wait_for(timeout=PATIENCE)
            page.wait_for_function(IDLE, timeout=PATIENCE)  # the script has run to its end
            assert page.locator("[data-testid='stException']").count() == 0, path
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, path
            assert page.get_by_text("Page not found").count() == 0, path  # /overview too
        browser.close()


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
            " return m !== null && m.innerText.includes(w); }", arg=words, timeout=PATIENCE)
    except Timeout:
        raise AssertionError(f"the page never said {words!r}; it says:\n{main.inner_text()}") from None


def _type_cell(page, grid, row: int, col: int, value: int, widths: list[float],
               header: float = 36, row_height: float = 40) -> None:
    """Tap a cell of the round's table and type a number, as a player does.

    The canvas can be redrawn under a tap (the rerun of the previous number may start only
    now): then the tap selects nothing, the editor goes away while typing, or the number is
    not kept. A try is judged by what the grid shows, not by how long a rerun takes: the
    editor opens and holds the number or not; once it has closed, the grid's accessible
    table (kept beside its canvas, updated a moment after it) comes to hold the number or
    not. The browser alone answers these, so their waits are bounded. What the number
    changes on the page is awaited by the caller (`_shows`)."""
    from playwright.sync_api import TimeoutError as Timeout

    digits = str(value)
    editor = page.locator("#portal input, #portal textarea").first
    cell = grid.locator(f"tr[aria-rowindex='{row + 2}'] td[aria-colindex='{col + 1}']")
    for _ in range(5):
        page.wait_for_function(IDLE, timeout=PATIENCE)
        box = grid.bounding_box()
        x = box["x"] + sum(widths[:col]) + widths[col] / 2
        y = box["y"] + header + row_height * row + row_height / 2
        page.mouse.click(x, y)
        page.keyboard.type(digits[0])  # a digit on a selected cell opens its editor with it
        try:
            editor.wait_for(state="visible", timeout=30_000)
        except Timeout:
            page.keyboard.press("Escape")
            continue
        page.keyboard.type(digits[1:])
        try:  # a rerun that redraws the grid now takes the editor away: type it again
            page.wait_for_function(
                "(v) => { const e = document.querySelector('#portal input, #portal textarea');"
                " return e !== null && e.value === v; }", arg=digits, timeout=30_000)
        except Timeout:
            page.keyboard.press("Escape")
            continue
        page.keyboard.press("Enter")
        editor.wait_for(state="hidden", timeout=PATIENCE)
        try:
            cell.filter(has_text=digits).wait_for(state="attached", timeout=30_000)
        except Timeout:
            continue
        return
    raise AssertionError(f"the grid did not keep {value} in row {row}, column {col}")


def _started_sheet(browser, server: str, tmp_path: Path):
    """A phone's page with a rage sheet for Ann, Ben and Cat started, and its round's table
    drawn. The table is drawn by a part of the page the browser fetches when it is first
    needed; a browser session whose fetch stalls shows its placeholder for good (seen once
    in CI, while a fresh session on the same server drew it at once). That is the
    browser's own doing, so it is a try: a fresh session, up to three times."""
    from playwright.sync_api import TimeoutError as Timeout

    for attempt in range(3):
        page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                                has_touch=True, device_scale_factor=2)
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
        page.screenshot(path=str(tmp_path / f"sheet-start-{attempt}.png"))
        grid = page.get_by_test_id("stDataFrame").first
        try:
            grid.locator("canvas").first.wait_for(state="visible", timeout=120_000)
        except Timeout:
            page.close()
            continue
        return page, grid
    raise AssertionError("three browser sessions never drew the round's table")


def test_the_score_sheet_on_a_phone(server, tmp_path):
    """A round of rage typed on a phone held upright: the scores with their arithmetic,
    an impossible number named with its reason, a dispute with the computed score."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page, grid = _started_sheet(browser, server, tmp_path)
        box = grid.bounding_box()
        assert box["width"] <= 390 - 16  # the table fits the phone's width
        # the name column, then bid, won, +5, -5, wrote
        widths = [box["width"] - 5 * 56 - 10] + [56] * 4 + [66]
        typed = {0: {1: 4, 2: 4, 3: 1}, 1: {1: 3, 2: 5, 4: 1}, 2: {1: 2, 2: 1, 5: 12}}
        for row, cells in typed.items():
            for col, value in cells.items():
                _type_cell(page, grid, row, col, value, widths)
        for words in ("Ann 19", "4 tricks, bid 4", "Ben -5", "Cat -4",
                      "you wrote 12, the rules give -4"):
            _shows(page, words)
        page.screenshot(path=str(tmp_path / "sheet-round.png"), full_page=True)
        _type_cell(page, grid, 1, 2, 6, widths)  # Ben won 6: eleven tricks in a round of ten
        _shows(page, "the tricks won add up to 11, but round 1 has 10 tricks")
        error = page.get_by_test_id("stAlertContentError").first
        assert "the tricks won add up to 11" in error.inner_text()  # said as an error
        page.screenshot(path=str(tmp_path / "sheet-impossible.png"))
        assert page.locator("[data-testid='stException']").count() == 0
        browser.close()
