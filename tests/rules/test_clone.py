"""`GameState.clone`: a branch of a state that can diverge without touching the original.

For every game and table size (and the toy fifth game, which uses the contract's generic
copy): random legal play; at many points the state is cloned, the clone equals the
original attribute by attribute, then the clone plays on to the end of the game with other
random moves while the original must stay exactly as it was (compared with a deep
snapshot taken before), and the original then still plays on as if nothing happened.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest
from test_conformance import configs, header_for

from trickledger.replay.bots import RandomBot
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.reader import parse_header
from trickledger.replay.state import GameState


@pytest.fixture(autouse=True)
def _with_the_toy_game(toy_game):
    """The example plugin game is among the games cloned (`configs`), registered for each
    test."""
    return toy_game


def snapshot(value: Any) -> Any:
    """A comparable, deep picture of a value: containers by content, objects with slots
    (a trick's bookkeeping) by their slots, everything else as it is."""
    t = type(value)
    if t in (list, tuple):
        return t(snapshot(v) for v in value)
    if t is dict:
        return {k: snapshot(v) for k, v in value.items()}
    if t is set:
        return frozenset(value)
    # compiled with mypyc a class lists its attributes in __mypyc_attrs__, not __slots__
    slots = getattr(t, "__mypyc_attrs__", None) or getattr(t, "__slots__", None)
    if slots and not hasattr(value, "__dataclass_fields__") and t.__module__.startswith(
            "trickledger.replay.games"):
        return (t.__name__, tuple(snapshot(getattr(value, s)) for s in slots
                                  if s != "__dict__" and hasattr(value, s)))
    return value


def picture(state: GameState) -> dict[str, Any]:
    return {k: snapshot(v) for k, v in state._attributes().items() if k != "dispatch"}


def play_on(state: GameState, rng: random.Random, moves: int) -> None:
    bot = RandomBot()
    for _ in range(moves):
        if state.is_over():
            return
        ev = state.draw_chance(rng) if state.next_chance() else bot.choose(state, rng)
        state.apply(Event(1, ev["type"], ev))


@pytest.mark.parametrize("game,n,options", configs())
def test_a_clone_diverges_without_touching_the_original(game, n, options):
    h = header_for(game, n, options, seed=n)
    state = new_state(parse_header("<clone>", 1, orjson.dumps(h), "test"))
    rng = random.Random(f"clone:{game}:{n}:{options}")
    branches = 0
    while not state.is_over():
        if branches == 0 or rng.random() < 0.2:
            before = copy.deepcopy(picture(state))
            branch = state.clone()
            assert type(branch) is type(state)
            assert picture(branch) == before, "a fresh clone equals its original"
            play_on(branch, random.Random(rng.random()), 10_000)
            assert branch.is_over()
            assert picture(state) == before, f"{game}: playing a clone changed the original"
            branches += 1
        play_on(state, rng, 1)
    assert branches >= 1
