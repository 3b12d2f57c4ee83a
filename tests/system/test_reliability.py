"""Crash safety with a real SIGKILL, a dashboard under a concurrent ingest, dashboard launch flags."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import (
    CHROMIUM_ARGS,
    PAUSE_BETWEEN_BATCHES,
    dashboard_server,
    killed_at_marker,
    pause_in_batch,
    rows,
)

from trickledger.dashboard.limits import MAX_FILE_MB
from trickledger.ingest.load import expand

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CORPUS = ROOT / "sample_logs" / "corpus"


def consistent(db) -> None:
    """No partial game: every fact belongs to a loaded game, every game to a log."""
    for table in ("players", "rounds", "tricks", "plays", "takes", "bids", "round_scores",
                  "claims", "turns", "keeps", "trumps"):
        orphans = rows(db, f"SELECT count(*) FROM {table} "
                          f"WHERE game_id NOT IN (SELECT game_id FROM games)")[0][0]
        assert orphans == 0, table
    assert rows(db, "SELECT count(*) FROM games WHERE sha256 NOT IN (SELECT sha256 FROM logs)") \
        == [(0,)]
    # every game has its players and (when finished rounds exist) its scores
    assert rows(db, "SELECT count(*) FROM games g WHERE NOT EXISTS "
                   "(SELECT 1 FROM players p WHERE p.game_id = g.game_id)") == [(0,)]


# A real `trickledger ingest` process that stops in the middle of its third batch's
# transaction (after the `players` rows are in), marks the moment in a file and waits there
# to be killed. The pause is patched in by the test; the product has no test hooks.
HANG_MID_BATCH = pause_in_batch(3)


def test_sigkill_mid_batch_leaves_a_consistent_database_and_a_rerun_completes(tmp_path):
    db = tmp_path / "crash.duckdb"
    marker = tmp_path / "marker"
    # 20 logs of each game of the corpus (every game's tables, disputed and illegal games
    # among them) in batches of 10: the kill lands in the third of eight batches, as it
    # landed in the third of the whole corpus's eight batches of 40, for a quarter of the work
    corpus = tmp_path / "corpus"
    for game in sorted(CORPUS.iterdir()):
        (corpus / game.name).mkdir(parents=True)
        for log in sorted(game.glob("*.jsonl"))[:20]:
            shutil.copyfile(log, corpus / game.name / log.name)
    batch = 10
    args = ["ingest", "--db", str(db), "--batch", str(batch), "--jobs", "2", str(corpus)]
    # killed mid-transaction (it is checked to be alive there)
    assert killed_at_marker([HANG_MID_BATCH, str(marker), *args], marker, 120) == \
        -signal.SIGKILL
    # the database opens, holds exactly the two committed batches, and nothing partial
    games = rows(db, "SELECT count(*) FROM games")[0][0]
    logs = rows(db, "SELECT count(*) FROM logs")[0][0]
    assert 0 < logs <= 2 * batch and games <= logs
    consistent(db)
    # a re-run completes the load; every input file is in logs or ingest_errors
    done = subprocess.run([sys.executable, "-m", "trickledger", *args], cwd=ROOT, capture_output=True,
                          text=True)
    # exit 0: every file loaded (the corpus's disputed and illegal games are loaded facts)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    sources, _ = expand([str(corpus)])
    assert len(sources) == 80
    names = {r[0] for r in rows(db, "SELECT file_name FROM logs UNION "
                                   "SELECT file_name FROM ingest_errors")}
    assert {s.name for s in sources} <= names
    assert rows(db, "SELECT count(*) FROM logs")[0][0] == len(sources)
    consistent(db)


@pytest.mark.long
def test_pages_stay_usable_while_an_ingest_runs(tmp_path, sample_logs_db):
    """A real dashboard server, three headless-browser sessions loading pages, and
    `trickledger ingest` under way on the same database file from another process: every
    page finishes with its chart and no error box, and the ingest then completes. (The load
    run with many sessions, which measures page times, is bench/sessions.py.)"""
    from playwright.sync_api import sync_playwright

    db = Path(sample_logs_db)  # every sample log, the pages' data
    before = rows(db, "SELECT count(*) FROM logs")[0][0]
    extra = tmp_path / "extra"
    subprocess.run([sys.executable, "-m", "trickledger", "simulate", "--game", "rage",
                    "--games", "40", "--seed", "11", "--out", str(extra)], cwd=ROOT,
                   check=True, capture_output=True)
    paused, go = tmp_path / "paused", tmp_path / "go"
    with dashboard_server(str(db), str(tmp_path / "server.log"), no_samples=True) as url:
        writer = subprocess.Popen([sys.executable, "-c", PAUSE_BETWEEN_BATCHES, str(paused),
                                   str(go), "ingest", "--db", str(db), "--batch", "10",
                                   "--jobs", "1", str(extra)],
                                  cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        try:
            while not paused.exists():  # the ingest has committed a batch and goes on later
                assert writer.poll() is None, writer.communicate()
                time.sleep(0.05)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                pages = []
                for view in ("overview", "bidding", "results"):
                    page = browser.new_page()
                    page.set_default_timeout(600_000)  # a bound for a hung server only
                    page.goto(f"{url}/{view}", wait_until="domcontentloaded")
                    pages.append((view, page))
                for view, page in pages:
                    page.locator("h1").first.wait_for()
                    page.locator("[data-testid='stPlotlyChart']").first.wait_for()
                    page.locator("[data-testid='stStatusWidget']").wait_for(state="hidden")
                    for box in ("stException", "stAlertContentError"):
                        assert page.locator(f"[data-testid='{box}']").count() == 0, (view, box)
                browser.close()
            assert writer.poll() is None  # the pages were served while the ingest was open
        finally:
            go.write_text("go")
            out, err = writer.communicate()
    assert writer.returncode in (0, 1), out + err  # 1: simulated claims may be disputed
    assert "Traceback" not in err
    assert rows(db, "SELECT count(*) FROM logs")[0][0] == before + 40


@pytest.mark.parametrize("flag,value", [("--server.address", "127.0.0.1"),
                                        ("--server.enableXsrfProtection", "true"),
                                        ("--server.maxUploadSize", str(MAX_FILE_MB)),
                                        ("--runner.magicEnabled", "false")])
def test_dashboard_is_local_with_xsrf_on_and_uploads_capped(flag, value):
    """The server's own cap is the per-file limit stated once in dashboard/limits.py."""
    from trickledger.dashboard.commands import streamlit_command

    cmd = streamlit_command(address="127.0.0.1", port=8501)
    assert cmd[cmd.index(flag) + 1] == value
    assert "--server.address" in streamlit_command(address="0.0.0.0", port=1)
