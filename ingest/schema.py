"""The DuckDB schema: tables, analytics views and its version (docs/schema.md).

The fact tables are here; the analytics layer (derived tables, macros, views) is in
`ingest.analytics`.
"""

from __future__ import annotations

import duckdb

from trickledger.replay.registry import GameInfo, on_register, registry

from . import analytics
from .analytics import VIEWS
from .transactions import transaction

SCHEMA_VERSION = 4
# stacks after a trick or turn: one entry per stack; `player` is NULL for shared stacks
STACKS = "STRUCT(player VARCHAR, stack VARCHAR, cards INTEGER)[]"

# Column lists are data: the loader builds its frames from them, in this order.
TABLES: dict[str, list[tuple[str, str]]] = {
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
    "rounds": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("dealer", "VARCHAR"),
        ("leader", "VARCHAR"), ("tricks", "INTEGER"), ("ended_early", "BOOLEAN"),
        ("early_end_player", "VARCHAR"), ("early_end_trick", "INTEGER"), ("trump", "VARCHAR"),
        ("hand_size", "INTEGER"), ("turns", "INTEGER"), ("ender", "VARCHAR"),
        ("end_reason", "VARCHAR"), ("line", "INTEGER"),
    ],
    "tricks": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("trick", "INTEGER"),
        ("leader", "VARCHAR"), ("led_color", "VARCHAR"), ("cards", "VARCHAR[]"),
        ("players", "VARCHAR[]"), ("first_winner", "VARCHAR"), ("first_card", "VARCHAR"),
        ("second_winner", "VARCHAR"), ("second_card", "VARCHAR"), ("monochrome", "BOOLEAN"),
        ("winner", "VARCHAR"), ("winning_card", "VARCHAR"), ("trump", "VARCHAR"),
        ("notrump", "BOOLEAN"), ("change", "BOOLEAN"), ("plus5", "INTEGER"),
        ("minus5", "INTEGER"), ("length", "INTEGER"), ("laps", "INTEGER"),
        ("closed", "VARCHAR[]"), ("next_leader", "VARCHAR"), ("stacks", STACKS),
        ("line", "INTEGER"),
    ],
    "plays": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("trick", "INTEGER"), ("seq", "INTEGER"),
        ("player", "VARCHAR"), ("card", "VARCHAR"), ("joker_as", "VARCHAR"), ("kind", "VARCHAR"),
    ],
    "takes": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("trick", "INTEGER"),
        ("player", "VARCHAR"), ("role", "VARCHAR"), ("cards", "VARCHAR[]"),
        ("n_cards", "INTEGER"), ("kept_cards", "INTEGER"),
    ],
    "keeps": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("trick", "INTEGER"),
        ("player", "VARCHAR"), ("colors", "VARCHAR[]"), ("discarded", "INTEGER"),
        ("line", "INTEGER"),
    ],
    "trumps": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("trick", "INTEGER"), ("seq", "INTEGER"),
        ("card", "VARCHAR"), ("reason", "VARCHAR"), ("trump", "VARCHAR"), ("line", "INTEGER"),
    ],
    "bids": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("player", "VARCHAR"),
        ("hand_size", "INTEGER"), ("bid", "INTEGER"), ("won", "INTEGER"),
        ("bid_error", "INTEGER"), ("exact", "BOOLEAN"), ("plus5", "INTEGER"),
        ("minus5", "INTEGER"), ("trumps_held", "INTEGER"), ("jokers_held", "INTEGER"),
        ("marching", "BOOLEAN"), ("score", "INTEGER"),
    ],
    "turns": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("seq", "INTEGER"), ("turn", "INTEGER"),
        ("player", "VARCHAR"), ("kind", "VARCHAR"), ("cards", "VARCHAR[]"),
        ("stacks", STACKS), ("ended", "BOOLEAN"), ("line", "INTEGER"),
    ],
    "round_scores": [
        ("game_id", "VARCHAR"), ("round", "INTEGER"), ("player", "VARCHAR"),
        ("score", "INTEGER"), ("running_total", "INTEGER"), ("derivation", "VARCHAR"),
    ],
    "claims": [
        ("game_id", "VARCHAR"), ("line", "INTEGER"), ("round", "INTEGER"),
        ("player", "VARCHAR"), ("claimed", "INTEGER"), ("computed", "INTEGER"),
        ("match", "BOOLEAN"), ("derivation", "VARCHAR"),
    ],
    "ingest_errors": [
        ("file_name", "VARCHAR"), ("sha256", "VARCHAR"), ("status", "VARCHAR"),
        ("line", "INTEGER"), ("message", "VARCHAR"), ("recorded_at", "TIMESTAMP"),
    ],
}

SHARED_TABLES = frozenset(TABLES)
# A game's own tables (`GameInfo.tables`) join TABLES when the game registers, by name ->
# the game that declares it; `create` makes them on a new database and on an existing one.
GAME_TABLES: dict[str, str] = {}
# Each table's column names, in order: what a projection may fill (replay.rows.RowSink).
COLUMNS: dict[str, tuple[str, ...]] = {t: tuple(c for c, _ in cols) for t, cols in TABLES.items()}


def _add_game_tables(info: GameInfo) -> None:
    for name, cols in info.tables.items():
        owner = GAME_TABLES.get(name, info.name)
        if name in SHARED_TABLES or name in ADMIN_TABLES or owner != info.name:
            raise ValueError(f"game {info.name!r} declares the table {name!r}, which "
                             f"{'the schema' if owner == info.name else owner} already has")
        TABLES[name] = list(cols)
        COLUMNS[name] = tuple(c for c, _ in cols)
        GAME_TABLES[name] = info.name


# Written by the dashboard and the commands, never by a log: who wrote what (version 4).
ADMIN_TABLES: dict[str, list[tuple[str, str]]] = {
    "audit_log": [
        ("happened_at", "TIMESTAMP"), ("actor", "VARCHAR"), ("via", "VARCHAR"), ("address", "VARCHAR"),
        ("action", "VARCHAR"), ("file_name", "VARCHAR"), ("sha256", "VARCHAR"),
        ("game_id", "VARCHAR"), ("result", "VARCHAR"), ("detail", "VARCHAR"),
    ],
    # games recorded at a table tap by tap (the Record page, ingest.recordings): made on an
    # existing database of this version too, at its first write
    "recordings": [
        ("recording_id", "VARCHAR PRIMARY KEY"), ("created_at", "TIMESTAMP"),
        ("created_by", "VARCHAR"), ("via", "VARCHAR"), ("address", "VARCHAR"),
        ("header", "VARCHAR"), ("status", "VARCHAR"), ("taps", "INTEGER"),
        ("updated_at", "TIMESTAMP"), ("sha256", "VARCHAR"), ("game_id", "VARCHAR"),
    ],
    "recording_taps": [
        ("recording_id", "VARCHAR"), ("seq", "INTEGER"), ("happened_at", "TIMESTAMP"),
        ("actor", "VARCHAR"), ("via", "VARCHAR"), ("address", "VARCHAR"), ("kind", "VARCHAR"),
        ("event", "VARCHAR"),
    ],
}


on_register(_add_game_tables)


def create(con: duckdb.DuckDBPyConnection) -> None:
    """Create (or migrate to) the current schema; idempotent."""
    registry()  # every game registered: its own tables are in TABLES
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
                for name in missing:  # a game (or a recordings table) added since
                    _create_table(con, name, TABLES.get(name) or ADMIN_TABLES[name])
                if stale:
                    analytics.install(con)
        return
    with transaction(con):
        if current == 1:
            _migrate_1_to_2(con)
        for name, cols in {**TABLES, **ADMIN_TABLES}.items():  # version 4: the audit log
            _create_table(con, name, cols)
        analytics.install(con)  # version 3: derived tables, macros and views
        con.execute("INSERT INTO schema_version VALUES (?, now())", [SCHEMA_VERSION])


__all__ = ["ADMIN_TABLES", "COLUMNS", "GAME_TABLES", "SCHEMA_VERSION", "STACKS", "TABLES",
           "VIEWS", "create"]


def _create_table(con: duckdb.DuckDBPyConnection, name: str, cols: list[tuple[str, str]]) -> None:
    body = ", ".join(f'"{c}" {t}' for c, t in cols)
    con.execute(f"CREATE TABLE IF NOT EXISTS {name} ({body})")


def _missing_game_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """A game's own tables, and the admin tables added within this version (the
    recordings), that the database lacks."""
    have = {name for (name,) in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    ).fetchall()}
    return [name for name in (*GAME_TABLES, *ADMIN_TABLES) if name not in have]


def _migrate_1_to_2(con: duckdb.DuckDBPyConnection) -> None:
    """Version 1 kept stacks as JSON text; version 2 keeps them as a list of structs."""
    import orjson
    import pyarrow as pa

    stack = pa.struct([("player", pa.string()), ("stack", pa.string()), ("cards", pa.int32())])
    for table, keys in (("tricks", ("round", "trick")), ("turns", ("round", "seq"))):
        rows = con.execute(f"SELECT game_id, {keys[0]}, {keys[1]}, stacks FROM {table} "
                           f"WHERE stacks IS NOT NULL").fetchall()
        converted = []
        for gid, a, b, text in rows:
            data = orjson.loads(text)
            if table == "tricks":  # {player: {B: n, ..., discarded: n}}
                entries = [{"player": p, "stack": k, "cards": v}
                           for p, st in data.items() for k, v in st.items()]
            else:  # {suit: n}
                entries = [{"player": None, "stack": k, "cards": v} for k, v in data.items()]
            converted.append((gid, a, b, entries))
        frame = pa.table({"game_id": pa.array([r[0] for r in converted], pa.string()),
                          "k1": pa.array([r[1] for r in converted], pa.int32()),
                          "k2": pa.array([r[2] for r in converted], pa.int32()),
                          "stacks": pa.array([r[3] for r in converted], pa.list_(stack))})
        con.execute(f"ALTER TABLE {table} ADD COLUMN stacks_v2 {STACKS}")
        con.register("converted", frame)
        con.execute(f"UPDATE {table} t SET stacks_v2 = c.stacks FROM converted c "
                    f"WHERE t.game_id = c.game_id AND t.{keys[0]} = c.k1 AND t.{keys[1]} = c.k2")
        con.unregister("converted")
        con.execute(f"ALTER TABLE {table} DROP COLUMN stacks")
        con.execute(f"ALTER TABLE {table} RENAME COLUMN stacks_v2 TO stacks")
