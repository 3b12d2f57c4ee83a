"""What the games declare for the dashboard: their pages (`GameInfo.pages`) and their parts of
the core's pages (the module `GameInfo.dashboard`: `player_section`, `round_section`). The
core's pages name no game: they ask here."""

from __future__ import annotations

import importlib
import importlib.util
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import streamlit as st

from trickledger.replay.info import GameInfo
from trickledger.replay.registry import registry

_log = logging.getLogger("trickledger.dashboard")


def games() -> list[GameInfo]:
    """Every registered game, in name order (the order of their pages and parts)."""
    return sorted(registry().values(), key=lambda g: g.name)


def lowest_wins() -> str:
    """The titles of the games won by the lowest total, in words ("Under the Radar"; "" when
    none is): what the core's pages say where "better" turns round."""
    titles = [g.title for g in games() if g.lowest_wins]
    return " and ".join(titles)


def script_path(module: str) -> Path:
    """The file of a page script named as a module (`package.module`), found without
    running it. Raises LookupError when there is none."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        raise LookupError(f"no page script {module} (a module's .py file)")
    return Path(spec.origin)


def pages(taken: set[str]) -> list[Any]:
    """Every game's pages as `st.Page`s, in game name order. A page whose address another
    page has (`taken`: the core's; another game's) gets the game's name in front of it; a
    page whose script is missing is left out, and said in the server's log."""
    out = []
    for info in games():
        for page in info.pages:
            try:
                path = script_path(page.script)
            except (LookupError, ImportError) as e:
                _log.error("%s: page %r left out: %s", info.name, page.title, e)
                print(f"trickledger dashboard: {info.name}'s page {page.title!r} is left out: "
                      f"{e}", file=sys.stderr, flush=True)
                continue
            url = page.url_path if page.url_path not in taken else f"{info.name}_{page.url_path}"
            taken.add(url)
            out.append(st.Page(path, title=page.title, icon=page.icon, url_path=url))
    return out


def module(info: GameInfo) -> ModuleType | None:
    """The game's dashboard module (`GameInfo.dashboard`), or None when it declares none or
    it cannot be imported (then the page says so, and the rest of it is shown)."""
    if not info.dashboard:
        return None
    try:
        return importlib.import_module(info.dashboard)
    except Exception as e:  # a game's broken part must not take the core's page down
        st.warning(f"{info.title}'s part of this page could not be loaded "
                   f"({type(e).__name__}: {e}).")
        return None


def player_sections() -> list[Callable[[Any, str], None]]:
    """Each game's part of the Player page, `player_section(filters, player)`."""
    found = []
    for info in games():
        mod = module(info)
        section = getattr(mod, "player_section", None) if mod is not None else None
        if callable(section):
            found.append(section)
    return found


def round_section(info: GameInfo | None) -> Callable[[str, int], None] | None:
    """The game's part of the game viewer's round, `round_section(game_id, round)`."""
    mod = module(info) if info is not None else None
    section = getattr(mod, "round_section", None) if mod is not None else None
    return section if callable(section) else None
