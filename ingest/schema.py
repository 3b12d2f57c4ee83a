"""The DuckDB schema: tables, analytics views and its version (docs/schema.md).

The fact tables are here; the analytics layer (derived tables, macros, views) is in
`ingest.analytics`.
"""

from __future__ import annotations

import duckdb

from trickledger.replay import tables
from trickledger.replay.registry import GameInfo, on_register, registry
from trickledger.replay.tables import Column

from . import analytics, summaries
from .analytics import views
from .transactions import transaction

SCHEMA_VERSION = 4
STACKS = tables.STACKS  # the stacks column: a list of (player, stack, cards)

# Column lists are data: the loader builds its frames from them, in this order. The
# log-level tables are ingest's own; the tables facts become (the shared ones with the games'
# columns in place, then each game's own) are laid out from the core's declarations and the
# registered games' (replay.tables), and laid out again when a game registers later.
LOG_TABLES: dict[str, list[tuple[str, str]]] = {
    "logs": [
        ("sha256", "VARCHAR PRIMARY KEY"), ("file_name", "VARCHAR"), ("size_bytes", "BIGINT"),
        ("ingested_at", "TIMESTAMP"), ("raw_text", "VARCHAR"), ("status", "VARCHAR"),
        ("game_id", "VARCHAR"), ("error_line", "INTEGER"), ("error_message", "VARCHAR"),
    ],
    "games": [
        ("game_id", "VARCHAR PRIMARY KEY"), ("sha256", "VARCHAR"), ("file_name", "VARCHAR"),
        ("game", "VARCHAR"), ("edition", "VARCHAR"), ("variants", "VARCHAR[]"),
        ("n_players", "INTEGER"), ("rounds_planned", "INTEGER"), ("rounds_played", "INTEGER"),
        ("status", "VARCHAR"), ("error_line", "INTEGER"), ("error_message", "VARCHAR"),
        ("winners", "VARCHAR[]"), ("played_on", "DATE"), ("events", "INTEGER"),
        ("claims_checked", "INTEGER"), ("claims_mismatched", "INTEGER"), ("meta", "VARCHAR"),
        ("ingested_at", "TIMESTAMP"),
    ],
    "players": [
        ("game_id", "VARCHAR"), ("seat", "INTEGER"), ("player", "VARCHAR"),
        ("total", "INTEGER"), ("is_winner", "BOOLEAN"),
    ],
    "ingest_errors": [
        ("file_name", "VARCHAR"), ("sha256", "VARCHAR"), ("status", "VARCHAR"),
        ("line", "INTEGER"), ("message", "VARCHAR"), ("recorded_at", "TIMESTAMP"),
    ],
}
# every table, by name (the log-level ones, then the facts'), each with its columns
TABLES: dict[str, list[tuple[str, str]]] = {}
# the tables facts become, as replay.tables declares them: what a RowSink holds
FACT_TABLES: dict[str, tuple[Column, ...]] = {}
# every table but the games' own, and each game's own table -> the game that declares it
SHARED_TABLES = frozenset(LOG_TABLES) | frozenset(tables.SHARED)
GAME_TABLES: dict[str, str] = {}
# Each table's column names, in order: what a projection may fill (replay.rows.RowSink).
COLUMNS: dict[str, tuple[str, ...]] = {}
_GAMES: dict[str, GameInfo] = {}


def _lay_out(info: GameInfo) -> None:
    """Lay every table out again with `info` registered (in place: other modules hold
    these dicts)."""
    for name in info.tables:
        if name in ADMIN_TABLES or name in LOG_TABLES:
            raise ValueError(f"game {info.name!r} declares the table {name!r}, which "
                             f"the schema already has")
    facts = tables.fact_tables([*(g for g in _GAMES.values() if g.name != info.name), info])
    _GAMES[info.name] = info
    _install(facts)


def _forget(info: GameInfo) -> None:
    """Lay every table out again without `info` (taken out of the registry again:
    `replay.registry.registered`)."""
    if _GAMES.pop(info.name, None) is not None:
        _install(tables.fact_tables(_GAMES.values()))


def _install(facts: dict[str, tuple[Column, ...]]) -> None:
    FACT_TABLES.clear()
    FACT_TABLES.update(facts)
    TABLES.clear()
    TABLES.update({t: LOG_TABLES[t] for t in ("logs", "games", "players")})
    TABLES.update({t: [(c.name, c.type) for c in cols] for t, cols in facts.items()})
    TABLES["ingest_errors"] = LOG_TABLES["ingest_errors"]
    COLUMNS.clear()
    COLUMNS.update({t: tuple(c for c, _ in cols) for t, cols in TABLES.items()})
    GAME_TABLES.clear()
    GAME_TABLES.update({t: g.name for g in _GAMES.values() for t in g.tables})


def declared(table: str) -> tuple[Column, ...]:
    """A table's columns as declarations (a fact table's as its game or the core declares
    them; a log-level table's from its pairs)."""
    found = FACT_TABLES.get(table)
    if found is not None:
        return found
    return tuple(Column(c, ty) for c, ty in TABLES[table])


# Written by the dashboard and the commands, never by a log: who wrote what (version 4).
ADMIN_TABLES: dict[str, list[tuple[str, str]]] = {
    "audit_log": [
        ("happened_at", "TIMESTAMP"), ("actor", "VARCHAR"), ("via", "VARCHAR"), ("address", "VARCHAR"),
        ("action", "VARCHAR"), ("file_name", "VARCHAR"), ("sha256", "VARCHAR"),
        ("game_id", "VARCHAR"), ("result", "VARCHAR"), ("detail", "VARCHAR"),
    ],
}


TABLES.update(LOG_TABLES)  # until the first game registers (just below)
on_register(_lay_out, forget=_forget)
registry()  # every game now: the tables' shapes are complete before anyone reads them


def create(con: duckdb.DuckDBPyConnection) -> None:
    """Create (or migrate to) the current schema; idempotent."""
    registry()  # every game registered (as at import): its own tables are in TABLES
    con.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER, applied_at TIMESTAMP)")
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    current = row[0] if row else None
    if current is not None and current > SCHEMA_VERSION:
        raise RuntimeError(f"the database has schema version {current}, newer than this "
                           f"trickledger ({SCHEMA_VERSION}); upgrade trickledger")
    if current == SCHEMA_VERSION:
        # in place: every short connection of the loader opens here. The analytics layer
        # is derived (views, macros): a newer definition replaces it without a migration
        missing = _missing_game_tables(con)
        stale = not analytics.is_current(con)
        if missing or stale:
            with transaction(con):
                for name in missing:  # a game added since the database was made
                    _create_table(con, name, TABLES[name])
                if stale:
                    _install_analytics(con)
        return
    with transaction(con):
        if current == 1:
            _migrate_1_to_2(con)
        for name, cols in {**TABLES, **ADMIN_TABLES}.items():  # version 4: the audit log
            _create_table(con, name, cols)
        _install_analytics(con)  # version 3: derived tables, macros and views
        con.execute("INSERT INTO schema_version VALUES (?, now())", [SCHEMA_VERSION])



def _install_analytics(con: duckdb.DuckDBPyConnection) -> None:
    """The analytics layer made anew, and its per-game summaries made again from the facts
    (inside the caller's transaction)."""
    analytics.install(con)
    summaries.refresh(con, in_transaction=True)


__all__ = ["ADMIN_TABLES", "COLUMNS", "FACT_TABLES", "GAME_TABLES", "SCHEMA_VERSION", "STACKS",
           "TABLES", "create", "declared", "views"]


def _create_table(con: duckdb.DuckDBPyConnection, name: str, cols: list[tuple[str, str]]) -> None:
    body = ", ".join(f'"{c}" {t}' for c, t in cols)
    con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({body})")


def _missing_game_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    if not GAME_TABLES:
        return []
    have = {name for (name,) in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    ).fetchall()}
    return [name for name in GAME_TABLES if name not in have]


def _migrate_1_to_2(con: duckdb.DuckDBPyConnection) -> None:
    """Version 1 kept stacks as JSON text; version 2 keeps them as a list of structs. Every
    table with a stacks column is converted, row by row (by DuckDB's rowid): a player's
    stacks were {player: {stack: n}}, shared stacks {stack: n}."""
    import orjson
    import pyarrow as pa

    stack = pa.struct([("player", pa.string()), ("stack", pa.string()), ("cards", pa.int32())])
    for table, cols in FACT_TABLES.items():
        if ("stacks", STACKS) not in [(c.name, c.type) for c in cols]:
            continue
        rows = con.execute(f"SELECT rowid, stacks FROM {table} WHERE stacks IS NOT NULL"
                           ).fetchall()
        converted = []
        for rid, text in rows:
            data = orjson.loads(text)
            if all(isinstance(v, dict) for v in data.values()):  # by player
                entries = [{"player": p, "stack": k, "cards": v}
                           for p, st in data.items() for k, v in st.items()]
            else:  # shared
                entries = [{"player": None, "stack": k, "cards": v} for k, v in data.items()]
            converted.append((rid, entries))
        frame = pa.table({"rid": pa.array([r[0] for r in converted], pa.int64()),
                          "stacks": pa.array([r[1] for r in converted], pa.list_(stack))})
        con.execute(f"ALTER TABLE {table} ADD COLUMN stacks_v2 {STACKS}")
        con.register("converted", frame)
        con.execute(f"UPDATE {table} t SET stacks_v2 = c.stacks FROM converted c "
                    f"WHERE t.rowid = c.rid")
        con.unregister("converted")
        con.execute(f"ALTER TABLE {table} DROP COLUMN stacks")
        con.execute(f"ALTER TABLE {table} RENAME COLUMN stacks_v2 TO stacks")
