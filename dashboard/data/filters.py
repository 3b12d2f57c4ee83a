"""The sidebar's choice of games (`Filters`), the values it offers, and `filtered`: a query
run for the chosen games, every value a parameter."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .access import query

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
    """Values the sidebar offers (one query: every page draws the sidebar, and each query
    opens the database file anew)."""
    from trickledger.replay.registry import registry

    row = query("""
        SELECT (SELECT coalesce(list(DISTINCT game ORDER BY game), []) FROM games) AS games,
               (SELECT coalesce(list(DISTINCT n_players ORDER BY n_players), []) FROM games)
                   AS counts,
               (SELECT coalesce(list(DISTINCT player ORDER BY player), []) FROM players)
                   AS players,
               (SELECT coalesce(list(DISTINCT v ORDER BY v), [])
                FROM (SELECT unnest(variants) AS v FROM games)) AS variants,
               (SELECT coalesce(list(DISTINCT edition ORDER BY edition), []) FROM games
                WHERE edition IS NOT NULL) AS editions,
               min(played_on) AS lo, max(played_on) AS hi,
               count(*) FILTER (WHERE played_on IS NULL) AS undated
        FROM games""").iloc[0]
    lo, hi = row["lo"], row["hi"]
    known = sorted((name, v) for name, info in registry().items() for v in info.variants)
    return {"games": [str(g) for g in row["games"]],
            "counts": [int(c) for c in row["counts"]],
            "players": [str(p) for p in row["players"]],
            "variants": [str(v) for v in row["variants"]],
            "editions": [str(e) for e in row["editions"]], "known_variants": known,
            "undated": int(row["undated"]),
            "lo": None if pd.isna(lo) else pd.Timestamp(lo).date(),
            "hi": None if pd.isna(hi) else pd.Timestamp(hi).date()}


def player_names() -> list[str]:
    """Everybody in the database, whatever the filter (the sidebar's answer: no query of
    its own)."""
    names: list[str] = options()["players"]
    return names
