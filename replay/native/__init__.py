"""The native analysis engine: playouts and the perfect-information solver in C++, beside the
Python rules (docs/analytics.md, "The native engine").

The rules stay in Python (replay/games/): the replay, the verdicts and the score sheets are
the rule book, and the oracle the native engine is tested against position by position
(tests/units/test_native_differential.py). The engine is a C++17 extension module,
`trickledger.replay._native`, built by the same `pip install .` (setup.py; bound with
pybind11). Without a C++ compiler the install still succeeds without it, and the judge runs in
Python, slower: `trickledger --version` says which analysis engine runs.

A game tells the engine how to play it through `GameInfo.native` (a `NativeCodec` declared in
the game's own module: which of the engine's rule sets, and how its state and moves become the
engine's position and move codes); a game without one is judged in Python. This module knows
no game: it asks the codec.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from ..state import GameInfo, GameState, Move

MODULE = "trickledger.replay._native"

_loaded: ModuleType | None = None
_why_not: str | None = None
_tried = False


def engine() -> ModuleType | None:
    """The extension module, or None when it is not built (see `why_not`)."""
    global _loaded, _why_not, _tried
    if not _tried:
        _tried = True
        try:
            _loaded = importlib.import_module(MODULE)
        except ImportError as e:
            _why_not = f"{MODULE} is not built ({e})"
    return _loaded


def available() -> bool:
    return engine() is not None


def why_not() -> str | None:
    """Why the native engine cannot run here, or None when it can."""
    engine()
    return _why_not


def rules() -> tuple[str, ...]:
    """The rule sets the native engine plays (empty when it is not built)."""
    native = engine()
    return tuple(native.GAMES) if native is not None else ()


def knows(info: GameInfo) -> bool:
    """Whether the native engine plays this game: it declares a codec whose rules the built
    engine has."""
    return info.native is not None and info.native.rules in rules()


def engine_text() -> str:
    """Which analysis engine the judge runs, in words (for `trickledger --version`)."""
    native = engine()
    if native is None:
        return "analysis engine Python: the native engine is not built"
    sanitized = " with sanitizers" if native.SANITIZED else ""
    return f"analysis engine native C++{sanitized}"


def position(state: GameState) -> Any:
    """The native engine's position of `state` (a state in the middle of a round of a game
    the engine knows): an object with `choices()`, `play(code)`, `solve(...)`,
    `playout(...)` (replay/native/module.cpp)."""
    native = engine()
    codec = state.info.native
    if native is None or codec is None:
        raise ValueError(f"the native engine does not play {state.info.name}"
                         + (f": {_why_not}" if _why_not else ""))
    return native.position(codec.rules, codec.position(state))


def move_code(state: GameState, move: Move) -> int:
    """A legal move of `state` as the native engine's move code."""
    codec = state.info.native
    if codec is None:
        raise ValueError(f"the native engine does not play {state.info.name}")
    return codec.move_code(state, move)


def move_of(state: GameState, code: int) -> Move:
    """A native move code of `state` back as its move (the log's event)."""
    codec = state.info.native
    if codec is None:
        raise ValueError(f"the native engine does not play {state.info.name}")
    return codec.move_of(state, code)
