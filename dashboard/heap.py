"""Keeping Streamlit's collection after each run cheap.

Streamlit runs a full garbage collection after every run of a page (its option
`runner.postScriptGC`, so that a run's cycles do not pile up). A full collection walks every
object the process tracks: the hundreds of thousands the server's libraries made when they
were imported, which never become garbage. On the Record page that walk was a third of the
server's CPU per tap. `gc.freeze()` moves the objects alive now out of the collector's sight,
so a collection after a run walks only what runs made since.

Frozen once per page, after its first complete run in this process (its modules are then
imported): the cost stays bounded (a page list is short), and objects of a run that are alive
at that moment (one visitor's state) stay alive for the process's life only when they are in
a cycle.
"""

from __future__ import annotations

import gc
import threading

_frozen: set[str] = set()
_lock = threading.Lock()


def freeze_after_first_run(page: str) -> bool:
    """Freeze the heap if `page` has not run to its end in this process before; whether it
    froze."""
    with _lock:
        if page in _frozen:
            return False
        _frozen.add(page)
        gc.collect()  # garbage goes first: what is frozen is never collected
        gc.freeze()
        return True
