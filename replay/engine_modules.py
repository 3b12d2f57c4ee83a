"""Which modules of replay/ make the compiled engine: the one list, read by `setup.py`
(which compiles them with mypyc) and by `replay.ENGINE_MODULES` (which checks that an
installation runs them compiled).

The engine core is listed; every game module of `replay/games/` is part of it without
being listed, so a new game there is compiled like the others. A leaf module of the
standard library only: `setup.py` loads it before anything is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

# The modules on the replay hot path, and those of the playouts (the greedy bot, the judge's
# playout loop, the endgame search: a hand estimate or a judged decision is thousands of bot
# moves). replay/__init__.py and replay/games/__init__.py stay interpreted (a package's
# __init__ is where the compiled modules are found from), and so do replay/registry.py (run
# once per process; it reads each game module's namespace) and this module; the simulator,
# the timeline and the commands run interpreted on top of the compiled engine.
ENGINE_CORE: Final[tuple[str, ...]] = (
    "replay/errors.py",
    "replay/events.py",
    "replay/cards.py",
    "replay/tables.py",
    "replay/facts.py",
    "replay/state.py",
    "replay/info.py",
    "replay/rows.py",
    "replay/render.py",
    "replay/sheet.py",  # the games' score sheets subclass its SheetState
    "replay/reader.py",
    "replay/engine.py",
    "replay/bots.py",
    "replay/search.py",
    "replay/judge.py",
    "replay/native/codes.py",  # every game's move codes: called per move by the judge
)
GAMES_FOLDER: Final = "replay/games"


def engine_files(root: Path) -> list[str]:
    """The engine's source files, relative to `root`, the folder of the trickledger package
    (the checkout's src/trickledger/, or the installed package): the core, then every game
    module of replay/games/ in name order."""
    games = sorted(p.name for p in (root / GAMES_FOLDER).glob("*.py") if p.name != "__init__.py")
    return [*ENGINE_CORE, *(f"{GAMES_FOLDER}/{name}" for name in games)]


def module_name(file: str) -> str:
    """replay/games/rage.py -> trickledger.replay.games.rage"""
    return "trickledger." + file.removesuffix(".py").replace("/", ".")
