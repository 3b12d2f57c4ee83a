"""Rendering: the replay as a person reads it (`trickledger replay`), every fact through its
game's renderer or the core's."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from .facts import ClaimChecked, Fact, RoundDealt, RoundScored, TrickAbandoned

if TYPE_CHECKING:
    from .info import GameInfo


def claim_text(c: ClaimChecked, players: tuple[str, ...]) -> str:
    what = f"round {c.round}" if c.round is not None else "totals"
    who = players[c.player]
    if c.match:
        return f"   claim (line {c.line}): {who} {what} {c.claimed} - matches"
    return (f"   claim (line {c.line}): {who} {what}: {c.derivation}, "
            f"sheet says {c.claimed}  ** MISMATCH **")


def hands_lines(f: RoundDealt, players: tuple[str, ...]) -> list[str]:
    return [f"   {p:<10} {' '.join(c.name for c in hand)}" for p, hand in zip(players, f.hands)]


def deal_lines(f: RoundDealt, players: tuple[str, ...], verb: str = "leads") -> list[str]:
    """The usual rendering of a deal: who deals and who leads, then every hand."""
    return [f"== Round {f.round}: {players[f.dealer]} deals, {players[f.leader]} {verb}",
            *hands_lines(f, players)]


def _render_scored(f: RoundScored, players: tuple[str, ...]) -> list[str]:
    return [f"   {p:<10} {d}" for p, d in zip(players, f.derivations)]


def _render_claim(f: ClaimChecked, players: tuple[str, ...]) -> list[str]:
    return [claim_text(f, players)]


def _render_nothing(f: Fact, players: tuple[str, ...]) -> list[str]:
    return []


CORE_RENDER: Final[dict[type, Callable[[Any, tuple[str, ...]], list[str]]]] = {
    RoundDealt: deal_lines, RoundScored: _render_scored, ClaimChecked: _render_claim,
    TrickAbandoned: _render_nothing,
}


def render(info: GameInfo, facts: Iterable[Fact], players: tuple[str, ...]) -> list[str]:
    """The replay as a person reads it: every fact through its game's renderer (a game may
    render a core fact its own way)."""
    out: list[str] = []
    own = info.render
    for f in facts:
        t = type(f)
        fn = own.get(t) or CORE_RENDER[t]
        out.extend(fn(f, players))
    return out


