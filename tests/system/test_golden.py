"""The golden snapshot: every sample log's verdict (`verify --json`) and rendering
(`replay`), and every table and view after loading the samples, are byte-identical to the
snapshot committed in tests/system/golden.json.

A refactoring must leave it as it is. A change of behaviour that changes it is rewritten
with `TRICKLEDGER_GOLDEN_UPDATE=1 python -m pytest tests/system/test_golden.py`, and the
commit says which facts changed and why. The snapshot holds a SHA-256 per output (and a
row count per table), so it stays small; on a mismatch the test names each log or table
that differs, and `trickledger verify --json` / `replay` / `sql` show the new output to
compare with the old commit's.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from trickledger.replay.engine import replay_path, verdict
from trickledger.sample_logs import SAMPLES

# an ingest's audit row ends with how long it took
TIMING = re.compile(r"; [0-9,]+ events in [0-9.]+ s \([0-9,]+ events/s\)$")
GOLDEN = Path(__file__).resolve().parent / "golden.json"
# written when a row is loaded or a cache computed, or by whom: not part of what the samples say
VOLATILE = {"actor", "ingested_at", "recorded_at", "applied_at", "computed_at", "happened_at", "seconds"}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sample_files() -> list[Path]:
    return sorted(SAMPLES.rglob("*.jsonl"))


def outputs() -> dict[str, str]:
    """log (relative to the samples) -> the digest of its verdict and of its rendering."""
    out: dict[str, str] = {}
    for path in sample_files():
        name = path.relative_to(SAMPLES).as_posix()
        r = replay_path(str(path), name)
        out[f"verify {name}"] = digest(orjson.dumps(verdict(r), option=orjson.OPT_SORT_KEYS))
        out[f"replay {name}"] = digest("\n".join(r.render()).encode())
    return out


def canonical(value: Any) -> Any:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list | tuple):
        return [canonical(v) for v in value]
    if isinstance(value, dict):
        return {k: canonical(v) for k, v in value.items()}
    if isinstance(value, str):
        return TIMING.sub("", value.replace(str(SAMPLES), "<samples>"))
    return value if value is None or isinstance(value, bool | int) else str(value)


def tables(db: Path) -> dict[str, str]:
    """table or view -> 'rows:digest' of its rows in a canonical order, without the
    columns that say when something was done."""
    out: dict[str, str] = {}
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
            "ORDER BY table_name").fetchall()]
        for name in names:
            columns = [r[0] for r in con.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' "
                "AND table_name = ? ORDER BY ordinal_position", [name]).fetchall()]
            kept = [c for c in columns if c not in VOLATILE]
            select = ", ".join(f'"{c}"' for c in kept)  # names from the catalogue
            rows = con.execute(f'SELECT {select} FROM "{name}" ORDER BY ALL').fetchall()
            body = orjson.dumps([kept, canonical([list(r) for r in rows])])
            out[f"table {name}"] = f"{len(rows)}:{digest(body)}"
    finally:
        con.close()
    return out


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("golden") / "golden.duckdb"
    # In a process of its own: the schema is built from the registry, and a test that
    # registers a game of its own (the toy game) must not add its tables to the snapshot.
    # Named relative to the samples' folder, so that no row (the audit row's list of files
    # is cut at 500 characters) depends on where the checkout is.
    files = [p.relative_to(SAMPLES).as_posix() for p in sample_files()]
    done = subprocess.run([sys.executable, "-m", "trickledger", "ingest", *files, "--db", str(db),
                           "--jobs", "1"], capture_output=True, text=True, check=False,
                          cwd=SAMPLES)
    assert done.returncode in (0, 1), done.stderr  # 1: some samples are disputed on purpose
    return db


def test_every_verdict_rendering_and_table_is_as_the_snapshot_says(loaded: Path) -> None:
    now = {**outputs(), **tables(loaded)}
    if os.environ.get("TRICKLEDGER_GOLDEN_UPDATE"):
        GOLDEN.write_bytes(orjson.dumps(now, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2)
                           + b"\n")
    golden = orjson.loads(GOLDEN.read_bytes())
    changed = sorted(k for k in golden.keys() & now.keys() if golden[k] != now[k])
    missing = sorted(golden.keys() - now.keys())
    added = sorted(now.keys() - golden.keys())
    assert (changed, missing, added) == ([], [], []), (
        f"changed: {changed[:40]}\nno longer there: {missing[:40]}\nnew: {added[:40]}")
