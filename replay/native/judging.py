"""The judge's one hook into the native analysis engine (issue 33; docs/native.md).

The judge (replay/judge.py) asks `sample_values` for the values of one sample's alternatives
before it values them in Python: the native engine answers for the games it knows, and says
None for the others, or when it is not built, or when `TRICKLEDGER_ANALYSIS=python` asks for
the Python judge (the reference, and the benchmarks' other side). Without the native engine
the judge warns once that it runs in Python, slower.

The defaults were chosen from measurements (bench/native.py --defaults; docs/native.md,
"Defaults"): a sample whose rest of the round fits `SOLVE_BUDGET` native positions is solved
exactly (tried once at most `SOLVE_CARDS[game]` cards are left in the hands); otherwise
each alternative is played out by the greedy policy, and the playout's
last tricks are solved once at most `ENDGAME_CARDS[game]` cards are left in the hands (if
they fit `ENDGAME_BUDGET`).
"""

from __future__ import annotations

import os
import warnings
from typing import Final

from ..state import GameState, Move
from . import NativeEngine, available, why_not

ENV: Final = "TRICKLEDGER_ANALYSIS"  # "python": the judge values in Python, "native": the default
SOLVE_BUDGET: Final = 200_000  # native positions: a sample's rest this small is solved exactly
ENDGAME_BUDGET: Final = 5_000  # native positions: a playout's last tricks this small are solved
# Cards left in the hands (every seat's) from which a sample is tried exactly, and from which a
# playout's rest is solved: at those counts the rest of a round of the common table takes a
# median of a few thousand, and a few hundred, native positions (docs/native.md, "Defaults").
SOLVE_CARDS: Final[dict[str, int]] = {
    "rage": 12,
    "plotters": 10,
    "color_stacks": 30,
    "under_the_radar": 16,
}
ENDGAME_CARDS: Final[dict[str, int]] = {
    "rage": 8,
    "plotters": 8,
    "color_stacks": 22,
    "under_the_radar": 12,
}
TABLE_BITS: Final = 18  # the solver's transposition table: 2^18 entries per game and thread

_engine = NativeEngine(None, SOLVE_BUDGET, dict(ENDGAME_CARDS), ENDGAME_BUDGET, TABLE_BITS,
                       dict(SOLVE_CARDS))
_warned = False


def wanted() -> str:
    """The analysis engine asked for: `TRICKLEDGER_ANALYSIS`, "native" unless it says "python"."""
    asked = os.environ.get(ENV, "native").strip().lower() or "native"
    if asked not in ("native", "python"):
        raise ValueError(f"{ENV} is {asked!r}: expected 'native' or 'python'")
    return asked


def sample_values(state: GameState, seat: int, alternatives: list[Move], stream: float,
                  search: bool) -> tuple[list[float], bool] | None:
    """`seat`'s value after each of `alternatives` on this sample of the hidden cards (the
    same random stream `stream` for every alternative), and whether they are exact (the
    sample solved; `search` False: played out without trying); None when the judge must
    value them in Python."""
    global _warned
    if wanted() == "python":
        return None
    if not available():
        if not _warned:
            _warned = True
            warnings.warn(f"{why_not()}: the judge runs in Python, slower "
                          f"(see docs/native.md)", RuntimeWarning, stacklevel=2)
        return None
    return _engine.native_values(state, seat, alternatives, stream, search)
