"""The dashboard runs the installed package wherever it is started: from inside a source
checkout, nothing of the checkout shadows the installed compiled engine (issues 27 and 32)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from helpers import CHROMIUM_ARGS, free_port, wait_for_health
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]


def test_the_dashboard_started_in_a_checkout_runs_the_installed_compiled_engine(
        installed_wheel, tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(installed_wheel)}
    log = open(tmp_path / "server.log", "w+")
    # started in the checkout with -m, which puts the working folder first on sys.path:
    # nothing there is named trickledger, so the installed package is the one found
    proc = subprocess.Popen([sys.executable, "-m", "trickledger", "dashboard",
                             "--port", str(port), "--no-samples",
                             "--db", str(tmp_path / "d.duckdb")],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        up = wait_for_health(f"http://127.0.0.1:{port}", proc)
        log.seek(0)
        assert up, log.read()
        # the engine is reported once the app runs: the Overview in a browser
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path="/usr/bin/chromium",
                                         args=CHROMIUM_ARGS)
            try:
                tab = browser.new_page()
                tab.goto(f"http://127.0.0.1:{port}/", timeout=600_000)
                tab.get_by_text("Replays on this server run on the engine").wait_for(
                    timeout=600_000)
                shown = tab.get_by_text("Replays on this server run on the engine").inner_text()
            finally:
                browser.close()
        assert "compiled with mypyc" in shown, shown
        log.seek(0)
        text = log.read()
        said = [ln for ln in text.splitlines() if "dashboard: engine" in ln]
        assert said and "engine compiled with mypyc" in said[0], text
        assert str(installed_wheel) in said[0], said[0]
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
