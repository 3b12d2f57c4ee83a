"""The dashboard freezes its heap once per page (dashboard/heap.py): Streamlit's collection
after every run then skips what the first run left alive."""

from __future__ import annotations

import gc

from trickledger.dashboard import heap


def test_a_pages_first_run_freezes_the_heap_and_later_runs_do_not() -> None:
    page = "a page no other test runs"
    before = gc.get_freeze_count()
    kept = [[] for _ in range(1000)]  # alive now: frozen with the rest
    assert heap.freeze_after_first_run(page) is True
    assert gc.get_freeze_count() >= before + len(kept)
    assert heap.freeze_after_first_run(page) is False
    assert heap.freeze_after_first_run(page + " too") is True
