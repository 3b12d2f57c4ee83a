"""What a page brings up to date before it asks: the per-game summaries the statistics read,
the ratings; and the hand estimates a visitor asks for. Each runs in a child process
(ingest.jobs)."""

from __future__ import annotations

import logging
from typing import Any

from trickledger.ingest import jobs
from trickledger.ingest.db import DatabaseBusy

from .access import connection, data_state, database, query, run_waits, write_job
from .filters import Filters, filtered

_log = logging.getLogger("trickledger.dashboard")


# The database states (data_state) at which the summaries and the ratings were last found
# up to date: while the state stays, no page asks again.
_fresh_at: dict[str, tuple[Any, ...]] = {}


def ensure_summaries() -> str | None:
    """Make the per-game summaries the statistics read (ingest.summaries) for games that
    lack them — a run of ingest makes them when it ends, so only a killed run leaves any
    behind — without waiting for a file another process is writing; returns a note when
    some games are not in the figures yet."""
    from trickledger.ingest import summaries

    store = database()
    state = data_state()
    if store.kind == "lake" or _fresh_at.get("summaries") == state:
        return None
    try:
        with connection(store) as con:  # within the page run's one wait
            missing = summaries.behind(con)
    except DatabaseBusy:
        return None  # the page's own reads say the database is busy
    if missing:
        try:
            # wait for nobody: a file held by a writer is an ingest under way, which makes
            # the summaries itself when it ends
            jobs.run("summaries", {"db": store.path, "wait_s": 0.0})
        except (DatabaseBusy, jobs.JobBusy):
            return (f"{count_words(missing, 'game')} loaded by an ingest still under way "
                    f"{'is' if missing == 1 else 'are'} not in these figures yet: they "
                    f"count once it ends.")
        except jobs.JobFailed as e:
            _log.warning("summaries: %s", e)
            return (f"{count_words(missing, 'game')} {'is' if missing == 1 else 'are'} not "
                    f"in these figures yet (their summaries could not be made).")
        query.clear()
    _fresh_at["summaries"] = data_state()
    return None


def count_words(n: int, noun: str) -> str:
    """'1 game', '2 games'."""
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def ensure_ratings() -> str | None:
    """Bring `rating_history` up to date when the complete games changed (cheap when they
    did not); returns a note when the database was busy and older ratings are shown."""
    from trickledger.ingest import ratings

    store = database()
    if store.kind == "lake":
        return None  # a lake's ratings are not stored (docs/scale.md)
    if _fresh_at.get("ratings") == data_state():
        return None
    waits = run_waits()
    try:
        with connection(store) as con:  # within the page run's one wait
            if ratings.is_fresh(con):
                _fresh_at["ratings"] = data_state()
                return None
        # the job's waits for the file come out of the same budget
        done = jobs.run("ratings", {"db": store.path, "wait_s": waits.lock_s})
        waits.lock_s = max(0.0, waits.lock_s - float(done.get("waited", 0.0)))
    except (DatabaseBusy, jobs.JobBusy):
        waits.lock_s = 0.0
        return ("The ratings could not be brought up to date: another process is "
                "writing to the database. They are from before its latest games.")
    query.clear()
    return None


def estimate_hands(f: Filters, rounds: int, progress: Any = None) -> int:
    """Run the hand estimates for up to `rounds` rounds of the filtered games now (the
    same cached Monte-Carlo as `trickledger analyse`); returns the hands estimated."""
    ids = filtered("{games}", f)["game_id"].tolist()
    with write_job():
        result = jobs.run("estimate", {"db": database().path, "game_ids": ids or [""],
                                       "limit": rounds}, progress)
    query.clear()
    return int(result["hands_done"])
