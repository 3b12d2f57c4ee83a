"""One write transaction, written once: ingest.transactions.transaction."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from trickledger.ingest.transactions import transaction

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
