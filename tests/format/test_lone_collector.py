"""plotters score sheets where one player collected everything (the lone collector), at
every table size, both sides of the rule.

When only one player collects in a round, no trick had a second winner (its share would
be another player's), so every finished trick held the led colour only: all n players
played a card of one colour and the lone collector picked `pick_size(n)` of them. A
colour with k cards in the n-player deck makes at most k // n such tricks, so the lone
collector holds at most pick × (k // n) cards of it, open or face down. The sheets that
are possible are written by `sheet-of` from real logs that reach each limit (so the
engine replays every move of them); one pick more than a limit is refused, with the
reason, on the sheet's line.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from helpers import NAMES, assert_illegal, log_bytes

from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.games.plotters import COLORS, DECK_TOP, HAND_SIZE, pick_size
from trickledger.replay.sheetlog import sheet_of

SIZES = (4, 5, 6)


def most_tricks(n: int, colour: str) -> int:
    """The one-colour tricks a colour of the n-player deck makes: each takes n cards of it."""
    return DECK_TOP[n][colour] // n


def lone_collector_log(n: int, plan: list[str], keep: tuple[str, str] | None = None) -> bytes:
    """A legal one-round game at n players in which Ann (who leads) wins every trick of
    `plan` (a colour per trick, every player playing that colour, Ann the highest card), so
    she alone collects; she keeps `keep` when the fourth colour comes. The next trick ends
    the round early: Ann, Ben and Cat play three colours and Dan holds only the fourth."""
    players = NAMES[:n]
    left = {c: list(range(DECK_TOP[n][c], 0, -1)) for c in COLORS}  # highest first
    hands: dict[str, list[str]] = {p: [] for p in players}
    tricks: list[list[tuple[str, str]]] = []
    for colour in plan:
        group = [left[colour].pop(0) for _ in range(n)]
        trick = [(p, f"{colour}{v}") for p, v in zip(players, group)]  # Ann: the highest
        for p, card in trick:
            hands[p].append(card)
        tricks.append(trick)
    rest = HAND_SIZE - len(plan)
    # Dan's rest is of one colour (the fourth of the last trick); Ann, Ben, Cat play the
    # other three, one each
    fourth = max(COLORS, key=lambda c: len(left[c]))
    assert len(left[fourth]) >= rest, (n, plan)
    hands["Dan"] += [f"{fourth}{left[fourth].pop()}" for _ in range(rest)]
    others = [c for c in COLORS if c != fourth]
    last = []
    for p, colour in zip(("Ann", "Ben", "Cat"), others):
        card = f"{colour}{left[colour].pop()}"
        hands[p].append(card)
        last.append((p, card))
    pool = [f"{c}{v}" for c in others for v in left[c]] + [f"{fourth}{v}" for v in left[fourth]]
    for p in players:
        while len(hands[p]) < HAND_SIZE:
            hands[p].append(pool.pop())
    events: list[dict[str, Any]] = [{"type": "deal", "hands": hands}]
    seen: set[str] = set()
    for trick in tricks:
        events += [{"type": "play", "player": p, "card": c} for p, c in trick]
        events.append({"type": "take", "player": "Ann",
                       "cards": [c for _, c in trick[:pick_size(n)]]})
        seen.add(trick[0][1][0])
        if keep is not None and len(seen) == 4 and not any(e["type"] == "keep" for e in events):
            events.append({"type": "keep", "player": "Ann", "colors": list(keep)})
    events += [{"type": "play", "player": p, "card": c} for p, c in last]
    head = {"format": "trickledger/1", "game": "plotters", "players": players, "rounds": 1}
    return log_bytes(head, events)


def sheet_line(log: bytes) -> tuple[dict[str, Any], dict[str, Any]]:
    """The log's replay must be complete; its sheet (header, round line)."""
    r = replay_bytes(log, "lone.jsonl")
    v = verdict(r)
    assert v["status"] == "complete", v["error"]
    assert v["rounds"][0]["early_end_player"] == "Dan"
    head, *lines = [orjson.loads(x) for x in sheet_of(r).splitlines()]
    line = next(x for x in lines if x["type"] == "sheet")
    assert all(not line["players"][p].get("open") and not line["players"][p].get("face_down")
               for p in head["players"][1:]), line
    return head, line


def sheet_verdict(head: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    return verdict(replay_bytes(log_bytes(head, [line]), "lone.sheet.jsonl"))


def most_plan(n: int, colours: str) -> list[str]:
    """Every one-colour trick the deck allows in `colours`, a colour's tricks together."""
    return [c for c in colours for _ in range(most_tricks(n, c))]


@pytest.mark.parametrize("n", SIZES)
def test_three_colours_at_their_limit_are_possible_and_one_pick_more_is_not(n):
    pick = pick_size(n)
    head, line = sheet_line(lone_collector_log(n, most_plan(n, "BGR")))
    ann = line["players"]["Ann"]
    assert ann == {"open": {c: pick * most_tricks(n, c) for c in "BGR"}, "face_down": 0}
    assert sheet_verdict(head, line)["status"] == "complete"
    for colour in "BGR":
        wrong = {**ann["open"], colour: ann["open"][colour] + pick}
        line["players"]["Ann"] = {"open": wrong, "face_down": 0}
        top = DECK_TOP[n][colour]
        assert_illegal(sheet_verdict(head, line), 2, "Ann is the only player who collected",
                       f"the {n}-player deck's {top} ", f"at most {most_tricks(n, colour)} ",
                       f"at most {pick * most_tricks(n, colour)} ")


@pytest.mark.parametrize("n", SIZES)
def test_a_keep_with_every_colour_at_its_limit_is_possible_and_more_face_down_is_not(n):
    """Ann collects all four colours to their limits, keeping blue and green: red and
    yellow, all of them, end face down. One pick more face down is refused."""
    pick = pick_size(n)
    plan = most_plan(n, "BGRY")
    head, line = sheet_line(lone_collector_log(n, plan, keep=("B", "G")))
    ann = line["players"]["Ann"]
    down = pick * (most_tricks(n, "R") + most_tricks(n, "Y"))
    assert ann == {"open": {"B": pick * most_tricks(n, "B"), "G": pick * most_tricks(n, "G")},
                   "face_down": down}
    assert sheet_verdict(head, line)["status"] == "complete"
    line["players"]["Ann"] = {**ann, "face_down": down + pick}
    assert_illegal(sheet_verdict(head, line), 2, "Ann is the only player who collected",
                   f"at most {down} face down")


@pytest.mark.parametrize("n", SIZES)
def test_the_fewest_face_down_cards_are_one_pick_of_each_colour_not_kept(n):
    """The keep at the first trick of the fourth colour: one pick of each of the two
    colours not kept goes face down (red and yellow here), the least there can be."""
    pick = pick_size(n)
    head, line = sheet_line(lone_collector_log(n, ["R", "Y", "B", "G"], keep=("B", "G")))
    assert line["players"]["Ann"] == {"open": {"B": pick, "G": pick}, "face_down": 2 * pick}
    assert sheet_verdict(head, line)["status"] == "complete"
    line["players"]["Ann"]["face_down"] = pick
    assert_illegal(sheet_verdict(head, line), 2, "Ann is the only player who collected",
                   f"at least {2 * pick} face down")


@pytest.mark.parametrize("n", SIZES)
def test_a_lone_collectors_stacks_come_in_picks(n):
    pick = pick_size(n)
    head, line = sheet_line(lone_collector_log(n, ["B", "G"]))
    assert line["players"]["Ann"] == {"open": {"B": pick, "G": pick}, "face_down": 0}
    line["players"]["Ann"]["open"] = {"B": pick + 1, "G": pick - 1}
    assert_illegal(sheet_verdict(head, line), 2, "Ann is the only player who collected",
                   f"come in {pick}s")
