"""All data access of the dashboard: one module, cached, parameterised.

Pages never open the database themselves. Reads go through `query()` (cached
for a few seconds, so games loaded by another process appear soon), each on a
short read-only connection of its own, so that an ingest can take the file
between two queries. Nothing here holds a lock while it works: the SQL
console's queries run in a worker process that is killed at their limits
(ingest.console), and writes — uploads, ratings, hand estimates — run in a
child process (ingest.jobs), because DuckDB lets one process hold a file
read-write or read-only, not both. A slow query or upload never blocks another
visitor's page.
"""

from __future__ import annotations

import atexit
import datetime as dt
import logging
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from ingest import jobs
from ingest import lake as lakes
from ingest.console import Answer, Console, Limits, Target
from ingest.db import DatabaseBusy, db_path, reading, yield_to_writers
from ingest.load import Summary
from ingest.sql import SqlRefused

Result = Answer  # what the SQL page shows

CACHE_TTL_S = 5
_log = logging.getLogger("trickledger.dashboard")


class Busy(RuntimeError):
    """The database stayed locked by another process (an ingest) while we waited."""


class WriteFailed(RuntimeError):
    """A write (upload, removal, estimate) that could not be done; the message says why."""


@dataclass
class Database:
    path: str
    lake: lakes.Reader | None = None  # `trickledger dashboard --lake DIR`: views over it

    @property
    def where(self) -> str:
        return self.lake.lake if self.lake else self.path

    def target(self) -> Target:
        return Target(lake=self.path) if self.lake else Target(db=self.path)


@st.cache_resource
def database() -> Database:
    """The process-wide handle: the file's path, or the lake's reader."""
    lake = os.environ.get("TRICKLEDGER_LAKE")
    if lake:
        return Database(os.path.abspath(lake), lakes.Reader(lake))
    return Database(os.path.abspath(db_path()))


LOCK_WAIT_S = 15.0  # a page run waits at most this long for a file another process holds
WRITER_WAIT_S = 10.0  # and at most this long for a writer that waits for the file


@dataclass
class _Waits:
    """What is left of one page run's waiting: the sidebar and the body share it, so a
    held file costs a run one wait, not one per query."""

    lock_s: float = field(default_factory=lambda: LOCK_WAIT_S)
    writer_s: float = field(default_factory=lambda: WRITER_WAIT_S)


_RUN_WAITS = "_trickledger_waits"


def _run_waits() -> _Waits:
    """The current page run's waits (a fresh budget outside a page run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return _Waits()
    # Streamlit gives each run a new `cursors` dict on the session's one context: the
    # budget belongs to that dict, so the next run of the page starts with a full one
    held = getattr(ctx, _RUN_WAITS, None)
    if held is None or held[0] is not ctx.cursors:
        held = (ctx.cursors, _Waits())
        setattr(ctx, _RUN_WAITS, held)
    waits: _Waits = held[1]
    return waits


@contextmanager
def _connection(db: Database) -> Iterator[Any]:
    if db.lake is not None:
        cursor = db.lake.get().cursor()  # one per query: a connection is not shared by threads
        try:
            yield cursor
        finally:
            cursor.close()
        return
    waits = _run_waits()
    started = time.monotonic()
    yield_to_writers(db.path, limit_s=max(waits.writer_s, 0.0))
    waits.writer_s -= time.monotonic() - started
    started = time.monotonic()
    try:
        # with nothing left to wait, the file is still tried once: only a held file fails
        with reading(db.path, wait_s=max(waits.lock_s, 0.0)) as con:
            waits.lock_s -= time.monotonic() - started
            yield con
    except DatabaseBusy:
        waits.lock_s = 0.0  # gave up once: the rest of this run does not wait again
        raise


BUSY = "another process is writing to the database; the page stopped waiting for it"


# Who wants to know every query a page runs (the benchmark times them): see observe_queries.
_observers: list[Callable[[str, tuple[Any, ...]], None]] = []


@contextmanager
def observe_queries(observer: Callable[[str, tuple[Any, ...]], None]) -> Iterator[None]:
    """Call `observer(sql, params)` for every query the pages run while this is open."""
    _observers.append(observer)
    try:
        yield
    finally:
        _observers.remove(observer)


def _read(sql: str, params: tuple[Any, ...]) -> pd.DataFrame:
    for observer in _observers:
        observer(sql, params)
    try:
        with _connection(database()) as con:
            return con.execute(sql, list(params)).df()
    except DatabaseBusy as e:
        _log.warning("%s", e)  # the server's path goes to its log, never to a visitor
        raise Busy(BUSY) from None


@st.cache_data(ttl=CACHE_TTL_S, show_spinner=False)
def query(sql: str, params: tuple[Any, ...] = ()) -> pd.DataFrame:
    """A read-only query, values passed as parameters; cached for a few seconds."""
    return _read(sql, params)


@contextmanager
def _write_job() -> Iterator[None]:
    """A write in a child process (ingest.jobs), its failure said in words on the page."""
    try:
        yield
    except jobs.JobBusy as e:
        _log.warning("%s", e)
        raise Busy(BUSY) from None
    except jobs.JobFailed as e:
        raise WriteFailed(without_paths(str(e))) from None


def without_paths(text: str) -> str:
    """A message for a visitor, the server's paths to the database taken out."""
    db = database()
    for path, word in ((db.where, "the database"), (db.path, "the database"),
                       (os.path.dirname(db.path), "the server's folder")):
        if path and len(path) > 1:
            text = text.replace(path, word)
    return text


CONSOLE_LIMITS = Limits(timeout_s=10.0, max_rows=5000)


class _ServerConsole:
    """The server's one Console (it keeps a worker started, so a query does not wait for
    Python), held outside Streamlit's caches: a visitor's "clear cache" would otherwise
    drop it with its spare worker still running and its folder left behind."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._console: Console | None = None

    def __call__(self) -> Console:
        with self._lock:
            if self._console is None:
                self._console = Console()
            return self._console

    def clear(self) -> None:
        """Stop the console's workers (the next query starts a new console)."""
        with self._lock:
            if self._console is not None:
                self._console.close()
            self._console = None


_console = _ServerConsole()
atexit.register(_console.clear)


def console(sql: str) -> Result:
    """The SQL console: one sandboxed read-only statement in a worker process that is
    killed at its time, memory or result-size limit (ConsoleError, a SqlRefused, says
    which)."""
    return _console().run(database().target(), sql, CONSOLE_LIMITS)


def load(items: list[tuple[str, bytes]], who: dict[str, Any] | None = None,
         action: str = "upload") -> Summary:
    """Ingest uploaded logs (name, bytes) in a child process on behalf of `who`
    (auth.describe of the visitor), each audited; clears the query cache so pages show
    them. Names are kept as names only (a browser may send a path); every log is read
    within the one cap of the reader."""
    db = database()
    named = [(Path(name.replace("\\", "/")).name or "upload.jsonl", data)
             for name, data in items]
    with _write_job():
        summary = jobs.upload(named, None if db.lake else db.path,
                              db.path if db.lake else None, who, action)
    query.clear()
    return summary


def has_log(sha256: str) -> bool:
    """Whether the database holds the game of the file with these bytes."""
    return not query("SELECT 1 FROM games WHERE sha256 = ?", (sha256,)).empty


def claims_not_matching(game_ids: tuple[str, ...]) -> pd.DataFrame:
    """The claimed scores that do not match, for these games, in words."""
    if not game_ids:
        return pd.DataFrame()
    return query("""
        SELECT c.game_id, g.file_name AS file, c.line, c.round, c.player,
               c.claimed AS "sheet says", c.computed AS "replay computes", c.derivation AS how
        FROM claims c JOIN games g USING (game_id)
        WHERE NOT c.match AND list_contains(?, c.game_id)
        ORDER BY g.file_name, c.line, c.player""", (game_ids,))


def timeline_of_bytes(raw: bytes, name: str) -> Any:
    """The engine's step-by-step replay of a log that is not (yet) in the database."""
    from replay.timeline import timeline_bytes

    return timeline_bytes(raw, name)


# ----------------------------------------------------------------- filters


# Each game is counted as exactly one of these (the `game_counting` view, docs/schema.md).
STATUSES = ("complete", "disputed", "sheet", "incomplete", "illegal")
# the games whose status is complete: move logs and score sheets (which count in results,
# ratings and head-to-head; they have no tricks, so trick-level pages never see them)
DEFAULT_STATUSES = ("complete", "disputed", "sheet")
STATUS_LABELS = {"complete": "complete", "disputed": "disputed", "sheet": "score sheet",
                 "incomplete": "incomplete", "illegal": "illegal"}
NO_VARIANT = ""  # the variants choice that keeps games played without any variant


@dataclass(frozen=True)
class Filters:
    """The sidebar's choice, as a SQL condition on `game_id` with its parameters.

    `statuses` are the counting classes kept (by default complete games, the disputed
    ones included); `variants` keep, for each game a chosen variant belongs to, its games
    played with any chosen variant (`NO_VARIANT`: also the games of every game with
    variants played without one), and leave other games alone; `editions` keep the games of a game
    with editions played in one of them; the dates apply to dated games, and undated
    games are kept or not by `undated` (they are never dated by the day they were loaded).
    """

    games: tuple[str, ...] = ()
    player_counts: tuple[int, ...] = ()
    players: tuple[str, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    statuses: tuple[str, ...] = DEFAULT_STATUSES
    variants: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    undated: bool = True
    known_variants: tuple[tuple[str, str], ...] = ()  # (game, variant), from the registry

    def game_ids(self, game: str | None = None) -> tuple[str, list[Any]]:
        """`(sql, params)`: a subquery selecting the filtered games' ids."""
        where = ["list_contains(?, g.counted_as)"]
        params: list[Any] = [list(self.statuses) or [""]]
        if game is not None:
            where.append("g.game = ?")
            params.append(game)
        if self.games:
            where.append("list_contains(?, g.game)")
            params.append(list(self.games))
        if self.player_counts:
            where.append("list_contains(?, g.n_players)")
            params.append(list(self.player_counts))
        if self.players:
            where.append("g.game_id IN (SELECT game_id FROM players WHERE list_contains(?, player))")
            params.append(list(self.players))
        if self.variants:
            # a chosen variant filters the games of the game it belongs to; "no variant"
            # filters every game that has variants
            plain = NO_VARIANT in self.variants
            pairs = [f"{g}:{v}" for g, v in self.known_variants if v in self.variants]
            affected = sorted({g for g, v in self.known_variants if plain or v in self.variants})
            where.append("(NOT list_contains(?, g.game) "
                         "OR list_has_any([g.game || ':' || v FOR v IN g.variants], ?) "
                         "OR (len(g.variants) = 0 AND ?))")
            params += [affected or [""], pairs or [""], plain]
        if self.editions:
            where.append("(g.edition IS NULL OR list_contains(?, g.edition))")
            params.append(list(self.editions))
        dated = []
        if self.date_from is not None:
            dated.append("g.played_on >= ?")
            params.append(self.date_from)
        if self.date_to is not None:
            dated.append("g.played_on <= ?")
            params.append(self.date_to)
        if dated:
            within = " AND ".join(dated)
            where.append(f"(({within}) OR g.played_on IS NULL)" if self.undated else
                         f"({within})")
        elif not self.undated:
            where.append("g.played_on IS NOT NULL")
        return (f"SELECT g.game_id FROM game_counting g WHERE {' AND '.join(where)}",
                params)

    def player_clause(self, column: str) -> tuple[str, list[Any]]:
        """A condition keeping per-player rows to the chosen players (all when none chosen)."""
        if not self.players:
            return "TRUE", []
        return f"list_contains(?, {column})", [list(self.players)]

    def counted(self, tricks: bool = False) -> str:
        """Which games a page counts, in words (every page says it). `tricks`: the page's
        figures come from tricks, which a score sheet does not have (it says so)."""
        chosen = [STATUS_LABELS[s] for s in STATUSES if s in self.statuses]
        if set(self.statuses) == set(DEFAULT_STATUSES):
            what = "complete games (move logs and score sheets, disputed ones included)"
        elif not chosen:
            what = "no games (no status is chosen in the sidebar)"
        else:
            what = "games that are " + ", ".join(chosen[:-1]) + (
                " or " if len(chosen) > 1 else "") + chosen[-1]
        sheets = (" Score sheets have no tricks, so they are not in these figures."
                  if tricks and "sheet" in self.statuses else "")
        return f"Counts {what}, as filtered in the sidebar.{sheets}"


def filtered(sql: str, f: Filters, game: str | None = None, params: tuple[Any, ...] = (),
             player_column: str | None = None) -> pd.DataFrame:
    """Run `sql` for the filtered games. In `sql`, `{games}` stands for a subquery of the
    filtered game ids, `{game_list}` for the same ids as one list (the argument of the
    analytics macros, `split_stats_of({game_list})`) and `{players}` for the player
    condition on `player_column`; each `?` takes the next value of `params`, in the
    order they all appear."""
    ids_sql, ids_params = f.game_ids(game)
    pl_sql, pl_params = f.player_clause(player_column) if player_column else ("TRUE", [])
    own = list(params)
    text: list[str] = []
    values: list[Any] = []
    for part in re.split(r"(\{games\}|\{game_list\}|\{players\}|\?)", sql):
        if part == "{games}":
            text.append(ids_sql)
            values.extend(ids_params)
        elif part == "{game_list}":
            text.append(f"(SELECT coalesce(list(game_id ORDER BY game_id), []) FROM ({ids_sql}))")
            values.extend(ids_params)
        elif part == "{players}":
            text.append(pl_sql)
            values.extend(pl_params)
        elif part == "?":
            text.append("?")
            values.append(own.pop(0))
        else:
            text.append(part)
    return query("".join(text), tuple(_hashable(v) for v in values))


def _hashable(p: Any) -> Any:
    return tuple(p) if isinstance(p, list) else p


def options() -> dict[str, Any]:
    """Values the sidebar offers."""
    from replay.registry import registry

    games = query("SELECT DISTINCT game FROM games ORDER BY game")["game"].tolist()
    counts = query("SELECT DISTINCT n_players FROM games ORDER BY 1")["n_players"].tolist()
    players = query("SELECT DISTINCT player FROM players ORDER BY 1")["player"].tolist()
    variants = query("SELECT DISTINCT unnest(variants) AS v FROM games ORDER BY 1")["v"].tolist()
    editions = query("SELECT DISTINCT edition FROM games WHERE edition IS NOT NULL "
                     "ORDER BY 1")["edition"].tolist()
    days = query("SELECT min(played_on) AS lo, max(played_on) AS hi, "
                 "count(*) FILTER (WHERE played_on IS NULL) AS undated FROM games")
    lo, hi = days["lo"].iloc[0], days["hi"].iloc[0]
    known = sorted((name, v) for name, info in registry().items() for v in info.variants)
    return {"games": games, "counts": [int(c) for c in counts], "players": players,
            "variants": variants, "editions": editions, "known_variants": known,
            "undated": int(days["undated"].iloc[0]),
            "lo": None if pd.isna(lo) else pd.Timestamp(lo).date(),
            "hi": None if pd.isna(hi) else pd.Timestamp(hi).date()}


# ----------------------------------------------------------------- the viewer

GAME_COLUMNS = """g.game_id, g.sha256, g.game, g.n_players, g.status, g.error_line, g.error_message,
    g.file_name, g.claims_mismatched, g.played_on,
    (SELECT string_agg(p.player, ', ' ORDER BY p.seat) FROM players p
     WHERE p.game_id = g.game_id) AS player_names"""


def _labelled(games: pd.DataFrame) -> pd.DataFrame:
    """A readable picker label per game: who played, when, the file, and a dispute mark."""
    def label(r: pd.Series) -> str:
        when = str(r["played_on"])[:10] if pd.notna(r["played_on"]) else "undated"
        mark = "SHEET · " if r["status"] == "sheet" else ""
        if r["status"] == "illegal":
            mark = "ILLEGAL · "
        elif (r["claims_mismatched"] or 0) > 0:
            mark = "DISPUTED · "
        return f"{mark}{r['game']} · {r['player_names']} · {when} · {r['file_name']}"

    games = games.copy()
    games["label"] = [label(r) for _, r in games.iterrows()] if len(games) else []
    return games


def viewer_games(f: Filters) -> pd.DataFrame:
    """The games the viewer's picker offers (filtered, newest first), with labels. The
    picker lists games of every status (it marks the illegal and disputed ones): the
    sidebar's status choice is about what statistics count."""
    from dataclasses import replace

    f = replace(f, statuses=STATUSES)
    return _labelled(filtered(f"""
        SELECT {GAME_COLUMNS} FROM games g WHERE g.game_id IN ({{games}})
        ORDER BY g.played_on DESC NULLS LAST, g.game_id LIMIT 2000""", f))


def find_game(wanted: str) -> dict[str, Any] | None:
    """A game by its id or by the SHA-256 of its file (the id wins when both match)."""
    rows = _labelled(query(f"""
        SELECT {GAME_COLUMNS} FROM games g WHERE g.game_id = ? OR g.sha256 = ?
        ORDER BY (g.game_id = ?) DESC LIMIT 1""", (wanted, wanted, wanted)))
    return None if rows.empty else {str(k): v for k, v in rows.iloc[0].to_dict().items()}


def game_info(name: str) -> Any:
    """The registry's entry for a game (its title, what the viewer steps through)."""
    from replay.registry import game_info as lookup

    return lookup(name)


@st.cache_resource(max_entries=64, show_spinner=False)
def timeline(sha256: str) -> Any:
    """The engine's step-by-step replay of one stored log (hands and legal cards at every
    move); computed by the engine from the stored text, kept for the process."""
    from replay.timeline import timeline_bytes

    text = _read("SELECT raw_text, file_name FROM logs WHERE sha256 = ?", (sha256,))
    if text.empty:
        return None
    return timeline_bytes(str(text["raw_text"].iloc[0]).encode("utf-8"),
                          str(text["file_name"].iloc[0]))


def step_stacks(game_id: str, round_no: int, number: int, step: str) -> Any:
    """The stacks the engine recorded after a trick (or turn), if the game keeps stacks."""
    if step == "turn":
        sql = "SELECT stacks FROM turns WHERE game_id = ? AND round = ? AND seq = ?"
    else:
        sql = "SELECT stacks FROM tricks WHERE game_id = ? AND round = ? AND trick = ?"
    rows = query(sql, (game_id, round_no, number))
    if rows.empty:
        return None
    value = rows["stacks"].iloc[0]
    return list(value) if hasattr(value, "__iter__") and not isinstance(value, str) else None


# ----------------------------------------------------------------- analyses


def ensure_ratings() -> str | None:
    """Bring `rating_history` up to date when the complete games changed (cheap when they
    did not); returns a note when the database was busy and older ratings are shown."""
    from ingest import ratings

    db = database()
    if db.lake is not None:
        return None  # a lake's ratings are not stored (docs/scale.md)
    waits = _run_waits()
    try:
        with _connection(db) as con:  # within the page run's one wait
            if ratings.is_fresh(con):
                return None
        # the job's waits for the file come out of the same budget
        done = jobs.run("ratings", {"db": db.path, "wait_s": waits.lock_s})
        waits.lock_s = max(0.0, waits.lock_s - float(done.get("waited", 0.0)))
    except (DatabaseBusy, jobs.JobBusy):
        waits.lock_s = 0.0
        return ("The ratings could not be brought up to date: another process is "
                "writing to the database. They are from before its latest games.")
    query.clear()
    return None


def hand_coverage(f: Filters) -> tuple[int, int, int, int]:
    """(bids with a hand estimate, settled bids, fewest and most playouts of those
    estimates) among the filtered games."""
    rows = filtered("""
        SELECT count(*) AS bids, count(h.sha256) AS estimated,
               coalesce(min(h.playouts), 200) AS lo, coalesce(max(h.playouts), 200) AS hi
        FROM bids b JOIN games g USING (game_id)
        LEFT JOIN hand_estimates h ON h.sha256 = g.sha256 AND h.round = b.round
             AND h.player = b.player
        WHERE b.game_id IN ({games})""", f)
    r = rows.iloc[0]
    return int(r["estimated"]), int(r["bids"]), int(r["lo"]), int(r["hi"])


def estimate_hands(f: Filters, rounds: int, progress: Any = None) -> int:
    """Run the hand estimates for up to `rounds` rounds of the filtered games now (the
    same cached Monte-Carlo as `trickledger analyse`); returns the hands estimated."""
    ids_sql, params = f.game_ids()
    ids = query(ids_sql, tuple(_hashable(v) for v in params))["game_id"].tolist()
    with _write_job():
        result = jobs.run("estimate", {"db": database().path, "game_ids": ids or [""],
                                       "limit": rounds}, progress)
    query.clear()
    return int(result["hands_done"])


def example_queries() -> list[tuple[str, str]]:
    """(question, SQL) pairs of docs/sql.md, for the console's one-click examples."""
    from ingest.examples import EXAMPLES

    return list(EXAMPLES)


__all__ = ["Busy", "Filters", "Result", "SqlRefused", "console", "database", "filtered",
           "load", "options", "query"]


# ----------------------------------------------------------------- administration


def audit_rows(limit: int = 500) -> pd.DataFrame:
    """The newest rows of the audit log (a lake's from its `_audit.jsonl`)."""
    db = database()
    if db.lake is not None:
        path = Path(db.path) / "_audit.jsonl"
        if not path.exists():
            return pd.DataFrame()
        frame = pd.read_json(path, lines=True, dtype=False)
        return frame.sort_values("happened_at", ascending=False).head(limit)
    if not query("SELECT 1 FROM information_schema.tables WHERE table_name = 'audit_log'",
                 ()).shape[0]:
        return pd.DataFrame()  # a database not written to since version 4: nothing yet
    return query("SELECT happened_at, actor, via, address, action, file_name, result, detail, "
                 "game_id, sha256 FROM audit_log ORDER BY happened_at DESC LIMIT ?", (limit,))


def find_log(wanted: str) -> pd.DataFrame:
    """The logs a SHA-256 (or its first 8+ characters) or a game id names."""
    wanted = wanted.strip()
    return query("""
        SELECT l.sha256, l.file_name, l.status, l.game_id, g.game, g.n_players,
               l.ingested_at
        FROM logs l LEFT JOIN games g ON g.sha256 = l.sha256
        WHERE l.sha256 = ? OR l.game_id = ? OR (length(?) >= 8 AND starts_with(l.sha256, ?))
        ORDER BY l.ingested_at LIMIT 20""", (wanted, wanted, wanted, wanted.lower()))


def remove_log(sha256: str, action: str, who: dict[str, Any], reason: str) -> str:
    """Quarantine or delete a log and its facts (one transaction, audited) in a child
    process; returns what was done, in words."""
    with _write_job():
        result = jobs.run("remove", {"db": database().path, "log": sha256, "action": action,
                                     "who": who, "reason": reason})
    query.clear()
    return str(result["line"])
