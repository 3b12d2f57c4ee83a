"""One real-browser pass: `trickledger dashboard` started for real, every page in headless Chromium."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from helpers import CHROMIUM_ARGS, dashboard_server

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGES = {
    "overview": "Overview", "splits": "Splits", "early_ends": "Early ends",
    "bidding": "Bidding", "results": "Results", "ratings": "Ratings",
    "head_to_head?player=Ann": "Head-to-head", "seats": "Seat effects",
    "player?player=Ann": "Player",
    "viewer?game=plotters-6p-s1-000000&round=2&trick=3": "Game viewer",
    "verify": "Verify a log", "upload": "Upload logs", "sql": "SQL console",
}

NO_CHART = {"verify", "upload"}  # forms: nothing to chart until a log is given


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
        browser.close()
