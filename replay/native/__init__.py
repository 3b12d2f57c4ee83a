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
import struct
from types import ModuleType
from typing import Any

from ..info import GameInfo
from ..state import GameState, Move

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


# ------------------------------------------------------------------- the judge's values


def seed_of(stream: float) -> int:
    """A 64-bit seed for the native engine's random stream from the judge's per-sample
    stream (a float of `random.Random.random()`): its bits, so that every sample's stream
    differs and the same sample gets the same stream for every alternative."""
    return int.from_bytes(struct.pack("<d", stream), "little")


class NativeEngine:
    """The judge's values of one sample's alternatives (the judge's `ValueEngine`) by the
    native engine: the sample solved exactly when the rest of the round fits the solver's
    budget (`budget` native positions), otherwise every alternative played out by the greedy
    policy with one random stream (exactly only tried at most the codec's `solve_cards`
    cards left in the hands, when it says), the rest of the round solved once at most the
    codec's `endgame_cards` cards are left in the hands and it fits `endgame_budget`. A game
    the native engine does not know is valued by `fallback` (the Python engine), or, without
    one, `native_values` says None."""

    name = "native"

    def __init__(self, fallback: Any, budget: int, endgame_budget: int,
                 table_bits: int = 18) -> None:
        self.fallback = fallback
        self.budget = budget
        self.endgame_budget = endgame_budget
        self.table_bits = table_bits

    def native_values(self, state: GameState, seat: int, alternatives: list[Move],
                      stream: float, search: bool) -> tuple[list[float], bool] | None:
        """`seat`'s value after each alternative on this sample, and whether it is exact;
        None when the native engine does not play this game (or is not built)."""
        native = engine()
        codec = state.info.native
        if native is None or codec is None or codec.rules not in native.GAMES:
            return None
        evaluate = getattr(native, f"evaluate_{codec.rules}")
        moves = [codec.move_code(state, m) for m in alternatives]
        most = codec.solve_cards
        if search and most is not None:
            # a rest of the round with more cards cannot fit: not worth a failed try
            search = sum(len(state.hand(s)) for s in range(len(state.players))) <= most
        values, exact, _ = evaluate([codec.position(state)], moves, seat,
                                    self.budget if search else 0, "greedy", [seed_of(stream)],
                                    self.endgame_budget,
                                    -1 if codec.endgame_cards is None else codec.endgame_cards,
                                    self.table_bits)
        return [v[0] for v in values], bool(exact[0])

    def values(self, state: GameState, seat: int, alternatives: list[Move], stream: float,
               budget: int, search: bool) -> tuple[list[float], bool]:
        got = self.native_values(state, seat, alternatives, stream, search)
        if got is None:
            if self.fallback is None:
                raise ValueError(f"the native engine does not play {state.info.name}")
            fell: tuple[list[float], bool] = self.fallback.values(state, seat, alternatives,
                                                                  stream, budget, search)
            return fell
        return got
