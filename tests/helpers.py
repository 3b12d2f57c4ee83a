"""Helpers to write small logs in tests."""

from __future__ import annotations

from typing import Any

import orjson

from replay.engine import Replay, replay_bytes, verdict

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


def header(game: str, n: int, **extra: Any) -> dict[str, Any]:
    h = {"format": "trickledger/1", "game": game, "players": NAMES[:n]}
    h.update(extra)
    return h


def log_bytes(head: dict[str, Any], events: list[dict[str, Any]]) -> bytes:
    return b"\n".join([orjson.dumps(head)] + [orjson.dumps(e) for e in events]) + b"\n"


def run(head: dict[str, Any], events: list[dict[str, Any]], name: str = "t.jsonl") -> Replay:
    return replay_bytes(log_bytes(head, events), name)


def check(head: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    return verdict(run(head, events))


def fill_hands(deck: list[str], n: int, size: int, fixed: dict[str, list[str]],
               players: list[str] | None = None) -> dict[str, list[str]]:
    """Hands of `size` cards: `fixed` cards first, the rest of `deck` dealt round-robin."""
    players = players or NAMES[:n]
    used = {c for cards in fixed.values() for c in cards}
    rest = [c for c in deck if c not in used]
    hands = {p: list(fixed.get(p, [])) for p in players}
    i = 0
    for p in players:
        while len(hands[p]) < size:
            hands[p].append(rest[i])
            i += 1
    return hands


def assert_illegal(v: dict[str, Any], line: int, *words: str) -> None:
    assert v["status"] == "illegal", v
    assert v["error"]["line"] == line, v["error"]
    for w in words:
        assert w in v["error"]["message"], (w, v["error"]["message"])
