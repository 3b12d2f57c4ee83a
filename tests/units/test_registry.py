"""Registration checks a game's declared vocabulary against its code, at import; a plugin
game is found through its entry point; a game registered for a while leaves no trace."""

from __future__ import annotations

import ast
import dataclasses
import re
import sys
from pathlib import Path

import pytest
import toy_high_card

from trickledger.replay.engine import replay_bytes
from trickledger.replay.events import EVENT_TYPES, EXACT_NUMBER_EVENTS, Event
from trickledger.replay.registry import register, registered, registry


def variant(state_class: type, **changes: object) -> None:
    """Register a variant of the toy game (each test here expects it refused; one that
    passed would be taken out again when the block ends)."""
    with registered():
        register(dataclasses.replace(toy_high_card.INFO, name=f"toy_{state_class.__name__.lower()}",
                                     state_class=state_class, sheet_state=None, tables={},
                                     **changes))


def test_a_handler_for_an_undeclared_event_type_is_an_error_at_import() -> None:
    class WithPass(toy_high_card.ToyState):
        def on_pass(self, ev: Event) -> None:
            return None

    with pytest.raises(TypeError, match=r"WithPass has on_pass for event types it does not "
                                        r"declare: add them to GameInfo.events"):
        variant(WithPass)


def test_a_declared_event_type_without_a_handler_is_an_error_at_import() -> None:
    class Plain(toy_high_card.ToyState):
        pass

    with pytest.raises(TypeError, match="Plain has no handler for declared event types knock"):
        variant(Plain, events=("deal", "boast", "play", "knock"))
    with pytest.raises(TypeError, match=r"GameInfo.exact_numbers names bid, which is not one "
                                        r"of its events"):
        variant(Plain, exact_numbers=("bid",))


def test_a_games_own_event_type_is_known_and_dispatched(toy_game) -> None:
    assert "boast" in EVENT_TYPES and "boast" in toy_high_card.ToyState.handlers
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
    class Deferring(toy_high_card.ToyState):
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


def test_the_common_checks_keep_their_order_on_the_switch(toy_game) -> None:
    head = (b'{"format":"trickledger/1","game":"toy_high_card","players":["Ann","Bob"]}\n'
            b'{"type":"deal","hands":{"Ann":["A1","A2","A3"],"Bob":["B1","B2","B3"]}}\n')
    # an unknown type is named before a bad timestamp, a bad timestamp before a move's rules
    r = replay_bytes(head + b'{"type":"shout","t":5}\n', "a.jsonl")
    assert r.error is not None and r.error.message == "unknown event type 'shout'"
    r = replay_bytes(head + b'{"type":"boast","player":"Bob","t":5}\n', "b.jsonl")
    assert r.error is not None and r.error.message == "'t' must be a timestamp string, got an integer"
    r = replay_bytes(head + b'{"type":"boast","player":"Bob","note":"hi"}\n', "c.jsonl")
    assert r.error is not None and r.error.message == "Bob cannot boast: only the leader, Ann, may boast"


SHIPPED = {"color_stacks", "plotters", "rage", "under_the_radar"}


def test_a_game_registered_for_a_while_leaves_no_trace() -> None:
    from trickledger.ingest import analytics, examples, schema

    def traces() -> dict[str, object]:
        return {"games": sorted(registry()), "events": sorted(EVENT_TYPES),
                "tables": list(schema.TABLES), "own": dict(schema.GAME_TABLES),
                "columns": {t: schema.COLUMNS[t] for t in schema.COLUMNS},
                "views": [name for _, name, _ in analytics.objects()],
                "questions": [q for q, _ in examples.examples()],
                "rage": registry()["rage"]}

    before = traces()
    assert set(before["games"]) == SHIPPED and "boast" not in before["events"]
    louder = dataclasses.replace(registry()["rage"], bands=(3.0, 6.0, 12.0))
    with registered(toy_high_card.INFO):
        inside = traces()
        register(louder)  # a shipped game declared anew inside the block
        assert registry()["rage"] is louder
    assert inside["games"] == sorted([*SHIPPED, "toy_high_card"])
    assert "boast" in inside["events"] and "toy_boasts" in inside["tables"]
    assert inside["own"]["toy_boasts"] == "toy_high_card"
    assert "toy_boasts_made" in inside["views"]
    assert any("toy_high_card" in q for q in inside["questions"])
    assert traces() == before  # every trace gone, and rage's own declaration back


def entry(value: str, name: str = "toy_high_card") -> object:
    from importlib.metadata import EntryPoint

    return EntryPoint(name=name, value=value, group="trickledger.games")


def test_a_plugin_is_registered_from_its_entry_point(capsys) -> None:
    from trickledger.replay.registry import load_plugin

    with registered():
        load_plugin(entry("toy_high_card:INFO"))  # type: ignore[arg-type]
        assert registry()["toy_high_card"] is toy_high_card.INFO
        assert toy_high_card.ToyState.info is toy_high_card.INFO
    assert "toy_high_card" not in registry()
    assert capsys.readouterr().err == ""


def test_a_broken_plugin_is_said_and_the_other_games_go_on(capsys) -> None:
    from trickledger.replay.registry import load_plugin

    with registered():
        load_plugin(entry("no_such_game_module:INFO"))  # type: ignore[arg-type]
        err = capsys.readouterr().err
        assert ("trickledger: the game 'toy_high_card' (trickledger.games entry point "
                "'no_such_game_module:INFO' of ?) could not be loaded: ModuleNotFoundError"
                ) in err
        load_plugin(entry("toy_high_card:HAND"))  # type: ignore[arg-type]  # not a GameInfo
        err = capsys.readouterr().err
        assert ("the trickledger.games entry point 'toy_high_card' of ? registered no game "
                "of that name") in err
        assert set(registry()) == SHIPPED


def test_a_test_that_leaves_a_game_registered_fails_and_the_next_does_not_see_it(
        tmp_path: Path) -> None:
    import os
    import subprocess

    tests = Path(__file__).resolve().parents[1]
    units = tmp_path / "units"  # a folder the suite's conftest knows
    units.mkdir()
    (units / "test_leak.py").write_text('''
def test_leaks():
    import toy_high_card
    from trickledger.replay.registry import register
    register(toy_high_card.INFO)


def test_after():
    from trickledger.replay.registry import registry
    assert "toy_high_card" not in registry()
''', encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                        "-p", "conftest", "--rootdir", str(tmp_path), str(units)],
                       capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(tests)})
    # test_leaks passes its body and errs at its teardown; test_after passes
    assert re.search(r"\b2 passed\b.* 1 error\b", r.stdout), r.stdout + r.stderr
    assert ("test_leak.py::test_leaks left the game(s) toy_high_card registered: register a "
            "game in a test through the toy_game or register_game fixture") in r.stdout
