"""Facts and round outcomes are declared so that the compiled engine builds them as native
objects: an explicit `__init__` (no frozen dataclass setting each field through
`object.__setattr__`), `Final` fields that mypy keeps read-only, and a dataclass's
equality, hashing and repr all the same."""

from __future__ import annotations

import dataclasses
import sys

from replay.registry import registry
from replay.state import Fact, RoundOutcome


def engine_classes(base: type) -> list[type]:
    registry()  # every game module imported
    out, todo = [], list(base.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        # (a slots dataclass replaces the class it was declared as: keep the module's one)
        if cls.__module__.startswith("replay.") and \
                getattr(sys.modules[cls.__module__], cls.__name__, None) is cls:
            out.append(cls)
    return sorted(set(out), key=lambda c: (c.__module__, c.__name__))


def test_every_fact_and_round_outcome_is_a_native_value_class():
    classes = engine_classes(Fact) + engine_classes(RoundOutcome)
    assert len(classes) > 20
    for cls in classes:
        params = cls.__dataclass_params__
        assert dataclasses.is_dataclass(cls) and "__slots__" in vars(cls), cls
        assert not params.init and params.eq and params.unsafe_hash and not params.frozen, cls
        for f in dataclasses.fields(cls):
            assert str(f.type).startswith("Final["), (cls.__name__, f.name, f.type)
        if dataclasses.fields(cls):
            assert "__init__" in vars(cls), cls


def test_facts_compare_and_hash_by_value():
    from replay.games.rage import BidMade

    a, b = BidMade(1, 0, 3, 7), BidMade(round=1, player=0, bid=3, line=7)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != BidMade(1, 0, 4, 7)
    assert repr(a) == "BidMade(round=1, player=0, bid=3, line=7)"
