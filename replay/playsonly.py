"""Plays-only logs from full ones: the log a table would have written without knowing the
hands (docs/format.md, "Plays-only rounds").

`plays_only(data)` takes a move log with its hands and returns the same game with every deal
stripped of its hands (and of the pile, the card aside, the removed Completes), and, with
`shown`, a `shown` event after each round's last move for every card left where nobody saw
it played: each hand still held, and what is left of the pile. `with_shown(data)` adds only
those `shown` events to the full log (a full round accepts them and checks them against its
hands), so that both logs have the same lines. The tests compare the two; the docs' examples
are made with it.
"""

from __future__ import annotations

from typing import Any

from .engine import new_state
from .events import SHEET_EVENT, Event
from .reader import iter_events, read_bytes
from .writer import dump_lines

# what a deal gives beside the hands, never known at a table before it is shown
DEAL_PARTS = ("hands", "pile", "aside", "removed")


def _rounds_with_shown(data: bytes, name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the events of a full log, with a `shown` event after each round's last
    move for each hand (and the pile) that still holds cards."""
    log = read_bytes(data, name)
    state = new_state(log.header)
    out: list[dict[str, Any]] = []
    finished = 0
    for ev in iter_events(name, log.lines, log.body_start):
        if ev.type == SHEET_EVENT:
            raise ValueError(f"{name} is a score sheet, not a move log")
        state.apply(Event(ev.line, ev.type, ev.data))
        out.append(ev.data)
        if len(state.rounds) > finished:
            finished = len(state.rounds)
            out.extend(_shown_now(state))
    head = dict(log.header.raw)
    return head, out


def _shown_now(state: Any) -> list[dict[str, Any]]:
    shown: list[dict[str, Any]] = []
    for s, p in enumerate(state.players):
        cards = [c.name for c in state.hand(s)]
        if cards:
            shown.append({"type": "shown", "player": p, "cards": cards})
    for part, cards in state.parts_left().items():
        shown.append({"type": "shown", "from": part, "cards": [c.name for c in cards]})
    return shown


def with_shown(data: bytes, name: str = "log.jsonl") -> bytes:
    """The full log with a `shown` event after each round for every card never played."""
    head, events = _rounds_with_shown(data, name)
    return dump_lines(head, events)


def plays_only(data: bytes, name: str = "log.jsonl", shown: bool = True) -> bytes:
    """The log with every deal's hands (and pile, aside, removed) left out; with `shown`,
    the cards never played are shown after each round's last move (see the module)."""
    if shown:
        head, events = _rounds_with_shown(data, name)
    else:
        log = read_bytes(data, name)
        head = dict(log.header.raw)
        events = [ev.data for ev in iter_events(name, log.lines, log.body_start)]
    stripped = [{k: v for k, v in ev.items() if k not in DEAL_PARTS} if ev["type"] == "deal"
                else ev for ev in events]
    return dump_lines(head, stripped)
