"""A game's card table puts any of its cards in deck order by their indexes."""

from __future__ import annotations

import random

from trickledger.replay.cards import card_order
from trickledger.replay.registry import registry


def test_in_order_is_deck_order_for_every_game() -> None:
    rng = random.Random(23)
    for name, info in registry().items():
        table = info.cards
        cards = list(table)
        assert [c.index for c in cards] == list(range(len(cards))), name
        for _ in range(50):
            some = rng.sample(cards, rng.randint(0, min(20, len(cards))))
            assert table.in_order(set(some)) == sorted(some, key=card_order), name
        assert table.in_order([]) == []
