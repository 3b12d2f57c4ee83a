"""Facts and round outcomes are declared so that the compiled engine builds them as native
objects: an explicit `__init__` (no frozen dataclass setting each field through
`object.__setattr__`), `Final` fields that mypy keeps read-only, and a dataclass's
equality, hashing and repr all the same."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

from trickledger.replay.facts import Fact, RoundOutcome
from trickledger.replay.registry import registry


def engine_classes(base: type) -> list[type]:
    registry()  # every game module imported
    out, todo = [], list(base.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        # (a slots dataclass replaces the class it was declared as: keep the module's one)
        if cls.__module__.startswith("trickledger.replay.") and \
                getattr(sys.modules[cls.__module__], cls.__name__, None) is cls:
            out.append(cls)
    return sorted(set(out), key=lambda c: (c.__module__, c.__name__))


def source_annotations(cls: type) -> dict[str, str]:
    """A class's field annotations as written in its module's .py (compiled, a dataclass
    field's type is the evaluated type, not the text)."""
    module = sys.modules[cls.__module__]
    source = Path(module.__file__ or "").parent / f"{cls.__module__.rsplit('.', 1)[1]}.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    (klass,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    return {n.target.id: ast.unparse(n.annotation) for n in klass.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}


def test_every_fact_and_round_outcome_is_a_native_value_class():
    classes = engine_classes(Fact) + engine_classes(RoundOutcome)
    assert len(classes) > 20
    for cls in classes:
        params = cls.__dataclass_params__
        # slots interpreted, a native class compiled: either way no instance __dict__
        assert dataclasses.is_dataclass(cls) and "__dict__" not in dir(cls), cls
        assert not params.init and params.eq and params.unsafe_hash and not params.frozen, cls
        declared = source_annotations(cls)
        for f in dataclasses.fields(cls):
            assert declared[f.name].startswith("Final["), (cls.__name__, f.name, declared[f.name])
        if dataclasses.fields(cls):
            assert "__init__" in vars(cls), cls


def test_facts_compare_and_hash_by_value():
    from trickledger.replay.games.rage import BidMade

    a, b = BidMade(1, 0, 3, 7), BidMade(round=1, player=0, bid=3, line=7)
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != BidMade(1, 0, 4, 7)
    assert repr(a) == "BidMade(round=1, player=0, bid=3, line=7)"
