"""Plays-only logs from full ones: the log a table would have written without knowing the
hands (docs/format.md, "Plays-only rounds").

`plays_only(data)` takes a move log with its hands and returns the same game with every deal
stripped of its hands (and of the pile, the card aside, the removed Completes), and, with
`shown`, a `shown` event after each round's last move for every card left where nobody saw
it played: each hand still held, and what is left of the pile. `with_shown(data)` adds only
those `shown` events to the full log (a full round accepts them and checks them against its
hands), so that both logs have the same lines. The tests compare the two; the docs' examples
are made with it.

`settled_events` reads a log the other way, for the analyses that need the hands (the
judge, the bid estimates): each deal without hands replaced by the one its round was settled
with.
"""

from __future__ import annotations

from typing import Any

from .engine import new_state, replay_bytes
from .errors import FormatError, RuleError
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


def settled_events(header_line: bytes, events: list[tuple[int, dict[str, Any]]], name: str
                   ) -> tuple[list[tuple[int, dict[str, Any]]], set[int]]:
    """A log's events (after its header line, each with its line number) as an analysis that
    needs the hands reads them, and the rounds whose hands stay partly unknown. A deal
    without hands (a plays-only round) is replaced by the deal its round was settled with:
    the hands the cards played and shown gave, so that a decision or a bid is judged from the
    hand its player held, as in a full log. A round some of whose cards were never played
    nor shown keeps its deal without hands, and is in the set returned: an analysis leaves
    it out rather than guess those cards. A log with every hand dealt is returned as it is.
    ValueError (with the file and line) for a log that does not replay."""
    if not any(ev.get("type") == "deal" and "hands" not in ev for _, ev in events):
        return events, set()
    start = replay_bytes(header_line, name)
    state = start.state
    if state is None:
        raise ValueError(f"{name}: the header does not replay: {start.error}")
    line = 0
    try:
        for line, ev in events:
            state.apply(Event(line, str(ev.get("type")), ev))
        state.log_ended()
    except (RuleError, FormatError) as e:
        raise ValueError(f"{name}:{line}: {e}") from None
    inferred = state.inferred or {}
    unknown = state.unknown or {}
    out: list[tuple[int, dict[str, Any]]] = []
    partial: set[int] = set()
    number = 0
    for line, ev in events:
        if ev.get("type") == "deal":
            number += 1
            if "hands" not in ev:
                deal = inferred.get(number)
                if deal is None or number in unknown:
                    partial.add(number)
                else:
                    ev = deal
        out.append((line, ev))
    return out, partial
