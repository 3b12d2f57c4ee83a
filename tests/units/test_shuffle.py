"""trickledger.replay.cards.shuffle and randbelow draw exactly as the standard library's
`Random.shuffle` and `Random.choice` do: the same order and the same card from the same
stream, and the stream left in the same place (the hand estimates' numbers rest on it)."""

from __future__ import annotations

import random

import pytest

from trickledger.replay.cards import randbelow, shuffle


@pytest.mark.parametrize("seed", range(40))
def test_shuffle_is_random_shuffle(seed):
    for size in (0, 1, 2, 3, 7, 64, 65, 90, 101, 300):
        mine, theirs = random.Random(f"s{seed}"), random.Random(f"s{seed}")
        a, b = list(range(size)), list(range(size))
        shuffle(mine, a)
        theirs.shuffle(b)
        assert a == b
        assert mine.random() == theirs.random()


@pytest.mark.parametrize("seed", range(40))
def test_randbelow_is_what_choice_draws(seed):
    mine, theirs = random.Random(seed), random.Random(seed)
    for n in (1, 2, 3, 5, 8, 31, 32, 33, 64, 100, 2**40 + 3):
        assert randbelow(mine, n) == theirs.choice(range(n))
    assert mine.random() == theirs.random()


def test_a_subclass_of_random_draws_its_own_way():
    class Counting(random.Random):
        def random(self) -> float:  # a subclass that changes how it draws
            return 0.0

    a = list(range(10))
    shuffle(Counting(1), a)
    b = list(range(10))
    Counting(1).shuffle(b)
    assert a == b
    assert randbelow(Counting(1), 7) == Counting(1).choice(range(7))
    with pytest.raises(ValueError):
        randbelow(random.Random(1), 0)
