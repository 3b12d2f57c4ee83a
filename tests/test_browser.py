"""One real-browser pass: `trickledger dashboard` started for real, every page in headless Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGES = {
    "overview": "Overview", "splits": "Splits", "early_ends": "Early ends",
    "bidding": "Bidding", "results": "Results",
    "viewer?game=plotters-6p-s1-000000&round=2&trick=3": "Game viewer",
    "verify": "Verify a log", "upload": "Upload logs", "sql": "SQL console",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    port = free_port()
    db = tmp_path_factory.mktemp("browser") / "dash.duckdb"
    log = open(tmp_path_factory.mktemp("log") / "server.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "replay.cli", "dashboard", "--port", str(port),
                             "--db", str(db)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
        if proc.poll() is not None:
            break
    else:
        proc.kill()
    if proc.poll() is not None:
        log.seek(0)
        raise AssertionError("dashboard did not start:\n" + log.read())
    yield url
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


def test_every_page_renders_title_chart_and_no_error(server):
    from playwright.sync_api import sync_playwright

    assert os.path.exists(CHROMIUM), "Debian's chromium is needed (.ci/run installs it)"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        for path, title in PAGES.items():
            page.goto(f"{server}/{path}", wait_until="domcontentloaded")
            page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
            page.locator("[data-testid='stPlotlyChart']").first.wait_for(timeout=60_000)
            page.wait_for_timeout(500)
            assert page.locator("[data-testid='stException']").count() == 0, path
            assert page.locator("[data-testid='stAlertContentError']").count() == 0, path
        browser.close()
