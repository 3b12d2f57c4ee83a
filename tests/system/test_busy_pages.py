"""A page on a database file another process holds (dashboard/data/access.py): one wait per page
run, shared by the sidebar and the body, and a busy message that names no server path."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import DASHBOARD, dashboard_database
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
APP = str(DASHBOARD / "app.py")

def test_a_page_run_on_a_held_file_waits_once_and_names_no_path(held, monkeypatch):
    from trickledger.dashboard.data import access
    from trickledger.ingest import db as dbmod

    path, holder = held
    # a writer waits for the file too (its flag names a live process: the holder)
    Path(path + dbmod.WRITER_WAITING + str(holder)).write_text(dbmod._started(holder) or "")
    monkeypatch.setattr(access, "LOCK_WAIT_S", 3.0)
    monkeypatch.setattr(access, "WRITER_WAIT_S", 2.0)
    slept: list[float] = []

    def sleep(seconds: float) -> None:  # every wait of the page run, as it asks for it
        slept.append(seconds)
        time.sleep(seconds)

    monkeypatch.setattr(dbmod, "time", SimpleNamespace(monotonic=time.monotonic,
                                                        sleep=sleep, time=time.time))
    with dashboard_database(path):
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
    assert not at.exception
    # the sidebar's filter and the page's body read the file: together one wait
    assert sum(slept) <= 3.0 + 2.0 + 0.01, sum(slept)
    assert sum(slept) >= 2.0  # it did wait (for the writer, then for the file)
    shown = [w.value for w in at.warning] + [m.value for m in at.markdown] + \
        [e.value for e in at.error]
    assert any("The database is busy" in w for w in shown), shown
    assert not any("club-secret-folder" in w or "held.duckdb" in w for w in shown), shown


def test_a_failed_write_names_no_server_path(tmp_path, monkeypatch):
    """A write job's error quotes the database's path (a busy file, a full disk): the
    visitor gets the words, not the server's folders."""
    from trickledger.dashboard.data import access, uploads
    from trickledger.ingest import jobs

    path = str(tmp_path / "club-secret-folder" / "d.duckdb")

    def failing(*args, **kwargs):
        raise jobs.JobFailed(f"{path}: could not write (disk full in {Path(path).parent})")

    monkeypatch.setattr(jobs, "upload", failing)
    with dashboard_database(path):
        with pytest.raises(access.WriteFailed) as failed:
            uploads.load([("a.jsonl", b"{}")])
    assert "club-secret-folder" not in str(failed.value)
    assert "could not write" in str(failed.value) and "the database" in str(failed.value)


def test_the_ratings_refresh_waits_within_the_page_runs_budget(tmp_path, monkeypatch):
    """A page that brings the ratings up to date hands the job what is left of its one wait
    (the job used to wait 30 s to read and 30 s more to write, whatever the page had left),
    and a busy file spends the rest of it."""
    from trickledger.dashboard.data import access, analyses
    from trickledger.ingest import jobs
    from trickledger.ingest.load import expand, ingest

    db = str(tmp_path / "stale.duckdb")
    ingest(expand([str(ROOT / "sample_logs" / "rage")])[0], db, jobs=1)
    asked: list[dict] = []

    def busy_job(job: str, request: dict, **kw: object) -> dict:
        asked.append(request)
        raise jobs.JobBusy("held")

    monkeypatch.setattr(jobs, "run", busy_job)
    with dashboard_database(db):
        note = analyses.ensure_ratings()
    assert note is not None and "could not be brought up to date" in note
    assert len(asked) == 1 and 0 <= asked[0]["wait_s"] <= access.LOCK_WAIT_S


def test_the_ratings_job_waits_no_longer_than_it_is_given(held):
    """The job itself: given no time to wait, a held file is busy at its first try."""
    from trickledger.ingest import jobs
    from trickledger.ingest.db import DatabaseBusy

    db, _ = held
    with pytest.raises(DatabaseBusy):
        jobs._ratings({"db": db, "wait_s": 0.0}, sys.stdout)
