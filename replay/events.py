"""The log's vocabulary, shared by the reader, the engine and the games: an event line,
the header, the verdict statuses, and reading typed fields out of an event.

A leaf module: it imports nothing of the engine, so the reader, the card tables and
the games can all use it without import cycles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from .errors import FormatError

Status = Literal["complete", "incomplete", "illegal", "unreadable"]

# The event types of the format itself: every log may hold claims, a move log `shown` events
# (its plays-only rounds' hands), and a score sheet holds `sheet` events (and claims), never
# moves (replay.sheet). Every other type is a game's own,
# declared in its `GameInfo.events`.
CLAIM_EVENT: Final[str] = "claim"
SHEET_EVENT: Final[str] = "sheet"
# cards shown at a plays-only round's end that were never played (docs/format.md)
SHOWN_EVENT: Final[str] = "shown"
# Every event type known so far: the format's, and those of every game registered (the
# registry adds them), so that an error can tell "not part of this game" from "unknown".
EVENT_TYPES: Final[set[str]] = {CLAIM_EVENT, SHEET_EVENT, SHOWN_EVENT}
# The event types whose integers count and are read exactly even beyond 64 bits: claims,
# score sheets' counts, and those a game declares (`GameInfo.exact_numbers`; the registry
# adds them).
EXACT_NUMBER_EVENTS: Final[set[str]] = {CLAIM_EVENT, SHEET_EVENT}


class Event:
    """One event line: its 1-based line number, its `type` and the raw JSON object."""

    __slots__ = ("line", "type", "data")

    def __init__(self, line: int, type: str, data: dict[str, Any]) -> None:
        self.line = line
        self.type = type
        self.data = data

    def __repr__(self) -> str:
        return f"Event(line={self.line}, {self.data!r})"


@dataclass(init=False, repr=False, eq=True, unsafe_hash=True, slots=True)
class Header:
    """The header line, checked: what every game's state is built from. Read-only like the
    facts (`Final` fields, an explicit `__init__`), so that a compiled engine builds it
    natively; its dicts make hashing it fail, as a frozen dataclass's did."""

    game: Final[str]
    players: Final[tuple[str, ...]]
    dealer: Final[str]
    edition: Final[str | None]
    variants: Final[frozenset[str]]
    rounds: Final[int]
    suits: Final[tuple[str, ...]]
    id: Final[str]
    meta: Final[dict[str, Any]]
    line: Final[int]
    raw: Final[dict[str, Any]]  # the header line's object as read; not in the repr

    def __init__(self, game: str, players: tuple[str, ...], dealer: str, edition: str | None,
                 variants: frozenset[str], rounds: int, suits: tuple[str, ...], id: str,
                 meta: dict[str, Any], line: int, raw: dict[str, Any]) -> None:
        self.game = game
        self.players = players
        self.dealer = dealer
        self.edition = edition
        self.variants = variants
        self.rounds = rounds
        self.suits = suits
        self.id = id
        self.meta = meta
        self.line = line
        self.raw = raw

    def __repr__(self) -> str:
        # the dataclass repr without `raw` (a `field(repr=False)` cannot be `Final`)
        return (f"Header(game={self.game!r}, players={self.players!r}, dealer={self.dealer!r}, "
                f"edition={self.edition!r}, variants={self.variants!r}, rounds={self.rounds!r}, "
                f"suits={self.suits!r}, id={self.id!r}, meta={self.meta!r}, line={self.line!r})")

    # the header is never changed once read: copies of a game state share it
    def __copy__(self) -> Header:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Header:
        return self


def kind(v: object) -> str:
    """The JSON kind of a value, as an error message names it."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def field_of(ev: Event, key: str, want: type, what: str) -> Any:
    """The value of `key` in `ev`, of JSON kind `want`; a FormatError names what was expected."""
    v = ev.data.get(key)
    if type(v) is not want:
        if v is None and key not in ev.data:
            raise FormatError(f"{ev.type} event needs '{key}' ({what})")
        raise FormatError(f"{ev.type} event: '{key}' must be {what}, got {kind(v)}")
    return v


def str_list(ev: Event, key: str, what: str) -> list[str]:
    """A list of strings under `key`."""
    v: list[Any] = field_of(ev, key, list, what)
    for x in v:
        if type(x) is not str:
            raise FormatError(f"{ev.type} event: '{key}' must be {what}, but holds {kind(x)}")
    return v


def optional_str_list(ev: Event, key: str, what: str) -> list[str] | None:
    """A list of strings under `key`, or None when the key is absent (null is the wrong kind)."""
    if key not in ev.data:
        return None
    return str_list(ev, key, what)


def int_dict(ev: Event, key: str, what: str) -> dict[str, int]:
    """An object of integers under `key`."""
    v: dict[str, Any] = field_of(ev, key, dict, what)
    for name, x in v.items():
        if type(x) is not int:
            raise FormatError(f"{ev.type} event: '{key}' for {name} must be an integer, "
                              f"got {kind(x)}")
    return v
