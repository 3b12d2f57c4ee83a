"""The native analysis engine as the judge's `ValueEngine` named "native" (issue 33;
docs/native.md), and which engine `trickledger analyse --moves` uses by default.

`native_engine` is the native engine at the defaults below, with the judge's Python engine as
the fallback for a game the native engine does not know (replay/judge.py registers it under
"native"). `default_engine` is "native" when the engine is built and `TRICKLEDGER_ANALYSIS`
does not say "python" (the Python judge: the reference, and the benchmarks' other side);
without the native engine it is "python", and it warns once that the judge runs in Python,
slower.

The defaults were chosen from measurements (bench/native.py --defaults; docs/native.md,
"Defaults"): a sample whose rest of the round fits `SOLVE_BUDGET` native positions is solved
exactly (tried once at most the game's `NativeCodec.solve_cards` cards are left in the
hands); otherwise each alternative is played out by the greedy policy, and the playout's
last tricks are solved once at most its `NativeCodec.endgame_cards` cards are left in the
hands (if they fit `ENDGAME_BUDGET`). The numbers of cards are the game's, declared in its
module with its codec.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Final

from . import NativeEngine, available, why_not

ENV: Final = "TRICKLEDGER_ANALYSIS"  # "python": analyse judges in Python by default
SOLVE_BUDGET: Final = 200_000  # native positions: a sample's rest this small is solved exactly
ENDGAME_BUDGET: Final = 5_000  # native positions: a playout's last tricks this small are solved
TABLE_BITS: Final = 18  # the solver's transposition table: 2^18 entries per game and thread

_warned = False


def native_engine(fallback: Any) -> NativeEngine:
    """The native engine at the defaults, `fallback` (the judge's Python engine) valuing the
    games it does not know, and every game when it is not built."""
    return NativeEngine(fallback, SOLVE_BUDGET, ENDGAME_BUDGET, TABLE_BITS)


def wanted() -> str:
    """The analysis engine asked for: `TRICKLEDGER_ANALYSIS`, "native" unless it says "python"."""
    asked = os.environ.get(ENV, "native").strip().lower() or "native"
    if asked not in ("native", "python"):
        raise ValueError(f"{ENV} is {asked!r}: expected 'native' or 'python'")
    return asked


def default_engine() -> str:
    """The judge's engine when none is named (`trickledger analyse --moves`): "native" where
    it is built, unless `TRICKLEDGER_ANALYSIS=python`; otherwise "python" (warned once when
    the native engine was wanted but is not built)."""
    global _warned
    if wanted() == "python":
        return "python"
    if available():
        return "native"
    if not _warned:
        _warned = True
        warnings.warn(f"{why_not()}: the judge runs in Python, slower "
                      f"(see docs/native.md)", RuntimeWarning, stacklevel=2)
    return "python"
