"""Ctrl-C around the steps where the moment it comes matters.

DuckDB 2.0 runs Python's SIGINT handler when a statement starts and may then drop the
KeyboardInterrupt it raised: the statement runs on as if no key had been pressed, and so
would the run. And a KeyboardInterrupt between a COMMIT and the counting of what it
committed makes a run say less than it wrote. The two blocks here close both gaps for
the main thread; the ingest's own loop does the same with a thread that interrupts
DuckDB (ingest.load._Interrupts).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


class PlanInterrupted(KeyboardInterrupt):
    """Ctrl-C while a run planned its work (it had only read): nothing was written."""


def _ours_to_handle() -> bool:
    """Whether this thread may set the SIGINT handler and Ctrl-C does what Python does by
    default, raise KeyboardInterrupt (not in a process that ignores it, in the background
    or as a worker, nor in a host program with a handler of its own)."""
    return threading.current_thread() is threading.main_thread() and \
        signal.getsignal(signal.SIGINT) is signal.default_int_handler


@contextmanager
def interrupt_deferred() -> Iterator[None]:
    """Ctrl-C in the block is raised as KeyboardInterrupt when the block has ended well,
    not inside it (a block that fails raises its own error: that is what went wrong). For
    short steps only: the block cannot be stopped. Outside the main thread, or where
    Ctrl-C does not raise KeyboardInterrupt, the block runs as it is."""
    if not _ours_to_handle():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


class _HeldFromCommit:
    def __init__(self) -> None:
        self.seen = False
        self.holding = False

    def on_sigint(self, signum: int, frame: Any) -> None:
        self.seen = True
        if not self.holding:
            raise KeyboardInterrupt

    def hold(self) -> None:
        if self.seen:  # its KeyboardInterrupt was dropped: nothing gets committed
            raise KeyboardInterrupt
        self.holding = True


@contextmanager
def held_from_commit() -> Iterator[Callable[[], None]]:
    """A write and the counting of it, as one: Ctrl-C stops the block at once until the
    function it yields is called (as a transaction's `before_commit`, right before the
    COMMIT); from there it is noted and raised when the block ends, so what was committed
    is counted first. A Ctrl-C seen before that call whose KeyboardInterrupt DuckDB dropped
    is raised by the call (the transaction rolls back), or when the block ends. Outside
    the main thread, or where Ctrl-C does not raise KeyboardInterrupt, the block runs as
    it is."""
    if not _ours_to_handle():
        yield lambda: None
        return
    state = _HeldFromCommit()
    previous = signal.signal(signal.SIGINT, state.on_sigint)
    try:
        yield state.hold
    finally:
        signal.signal(signal.SIGINT, previous)
    if state.seen:
        raise KeyboardInterrupt
