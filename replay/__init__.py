"""trickledger's replay engine: reader, engine core, games, bots."""

from __future__ import annotations

if __name__ != "trickledger.replay":  # the checkout's folder, imported by its folder name
    raise ImportError("replay/ is installed as trickledger.replay: import trickledger.replay "
                      "(pip install . or pip install -e . first)")

import importlib
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from .engine import Replay, exit_status, replay_bytes, replay_path, verdict
from .engine_modules import engine_files, module_name

__all__ = ["ENGINE_MODULES", "Replay", "build_text", "engine_build", "exit_status", "replay_bytes",
           "replay_path", "verdict"]

# The modules that setup.py compiles with mypyc on a normal install: the engine core and
# every game module, from the one list in replay.engine_modules. Everything else in replay/
# always runs interpreted.
ENGINE_MODULES: tuple[str, ...] = tuple(
    module_name(f) for f in engine_files(Path(__file__).parent.parent))


def compiled_modules() -> list[str]:
    """The engine modules that were imported from a compiled extension (a .so), not a .py."""
    out = []
    for name in ENGINE_MODULES:
        path = getattr(importlib.import_module(name), "__file__", None) or ""
        if path.endswith(tuple(EXTENSION_SUFFIXES)):
            out.append(name)
    return out


def engine_build() -> str:
    """Which engine runs: "compiled" (mypyc), "interpreted", or "partly compiled" (a broken
    install: some modules are extensions, some are not)."""
    n = len(compiled_modules())
    if n == 0:
        return "interpreted"
    return "compiled" if n == len(ENGINE_MODULES) else "partly compiled"


def build_text() -> str:
    """Which engine runs and which analysis engine the judge uses, in words: 'engine compiled
    with mypyc; analysis engine native C++', 'engine interpreted; analysis engine Python:
    the native engine is not built', or the compiled modules of a broken install."""
    from .native import engine_text

    build = engine_build()
    if build == "compiled":
        engine = "engine compiled with mypyc"
    elif build == "interpreted":
        engine = "engine interpreted"
    else:
        engine = f"engine partly compiled: {', '.join(compiled_modules())}"
    return f"{engine}; {engine_text()}"
