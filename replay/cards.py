"""Interned card objects shared by the game modules.

Each game builds its deck once, at import, as `Card` singletons; a card read
from a log is looked up by name, so equality and hashing are by identity and
cost nothing in the hot loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from random import Random
from typing import Final, Generic, TypeVar

from mypy_extensions import mypyc_attr

from .errors import FormatError
from .events import Event, field_of

# The colours the dashboard paints a card's chip in (CSS), by colour word: a game maps its own
# colours onto them, or onto any CSS colour (GameInfo.colors). A chip's text is white, so
# white cards are shown grey.
CHIP_COLORS: Final = {
    "blue": "#2f6fdb", "green": "#2e9d4a", "red": "#d63a3a", "yellow": "#e0b400",
    "purple": "#8a49c9", "orange": "#f07f1b", "black": "#333333", "white": "#9aa0a6",
}


# A game's cards may be a subclass (under_the_radar's shapes); a game that runs interpreted
# on the compiled engine (one outside replay/games/, the tests' toy game) subclasses it too.
@mypyc_attr(allow_interpreted_subclasses=True)
class Card:
    """One card of a game. `color` is its colour as the game writes it (a suit letter;
    under_the_radar's colour words), "" for cards without one (rage's action cards,
    under_the_radar's Singles of pattern or shape): the dashboard paints a card by it;
    `index` is its place in the game's deck order."""

    __slots__ = ("name", "color", "value", "kind", "index")

    def __init__(self, name: str, color: str, value: int, kind: str = "") -> None:
        self.name = name
        self.color = color
        self.value = value
        self.kind = kind
        self.index = 0

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name

    # a card is an interned singleton: copies of a game state share the same cards
    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> Card:
        return self


C = TypeVar("C", bound=Card)
T = TypeVar("T")


class CardTable(Generic[C]):
    """Name -> card lookup for one game, case-insensitive on input."""

    def __init__(self, cards: Iterable[C], game: str, upper: bool = True) -> None:
        self.by_name: dict[str, C] = {}
        self.deck_order: list[C] = []  # deck_order[c.index] is c
        self.game = game
        self.upper = upper
        for i, c in enumerate(cards):
            c.index = i
            self.by_name[c.name] = c
            self.deck_order.append(c)

    def in_order(self, cards: Iterable[C]) -> list[C]:
        """`cards` (of this table) in deck order: their indexes sorted, so that no key
        function is called per card (compiled, `sorted(cards, key=card_order)` calls one
        through Python's generic path for every card)."""
        order = self.deck_order
        indexes = [c.index for c in cards]
        indexes.sort()
        return [order[i] for i in indexes]

    def parse(self, name: str) -> C:
        """The card written `name` (any case); FormatError for a card the game lacks."""
        c = self.by_name.get(name)
        if c is None:
            c = self.by_name.get(name.upper() if self.upper else name.lower())
            if c is None:
                raise FormatError(f"{name!r} is not a {self.game} card")
        return c

    def from_event(self, ev: Event, key: str = "card") -> C:
        """The card named by `ev.data[key]`; the exact spelling is one dict lookup."""
        raw = ev.data.get(key)
        if type(raw) is str:
            c = self.by_name.get(raw)
            if c is not None:
                return c
        return self.parse(field_of(ev, key, str, "a card name"))

    def __getitem__(self, name: str) -> C:
        return self.by_name[name]

    def __iter__(self) -> Iterator[C]:
        return iter(self.by_name.values())

    def __len__(self) -> int:
        return len(self.by_name)


def card_order(c: Card) -> int:
    """Sort key: deck order."""
    return c.index


def deal_hands(deck: Sequence[Card], players: Sequence[str], size: int) -> dict[str, list[str]]:
    """A simulated deal: `size` cards for each player in seat order, cut in turn from the top
    of the shuffled `deck`, each hand written in deck order (the `hands` of a `deal`)."""
    return {p: [c.name for c in sorted(deck[i * size:(i + 1) * size], key=card_order)]
            for i, p in enumerate(players)}


def names(cards: Iterable[Card]) -> str:
    return " ".join(c.name for c in cards)


def remove_from_hand(hand: dict[C, int], card: C) -> bool:
    """Remove one copy of `card` from a multiset hand; False when it is not there."""
    k = hand.get(card)
    if not k:
        return False
    if k == 1:
        del hand[card]
    else:
        hand[card] = k - 1
    return True


def hand_of(cards: Iterable[C]) -> dict[C, int]:
    h: dict[C, int] = {}
    for c in cards:
        h[c] = h.get(c, 0) + 1
    return h


def hand_cards(hand: dict[C, int]) -> list[C]:
    """A multiset hand as a list in deck order."""
    out: list[C] = []
    last = -1
    ordered = True
    for c, k in hand.items():
        if c.index < last:
            ordered = False
        last = c.index
        if k == 1:
            out.append(c)
        else:
            out.extend([c] * k)
    if not ordered:  # a hand dealt in deck order, as every simulated one is, stays as it is
        out.sort(key=card_order)
    return out


def randbelow(rng: Random, n: int) -> int:
    """A number in [0, n) drawn from `rng` exactly as `Random.choice` and `Random.shuffle`
    draw theirs (`Random._randbelow_with_getrandbits`: the same numbers from the same
    stream), without the interpreted frames of the standard library's versions: the
    playouts draw thousands a second. A subclass of `Random` draws its own way."""
    if n <= 0:
        raise ValueError(f"randbelow needs a positive bound, got {n}")
    if type(rng) is not Random:
        return rng.choice(range(n))
    k = 0
    m = n
    while m:  # k = n.bit_length()
        m >>= 1
        k += 1
    r: int = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return r


def shuffle(rng: Random, x: list[T]) -> None:
    """`rng.shuffle(x)`: the same order from the same stream (see `randbelow`)."""
    if type(rng) is not Random:
        rng.shuffle(x)
        return
    for i in range(len(x) - 1, 0, -1):
        j = randbelow(rng, i + 1)
        x[i], x[j] = x[j], x[i]
