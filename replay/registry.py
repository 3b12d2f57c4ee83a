"""The game registry: every game declares itself here, as data, and is found here.

A game module builds a `GameInfo` and calls `register()` at import; nothing else in
trickledger names a game. `registry()` imports every module of `replay.games` once
(so a new module there is found without editing a list) and returns the games by id.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import is_dataclass
from pathlib import Path

from .events import CLAIM_EVENT, EVENT_TYPES, EXACT_NUMBER_EVENTS, SHEET_EVENT, SHOWN_EVENT
from .facts import Fact
from .info import GameInfo
from .state import GameState, Move, handled_types, handler_table

__all__ = ["GameInfo", "Move", "game_info", "on_register", "register", "registry"]

_REGISTRY: dict[str, GameInfo] = {}
_ALIASES: dict[str, str] = {}
_discovered = False
_LISTENERS: list[Callable[[GameInfo], None]] = []
GAMES_PACKAGE = f"{__package__}.games"
GAMES_PATH = Path(__file__).resolve().parent / "games"
# the event types a score sheet's state handles (a `shown` there is refused with its reason)
SHEET_TYPES = (SHEET_EVENT, CLAIM_EVENT, SHOWN_EVENT)


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
    types = (*info.events, CLAIM_EVENT, SHOWN_EVENT)
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
    if info.sheet_state is not None:
        if not getattr(info.sheet_state, "is_sheet", False):
            raise TypeError(f"game {info.name!r}: sheet_state must be a replay.sheet.SheetState")
        check_handlers(info, info.sheet_state, SHEET_TYPES)
    _REGISTRY[info.name] = info
    for alias in info.aliases:
        _ALIASES[alias] = info.name
    EVENT_TYPES.update(info.events)
    EXACT_NUMBER_EVENTS.update(info.exact_numbers)
    info.state_class.info = info
    info.state_class.handlers = handler_table(info.state_class, types)
    if info.sheet_state is not None:
        info.sheet_state.info = info
        info.sheet_state.handlers = handler_table(info.sheet_state, SHEET_TYPES)
    for listener in _LISTENERS:
        listener(info)
    return info


def on_register(listener: Callable[[GameInfo], None]) -> None:
    """Call `listener` with every game registered so far and with each one registered
    later: how a higher layer (the schema, with a game's own tables) follows the games
    without the registry knowing it."""
    _LISTENERS.append(listener)
    for info in list(_REGISTRY.values()):
        listener(info)


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


def registry() -> dict[str, GameInfo]:
    """All games, by id. The first call imports every module of `replay.games`."""
    global _discovered
    if not _discovered:
        _discovered = True
        # by the folder's path: importing the package `replay` above it from here would
        # close a cycle (replay -> replay.engine -> replay.registry -> replay)
        for mod in pkgutil.iter_modules([str(GAMES_PATH)]):
            importlib.import_module(f"{GAMES_PACKAGE}.{mod.name}")
    return _REGISTRY


def game_info(name: str) -> GameInfo | None:
    """A game by id or alias (`mit-list-und-tuecke` is `plotters`)."""
    games = registry()
    return games.get(name) or games.get(_ALIASES.get(name, ""))

