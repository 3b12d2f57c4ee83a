"""Multiplayer ratings: OpenSkill's Plackett–Luce model, per game and player.

Ratings are updated game by game in played order: complete games only (a rating needs
a finishing order), ordered by the date played, undated games after the dated ones,
and by game id within a day (so the same corpus always gives the same ratings,
whatever the order it was loaded in). Each game's finishing order is the `finishes`
view's: the highest total first, or the lowest where the game is won low; equal totals
are a tie and share the place. Every player starts at mu 25, sigma 25/3; the ordinal
(mu - 3 sigma) is the conservative rating the leaderboards sort by.

The result is the `rating_history` table (one row per game and player, before and
after), recomputed whole whenever the set of complete games changed: the refresh
compares a fingerprint of those games with the one stored in `analysis_runs`, so an
unchanged database costs one query. A full recomputation takes about half a
millisecond per game.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import duckdb

from .transactions import transaction

MODEL = "openskill PlackettLuce mu=25 sigma=25/3 ordinal=mu-3sigma; order: played_on, game_id"

# the games rated and the order they are rated in, as text: it changes when they do (an
# order-free sum of hashes, no sort: a page asks this of 100,000 games in milliseconds)
FINGERPRINT_SQL = """
    SELECT coalesce(CAST(bit_xor(hash(g.game_id, g.sha256, g.played_on)) AS VARCHAR), '0')
           || ':' || count(*)
    FROM games g WHERE g.status IN ('complete', 'sheet')"""

ORDER_SQL = """
    SELECT f.game, f.game_id, f.played_on, f.player, f.finish, f.n_players
    FROM finishes f
    ORDER BY f.game, f.played_on NULLS LAST, f.game_id, f.finish, f.seat"""


@dataclass(frozen=True)
class RatingsRun:
    """What a refresh did: whether it recomputed, over how many games and rows."""

    recomputed: bool
    games: int
    rows: int
    fingerprint: str


def fingerprint(con: duckdb.DuckDBPyConnection) -> str:
    row = con.execute(FINGERPRINT_SQL).fetchone()
    return f"{MODEL}|{row[0] if row else ''}"


def stored_fingerprint(con: duckdb.DuckDBPyConnection) -> str | None:
    row = con.execute("SELECT fingerprint FROM analysis_runs WHERE analysis = 'ratings' "
                      "ORDER BY computed_at DESC LIMIT 1").fetchone()
    return row[0] if row else None


def is_fresh(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether `rating_history` was computed from the games the database holds now."""
    return stored_fingerprint(con) == fingerprint(con)


def compute(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """`rating_history` rows from finishing rows (game, game_id, played_on, player, finish,
    n_players) in played order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    out: list[tuple[Any, ...]] = []
    for game, game_rows in groupby(rows, key=lambda r: r[0]):
        current: dict[str, Any] = {}
        seq = 0
        for game_id, seats in groupby(game_rows, key=lambda r: r[1]):
            table = list(seats)
            seq += 1
            before = [current.get(r[3]) or model.rating(name=r[3]) for r in table]
            if len(table) > 1:
                after = model.rate([[b] for b in before], ranks=[r[4] for r in table])
                new = [team[0] for team in after]
            else:
                new = before
            for r, b, a in zip(table, before, new):
                current[r[3]] = a
                out.append((game, seq, game_id, r[2], r[3], r[4], r[5], b.mu, b.sigma,
                            a.mu, a.sigma, a.ordinal()))
    return out


def refresh(con: duckdb.DuckDBPyConnection, force: bool = False) -> RatingsRun:
    """Recompute `rating_history` when the complete games changed (or when `force`), in
    one transaction on a read-write connection."""
    fp = fingerprint(con)
    if not force and stored_fingerprint(con) == fp:
        row = con.execute("SELECT count(DISTINCT game_id), count(*) FROM rating_history"
                          ).fetchone()
        return RatingsRun(False, row[0] if row else 0, row[1] if row else 0, fp)
    return store(con, compute(con.execute(ORDER_SQL).fetchall()), fp)


def store(con: duckdb.DuckDBPyConnection, rows: list[tuple[Any, ...]], fp: str) -> RatingsRun:
    """Replace `rating_history` with `rows` computed from the games fingerprinted `fp` (one
    transaction). Computing apart from storing lets a caller compute on a read-only
    connection and hold the write lock only to store."""
    games = len({r[2] for r in rows})
    with transaction(con):
        con.execute("DELETE FROM rating_history")
        if rows:
            insert_rows(con, "rating_history", rows)
        con.execute("DELETE FROM analysis_runs WHERE analysis = 'ratings'")
        con.execute("INSERT INTO analysis_runs VALUES ('ratings', ?, ?, ?, ?)",
                    [fp, len(rows), f"{games} games", _now()])
    return RatingsRun(True, games, len(rows), fp)


def insert_rows(con: duckdb.DuckDBPyConnection, table: str, rows: list[tuple[Any, ...]]) -> None:
    """Rows (in the table's column order) inserted through Arrow, by column name."""
    import pyarrow as pa

    from .analytics import DERIVED_TABLES

    names = [c for c, _ in DERIVED_TABLES[table]]
    frame = pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})
    con.register("incoming_rows", frame)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming_rows")
    finally:
        con.unregister("incoming_rows")


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)
