"""Registration checks a game's declared vocabulary against its code, at import."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import pytest
import toy_game

from trickledger.replay.engine import replay_bytes
from trickledger.replay.events import EVENT_TYPES, EXACT_NUMBER_EVENTS, Event
from trickledger.replay.registry import register, registry


def variant(state_class: type, **changes: object) -> None:
    register(dataclasses.replace(toy_game.INFO, name=f"toy_{state_class.__name__.lower()}",
                                 state_class=state_class, sheet_state=None, tables={},
                                 **changes))


def test_a_handler_for_an_undeclared_event_type_is_an_error_at_import() -> None:
    class WithPass(toy_game.ToyState):
        def on_pass(self, ev: Event) -> None:
            return None

    with pytest.raises(TypeError, match=r"WithPass has on_pass for event types it does not "
                                        r"declare: add them to GameInfo.events"):
        variant(WithPass)


def test_a_declared_event_type_without_a_handler_is_an_error_at_import() -> None:
    class Plain(toy_game.ToyState):
        pass

    with pytest.raises(TypeError, match="Plain has no handler for declared event types knock"):
        variant(Plain, events=("deal", "boast", "play", "knock"))
    with pytest.raises(TypeError, match=r"GameInfo.exact_numbers names bid, which is not one "
                                        r"of its events"):
        variant(Plain, exact_numbers=("bid",))


def test_a_games_own_event_type_is_known_and_dispatched() -> None:
    assert "boast" in EVENT_TYPES and "boast" in toy_game.ToyState.handlers
    registry()
    assert "bid" in EXACT_NUMBER_EVENTS  # rage's, declared in its GameInfo
    head = (b'{"format":"trickledger/1","game":"toy_high_card","players":["Ann","Bob"]}\n'
            b'{"type":"deal","hands":{"Ann":["A1","A2","A3"],"Bob":["B1","B2","B3"]}}\n')
    # Bob deals round 1, so Ann leads and may boast; Bob may not
    r = replay_bytes(head + b'{"type":"boast","player":"Ann"}\n', "ok.jsonl")
    assert r.status == "incomplete" and r.error is None
    r = replay_bytes(head + b'{"type":"boast","player":"Bob"}\n', "bad.jsonl")
    assert r.error is not None and r.error.line == 3
    assert r.error.message == "Bob cannot boast: only the leader, Ann, may boast"
    r = replay_bytes(head + b'{"type":"shout","player":"Ann"}\n', "unknown.jsonl")
    assert r.error is not None and r.error.message == "unknown event type 'shout'"
    r = replay_bytes(head + b'{"type":"bid","player":"Ann","bid":1}\n', "other.jsonl")
    assert r.error is not None and r.error.message == "'bid' events are not part of toy_high_card"


def test_deferred_and_seen_moves_are_checked_against_the_games_vocabulary() -> None:
    class Deferring(toy_game.ToyState):
        pass

    with pytest.raises(TypeError, match=r"GameInfo.deferrable names bid, which is not one "
                                        r"of its events"):
        variant(Deferring, variants=("late",), deferrable={"late": "bid"})
    with pytest.raises(TypeError, match=r"GameInfo.deferrable names late, which is not one "
                                        r"of its variants"):
        variant(Deferring, deferrable={"late": "boast"})
    with pytest.raises(TypeError, match=r"GameInfo.seen_after_deal names trump, which is not "
                                        r"one of its events"):
        variant(Deferring, seen_after_deal=("trump",))
    assert registry()["rage"].deferrable == {"secret_bid": "bid"}


def switch_of(cls: type) -> dict[str, str]:
    """The event types a state's own `handle` switches on, each to the method it calls."""
    # from the module's .py (shipped beside the compiled module, whose code has no source)
    module = sys.modules[cls.__module__]
    source = Path(module.__file__ or "").parent / f"{cls.__module__.rsplit('.', 1)[1]}.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    (klass,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    methods = [n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == "handle"]
    tree = methods[0] if methods else ast.parse("")
    routes: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            (literal,) = node.test.comparators
            (call,) = node.body
            assert isinstance(literal, ast.Constant) and isinstance(call, ast.Expr)
            assert isinstance(call.value, ast.Call) and isinstance(call.value.func, ast.Attribute)
            routes[literal.value] = call.value.func.attr
    return routes


def test_every_compiled_game_calls_its_declared_handlers_natively() -> None:
    # the switch is a fast path beside the dispatch table: it must route each declared type
    # to its own handler (a type it leaves out would still work, through the table, slowly)
    compiled = [info for info in registry().values()
                if info.state_class.__module__.startswith("trickledger.replay.games.")]
    assert len(compiled) == 4
    for info in compiled:
        assert switch_of(info.state_class) == {t: f"on_{t}" for t in info.events}, info.name


def test_the_common_checks_keep_their_order_on_the_switch() -> None:
    head = (b'{"format":"trickledger/1","game":"toy_high_card","players":["Ann","Bob"]}\n'
            b'{"type":"deal","hands":{"Ann":["A1","A2","A3"],"Bob":["B1","B2","B3"]}}\n')
    # an unknown type is named before a bad timestamp, a bad timestamp before a move's rules
    r = replay_bytes(head + b'{"type":"shout","t":5}\n', "a.jsonl")
    assert r.error is not None and r.error.message == "unknown event type 'shout'"
    r = replay_bytes(head + b'{"type":"boast","player":"Bob","t":5}\n', "b.jsonl")
    assert r.error is not None and r.error.message == "'t' must be a timestamp string, got an integer"
    r = replay_bytes(head + b'{"type":"boast","player":"Bob","note":"hi"}\n', "c.jsonl")
    assert r.error is not None and r.error.message == "Bob cannot boast: only the leader, Ann, may boast"
