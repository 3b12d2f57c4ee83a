"""All data access of the dashboard: one module, cached, parameterised.

Pages never open the database themselves, nor write SQL: they ask the page
queries at the end of this module by name (`splits_by_player(f)`). The data
lives in one `Store` (ingest.store: the database file, or a lake). Reads go
through `query()` (cached for a few seconds, so games loaded by another process
appear soon), each on a short read-only connection of its own (`Store.read`),
so that an ingest can take the file between two queries. Nothing here holds a
lock while it works: the SQL console's queries run in a worker process that is
killed at their limits (ingest.console), and writes — uploads, ratings, hand
estimates — run in a child process (ingest.jobs), because DuckDB lets one
process hold a file read-write or read-only, not both. A slow query or upload
never blocks another visitor's page.
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
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd
import streamlit as st

from trickledger.ingest import admin, jobs
from trickledger.ingest.console import Answer, Console, Limits, Target
from trickledger.ingest.db import DatabaseBusy
from trickledger.ingest.load import Summary
from trickledger.ingest.sql import SqlRefused
from trickledger.ingest.store import Store

Result = Answer  # what the SQL page shows

CACHE_TTL_S = 3600  # an answer is kept for the database's state (data_state), an hour at most
CACHED_ANSWERS = 2000  # answers kept at most (the oldest go first)
_log = logging.getLogger("trickledger.dashboard")


class Busy(RuntimeError):
    """The database stayed locked by another process (an ingest) while we waited."""


class WriteFailed(RuntimeError):
    """A write (upload, removal, estimate) that could not be done; the message says why."""


@st.cache_resource
def database() -> Store:
    """The process-wide store: the lake that `trickledger dashboard --lake` reads, or the
    database file. The file's store is writable only so that a missing file is created
    empty and the pages find their tables: the dashboard's writes run in child processes
    (ingest.jobs), never on its own connections."""
    lake = os.environ.get("TRICKLEDGER_LAKE")
    if lake:
        return Store.connect(lake=lake)
    return Store.connect(writable=True)  # $TRICKLEDGER_DB, or trickledger.duckdb


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
def _connection(store: Store) -> Iterator[Any]:
    """A short read-only connection (a lake's: a cursor of its own, for this thread) within
    what is left of the page run's waits."""
    waits = _run_waits()
    started = time.monotonic()
    store.yield_to_writers(limit_s=max(waits.writer_s, 0.0))
    waits.writer_s -= time.monotonic() - started
    started = time.monotonic()
    try:
        # with nothing left to wait, the file is still tried once: only a held file fails
        with store.read(wait_s=max(waits.lock_s, 0.0)) as con:
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


Read = TypeVar("Read")


def _reading(work: Callable[[Any], Read]) -> Read:
    """`work(connection)` on a short read-only connection; a held file is Busy."""
    try:
        with _connection(database()) as con:
            return work(con)
    except DatabaseBusy as e:
        _log.warning("%s", e)  # the server's path goes to its log, never to a visitor
        raise Busy(BUSY) from None


def _read(sql: str, params: tuple[Any, ...]) -> pd.DataFrame:
    for observer in _observers:
        observer(sql, params)
    return _reading(lambda con: con.execute(sql, list(params)).df())


def data_state() -> tuple[Any, ...]:
    """What changes whenever the data does, read without opening the database: the size
    and modification time of the database file and of its write-ahead log (every commit
    writes one or the other), or of a lake's manifest folder (every commit adds a
    manifest). A query's answer is kept for as long as this stays the same."""
    store = database()
    if store.kind == "lake":
        paths = [os.path.join(store.path, "_manifest")]
    else:
        paths = [store.path, store.path + ".wal"]
    out: list[Any] = []
    for path in paths:
        try:
            st_ = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append((st_.st_mtime_ns, st_.st_size, st_.st_ino))
    return tuple(out)


@st.cache_data(ttl=CACHE_TTL_S, max_entries=CACHED_ANSWERS, show_spinner=False)
def _query_at(sql: str, params: tuple[Any, ...], state: tuple[Any, ...]) -> pd.DataFrame:
    return _read(sql, params)


class _Query:
    """`query(sql, params)`: a read-only query, values passed as parameters, its answer kept
    for the database's state (`data_state`): asked again while nothing was written, it is
    answered at once; after a write (another process's ingest too) it runs again."""

    def __call__(self, sql: str, params: tuple[Any, ...] = ()) -> pd.DataFrame:
        return _query_at(sql, params, data_state())

    def clear(self) -> None:
        _query_at.clear()


query = _Query()


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
    store = database()
    for path, word in ((store.path, "the database"),
                       (os.path.dirname(store.path), "the server's folder")):
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
    store = database()
    return _console().run(Target(db=store.db, lake=store.lake), sql, CONSOLE_LIMITS)


def load(items: list[tuple[str, bytes]], who: dict[str, Any] | None = None,
         action: str = "upload") -> Summary:
    """Ingest uploaded logs (name, bytes) in a child process on behalf of `who`
    (auth.describe of the visitor), each audited; clears the query cache so pages show
    them. Names are kept as names only (a browser may send a path); every log is read
    within the one cap of the reader."""
    store = database()
    named = [(Path(name.replace("\\", "/")).name or "upload.jsonl", data)
             for name, data in items]
    with _write_job():
        summary = jobs.upload(named, store.db, store.lake, who, action)
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
    from trickledger.replay.timeline import timeline_bytes

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
    from trickledger.replay.registry import registry

    games = query("SELECT DISTINCT game FROM games ORDER BY game")["game"].tolist()
    counts = query("SELECT DISTINCT n_players FROM games ORDER BY 1")["n_players"].tolist()
    players = player_names()
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


def game_declaration(name: str) -> Any:
    """The registry's entry for a game (its title, what the viewer steps through)."""
    from trickledger.replay.registry import lookup_game

    return lookup_game(name)


@st.cache_resource(max_entries=64, show_spinner=False)
def timeline(sha256: str) -> Any:
    """The engine's step-by-step replay of one stored log (hands and legal cards at every
    move); computed by the engine from the stored text, kept for the process."""
    from trickledger.replay.timeline import timeline_bytes

    text = _read("SELECT raw_text, file_name FROM logs WHERE sha256 = ?", (sha256,))
    if text.empty:
        return None
    return timeline_bytes(str(text["raw_text"].iloc[0]).encode("utf-8"),
                          str(text["file_name"].iloc[0]))


def step_stacks(game: str, game_id: str, round_no: int, number: int) -> Any:
    """The stacks the engine recorded after a step (a trick, a turn), if the game keeps
    stacks: from the table and column its declaration names (`GameInfo.step_rows`)."""
    info = game_declaration(game)
    if info is None:
        return None
    table, column = info.step_rows  # names from the game's declaration, checked plain
    rows = query(f"SELECT stacks FROM {table} WHERE game_id = ? AND round = ? AND {column} = ?",
                 (game_id, round_no, number))
    if rows.empty:
        return None
    value = rows["stacks"].iloc[0]
    return list(value) if hasattr(value, "__iter__") and not isinstance(value, str) else None


# ----------------------------------------------------------------- analyses


# The database states (data_state) at which the summaries and the ratings were last found
# up to date: while the state stays, no page asks again.
_fresh_at: dict[str, tuple[Any, ...]] = {}


def ensure_summaries() -> str | None:
    """Make the per-game summaries the statistics read (ingest.summaries) for games that
    lack them — a run of ingest makes them when it ends, so only a killed run leaves any
    behind — without waiting for a file another process is writing; returns a note when
    some games are not in the figures yet."""
    from trickledger.ingest import summaries

    store = database()
    state = data_state()
    if store.kind == "lake" or _fresh_at.get("summaries") == state:
        return None
    try:
        with _connection(store) as con:  # within the page run's one wait
            missing = summaries.behind(con)
    except DatabaseBusy:
        return None  # the page's own reads say the database is busy
    if missing:
        try:
            # wait for nobody: a file held by a writer is an ingest under way, which makes
            # the summaries itself when it ends
            jobs.run("summaries", {"db": store.path, "wait_s": 0.0})
        except (DatabaseBusy, jobs.JobBusy):
            return (f"{count_words(missing, 'game')} loaded by an ingest still under way "
                    f"{'is' if missing == 1 else 'are'} not in these figures yet: they "
                    f"count once it ends.")
        except jobs.JobFailed as e:
            _log.warning("summaries: %s", e)
            return (f"{count_words(missing, 'game')} {'is' if missing == 1 else 'are'} not "
                    f"in these figures yet (their summaries could not be made).")
        query.clear()
    _fresh_at["summaries"] = data_state()
    return None


def count_words(n: int, noun: str) -> str:
    """'1 game', '2 games'."""
    return f"{n:,} {noun if n == 1 else noun + 's'}"


def ensure_ratings() -> str | None:
    """Bring `rating_history` up to date when the complete games changed (cheap when they
    did not); returns a note when the database was busy and older ratings are shown."""
    from trickledger.ingest import ratings

    store = database()
    if store.kind == "lake":
        return None  # a lake's ratings are not stored (docs/scale.md)
    if _fresh_at.get("ratings") == data_state():
        return None
    waits = _run_waits()
    try:
        with _connection(store) as con:  # within the page run's one wait
            if ratings.is_fresh(con):
                _fresh_at["ratings"] = data_state()
                return None
        # the job's waits for the file come out of the same budget
        done = jobs.run("ratings", {"db": store.path, "wait_s": waits.lock_s})
        waits.lock_s = max(0.0, waits.lock_s - float(done.get("waited", 0.0)))
    except (DatabaseBusy, jobs.JobBusy):
        waits.lock_s = 0.0
        return ("The ratings could not be brought up to date: another process is "
                "writing to the database. They are from before its latest games.")
    query.clear()
    return None


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
    from trickledger.ingest.examples import examples

    return examples()


__all__ = ["Busy", "Filters", "Result", "SqlRefused", "console", "database", "filtered",
           "load", "options", "query"]


# ----------------------------------------------------------------- administration


def audit_rows(limit: int = 500) -> pd.DataFrame:
    """The newest rows of the audit log (a lake's from its `_audit.jsonl`)."""
    store = database()
    if store.kind == "lake":  # a lake keeps its audit as JSON lines beside its tables
        path = Path(store.path) / "_audit.jsonl"
        if not path.exists():
            return pd.DataFrame()
        frame = pd.read_json(path, lines=True, dtype=False)
        return frame.sort_values("happened_at", ascending=False).head(limit)
    if not query("SELECT 1 FROM information_schema.tables WHERE table_name = 'audit_log'",
                 ()).shape[0]:
        return pd.DataFrame()  # a database not written to since version 4: nothing yet
    return query("SELECT happened_at, actor, via, address, action, file_name, result, detail, "
                 "game_id, sha256 FROM audit_log ORDER BY happened_at DESC LIMIT ?", (limit,))


def find_logs(wanted: str) -> pd.DataFrame:
    """The logs a SHA-256 (or its first 8+ characters) or a game id names, the oldest 20
    (ingest.admin.find_logs, the lookup a quarantine or delete makes). Not cached: a log
    an admin has just taken out must not show as it was."""
    found = _reading(lambda con: admin.find_logs(con, wanted, limit=20))
    return pd.DataFrame([asdict(log) for log in found],
                        columns=[f.name for f in fields(admin.FoundLog)])


def remove_log(sha256: str, action: str, who: dict[str, Any], reason: str) -> str:
    """Quarantine or delete a log and its facts (one transaction, audited) in a child
    process; returns what was done, in words."""
    with _write_job():
        result = jobs.run("remove", {"db": database().path, "log": sha256, "action": action,
                                     "who": who, "reason": reason})
    query.clear()
    return str(result["line"])


# ----------------------------------------------------------------- page queries
#
# Every page's questions, by name: a page calls `splits_by_player(f)`, never SQL. Each is
# named after what it answers (and the analytics macro it reads, docs/analytics.md); the
# filtered ones read the sidebar's games through `filtered`, every value a parameter.


def game_title(name: str) -> str:
    """A game's title from the registry (its name when the registry does not know it)."""
    info = game_declaration(name)
    return info.title if info is not None else name


def player_names() -> list[str]:
    """Everybody in the database, whatever the filter."""
    names: list[str] = query("SELECT DISTINCT player FROM players ORDER BY 1")["player"].tolist()
    return names


# --- overview


def totals_by_game(f: Filters) -> pd.DataFrame:
    """Per game: games, rounds played, tricks and different players."""
    return filtered("""
        WITH gs AS (SELECT game_id, game, rounds_played FROM games WHERE game_id IN ({games})),
        t AS (SELECT gs.game, count(*) AS tricks FROM tricks JOIN gs USING (game_id)
              GROUP BY gs.game),
        p AS (SELECT gs.game, count(DISTINCT player) AS players FROM players JOIN gs
              USING (game_id) GROUP BY gs.game)
        SELECT gs.game, count(*) AS games, CAST(sum(gs.rounds_played) AS BIGINT) AS rounds,
               coalesce(any_value(t.tricks), 0) AS tricks, any_value(p.players) AS players
        FROM gs LEFT JOIN t USING (game) LEFT JOIN p USING (game)
        GROUP BY gs.game ORDER BY gs.game""", f)


def players_counted(f: Filters) -> int:
    """How many different players sat at the filtered games."""
    people = filtered("""
        SELECT count(DISTINCT player) AS n FROM players WHERE game_id IN ({games})""", f)
    return int(people["n"].iloc[0])


def games_by_status(f: Filters) -> pd.DataFrame:
    """Per counting class (`game_counting`): games, and the disputed ones of all of them."""
    return filtered("""
        SELECT counted_as, count(*) AS games,
               sum(count(*) FILTER (WHERE disputed)) OVER () AS disputed
        FROM game_counting WHERE game_id IN ({games}) GROUP BY counted_as""", f)


def _like(text: str) -> str:
    """`text` matched literally by ILIKE (its % and _ are not wildcards)."""
    return text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def disputed_games(f: Filters, wanted: str = "") -> pd.DataFrame:
    """The 200 newest games with a claim that does not match, whose file name or game id
    holds `wanted` (literally), with their first disputed round."""
    return filtered("""
        SELECT g.game_id, g.file_name, g.game, g.status, g.ingested_at,
               count(*) AS claims, min(c.round) AS first_round
        FROM games g JOIN claims c USING (game_id)
        WHERE NOT c.match AND g.game_id IN ({games})
          AND (g.file_name ILIKE ? ESCAPE '\\' OR g.game_id ILIKE ? ESCAPE '\\')
        GROUP BY ALL ORDER BY g.ingested_at DESC, g.file_name LIMIT 200""", f,
        params=(f"%{_like(wanted)}%", f"%{_like(wanted)}%"))


def recent_uploads() -> pd.DataFrame:
    """The 20 logs loaded last, whatever became of them (a conflict's game id is the other
    log's, the one it clashes with: not shown)."""
    return query("""
        SELECT file_name, status,
               CASE WHEN status IN ('conflict', 'quarantined', 'unreadable') THEN NULL
                    ELSE game_id END AS game_id, size_bytes, ingested_at, error_line,
               CASE WHEN status = 'quarantined' THEN 'taken out by an admin'
                    ELSE error_message END AS error_message
        FROM logs ORDER BY ingested_at DESC, file_name LIMIT 20""")


# --- results and ratings


def results(f: Filters) -> pd.DataFrame:
    """Per game and player: wins against chance (`results_of`)."""
    return filtered("""
        SELECT * FROM results_of({game_list}) WHERE {players}
        ORDER BY game, win_rate DESC, player""", f, player_column="player")


def final_totals(f: Filters, game: str) -> pd.DataFrame:
    """Every final total of one game, with the table size."""
    return filtered("""
        SELECT f.total, f.n_players FROM finishes f
        WHERE f.game_id IN ({games}) AND {players}""", f, game=game,
        player_column="f.player")


def latest_games(f: Filters, game: str) -> pd.DataFrame:
    """The 50 latest finished games of one game: winners and totals."""
    return filtered("""
        SELECT g.game_id, g.played_on, g.n_players,
               array_to_string(g.winners, ', ') AS winners,
               string_agg(p.player || ' ' || p.total, ', ' ORDER BY p.seat) AS totals
        FROM games g JOIN players p USING (game_id)
        WHERE g.status IN ('complete', 'sheet') AND g.game_id IN ({games})
        GROUP BY ALL ORDER BY g.played_on DESC NULLS LAST, g.game_id LIMIT 50""",
        f, game=game)


def ratings_by_game(f: Filters) -> pd.DataFrame:
    """The ratings of the filtered players in the filtered games, each with its place."""
    return filtered("""
        SELECT r.*, rank() OVER (PARTITION BY r.game ORDER BY r.ordinal DESC, r.player) AS place
        FROM ratings r WHERE {players}
          AND r.game IN (SELECT game FROM games WHERE game_id IN ({games}))
          AND r.player IN (SELECT player FROM players WHERE game_id IN ({games}))
        ORDER BY r.game, r.ordinal DESC, r.player""", f, player_column="r.player")


def rating_history(game: str, players: list[str]) -> pd.DataFrame:
    """How the ratings of `players` in `game` went, game by game."""
    return query("""
        SELECT seq, player, ordinal, mu, sigma, played_on
        FROM rating_history WHERE game = ? AND list_contains(?, player)
        ORDER BY seq, player""", (game, tuple(players)))


def head_to_head(f: Filters) -> pd.DataFrame:
    """Per game and pair of players who met: ahead, behind, tied (`head_to_head_of`)."""
    return filtered("""
        SELECT * FROM head_to_head_of({game_list}) WHERE {players}
        ORDER BY game, player, opponent""", f, player_column="player")


def seat_effects(f: Filters) -> pd.DataFrame:
    """Per game and seat from the dealer: points above the table's mean (`seat_effects_of`)."""
    return filtered("""
        SELECT * FROM seat_effects_of({game_list}) ORDER BY game, seat_from_dealer""", f)


def leader_effects(f: Filters) -> pd.DataFrame:
    """Per game: the first leader's points above the table's mean (`leader_effects_of`)."""
    return filtered("""
        SELECT * FROM leader_effects_of({game_list}) ORDER BY game, first_round DESC""", f)


# --- decisions (move_quality)


def decisions_by_player(f: Filters) -> pd.DataFrame:
    """Per game and player: the accuracy of the judged decisions (`decision_quality_of`)."""
    return filtered("""
        SELECT * FROM decision_quality_of({game_list}) WHERE {players}
        ORDER BY game, accuracy DESC, avg_cost, player""", f, player_column="player")


def decisions_judged() -> int:
    """How many decisions the judge has judged, in every game."""
    return int(query("SELECT count(*) AS n FROM move_quality")["n"].iloc[0])


# --- one player (the player page)


def player_results(f: Filters, player: str) -> pd.DataFrame:
    """Per game: the player's wins against chance (`results_of`)."""
    return filtered("""
        SELECT game, games, win_share, expected_wins, win_rate, baseline_rate, vs_baseline,
               win_rate_low, win_rate_high, mean_total, mean_finish
        FROM results_of({game_list}) WHERE player = ? ORDER BY game""", f, params=(player,))


def player_games(f: Filters, player: str) -> int:
    """How many of the filtered games the player sat at."""
    played = filtered("""
        SELECT count(*) AS games FROM players WHERE player = ? AND game_id IN ({games})""", f,
        params=(player,))
    return int(played["games"].iloc[0])


def player_ratings(player: str) -> pd.DataFrame:
    """Per game: the player's rating and place among the rated players."""
    return query("""
        SELECT r.game, r.games, r.mu, r.sigma, r.ordinal,
               (SELECT count(*) + 1 FROM ratings o WHERE o.game = r.game
                AND (o.ordinal > r.ordinal OR (o.ordinal = r.ordinal AND o.player < r.player)))
                   AS place,
               (SELECT count(*) FROM ratings o WHERE o.game = r.game) AS rated
        FROM ratings r WHERE r.player = ? ORDER BY r.game""", (player,))


def player_rating_history(player: str) -> pd.DataFrame:
    """The player's rating after each of their rated games."""
    return query("""
        SELECT game, seq, played_on, finish, players, mu, sigma, ordinal
        FROM rating_history WHERE player = ? ORDER BY game, seq""", (player,))


def player_form(f: Filters, player: str) -> pd.DataFrame:
    """Every finished game of the player in played order: placing, and its mean over the
    last ten."""
    return filtered("""
        SELECT game, game_id, played_on, n_players, finish, total, win_share,
               CASE WHEN n_players > 1 THEN (n_players - finish) / (n_players - 1) END
                   AS placing,
               avg(CASE WHEN n_players > 1 THEN (n_players - finish) / (n_players - 1) END)
                   OVER (ORDER BY played_on NULLS LAST, game_id
                         ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS last_ten
        FROM finishes WHERE player = ? AND game_id IN ({games})
        ORDER BY played_on NULLS LAST, game_id""", f, params=(player,))


def player_head_to_head(f: Filters, player: str) -> pd.DataFrame:
    """The player's 30 most frequent opponents (`head_to_head_of`)."""
    return filtered("""
        SELECT game, opponent, games, ahead, behind, tied
        FROM head_to_head_of({game_list}) WHERE player = ?
        ORDER BY games DESC, game, opponent LIMIT 30""", f, params=(player,))


def player_decisions(f: Filters, player: str) -> pd.DataFrame:
    """Per judged game of the player: accuracy, cost, blunders (`game_decisions_of`)."""
    return filtered("""
        SELECT game, game_id, played_on, decisions, accuracy, avg_cost, blunders, goods,
               inaccuracies, mistakes
        FROM game_decisions_of({game_list}) WHERE player = ?
        ORDER BY played_on NULLS LAST, game_id""", f, params=(player,))


def player_costliest_moves(f: Filters, player: str) -> pd.DataFrame:
    """The player's ten costliest judged decisions (`move_quality_of`): their key moments."""
    return filtered("""
        SELECT game_id, game, played_on, round, line, move, best_move, cost, cost_se, band
        FROM move_quality_of({game_list}) WHERE player = ? AND band <> 'best'
        ORDER BY cost DESC, game_id, line LIMIT 10""", f, params=(player,))


def player_disputes(player: str) -> pd.DataFrame:
    """Every claimed score about the player that does not match the replay, newest first."""
    return query("""
        SELECT c.game_id, g.file_name, c.line, coalesce(CAST(c.round AS VARCHAR), 'totals')
                   AS round, c.claimed, c.computed, c.derivation
        FROM claims c JOIN games g USING (game_id)
        WHERE c.player = ? AND NOT c.match ORDER BY g.played_on DESC NULLS LAST, c.game_id,
              c.line""", (player,))


# --- one game (the viewer)


def judged_moves(game_id: str, round_no: int) -> pd.DataFrame:
    """The judge's verdict on every decision of a round (`move_quality_of`)."""
    return query("""
        SELECT line, player, move, band, cost, cost_se, best_move, value, best_value, samples,
               alternatives, equal_moves, exact_samples
        FROM move_quality_of([?]) WHERE round = ? ORDER BY line""", (game_id, round_no))


def judged_rounds(game_id: str) -> set[int] | None:
    """The rounds of a game the judge has judged (every move of such a round without a
    verdict was forced); None when the whole log is judged."""
    got = query("""
        SELECT a.analysis, a.detail FROM analysis_runs a JOIN games g ON g.sha256 = a.fingerprint
        WHERE g.game_id = ? AND a.analysis IN ('moves', 'moves-round')""", (game_id,))
    if (got["analysis"] == "moves").any():
        return None
    return {int(d.rsplit(" ", 1)[1]) for d in got["detail"] if str(d).rsplit(" ", 1)[-1].isdigit()}


def game_review(game_id: str) -> pd.DataFrame:
    """Each player's judged decisions of one game: accuracy, average cost, the bands."""
    return query("""
        SELECT player, count(*) AS decisions,
               avg(CASE WHEN band = 'best' THEN 1.0 ELSE 0.0 END) AS accuracy,
               avg(cost) AS avg_cost,
               count(*) FILTER (WHERE band = 'best') AS best,
               count(*) FILTER (WHERE band = 'good') AS good,
               count(*) FILTER (WHERE band = 'inaccuracy') AS inaccuracies,
               count(*) FILTER (WHERE band = 'mistake') AS mistakes,
               count(*) FILTER (WHERE band = 'blunder') AS blunders
        FROM move_quality_of([?]) GROUP BY player ORDER BY accuracy DESC, avg_cost, player""",
                 (game_id,))


def game_key_moments(game_id: str, limit: int = 6) -> pd.DataFrame:
    """A game's costliest decisions (none of them best): its key moments."""
    return query("""
        SELECT round, line, player, move, best_move, cost, cost_se, band
        FROM move_quality_of([?]) WHERE band <> 'best'
        ORDER BY cost DESC, line LIMIT ?""", (game_id, limit))


def running_scores(game_id: str) -> pd.DataFrame:
    """Every round's scores of a game, with the running totals and how each is made up."""
    return query("""
        SELECT round, player, score, running_total AS "running total", derivation FROM round_scores
        WHERE game_id = ? ORDER BY round, player""", (game_id,))


def disputed_claims(game_id: str) -> pd.DataFrame:
    """A game's claimed scores that do not match the replay, in the order of the sheet."""
    return query("""SELECT coalesce(CAST(round AS VARCHAR), 'totals') AS round,
                                  player, claimed AS "sheet says", computed, derivation, line
                           FROM claims WHERE game_id = ? AND NOT match ORDER BY line""",
                 (game_id,))
