"""Writing logs: the inverse of the reader, one JSON object per line."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .engine import exact_json
from .reader import Log


def dump_lines(header: dict[str, Any], events: Iterable[dict[str, Any]]) -> bytes:
    """A log as bytes: the header line, then one line per event, each ending in a newline."""
    out = [exact_json(header)]  # a header's meta may hold an integer of any size
    out.extend(exact_json(e) for e in events)
    return b"\n".join(out) + b"\n"


def rewrite(log: Log) -> bytes:
    """Re-serialise a read log, comments and blank lines dropped (round-trip tests)."""
    return dump_lines(log.header.raw, (e.data for e in log.events()))
