"""The Game viewer's questions: the games its picker offers, one game by id, the engine's
steps of a stored log, the stacks after a step, and a round's scores, claims and judged
decisions."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from trickledger.dashboard.game_parts import game_declaration

from .access import query, read
from .filters import STATUSES, Filters, filtered

GAME_COLUMNS = """g.game_id, g.sha256, g.game, g.n_players, g.status, g.error_line, g.error_message,
    g.file_name, g.claims_mismatched, g.played_on,
    (SELECT string_agg(p.player, ', ' ORDER BY p.seat) FROM players p
     WHERE p.game_id = g.game_id) AS player_names"""


def _labelled(games: pd.DataFrame) -> pd.DataFrame:
    """A readable picker label per game: who played, when, the file, and a dispute mark
    (made column by column: the picker offers up to 2,000 games)."""
    def label(game: Any, names: Any, played_on: Any, file_name: Any, status: Any,
              mismatched: Any) -> str:
        when = str(played_on)[:10] if pd.notna(played_on) else "undated"
        mark = "SHEET · " if status == "sheet" else ""
        if status == "illegal":
            mark = "ILLEGAL · "
        elif pd.notna(mismatched) and mismatched > 0:
            mark = "DISPUTED · "
        return f"{mark}{game} · {names} · {when} · {file_name}"

    games = games.copy()
    games["label"] = [label(*row) for row in zip(
        games["game"], games["player_names"], games["played_on"], games["file_name"],
        games["status"], games["claims_mismatched"])]
    return games


def viewer_games(f: Filters) -> pd.DataFrame:
    """The games the viewer's picker offers (filtered, newest first), with labels. The
    picker lists games of every status (it marks the illegal and disputed ones): the
    sidebar's status choice is about what statistics count."""
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


@st.cache_resource(max_entries=64, show_spinner=False)
def timeline(sha256: str) -> Any:
    """The engine's step-by-step replay of one stored log (hands and legal cards at every
    move); computed by the engine from the stored text, kept for the process."""
    from trickledger.replay.timeline import timeline_bytes

    text = read("SELECT raw_text, file_name FROM logs WHERE sha256 = ?", (sha256,))
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


def judged_moves(game_id: str, round_no: int) -> pd.DataFrame:
    """The judge's verdict on every decision of a round (`move_quality_of`)."""
    return query("""
        SELECT line, player, move, band, cost, cost_se, best_move, value, best_value, samples,
               alternatives, equal_moves, exact_samples
        FROM move_quality_of([?]) WHERE round = ? ORDER BY line""", (game_id, round_no))


def judged_rounds(game_id: str) -> set[int] | None:
    """The rounds of a game the judge has judged by its current method (every move of such
    a round without a verdict was forced); None when the whole log is judged."""
    from trickledger.replay.judge import METHOD

    got = query("""
        SELECT a.analysis, a.detail FROM analysis_runs a JOIN games g ON g.sha256 = a.fingerprint
        WHERE g.game_id = ? AND a.analysis IN ('moves', 'moves-round')
          AND starts_with(a.detail, ?)""", (game_id, f"{METHOD} "))
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
