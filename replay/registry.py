"""The game registry: every game declares itself here, as data, and is found here.

A game module builds a `GameInfo` and calls `register()` at import; nothing else in
trickledger names a game. `registry()` imports every module of `replay.games` once (so a
new module there is found without editing a list), then every module a distribution
installed beside trickledger names under the `trickledger.games` entry point (a plugin
game: docs/games.md, "A game of your own"), and returns the games by id.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

from .events import CLAIM_EVENT, EVENT_TYPES, EXACT_NUMBER_EVENTS, SHEET_EVENT
from .facts import Fact
from .info import GameInfo
from .state import GameState, Move, handled_types, handler_table
from .tables import SHARED, check_declaration

__all__ = ["GameInfo", "Move", "lookup_game", "on_register", "register", "registered",
           "registry"]

_REGISTRY: dict[str, GameInfo] = {}
_ALIASES: dict[str, str] = {}
_discovered = False
_shipped_found = False
_LISTENERS: list[Callable[[GameInfo], None]] = []
_FORGETTERS: list[Callable[[GameInfo], None]] = []
# the format's own event types, before any game adds its own (`registered` restores them)
_FORMAT_EVENTS = frozenset(EVENT_TYPES)
_FORMAT_EXACT = frozenset(EXACT_NUMBER_EVENTS)
GAMES_PACKAGE = f"{__package__}.games"
GAMES_PATH = Path(__file__).resolve().parent / "games"


def register(info: GameInfo) -> GameInfo:
    """Declare a game. Every fact type defined beside its state class must be rendered and
    projected, or this raises at import (a fact that nobody shows or stores is a bug)."""
    module = sys.modules.get(info.state_class.__module__)
    own = [v for v in vars(module).values()
           if isinstance(v, type) and issubclass(v, Fact) and v.__module__ == module.__name__
           ] if module is not None else []
    for fact in own:
        for what, table in (("render", info.render), ("project", info.project)):
            if fact not in table:
                raise TypeError(f"game {info.name!r}: fact type {fact.__name__} has no "
                                f"'{what}' entry in its GameInfo")
        if not is_dataclass(fact):
            raise TypeError(f"game {info.name!r}: fact type {fact.__name__} must be a dataclass")
    for fact in (*info.render, *info.project):
        if not (isinstance(fact, type) and issubclass(fact, Fact)):
            raise TypeError(f"game {info.name!r}: {fact!r} is not a fact type")
    if info.name in _REGISTRY and _REGISTRY[info.name] is not info:
        old = _REGISTRY[info.name].state_class
        if (old.__module__, old.__qualname__) != (info.state_class.__module__,
                                                  info.state_class.__qualname__):
            raise ValueError(f"two games are registered as {info.name!r}")
    types = (*info.events, CLAIM_EVENT)
    check_handlers(info, info.state_class, types)
    for what, named in (("exact_numbers", info.exact_numbers), ("injectable", info.injectable),
                        ("deferrable", tuple(info.deferrable.values())),
                        ("seen_after_deal", info.seen_after_deal)):
        if not set(named) <= set(types):
            raise TypeError(f"game {info.name!r}: GameInfo.{what} names "
                            f"{', '.join(sorted(set(named) - set(types)))}, which is not "
                            f"one of its events")
    unknown = sorted(set(info.deferrable) - set(info.variants))
    if unknown:
        raise TypeError(f"game {info.name!r}: GameInfo.deferrable names "
                        f"{', '.join(unknown)}, which is not one of its variants")
    check_declaration(info, shipped(info))
    check_parts(info)
    if info.sheet_state is not None:
        if not getattr(info.sheet_state, "is_sheet", False):
            raise TypeError(f"game {info.name!r}: sheet_state must be a replay.sheet.SheetState")
        check_handlers(info, info.sheet_state, (SHEET_EVENT, CLAIM_EVENT))
    _REGISTRY[info.name] = info
    for alias in info.aliases:
        _ALIASES[alias] = info.name
    EVENT_TYPES.update(info.events)
    EXACT_NUMBER_EVENTS.update(info.exact_numbers)
    info.state_class.info = info
    info.state_class.handlers = handler_table(info.state_class, types)
    if info.sheet_state is not None:
        info.sheet_state.info = info
        info.sheet_state.handlers = handler_table(info.sheet_state, (SHEET_EVENT, CLAIM_EVENT))
    for listener in _LISTENERS:
        listener(info)
    return info


def on_register(listener: Callable[[GameInfo], None],
                forget: Callable[[GameInfo], None] | None = None) -> None:
    """Call `listener` with every game registered so far and with each one registered
    later, and `forget` with each one a `registered` block takes out again: how a higher
    layer (the schema, with a game's own tables) follows the games without the registry
    knowing it."""
    _LISTENERS.append(listener)
    if forget is not None:
        _FORGETTERS.append(forget)
    for info in list(_REGISTRY.values()):
        listener(info)


@contextmanager
def registered(*infos: GameInfo) -> Iterator[dict[str, GameInfo]]:
    """Register these games (none: whatever the block registers) for the block only: on
    leaving it, the registry is as it was — every game registered inside is taken out again
    (with its aliases and the event types only it declared, and out of the schema), and a
    game registered anew under a name it had gets its old declaration back. For a test, or
    a game tried out in a session, that must not leave the process's games changed. Yields
    the registry."""
    games = registry()
    before = dict(_REGISTRY)
    try:
        for info in infos:
            register(info)
        yield games
    finally:
        _restore(before)


def _restore(before: dict[str, GameInfo]) -> None:
    """Put the registry back to `before` (a copy of it taken earlier): `registered`."""
    gone = [info for name, info in _REGISTRY.items() if before.get(name) is not info]
    if not gone:
        return
    for info in gone:
        del _REGISTRY[info.name]
    _ALIASES.clear()
    _ALIASES.update({a: g.name for g in _REGISTRY.values() for a in g.aliases})
    EVENT_TYPES.clear()
    EVENT_TYPES.update(_FORMAT_EVENTS, *(g.events for g in _REGISTRY.values()))
    EXACT_NUMBER_EVENTS.clear()
    EXACT_NUMBER_EVENTS.update(_FORMAT_EXACT, *(g.exact_numbers for g in _REGISTRY.values()))
    for info in gone:
        for forget in _FORGETTERS:
            forget(info)
    for name, info in before.items():
        if name not in _REGISTRY:  # replaced inside the block: its old declaration again
            register(info)


PLAIN: Final = re.compile(r"[a-z][a-z0-9_]*")
MODULE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def check_parts(info: GameInfo) -> None:
    """The parts a game declares for the judge, the database and the dashboard are well
    formed (TypeError naming the game and the part): the judge's bands rise, pages have a
    plain address and a module for a script, SQL objects are views, macros or per-game
    summaries with plain names, the step rows name a table with stacks and a column of it,
    and the dashboard module is a module name."""
    where = f"game {info.name!r}"
    if not 0 < info.bands[0] <= info.bands[1] <= info.bands[2]:
        raise TypeError(f"{where}: GameInfo.bands must rise above 0 (inaccuracy <= mistake "
                        f"<= blunder), got {info.bands}")
    addresses = [page.url_path for page in info.pages]
    for page in info.pages:
        if not page.title or not PLAIN.fullmatch(page.url_path) or \
                not MODULE.fullmatch(page.script):
            raise TypeError(f"{where}: page {page.title!r} needs a title, a plain lower-case "
                            f"address (not {page.url_path!r}) and a module name for its "
                            f"script (not {page.script!r})")
        if addresses.count(page.url_path) > 1:
            raise TypeError(f"{where}: two of its pages have the address {page.url_path!r}")
    if info.dashboard and not MODULE.fullmatch(info.dashboard):
        raise TypeError(f"{where}: GameInfo.dashboard must name a module, not "
                        f"{info.dashboard!r}")
    for kind, name, _ in info.analytics:
        if kind not in ("view", "macro", "summary") or \
                not PLAIN.fullmatch(name.split("(")[0]) or (kind == "summary" and "(" in name):
            raise TypeError(f"{where}: an analytics object is a 'view', a 'macro' or a "
                            f"'summary' (of `ids`, no parameter list) with a plain name, not "
                            f"{kind!r} {name!r}")
    table, column = info.step_rows
    known = {*info.tables, *SHARED}
    columns = {c.name for c in info.tables.get(table, SHARED.get(table, ()))} | {
        c.name for run in info.columns if run.table == table for c in run.columns}
    if table not in known or column not in columns or "stacks" not in columns:
        raise TypeError(f"{where}: GameInfo.step_rows names {table}.{column}, which is not a "
                        f"column of its tables with a stacks column beside it")


def check_handlers(info: GameInfo, cls: type[GameState], types: tuple[str, ...]) -> None:
    """A state handles exactly the event types it is declared with: an `on_<type>` for a type
    not declared (a log of it would be refused as unknown) or a declared type without its
    handler is an error at import."""
    handled = handled_types(cls)
    extra = sorted(handled - set(types))
    if extra:
        raise TypeError(f"game {info.name!r}: {cls.__name__} has "
                        f"{', '.join(f'on_{t}' for t in extra)} for event types it does not "
                        f"declare: add them to GameInfo.events ({', '.join(types)})")
    missing = [t for t in types if t not in handled]
    if missing:
        raise TypeError(f"game {info.name!r}: {cls.__name__} has no handler for declared "
                        f"event types {', '.join(missing)} (an on_<type> method each)")


ENTRY_POINTS = "trickledger.games"


def shipped(info: GameInfo) -> bool:
    """Whether the game ships with trickledger (a module of `replay.games`), not a plugin."""
    return info.state_class.__module__.startswith(GAMES_PACKAGE + ".")


def _shipped_games() -> dict[str, GameInfo]:
    """The games registered so far, every module of `replay.games` imported first."""
    global _shipped_found
    if not _shipped_found:
        _shipped_found = True
        # by the folder's path: importing the package `replay` above it from here would
        # close a cycle (replay -> replay.engine -> replay.registry -> replay)
        for mod in pkgutil.iter_modules([str(GAMES_PATH)]):
            importlib.import_module(f"{GAMES_PACKAGE}.{mod.name}")
    return _REGISTRY


def registry() -> dict[str, GameInfo]:
    """All games, by id. The first call imports every module of `replay.games`, then every
    plugin game (the `trickledger.games` entry points)."""
    global _discovered
    _shipped_games()
    if not _discovered:
        _discovered = True
        # imported here: importlib.metadata brings the email package, which a command that
        # reads a shipped game's log never needs (its start-up: tests/system/test_api.py)
        from importlib.metadata import entry_points

        for entry in sorted(entry_points(group=ENTRY_POINTS), key=lambda e: e.name):
            load_plugin(entry)
    return _REGISTRY


def load_plugin(entry: EntryPoint) -> None:
    """Load a plugin game: its entry point names the game's declaration (`module:INFO`, a
    `GameInfo`), which is registered here, or a module that registers its game when
    imported. A plugin that cannot be loaded or registered, or that registers no game of
    its entry point's name, is said on standard error with the distribution it came from,
    and the other games go on: its logs are then refused as of an unknown game."""
    where = f"{entry.dist.name} {entry.dist.version}" if entry.dist is not None else "?"
    try:
        loaded = entry.load()
        if isinstance(loaded, GameInfo):
            register(loaded)
    except Exception as e:  # a broken plugin must not take trickledger down
        print(f"trickledger: the game {entry.name!r} ({ENTRY_POINTS} entry point "
              f"{entry.value!r} of {where}) could not be loaded: {type(e).__name__}: {e}",
              file=sys.stderr)
        return
    if entry.name not in _REGISTRY:
        print(f"trickledger: the {ENTRY_POINTS} entry point {entry.name!r} of {where} "
              f"registered no game of that name (registered: {', '.join(sorted(_REGISTRY))})",
              file=sys.stderr)


def lookup_game(name: str) -> GameInfo | None:
    """A game by id or alias (`mit-list-und-tuecke` is `plotters`). The plugins are looked
    up only for a name no shipped game has: reading their entry points costs a command's
    start-up the whole of importlib.metadata (tests/system/test_api.py)."""
    games = _shipped_games()
    found = games.get(name) or games.get(_ALIASES.get(name, ""))
    if found is not None:
        return found
    games = registry()
    return games.get(name) or games.get(_ALIASES.get(name, ""))

