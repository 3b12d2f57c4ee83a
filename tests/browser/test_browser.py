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


def _keeps(page, cell, digits: str) -> bool:
    """Whether the grid's accessible table comes to hold `digits` in `cell`. That table is
    drawn again only when React draws the grid (its selection moving, say), which may be a
    draw late: the selection is moved, and the table looked at, twice."""
    from playwright.sync_api import TimeoutError as Timeout

    for key in ("ArrowUp", "ArrowDown"):
        page.keyboard.press(key)
        try:
            cell.filter(has_text=digits).wait_for(state="attached", timeout=15_000)
            return True
        except Timeout:
            continue
    return False


def _type_cell(page, grid, row: int, col: int, value: int, widths: list[float],
               header: float = 36, row_height: float = 40) -> None:
    """Tap a cell of the round's table and type a number, as a player does.

    The canvas can be redrawn under a tap (the rerun of the previous number may start only
    now): then the tap selects nothing, the editor goes away while typing, or the number is
    not kept. A try is judged by what the grid shows, not by how long a rerun takes: the
    editor opens and holds the number or not; once it has closed, the grid's accessible
    table (kept beside its canvas) comes to hold the number or not (`_keeps`). The browser
    alone answers these, so their waits are bounded; a failed try is made again (typing a
    kept number again changes nothing), up to eight times, and the failure says what each
    try met. What the number changes on the page is awaited by the caller (`_shows`)."""
    from playwright.sync_api import TimeoutError as Timeout

    digits = str(value)
    editor = page.locator("#portal input, #portal textarea").first
    cell = grid.locator(f"tr[aria-rowindex='{row + 2}'] td[aria-colindex='{col + 1}']")
    tries: list[str] = []  # what each failed try met, for the failure's message
    for _ in range(8):
        page.wait_for_function(IDLE, timeout=PATIENCE)
        box = grid.bounding_box()
        x = box["x"] + sum(widths[:col]) + widths[col] / 2
        y = box["y"] + header + row_height * row + row_height / 2
        page.mouse.click(x, y)
        page.keyboard.type(digits[0])  # a digit on a selected cell opens its editor with it
        try:
            editor.wait_for(state="visible", timeout=30_000)
        except Timeout:
            tries.append(f"tap at ({x:.0f}, {y:.0f}) in a grid at {box}: no editor opened")
            page.keyboard.press("Escape")
            continue
        page.keyboard.type(digits[1:])
        try:  # a rerun that redraws the grid now takes the editor away: type it again
            page.wait_for_function(
                "(v) => { const e = document.querySelector('#portal input, #portal textarea');"
                " return e !== null && e.value === v; }", arg=digits, timeout=30_000)
        except Timeout:
            tries.append(f"tap at ({x:.0f}, {y:.0f}): the editor did not come to hold {digits}")
            page.keyboard.press("Escape")
            continue
        page.keyboard.press("Enter")
        editor.wait_for(state="hidden", timeout=PATIENCE)
        if _keeps(page, cell, digits):
            return
        rows = grid.locator("tr").all_inner_texts()
        tries.append(f"tap at ({x:.0f}, {y:.0f}): typed {digits}, the table holds {rows}")
    raise AssertionError(f"the grid did not keep {value} in row {row}, column {col}; "
                         + "; ".join(tries))


def test_the_score_sheet_on_a_phone(server, tmp_path):
    """A round of rage typed on a phone held upright: the scores with their arithmetic,
    an impossible number named with its reason, a dispute with the computed score."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
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
        page.screenshot(path=str(tmp_path / "sheet-start.png"))
        grid = page.get_by_test_id("stDataFrame").first
        grid.locator("canvas").first.wait_for(state="visible", timeout=PATIENCE)
        grid.scroll_into_view_if_needed()
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
