"""docs/rules.md section 2 (rage): each rule and variant obeyed and broken, with the line checked."""

from __future__ import annotations

import random

import pytest
from helpers import NAMES, assert_illegal, check, header, log_bytes, run, seat
from hypothesis import given, settings
from hypothesis import strategies as st

from trickledger.replay.bots import RandomBot
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.games.rage import BidSettled, RageTrickFinished, score_round
from trickledger.replay.simulate import defer_moves, play_game

HANDS = {
    "Ann": ["R10", "R2", "+5", "JOKER", "G5", "B5", "NOTRUMP", "O0", "O1", "O2"],
    "Ben": ["R5", "G3", "NOTRUMP", "CHANGE", "JOKER", "B6", "O3", "O4", "O5", "O6"],
    "Cat": ["B9", "Y1", "Y2", "-5", "NOTRUMP", "CHANGE", "O7", "O8", "O9", "O10"],
}
H = header("rage", 3)


def deal(**extra):
    ev = {"type": "deal", "hands": {p: list(h) for p, h in HANDS.items()}}
    ev.update(extra)
    return ev


def trump(c):
    return {"type": "trump", "card": c}


def bid(p, b):
    return {"type": "bid", "player": p, "bid": b}


def play(p, c, as_=None):
    ev = {"type": "play", "player": p, "card": c}
    if as_:
        ev["as"] = as_
    return ev


START = [deal(), trump("Y15"), bid("Ann", 1), bid("Ben", 1), bid("Cat", 1)]  # lines 2-6


def tricks(events, head=H):
    r = run(head, events)
    assert r.status == "incomplete", r.error
    return [f for f in r.facts if isinstance(f, RageTrickFinished)]


# ------------------------------------------------------------ trump turning
def test_action_cards_turned_up_are_skipped_until_a_colour():
    r = run(H, [deal(), trump("+5"), trump("CHANGE"), trump("g7"), bid("Ann", 0)])
    assert r.status == "incomplete", r.error
    assert r.state.trump == "G"


def test_bid_before_the_trump_is_set():
    assert_illegal(check(H, [deal(), trump("+5"), bid("Ann", 1)]), 4, "before the round's trump")


def test_trump_card_in_a_hand_or_already_turned():
    assert_illegal(check(H, [deal(), trump("R10")]), 3, "R10 cannot be turned up")
    events = [deal(), trump("-5"), trump("-5"), trump("-5")]  # Cat holds the third -5
    assert_illegal(check(H, events), 5, "every -5 of the deck")


def test_trump_when_none_is_due():
    assert_illegal(check(H, START + [trump("B15")]), 7, "no trump is turned now")


# ------------------------------------------------------------ bidding
def test_bids_go_clockwise_from_the_dealers_left():
    assert_illegal(check(H, [deal(), trump("Y15"), bid("Ben", 1)]), 4, "out of turn", "Ann")


def test_bid_range():
    assert_illegal(check(H, [deal(), trump("Y15"), bid("Ann", 11)]), 4, "0 to 10")
    assert_illegal(check(H, [deal(), trump("Y15"), bid("Ann", -1)]), 4, "0 to 10")
    assert_illegal(check(H, [deal(), trump("Y15"), {"type": "bid", "player": "Ann", "bid": "2"}]),
                   4, "'bid' must be")


def test_play_before_all_bids():
    assert_illegal(check(H, START[:4] + [play("Ann", "R10")]), 6, "Cat has not bid")


def test_plus_minus_one_constrains_the_last_bid():
    h = header("rage", 3, variants=["plus_minus_one"])
    ok = [deal(), trump("Y15"), bid("Ann", 3), bid("Ben", 3), bid("Cat", 3)]
    assert check(h, ok)["status"] == "incomplete"
    bad = [deal(), trump("Y15"), bid("Ann", 3), bid("Ben", 3), bid("Cat", 4)]
    assert_illegal(check(h, bad), 6, "plus_minus_one", "Cat may not bid 4")


def test_hidden_bid_any_order_but_before_the_first_play():
    h = header("rage", 3, variants=["hidden_bid"])
    ok = [deal(), trump("Y15"), bid("Cat", 1), bid("Ann", 2), bid("Ben", 0), play("Ann", "R10")]
    assert check(h, ok)["status"] == "incomplete"
    assert_illegal(check(h, ok[:4] + [play("Ann", "R10")]), 6, "Ben has not bid")


def test_secret_bid_may_not_come_mid_round():
    h = header("rage", 3, variants=["secret_bid"])
    events = [deal(), trump("Y15"), play("Ann", "R10"), bid("Ann", 1)]
    assert_illegal(check(h, events), 5, "secret_bid", "after the last trick")


def test_secret_bids_may_come_after_the_last_trick():
    h = header("rage", 4, variants=["secret_bid"], rounds=3)
    _, events = play_game(h, {p: RandomBot() for p in NAMES[:4]}, random.Random(5), claims=True)
    data = log_bytes(h, defer_moves(events, "bid"))
    v = verdict(replay_bytes(data, "s.jsonl"))
    assert v["status"] == "complete", v["error"]
    assert all(c["match"] for c in v["claims"])


# ------------------------------------------------------------ following and action cards
def test_must_follow_the_led_colour():
    assert_illegal(check(H, START + [play("Ann", "R10"), play("Ben", "G3")]), 8,
                   "Ben must follow red", "R5")


def test_action_card_only_when_void_in_led_colour():
    assert_illegal(check(H, START + [play("Ann", "R10"), play("Ben", "JOKER", "R")]), 8,
                   "action cards may be played only", "R5")
    t = tricks(START + [play("Ann", "R10"), play("Ben", "R5"), play("Cat", "-5")])
    assert t[0].winner == seat("Ann") and t[0].minus5 == 1


def test_void_player_may_trump():
    t = tricks(START + [play("Ann", "R10"), play("Ben", "R5"), play("Cat", "Y1")])
    assert (t[0].winner, t[0].winning_card.name, t[0].trump) == (seat("Cat"), "Y1", "Y")


def test_trick_led_by_action_card_is_open_until_a_colour():
    events = START + [play("Ann", "+5"), play("Ben", "G3"), play("Cat", "Y1")]
    t = tricks(events)
    assert t[0].led_color == "G" and t[0].winner == seat("Cat") and t[0].plus5 == 1


def test_joker_needs_a_colour():
    assert_illegal(check(H, START + [play("Ann", "JOKER")]), 7, "without naming its colour")
    assert_illegal(check(H, START + [play("Ann", "JOKER", "X")]), 7, "not a colour")


def test_non_trump_joker_loses_to_any_trump():
    t = tricks(START + [play("Ann", "JOKER", "R"), play("Ben", "R5"), play("Cat", "Y1")])
    assert t[0].led_color == "R" and t[0].winner == seat("Cat")


def test_second_joker_beats_the_first():
    t = tricks(START + [play("Ann", "JOKER", "Y"), play("Ben", "JOKER", "Y"), play("Cat", "Y2")])
    assert t[0].winner == seat("Ben") and t[0].winning_card.name == "JOKER"


def test_joker_tops_its_colour_when_no_trump_falls():
    t = tricks(START + [play("Ann", "JOKER", "O"), play("Ben", "O6"), play("Cat", "O10")])
    assert t[0].winner == seat("Ann")


def test_all_action_trick_is_won_by_its_first_card():
    events = START + [play("Ann", "+5"), play("Ben", "NOTRUMP"), play("Cat", "-5"), trump("G15")]
    t = tricks(events)
    assert t[0].winner == seat("Ann") and t[0].led_color is None


# ------------------------------------------------------------ NOTRUMP and CHANGE
def test_notrump_makes_trump_ordinary_and_turns_a_new_trump_after_the_trick():
    events = START + [play("Ann", "NOTRUMP"), play("Ben", "G3"), play("Cat", "Y1")]
    t = tricks(events)
    assert t[0].notrump and t[0].trump is None and t[0].winner == seat("Ben")
    assert_illegal(check(H, events + [play("Ben", "O3")]), 10, "expected a trump event")
    r = run(H, events + [trump("+5"), trump("B15"), play("Ben", "O3")])
    assert r.status == "incomplete", r.error
    assert r.state.trump == "B"


def test_change_turns_a_trump_at_once_for_this_trick():
    events = START + [play("Ann", "G5"), play("Ben", "G3")]
    assert_illegal(check(H, events + [play("Cat", "CHANGE"), play("Cat", "O7")]), 10,
                   "expected a trump event", "CHANGE")
    t = tricks(events + [play("Cat", "CHANGE"), trump("G15")])
    assert t[0].change and t[0].trump == "G" and t[0].winner == seat("Ann")


def test_notrump_and_change_in_one_trick():
    events = START + [play("Ann", "NOTRUMP"), play("Ben", "CHANGE"), trump("G15"),
                      play("Cat", "Y1")]
    t = tricks(events)
    assert t[0].notrump and t[0].trump is None and t[0].winner == seat("Cat")
    assert_illegal(check(H, events + [trump("B15")]), 11, "no trump is turned now")
    t = tricks(events + [play("Cat", "Y2"), play("Ann", "G5"), play("Ben", "O3")])
    assert t[1].trump == "G" and t[1].winner == seat("Ann")


def test_card_not_in_hand_and_out_of_turn():
    assert_illegal(check(H, START + [play("Ann", "R11")]), 7, "not in Ann's hand")
    assert_illegal(check(H, START + [play("Ben", "R5")]), 7, "out of turn", "Ann")
    assert_illegal(check(H, START + [play("Ann", "Z9")]), 7, "not a rage card")


def test_deal_sizes_and_counts():
    ev = deal()
    ev["hands"]["Ann"] = ev["hands"]["Ann"][:9]
    assert_illegal(check(H, [ev]), 2, "deals 10 cards each", "Ann got 9")
    ev = deal()
    ev["hands"]["Ann"][0] = "O3"
    assert_illegal(check(H, [ev]), 2, "O3 is dealt more often")


# ------------------------------------------------------------ scoring
@pytest.mark.parametrize("won,bid,p5,m5,tricks,march,expected", [
    (2, 2, 0, 0, 5, False, 12),
    (2, 2, 1, 0, 5, False, 17),
    (1, 2, 0, 1, 5, False, -9),
    (0, 0, 0, 0, 5, False, 10),
    (3, 1, 2, 1, 5, False, 3 - 5 + 10 - 5),
    (5, 5, 0, 0, 5, True, 20),     # marching through a middle round: 2 per trick
    (5, 4, 0, 0, 5, True, 5),
    (1, 1, 0, 0, 1, True, 11),     # not in a round of one trick
    (4, 5, 0, 0, 5, True, -1),     # did not take every trick
])
def test_scoring(won, bid, p5, m5, tricks, march, expected):
    assert score_round(won, bid, p5, m5, tricks, march)[0] == expected


def test_score_derivation_text():
    assert score_round(2, 2, 1, 0, 8, False)[2] == "2 tricks, bid 2 -> 2 + 10 = 12, +5 card -> 17"


def test_marching_through_in_a_game():
    # 3 players, round 10 deals one card; a winner of every trick in round 9 (2 tricks) marches
    h = header("rage", 3, variants=["marching_through"])
    for seed in range(40):
        state, _ = play_game(h, {p: RandomBot() for p in NAMES[:3]}, random.Random(seed))
        settled = [f for f in state.facts if isinstance(f, BidSettled)]
        for f in settled:
            assert f.marching == (f.won == f.hand_size and f.hand_size > 1)
            if f.marching:
                assert f.score == 2 * f.won + (10 if f.exact else -5) + 5 * (f.plus5 - f.minus5)
        if any(f.marching and f.round < 10 for f in settled):
            return
    raise AssertionError("no game marched through in 40 seeds")


# ------------------------------------------------------------ property
@settings(max_examples=12, deadline=None)
@given(n=st.integers(3, 8), seed=st.integers(0, 10**6),
       variants=st.sets(st.sampled_from(["plus_minus_one", "hidden_bid", "secret_bid",
                                         "marching_through"])))
def test_random_legal_games_are_complete_and_deterministic(n, seed, variants):
    h = header("rage", n, variants=sorted(variants))
    _, events = play_game(h, {p: RandomBot() for p in NAMES[:n]}, random.Random(seed), claims=True)
    data = log_bytes(h, events)
    a, b = replay_bytes(data, "g.jsonl"), replay_bytes(data, "g.jsonl")
    assert a.status == "complete", a.error
    assert a.facts == b.facts
    v = verdict(a)
    assert len(v["rounds"]) == 10 and all(c["match"] for c in v["claims"])
    assert [r["tricks"] for r in v["rounds"]] == list(range(10, 0, -1))


@pytest.mark.parametrize("variants", [[], ["hidden_bid"], ["secret_bid"],
                                      ["secret_bid", "plus_minus_one"]])
def test_the_simulated_tables_bidder_is_one_the_bidding_rule_lets_bid(variants):
    # who bids next at a simulated table is asked of why_no_bid, the one rule of who may bid
    h = header("rage", 4, variants=variants, rounds=3)
    _, events = play_game(h, {p: RandomBot() for p in NAMES[:4]}, random.Random(7))
    data = log_bytes(h, events)
    lines = data.splitlines()
    seen_bids = 0
    for i in range(1, len(lines) + 1):
        state = replay_bytes(b"\n".join(lines[:i]), "g.jsonl").state
        bidders = {m["player"] for m in state.legal_moves() if m["type"] == "bid"}
        choices = state.choices() if state.to_move() is not None else []
        if bidders:
            seen_bids += 1
            assert choices and all(m["type"] == "bid" for m in choices)
            assert state.to_move() in bidders
            assert state.why_no_bid(state.seat[state.to_move()]) is None
        else:
            assert all(m["type"] != "bid" for m in choices)
    assert seen_bids >= 12
