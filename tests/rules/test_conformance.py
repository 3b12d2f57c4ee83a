"""One conformance test over the registry (as OpenSpiel's random simulation test): for every
game and table size, random legal play applies; every move that `legal_moves()` lists is
accepted and every near miss it does not list is rejected (with a located error in a log);
a simulated game's log replays to the same facts; the verdict round-trips.

The example plugin game (examples/toy_high_card, imported from the checkout) is registered
for each test here too (the `toy_game` fixture), so a fifth game is checked by the same code
as the four real ones, and no test elsewhere sees it.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import orjson
import pytest
import toy_high_card
from helpers import NAMES

from trickledger.replay.bots import RandomBot
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.errors import FormatError, RuleError
from trickledger.replay.events import Event
from trickledger.replay.reader import read_bytes
from trickledger.replay.registry import Move, registry
from trickledger.replay.simulate import play_game
from trickledger.replay.state import GameState
from trickledger.replay.writer import dump_lines, rewrite

SUITS = "RYGBPKWO"
# the games checked: every registered one and the example plugin game (registered for each
# test by `_with_the_toy_game`)
GAMES = {**registry(), toy_high_card.NAME: toy_high_card.INFO}


@pytest.fixture(autouse=True)
def _with_the_toy_game(toy_game):
    return toy_game


def configs() -> list[tuple[str, int, tuple[str, ...]]]:
    """Every game, every table size, each variant on its own."""
    out = []
    for name, info in sorted(GAMES.items()):
        for n in range(info.min_players, info.max_players + 1):
            out.append((name, n, ()))
        for v in info.variants:
            out.append((name, info.min_players + 1 if info.max_players > info.min_players
                        else info.min_players, (v,)))
        for e in info.editions[1:]:
            out.append((name, info.max_players, ("edition:" + e,)))
    return out


def header_for(game: str, n: int, options: tuple[str, ...], seed: int) -> dict[str, Any]:
    info = GAMES[game]
    h: dict[str, Any] = {"format": "trickledger/1", "game": game, "players": NAMES[:n]}
    variants = [o for o in options if not o.startswith("edition:")]
    if variants:
        h["variants"] = variants
    for o in options:
        if o.startswith("edition:"):
            h["edition"] = o.split(":", 1)[1]
    h.update(info.state_class.random_setup(random.Random(seed), n))
    if game == "rage":
        h["rounds"] = 3  # the rules are the same in every round; keep the test quick
    return h


def norm(m: Move) -> bytes:
    return orjson.dumps(m, option=orjson.OPT_SORT_KEYS)


def loose(m: Move) -> bytes:
    """The move with its card list as a multiset (a pick in another order is the same pick)."""
    m = dict(m)
    if isinstance(m.get("cards"), list):
        m["cards"] = sorted(m["cards"])
    return norm(m)


def near_misses(state: GameState, legal: list[Move], rng: random.Random) -> list[Move]:
    """Moves one field away from a legal one: another player, card, bid, colour."""
    info = state.info
    cards = [c.name for c in info.cards]
    out: list[Move] = []
    for m in rng.sample(legal, min(len(legal), 4)):
        for p in [*state.players, "Nobody"]:
            out.append({**m, "player": p})
        if "card" in m:
            plain = {k: v for k, v in m.items() if k != "as"}  # 'as' only names a Joker
            for c in rng.sample(cards, min(len(cards), 25)):
                out.append({**plain, "card": c})
            out.append({**plain, "card": "Z99"})
            if "as" in m:
                out.extend({**m, "as": a} for a in ["B", "G", "R", "Y", "P", "O", "X"])
        if isinstance(m.get("cards"), list) and m["cards"]:
            for i in range(len(m["cards"])):
                for c in rng.sample(cards, min(len(cards), 8)):
                    cs = list(m["cards"])
                    cs[i] = c
                    out.append({**m, "cards": cs})
            out.append({**m, "cards": m["cards"][:-1]})
        if "bid" in m:
            out.extend({**m, "bid": b} for b in range(-1, 12))
        if "colors" in m:
            out.extend({**m, "colors": [a, b]} for a in "BGRYX" for b in "BGRY" if a != b)
    return out


def check_position(state: GameState, rng: random.Random) -> None:
    legal = state.legal_moves()
    exact = {norm(m) for m in legal}
    sets = {loose(m) for m in legal}
    for m in rng.sample(legal, min(len(legal), 8)):  # what is offered is accepted
        trial = copy.deepcopy(state)
        trial.apply(Event(99, m["type"], m))
    misses = near_misses(state, legal, rng)
    for m in rng.sample(misses, min(len(misses), 40)):
        if norm(m) in exact:
            continue
        trial = copy.deepcopy(state)
        if loose(m) in sets:
            continue  # the same cards in another order: some moves care, some do not
        with pytest.raises((RuleError, FormatError)):
            trial.apply(Event(99, m["type"], m))
            raise AssertionError(f"{state.info.name}: accepted {m}, which legal_moves() "
                                 f"does not offer: {legal[:6]}...")


@pytest.mark.parametrize("game,n,options", configs())
def test_random_play_legal_moves_and_near_misses(game, n, options):
    rng = random.Random(f"{game}:{n}:{options}")
    h = header_for(game, n, options, seed=n)
    bots = {p: RandomBot() for p in h["players"]}
    state, events = play_game(h, bots, random.Random(n))
    assert state.is_over()
    data = dump_lines(h, events)
    replayed = replay_bytes(data, "sim.jsonl")
    assert replayed.status == "complete", replayed.error
    # the same facts from the log as during play
    assert replayed.facts == state.facts
    # legality at positions along the game: offered moves apply, near misses do not
    log = read_bytes(data, "sim.jsonl")
    fresh = type(state)(log.header)
    positions = sorted(rng.sample(range(len(events)), min(len(events), 8)))
    located = 0
    for i, ev in enumerate(log.events()):
        if i in positions and fresh.next_chance() is None and not fresh.is_over():
            check_position(fresh, rng)
            legal = {norm(m) for m in fresh.legal_moves()}
            if located < 3:  # a rejected move in a real log is named by its line
                miss = next((m for m in near_misses(fresh, fresh.legal_moves(), rng)
                             if norm(m) not in legal and m.get("player") != "Nobody"
                             and loose(m) not in {loose(x) for x in fresh.legal_moves()}),
                            None)
                if miss is not None:
                    bad = dump_lines(h, events[:i] + [miss])
                    v = verdict(replay_bytes(bad, "bad.jsonl"))
                    assert v["status"] == "illegal" and v["error"]["line"] == i + 2, v["error"]
                    located += 1
        fresh.apply(ev)
    assert fresh.is_over()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_verdict_round_trips(game):
    info = GAMES[game]
    n = info.min_players
    h = header_for(game, n, (), seed=3)
    h["id"] = f"{game}-roundtrip"
    state, events = play_game(h, {p: RandomBot() for p in h["players"]}, random.Random(3),
                              claims=True)
    data = dump_lines(h, events)
    first = replay_bytes(data, "a.jsonl")
    v = verdict(first)
    assert orjson.loads(orjson.dumps(v)) == v
    again = verdict(replay_bytes(rewrite(read_bytes(data, "a.jsonl")), "a.jsonl"))
    assert {k: x for k, x in again.items() if k != "sha256"} == \
        {k: x for k, x in v.items() if k != "sha256"}
    assert v["status"] == "complete" and v["claims"] and all(c["match"] for c in v["claims"])


def test_every_game_declares_the_whole_contract():
    for name, info in registry().items():
        cls = info.state_class
        assert not getattr(cls, "__abstractmethods__", None), (name, cls.__abstractmethods__)
        assert info.state_class.info is info
        assert info.step_facts, name
        assert cls.handlers, name
