"""A database of schema version 1, which kept the stacks as JSON text, is migrated when it is
opened: every table with a stacks column gets them back as a list of structs, row for row
(the players' stacks of a trick, a turn's shared stacks)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import orjson

from trickledger.ingest import schema
from trickledger.ingest.load import Source, ingest

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"
KEYS = {"tricks": "round, trick", "turns": "round, seq"}


def stacks(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[object, ...]]:
    return con.execute(f"SELECT game_id, {KEYS[table]}, stacks FROM {table} "
                       f"WHERE stacks IS NOT NULL ORDER BY ALL").fetchall()


def as_version_1(con: duckdb.DuckDBPyConnection) -> None:
    """Write the stacks back as version 1 did: JSON text, {player: {stack: n}} for a trick,
    {stack: n} for a turn."""
    for table in KEYS:
        rows = con.execute(f"SELECT rowid, stacks FROM {table} WHERE stacks IS NOT NULL"
                           ).fetchall()
        con.execute(f"ALTER TABLE {table} ADD COLUMN old VARCHAR")
        for rid, entries in rows:
            if table == "tricks":
                by: dict[str, dict[str, int]] = {}
                for e in entries:
                    by.setdefault(e["player"], {})[e["stack"]] = e["cards"]
                text = orjson.dumps(by).decode()
            else:
                text = orjson.dumps({e["stack"]: e["cards"] for e in entries}).decode()
            con.execute(f"UPDATE {table} SET old = ? WHERE rowid = ?", [text, rid])
        con.execute(f"ALTER TABLE {table} DROP COLUMN stacks")
        con.execute(f"ALTER TABLE {table} RENAME COLUMN old TO stacks")
    con.execute("DELETE FROM schema_version")
    con.execute("INSERT INTO schema_version VALUES (1, now())")


def test_a_version_1_database_gets_its_stacks_back_as_structs(tmp_path: Path) -> None:
    db = str(tmp_path / "old.duckdb")
    logs = [SAMPLES / "plotters" / "plotters-5p-claims.jsonl",
            SAMPLES / "color_stacks" / "color-stacks-3p.jsonl"]
    ingest([Source(p.name, path=str(p)) for p in logs], db, jobs=1)
    con = duckdb.connect(db)
    try:
        before = {t: stacks(con, t) for t in KEYS}
        assert all(before.values())
        as_version_1(con)
        assert con.execute("SELECT typeof(stacks) FROM tricks LIMIT 1").fetchone() == ("VARCHAR",)
        schema.create(con)
        after = {t: stacks(con, t) for t in KEYS}
        version = con.execute("SELECT max(version) FROM schema_version").fetchone()
    finally:
        con.close()
    assert version == (schema.SCHEMA_VERSION,)
    assert after == before
