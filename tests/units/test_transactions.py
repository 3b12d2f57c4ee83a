"""One write transaction, written once: ingest.transactions.transaction."""

from __future__ import annotations

import re
import signal
import threading
from pathlib import Path

import duckdb
import pytest

from trickledger.ingest.transactions import ctrl_c_not_lost, transaction

ROOT = Path(__file__).resolve().parents[2]


def test_a_block_that_raises_leaves_nothing_behind() -> None:
    con = duckdb.connect(":memory:")
    con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(KeyError), transaction(con):
        con.execute("INSERT INTO t VALUES (1)")
        raise KeyError("stop")
    with transaction(con):
        con.execute("INSERT INTO t VALUES (2)")
    assert con.execute("SELECT list(x) FROM t").fetchone() == ([2],)


def test_no_module_writes_begin_commit_rollback_itself() -> None:
    spelled = re.compile(r"""execute\(\s*["'](BEGIN|COMMIT|ROLLBACK)\b""", re.IGNORECASE)
    places = [f"{path.relative_to(ROOT)}:{n}"
              for package in ("replay", "ingest", "dashboard", "src/trickledger", "bench")
              for path in sorted((ROOT / package).rglob("*.py"))
              if path != ROOT / "ingest" / "transactions.py"
              for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if spelled.search(line)]
    assert places == []


def _ctrl_c_swallowed() -> None:
    """A Ctrl-C whose KeyboardInterrupt is lost, as DuckDB 2.0 loses it when it comes while
    a statement starts (its handler ran; the exception never reached the caller)."""
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        pass


def test_a_ctrl_c_lost_inside_the_block_ends_it_with_keyboard_interrupt() -> None:
    assert threading.current_thread() is threading.main_thread()
    before = signal.getsignal(signal.SIGINT)
    went_on = []
    with pytest.raises(KeyboardInterrupt), ctrl_c_not_lost():
        _ctrl_c_swallowed()
        went_on.append("the rest of the block")  # a write under way is finished
    assert went_on == ["the rest of the block"]
    assert signal.getsignal(signal.SIGINT) is before


def test_without_a_ctrl_c_the_block_ends_as_it_ends() -> None:
    before = signal.getsignal(signal.SIGINT)
    with ctrl_c_not_lost():
        pass
    with pytest.raises(KeyError, match="its own"), ctrl_c_not_lost():
        _ctrl_c_swallowed()
        raise KeyError("its own")  # a block that fails anyway says why
    assert signal.getsignal(signal.SIGINT) is before


def test_a_ctrl_c_outside_the_block_is_not_raised_by_a_later_block() -> None:
    _ctrl_c_swallowed()
    with ctrl_c_not_lost():
        pass
