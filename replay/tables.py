"""The tables facts become, declared as data: the shared tables every game fills (the core's
columns only), and how each game's own tables and columns join them.

A game declares, in its module (`GameInfo.tables`, `GameInfo.columns`):

- tables of its own, each a tuple of `Column`s whose first is `game_id` (plotters' `keeps`,
  rage's `trumps` and `bids`, color_stacks' `turns`, a plugin's tables);
- columns of its own in a shared table, as `SharedColumns`: a run of columns placed after
  (or before) one of the table's core columns (plotters' first and second winners after
  `players` in `tricks`, rage's trump after `tricks` in `rounds`). Only a game shipped with
  trickledger may: a shared table's shape is part of the schema's version, so a game
  installed beside trickledger keeps its data in tables of its own.

`fact_tables()` lays every table out from the core's declarations and the registered
games', in a fixed order (the games' runs by game name, whatever the order they registered
in); the database schema (ingest.schema) and the column holders (replay.rows) are both
made from it. The typed writers a projection fills a table through are generated from the
same declarations (replay.rowgen).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from .info import GameInfo

# stacks after a trick or turn: one entry per stack; `player` is NULL for shared stacks
STACKS: Final = "STRUCT(player VARCHAR, stack VARCHAR, cards INTEGER)[]"
# the SQL types a column of a fact table may have (the loader builds Arrow for each)
SQL_TYPES: Final = ("VARCHAR", "INTEGER", "BIGINT", "BOOLEAN", "DATE", "TIMESTAMP",
                    "VARCHAR[]", STACKS)
NAME: Final = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Column:
    """A column of a fact table: its name, its SQL type (one of `SQL_TYPES`), and whether a
    row may leave it NULL (`null`: the writer's argument is then `X | None`)."""

    name: str
    type: str
    null: bool = False


@dataclass(frozen=True)
class SharedColumns:
    """A game's own columns in a shared table (`table`), placed right after the core column
    `after` or right before the core column `before` (one of the two). Runs of several
    games at the same place follow each other in the games' name order."""

    table: str
    columns: tuple[Column, ...]
    after: str = ""
    before: str = ""


def _c(name: str, sql: str, null: bool = False) -> Column:
    return Column(name, sql, null)


# The shared tables and their core columns: what every game's facts, or the core's, fill.
# `rounds` and `round_scores` come from the core's RoundScored, `claims` from ClaimChecked;
# `tricks`, `plays` and `takes` from each game's projection (a turn game fills `plays`).
SHARED: Final[dict[str, tuple[Column, ...]]] = {
    "rounds": (
        _c("game_id", "VARCHAR"), _c("round", "INTEGER"), _c("dealer", "VARCHAR"),
        _c("leader", "VARCHAR", True), _c("tricks", "INTEGER", True),
        _c("end_reason", "VARCHAR", True), _c("line", "INTEGER"),
    ),
    "tricks": (
        _c("game_id", "VARCHAR"), _c("round", "INTEGER"), _c("trick", "INTEGER"),
        _c("leader", "VARCHAR"), _c("led_color", "VARCHAR", True), _c("cards", "VARCHAR[]"),
        _c("players", "VARCHAR[]"), _c("winner", "VARCHAR", True),
        _c("winning_card", "VARCHAR", True), _c("length", "INTEGER"), _c("laps", "INTEGER"),
        _c("next_leader", "VARCHAR", True), _c("stacks", STACKS, True), _c("line", "INTEGER"),
    ),
    "plays": (
        _c("game_id", "VARCHAR"), _c("round", "INTEGER"), _c("trick", "INTEGER"),
        _c("seq", "INTEGER"), _c("player", "VARCHAR"), _c("card", "VARCHAR"),
        _c("joker_as", "VARCHAR", True), _c("kind", "VARCHAR"),
    ),
    "takes": (
        _c("game_id", "VARCHAR"), _c("round", "INTEGER"), _c("trick", "INTEGER"),
        _c("player", "VARCHAR"), _c("role", "VARCHAR"), _c("cards", "VARCHAR[]"),
        _c("n_cards", "INTEGER"), _c("kept_cards", "INTEGER"),
    ),
    "round_scores": (
        _c("game_id", "VARCHAR"), _c("round", "INTEGER"), _c("player", "VARCHAR"),
        _c("score", "INTEGER"), _c("running_total", "INTEGER"), _c("derivation", "VARCHAR"),
    ),
    "claims": (
        _c("game_id", "VARCHAR"), _c("line", "INTEGER"), _c("round", "INTEGER", True),
        _c("player", "VARCHAR"), _c("claimed", "INTEGER"), _c("computed", "INTEGER"),
        _c("match", "BOOLEAN"), _c("derivation", "VARCHAR"),
    ),
}
# the rounds columns the core writes from the scored round; a game's RoundOutcome.columns
# gives the others (the core's `tricks` and `end_reason`, and its own)
ROUND_CORE: Final = ("game_id", "round", "dealer", "leader", "line")


def check_declaration(info: GameInfo, builtin: bool) -> None:
    """A game's tables and columns are well formed (TypeError naming the game and what is
    wrong): its own tables start with `game_id`, take no shared table's name, have known
    types and plain names; its shared columns name a shared table and one of its core
    columns, and only a game shipped with trickledger (`builtin`) declares any."""
    where = f"game {info.name!r}"
    for table, columns in info.tables.items():
        if table in SHARED:
            raise TypeError(f"{where}: its own table {table!r} has a shared table's name")
        _check_columns(where, table, columns)
        if not columns or columns[0] != Column("game_id", "VARCHAR"):
            raise TypeError(f"{where}: table {table!r} must start with Column('game_id', "
                            f"'VARCHAR') (the sink fills it)")
    for run in info.columns:
        if not builtin:
            raise TypeError(f"{where}: only a game shipped with trickledger may add columns "
                            f"to a shared table ({run.table}): a shared table's shape is part "
                            f"of the schema's version. Keep the game's data in a table of "
                            f"its own (GameInfo.tables)")
        core = SHARED.get(run.table)
        if core is None:
            raise TypeError(f"{where}: SharedColumns names {run.table!r}, which is not a "
                            f"shared table ({', '.join(SHARED)})")
        anchor = run.after or run.before
        if bool(run.after) == bool(run.before) or anchor not in [c.name for c in core]:
            raise TypeError(f"{where}: its columns of {run.table} must be placed after or "
                            f"before one of its core columns, not {anchor!r}")
        _check_columns(where, run.table, run.columns)
        taken = sorted({c.name for c in run.columns} & {c.name for c in core})
        if taken:
            raise TypeError(f"{where}: {run.table} already has the core column "
                            f"{', '.join(taken)}")


def _check_columns(where: str, table: str, columns: Iterable[Column]) -> None:
    if not NAME.fullmatch(table):
        raise TypeError(f"{where}: table name {table!r} is not a plain lower-case name")
    seen: set[str] = set()
    for c in columns:
        if not NAME.fullmatch(c.name) or c.name in seen:
            raise TypeError(f"{where}: column {c.name!r} of {table} is not a plain lower-case "
                            f"name, or comes twice")
        if c.type not in SQL_TYPES:
            raise TypeError(f"{where}: column {c.name} of {table} has the type {c.type!r}; "
                            f"a fact table's column is one of {', '.join(SQL_TYPES)}")
        seen.add(c.name)


def fact_tables(games: Iterable[GameInfo]) -> dict[str, tuple[Column, ...]]:
    """Every table facts become, by name, each with its columns in order: the shared tables
    with the games' own columns in place, then the games' own tables. The games are taken in
    name order. Raises ValueError when two games declare the same table or column."""
    ordered = sorted(games, key=lambda g: g.name)
    owner: dict[tuple[str, str], str] = {}  # (table, column) -> the game that adds it
    before: dict[tuple[str, str], list[Column]] = {}
    after: dict[tuple[str, str], list[Column]] = {}
    for info in ordered:
        for run in info.columns:
            for c in run.columns:
                other = owner.setdefault((run.table, c.name), info.name)
                if other != info.name:
                    raise ValueError(f"games {other!r} and {info.name!r} both add the column "
                                     f"{c.name!r} to {run.table}")
            place = (before if run.before else after).setdefault(
                (run.table, run.before or run.after), [])
            place.extend(run.columns)
    out: dict[str, tuple[Column, ...]] = {}
    for table, core in SHARED.items():
        laid: list[Column] = []
        for c in core:
            laid += before.get((table, c.name), [])
            laid.append(c)
            laid += after.get((table, c.name), [])
        out[table] = tuple(laid)
    tables_of: dict[str, str] = {}
    for info in ordered:
        for table, columns in info.tables.items():
            other = tables_of.setdefault(table, info.name)
            if other != info.name:
                raise ValueError(f"games {other!r} and {info.name!r} both declare the table "
                                 f"{table!r}")
            out[table] = tuple(columns)
    return out


def own_view(table: str, runs: Iterable[SharedColumns]) -> tuple[Column, ...]:
    """A shared table as one game sees it: the core columns with that game's own runs in
    place (the columns its writer takes; another game's columns are NULL in its rows)."""
    before: dict[str, list[Column]] = {}
    after: dict[str, list[Column]] = {}
    for run in runs:
        if run.table == table:
            (before if run.before else after).setdefault(run.before or run.after,
                                                         []).extend(run.columns)
    laid: list[Column] = []
    for c in SHARED[table]:
        laid += before.get(c.name, [])
        laid.append(c)
        laid += after.get(c.name, [])
    return tuple(laid)


def declared_names(tables: Mapping[str, tuple[Column, ...]]) -> dict[str, tuple[str, ...]]:
    """Each table's column names, in order."""
    return {t: tuple(c.name for c in cols) for t, cols in tables.items()}
