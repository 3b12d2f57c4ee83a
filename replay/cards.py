"""Interned card objects shared by the game modules.

Each game builds its deck once, at import, as `Card` singletons; a card read
from a log is looked up by name, so equality and hashing are by identity and
cost nothing in the hot loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .errors import RuleError


class Card:
    __slots__ = ("name", "color", "value", "kind", "index")

    def __init__(self, name: str, color: str | None, value: int, kind: str = "", index: int = 0):
        self.name = name
        self.color = color
        self.value = value
        self.kind = kind
        self.index = index

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


class CardTable:
    """Name -> Card lookup for one game, case-insensitive on input."""

    def __init__(self, cards: Iterable[Card], upper: bool = True) -> None:
        self.by_name: dict[str, Card] = {}
        self.upper = upper
        for i, c in enumerate(cards):
            c.index = i
            self.by_name[c.name] = c

    def parse(self, name: str, game: str) -> Card:
        c = self.by_name.get(name)
        if c is None:
            c = self.by_name.get(name.upper() if self.upper else name.lower())
            if c is None:
                raise RuleError(f"{name!r} is not a {game} card")
        return c

    def from_event(self, ev: Any, game: str, key: str = "card") -> Card:
        """The card named by `ev.data[key]`; the exact spelling is one dict lookup."""
        raw = ev.data.get(key)
        if type(raw) is str:
            c = self.by_name.get(raw)
            if c is not None:
                return c
        from .engine import field_of

        return self.parse(field_of(ev, key, str, "a card name"), game)

    def __getitem__(self, name: str) -> Card:
        return self.by_name[name]

    def __iter__(self):
        return iter(self.by_name.values())


def card_order(c: Card) -> int:
    """Sort key: deck order."""
    return c.index


def names(cards: Iterable[Card]) -> str:
    return " ".join(c.name for c in cards)


def remove_from_hand(hand: dict[Card, int], card: Card) -> bool:
    """Remove one copy of `card` from a multiset hand; False when it is not there."""
    k = hand.get(card)
    if not k:
        return False
    if k == 1:
        del hand[card]
    else:
        hand[card] = k - 1
    return True


def hand_of(cards: Iterable[Card]) -> dict[Card, int]:
    h: dict[Card, int] = {}
    for c in cards:
        h[c] = h.get(c, 0) + 1
    return h


def hand_cards(hand: dict[Card, int]) -> list[Card]:
    out: list[Card] = []
    for c, k in hand.items():
        out.extend([c] * k)
    out.sort(key=lambda c: c.index)
    return out
