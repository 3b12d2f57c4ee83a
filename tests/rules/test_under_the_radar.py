"""docs/rules.md section 4 (under_the_radar). The acceptability tests read like the rule text."""

from __future__ import annotations

import random

import orjson
import pytest
from helpers import NAMES, assert_illegal, check, header, log_bytes, run, seat
from hypothesis import given, settings
from hypothesis import strategies as st

from trickledger.replay.bots import RandomBot
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.facts import RoundDealt
from trickledger.replay.games.under_the_radar import (
    CARDS,
    COMPLETES,
    SINGLES,
    Phase,
    Trick,
    UTRRoundEnded,
    UTRTrickFinished,
    why_unacceptable,
)
from trickledger.replay.simulate import play_game


def trick_of(*names: str) -> Trick:
    t = Trick()
    for n in names:
        t.add(CARDS[n])
    return t


def ok(card: str, *played: str) -> bool:
    return why_unacceptable(CARDS[card], trick_of(*played)) is None


ALL_KINDS = [c.name for c in SINGLES + COMPLETES]


# ------------------------------------------------------------ the rule text's examples
def test_after_red_a_square_single_and_any_pattern_single_are_acceptable_but_blue_is_not():
    assert ok("square", "red")
    assert all(ok(p, "red") for p in ("filled", "hollow", "partial"))
    assert not ok("blue", "red")


def test_after_red_more_red_singles_may_follow():
    assert ok("red", "red", "red")


def test_after_red_and_square_another_red_or_square_or_any_pattern():
    assert ok("red", "red", "square") and ok("square", "red", "square")
    assert ok("hollow", "red", "square")
    assert not ok("circle", "red", "square") and not ok("green", "red", "square")


def test_a_complete_matching_every_single_played_so_far():
    assert ok("filled-red-square", "red", "square")
    assert not ok("filled-red-circle", "red", "square")


def test_after_a_complete_a_single_matching_one_of_its_values():
    assert ok("filled", "filled-green-triangle") and ok("triangle", "filled-green-triangle")
    assert not ok("red", "filled-green-triangle")


def test_after_filled_green_triangle_filled_green_square_is_acceptable():
    assert ok("filled-green-square", "filled-green-triangle")


def test_but_not_if_a_triangle_single_was_played_before_it():
    assert not ok("filled-green-square", "filled-green-triangle", "triangle")


def test_filled_or_green_singles_played_first_do_not_prevent_it():
    assert ok("filled-green-square", "filled-green-triangle", "filled", "green")


def test_completes_matching_in_fewer_than_two_categories_are_not_acceptable():
    assert not ok("filled-green-square", "filled-red-triangle")  # only pattern matches
    assert not ok("hollow-blue-circle", "filled-red-triangle")   # nothing matches


def test_hollow_blue_triangle_on_hollow_blue_square():
    assert ok("hollow-blue-triangle", "hollow-blue-square")


def test_after_partial_blue_square_and_hollow_blue_square_only_three_cards_are_acceptable():
    played = ("partial-blue-square", "hollow-blue-square")
    assert {c for c in ALL_KINDS if ok(c, *played)} == {"blue", "square", "filled-blue-square"}


def test_a_closed_category_takes_no_singles():
    t = trick_of("partial-blue-square", "hollow-blue-square")
    assert t.closed == {0}
    assert not any(ok(p, "partial-blue-square", "hollow-blue-square")
                   for p in ("filled", "hollow", "partial"))


def test_a_third_complete_must_match_every_complete_in_the_trick():
    assert ok("filled-blue-square", "partial-blue-square", "hollow-blue-square")
    assert not ok("partial-blue-circle", "partial-blue-square", "hollow-blue-square")


# ------------------------------------------------------------ a controlled table of three
RED_COMPLETES = [c.name for c in COMPLETES if c.values[1] == "red"]
OTHER_COMPLETES = [c.name for c in COMPLETES if c.values[1] != "red"]
HANDS = {
    "Ann": ["red"] * 4 + ["triangle"] * 4 + ["square"] * 4 + ["circle"] * 4 + ["filled"] * 4
    + ["hollow"],
    "Ben": ["green"] * 4 + ["blue"] * 4 + OTHER_COMPLETES[:13],
    "Cat": ["hollow"] * 3 + ["partial"] * 4 + OTHER_COMPLETES[13:] + RED_COMPLETES,
}
H3 = header("under_the_radar", 3)


def deal(**extra):
    ev = {"type": "deal", "hands": {p: list(h) for p, h in HANDS.items()}}
    ev.update(extra)
    return ev


def play(p, c):
    return {"type": "play", "player": p, "card": c}


def test_a_player_without_an_acceptable_card_takes_the_trick_and_leads():
    events = [deal(), play("Ann", "red"), play("Ben", "blue")]
    r = run(H3, events)
    assert r.status == "incomplete", r.error
    t = [f for f in r.facts if isinstance(f, UTRTrickFinished)][0]
    assert (t.taker, t.taking_card.name, len(t.cards), t.laps) == (seat("Ben"), "blue", 2, 1)
    assert_illegal(check(H3, events + [play("Cat", "hollow")]), 5, "out of turn", "Ben")
    assert check(H3, events + [play("Ben", "green")])["status"] == "incomplete"


def test_an_unacceptable_card_while_holding_an_acceptable_one():
    events = [deal(), play("Ann", "square"), play("Ben", "green"), play("Cat", "filled-red-triangle")]
    v = check(H3, events)
    assert_illegal(v, 5, "Cat cannot play filled-red-triangle", "not acceptable", "Cat holds")
    named = v["error"]["message"].split("Cat holds ")[1].split(",")[0]
    assert named in HANDS["Cat"] and ok(named, "square", "green")


def test_a_trick_goes_round_the_table_more_than_once():
    for seed in range(20):
        state, _ = sim(3, seed)
        for t in (f for f in state.facts if isinstance(f, UTRTrickFinished)):
            if len(t.cards) > 3:
                per_player = {p: sum(1 for q, _ in t.cards if q == p) for p, _ in t.cards}
                assert t.laps == max(per_player.values()) >= 2
                return
    raise AssertionError("no trick went round twice")


def test_deal_checks():
    ev = deal()
    ev["hands"]["Ann"] = ev["hands"]["Ann"][:20]
    assert_illegal(check(H3, [ev]), 2, "21 cards", "Ann got 20")
    ev = deal()
    ev["hands"]["Ann"][-1] = "red"  # a fifth red
    assert_illegal(check(H3, [ev]), 2, "red appears more often")
    assert_illegal(check(H3, [deal(removed=["filled-red-triangle"])]), 2, "'removed' must be empty")


def five_player_deal(removed):
    deck = [c.name for c in SINGLES for _ in range(4)] + \
        [c.name for c in COMPLETES if c.name not in removed]
    deck += [r for r in removed if r not in [c.name for c in COMPLETES]]
    hands = {p: deck[i * 12:(i + 1) * 12] for i, p in enumerate(NAMES[:5])}
    return {"type": "deal", "hands": hands, "removed": list(removed)}


def test_four_to_six_players_remove_three_different_completes():
    h5 = header("under_the_radar", 5)
    good = ["filled-red-triangle", "hollow-blue-circle", "partial-green-square"]
    assert check(h5, [five_player_deal(good)])["status"] == "incomplete"
    ev = five_player_deal(good)
    ev["removed"] = good[:2]
    assert_illegal(check(h5, [ev]), 2, "three different Completes", "got 2")
    ev = five_player_deal(good)
    ev["removed"] = [good[0], good[0], good[1]]
    assert_illegal(check(h5, [ev]), 2, "filled-red-triangle appears more often")
    ev = five_player_deal(good)
    ev["removed"] = [good[0], good[1], "red"]
    assert_illegal(check(h5, [ev]), 2, "only Completes are removed")


# ------------------------------------------------------------ whole games
def sim(n, seed, rounds=1):
    h = header("under_the_radar", n, rounds=rounds)
    state, events = play_game(h, {p: RandomBot() for p in NAMES[:n]}, random.Random(seed),
                              claims=True)
    return state, log_bytes(h, events)


def test_both_game_ends_occur_and_are_scored():
    seen = set()
    for seed in range(60):
        state, _ = sim(3, seed)
        end = next(f for f in state.facts if isinstance(f, UTRRoundEnded))
        last = [f for f in state.facts if isinstance(f, UTRTrickFinished)][-1]
        if end.how == "last card":
            assert last.taker == end.player and not state.hands[end.player]
        else:
            assert last.taker is None and not any(state.hands)
        assert sum(end.tricks_taken) == state.rounds[0].outcome.tricks
        seen.add(end.how)
    assert seen == {"last card", "no cards"}


def expected_leader(totals, prev_leader, n):
    best = max(totals.values())
    for k in range(1, n + 1):
        s = (prev_leader + k) % n
        if totals[NAMES[s]] == best:
            return NAMES[s]


@pytest.mark.parametrize("n", [3, 5])
def test_later_rounds_are_led_by_the_highest_total(n):
    state, data = sim(n, seed=n, rounds=4)
    v = verdict(replay_bytes(data, "g.jsonl"))
    assert v["status"] == "complete"
    deals = [f for f in state.facts if isinstance(f, RoundDealt)]
    assert deals[0].leader == 0
    totals = {p: 0 for p in NAMES[:n]}
    for i in range(1, len(deals)):
        for p in totals:
            totals[p] += v["rounds"][i - 1]["scores"][p]
        assert NAMES[deals[i].leader] == expected_leader(totals, deals[i - 1].leader, n)
    # naming another leader is illegal
    lines = data.splitlines()
    idx = [i for i, ln in enumerate(lines) if b'"deal"' in ln][1]
    ev = orjson.loads(lines[idx])
    wrong = next(p for p in NAMES[:n] if p != NAMES[deals[1].leader])
    ev["leader"] = wrong
    lines[idx] = orjson.dumps(ev)
    assert_illegal(verdict(replay_bytes(b"\n".join(lines), "g.jsonl")), idx + 1, "is led by")


def test_skipped_player_with_no_cards_may_not_play():
    for seed in range(100):
        state, data = sim(4, seed)
        lines = data.splitlines()
        # find a play made while some player had already run out of cards
        for i in range(2, len(lines)):
            prefix = replay_bytes(b"\n".join(lines[:i]), "g.jsonl")
            st_ = prefix.state
            if st_.phase is not Phase.PLAY:
                continue
            empty = [s for s in range(st_.n) if not st_.hands[s] and s != st_.turn]
            if empty:
                bad = orjson.dumps(play(NAMES[empty[0]], "red"))
                v = verdict(replay_bytes(b"\n".join(lines[:i] + [bad]), "g.jsonl"))
                assert_illegal(v, i + 1, "no cards left and is skipped")
                return
    raise AssertionError("no game reached a skipped player")


@settings(max_examples=20, deadline=None)
@given(n=st.integers(3, 7), seed=st.integers(0, 10**6), rounds=st.integers(1, 3))
def test_random_legal_games(n, seed, rounds):
    state, data = sim(n, seed, rounds)
    a = replay_bytes(data, "g.jsonl")
    assert a.status == "complete", a.error
    assert a.facts == replay_bytes(data, "g.jsonl").facts
    # the random player still had to play an acceptable card whenever it held one
    for f in a.facts:
        if isinstance(f, UTRTrickFinished) and f.taker is not None:
            t = trick_of(*[c.name for _, c in f.cards[:-1]])
            assert why_unacceptable(f.cards[-1][1], t) is not None or len(f.cards) == 1


def test_a_card_knows_its_colour_value():
    # what the dashboard paints a card by: the colour it shows, none for pattern or shape
    assert CARDS.parse("red").color == "red"
    assert CARDS.parse("hollow-blue-circle").color == "blue"
    assert CARDS.parse("filled").color == "" and CARDS.parse("square").color == ""
