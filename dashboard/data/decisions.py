"""The Decisions page's questions: the judge's verdicts on every decision
(`decision_quality_of`, `move_quality`)."""

from __future__ import annotations

import pandas as pd

from .access import query
from .filters import Filters, filtered


def decisions_by_player(f: Filters) -> pd.DataFrame:
    """Per game and player: the accuracy of the judged decisions (`decision_quality_of`)."""
    return filtered("""
        SELECT * FROM decision_quality_of({game_list}) WHERE {players}
        ORDER BY game, accuracy DESC, avg_cost, player""", f, player_column="player")


def decisions_judged() -> int:
    """How many decisions the judge has judged by its current method, in every game (the
    method as a parameter: a database an older version wrote has no `judge_method`)."""
    from trickledger.replay.judge import METHOD

    return int(query("SELECT count(*) AS n FROM move_quality WHERE method = ?",
                     (METHOD,))["n"].iloc[0])
