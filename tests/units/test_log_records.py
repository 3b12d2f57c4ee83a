"""The per-log records (`Header`, `Log`, `Replay`) are declared like the facts, so that the
compiled engine builds them as native objects: an explicit `__init__`, `Final` fields that
mypy keeps read-only, and what callers see unchanged: equality, repr (without the header's
raw object and the log's lines), hashing (a header's dicts refuse it, as a log's and a
replay's eq-only dataclasses do) and a header shared, not copied, by copies of a state."""

from __future__ import annotations

import copy
import dataclasses

import orjson
import pytest

from trickledger.replay.engine import Replay, replay_bytes
from trickledger.replay.events import Header
from trickledger.replay.reader import Log, read_bytes

HEAD = {"format": "trickledger/1", "game": "rage", "players": ["Ann", "Bob", "Cy"],
        "id": "records-1", "meta": {"where": "club"}}
LOG = orjson.dumps(HEAD) + b"\n"


@pytest.mark.parametrize("cls", [Header, Log, Replay])
def test_each_record_is_a_native_value_class(cls: type) -> None:
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    assert dataclasses.is_dataclass(cls)
    assert not params.init and params.eq and not params.frozen
    assert "__init__" in vars(cls)
    for f in dataclasses.fields(cls):
        # interpreted, the annotations are the source's text; compiled, mypyc hands the
        # dataclass the bare types (it enforces `Final` itself: assigning raises)
        if isinstance(f.type, str):
            assert f.type.startswith("Final["), (cls.__name__, f.name, f.type)


def test_header_compares_by_value_and_is_shared_by_copies() -> None:
    a, b = read_bytes(LOG, "a.jsonl").header, read_bytes(LOG, "b.jsonl").header
    assert a == b and a is not b and not hasattr(a, "__dict__")  # slots, or native
    assert copy.copy(a) is a and copy.deepcopy(a) is a
    with pytest.raises(TypeError, match="unhashable"):
        hash(a)  # its `meta` and `raw` are dicts
    assert repr(a) == ("Header(game='rage', players=('Ann', 'Bob', 'Cy'), dealer='Cy', "
                       "edition=None, variants=frozenset(), rounds=" + str(a.rounds)
                       + ", suits=(), id='records-1', meta={'where': 'club'}, line=1)")
    assert a.raw == HEAD


def test_log_and_replay_compare_by_value_and_do_not_hash() -> None:
    log = read_bytes(LOG, "a.jsonl")
    assert log == read_bytes(LOG, "a.jsonl") and log != read_bytes(LOG, "b.jsonl")
    assert repr(log) == (f"Log(name='a.jsonl', sha256='{log.sha256}', header={log.header!r}, "
                         f"body_start=1)")
    r = replay_bytes(b"not a log\n", "bad.jsonl")
    assert r.status == "unreadable" and r.events == 0 and r.lines == 0
    assert r == Replay("bad.jsonl", r.sha256, None, None, "unreadable", r.error)
    assert repr(r).startswith("Replay(file='bad.jsonl', sha256=") and \
        repr(r).endswith(", events=0, lines=0)")
    for value in (log, r):
        assert not hasattr(value, "__dict__")
        with pytest.raises(TypeError, match="unhashable"):
            hash(value)
