"""docs/rules.md section 3 (color_stacks): each rule obeyed and broken, with the line checked."""

from __future__ import annotations

import random

from helpers import NAMES, assert_illegal, check, header, log_bytes, run, seat
from hypothesis import given, settings
from hypothesis import strategies as st

from trickledger.replay.bots import RandomBot
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.games.color_stacks import HandScored, TurnTaken
from trickledger.replay.simulate import play_game

H3 = header("color_stacks", 3, suits=["R", "Y", "G", "B"])
HANDS3 = {
    "Ann": ["R1", "R2", "R3", "R4", "R5", "R6", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"],
    "Ben": ["R7", "R8", "R9", "Y7", "Y8", "Y9", "G1", "G2", "G3", "G4", "G5", "G6"],
    "Cat": ["G7", "G8", "G9", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9"],
}


def deal3(**extra):
    ev = {"type": "deal", "hands": {p: list(h) for p, h in HANDS3.items()}}
    ev.update(extra)
    return ev


def place(p, *cards):
    return {"type": "place", "player": p, "cards": list(cards)}


def draw(p, *cards):
    return {"type": "draw", "player": p, "cards": list(cards)}


OPENING = [deal3(), place("Ann", "R1", "R2"), place("Ben", "R7", "R8"), place("Cat", "B1", "B2"),
           place("Ann", "R3", "Y1")]  # lines 2-6; red stack at 5


def test_game_ends_at_exactly_six():
    v = check(H3, OPENING + [place("Ben", "R9", "G1")])
    assert v["status"] == "complete"
    assert v["rounds"][0]["ender"] == "Ben" and v["rounds"][0]["turns"] == 5
    # Ben: Y7 Y8 Y9 on a yellow stack of 1 = 3, G2-G6 on green 1 = 5, ender +2
    assert v["rounds"][0]["scores"] == {"Ann": 0 + 5 * 1, "Ben": 3 + 5 + 2, "Cat": 3 * 1 + 7 * 2}


def test_game_ends_at_seven_two_cards_onto_five():
    r = run(H3, OPENING + [place("Ben", "G1", "G2"), place("Cat", "B3", "B4"),
                           place("Ann", "R4", "R5")])
    v = verdict(r)
    assert v["status"] == "complete" and v["rounds"][0]["ender"] == "Ann"
    last = [f for f in r.facts if isinstance(f, TurnTaken)][-1]
    assert dict(last.stacks)["R"] == 7 and last.ended
    ann = next(f for f in r.facts if isinstance(f, HandScored) and f.player == seat("Ann"))
    assert ann.breakdown == (("R", 1, 7, 0), ("Y", 5, 1, 5)) and ann.score == 7
    assert r.state.rounds[0].derivations[seat("Ann")] == \
        "R: 1 in hand × stack 7 = 0, Y: 5 in hand × stack 1 = 5, ender +2 -> 7"


def test_anything_after_the_game_ended():
    v = check(H3, OPENING + [place("Ben", "R9", "G1"), place("Cat", "B3", "B4")])
    assert_illegal(v, 8, "the game is over")


def test_a_turn_places_exactly_two_cards():
    assert_illegal(check(H3, [deal3(), place("Ann", "R1")]), 3, "exactly two cards on the stacks, got 1")
    assert_illegal(check(H3, [deal3(), place("Ann", "R1", "R2", "R3")]), 3, "got 3")
    assert_illegal(check(H3, [deal3(), place("Ann", "R1", "R1")]), 3, "twice")


def test_card_not_in_hand_or_not_in_the_suits():
    assert_illegal(check(H3, [deal3(), place("Ann", "R1", "G1")]), 3, "G1", "not in Ann's hand")
    assert_illegal(check(H3, [deal3(), place("Ann", "R1", "O1")]), 3, "O1 is not a card of this game")


def test_place_out_of_turn():
    assert_illegal(check(H3, [deal3(), place("Ben", "R7", "R8")]), 3, "out of turn", "Ann")


def test_wrong_deals():
    ev = deal3()
    ev["hands"]["Ann"] = ev["hands"]["Ann"][:11]
    assert_illegal(check(H3, [ev]), 2, "12 cards", "Ann got 11")
    ev = deal3()
    ev["hands"]["Ann"][0] = "B9"
    assert_illegal(check(H3, [ev]), 2, "B9 is dealt twice")
    assert_illegal(check(H3, [deal3(pile=["R1"])]), 2, "only a two-player game has a 'pile'")
    h4 = header("color_stacks", 4, suits=["R", "Y", "G", "B", "P"])
    cards = [f"{s}{v}" for s in "RYGBP" for v in range(1, 10)]
    hands = {p: cards[i * 11:(i + 1) * 11] for i, p in enumerate(NAMES[:4])}
    assert_illegal(check(h4, [{"type": "deal", "hands": hands}]), 2, "needs 'aside'")
    ok = check(h4, [{"type": "deal", "hands": hands, "aside": ["P9"]}])
    assert ok["status"] == "incomplete"
    assert_illegal(check(h4, [{"type": "deal", "hands": hands, "aside": ["P8"]}]), 2, "twice")


def test_header_needs_the_right_number_of_suits():
    v = check(header("color_stacks", 4, suits=["R", "Y", "G", "B"]), [])
    assert v["status"] == "unreadable" and "5 suits" in v["error"]["message"]
    assert check(header("color_stacks", 3), [])["status"] == "unreadable"


# ------------------------------------------------------------ two players
H2 = header("color_stacks", 2, suits=["R", "Y", "G", "B"])
PILE = ["R7", "R8", "R9", "Y7", "Y8", "Y9", "G7", "G8", "G9", "B7", "B8", "B9"]


def deal2(pile=PILE):
    return {"type": "deal", "pile": list(pile), "hands": {
        "Ann": ["R1", "R2", "R3", "R4", "Y1", "Y2", "Y3", "Y4", "G1", "G2", "G3", "G4"],
        "Ben": ["R5", "R6", "Y5", "Y6", "G5", "G6", "B1", "B2", "B3", "B4", "B5", "B6"]}}


def test_two_player_draw_that_ends_the_game():
    events = [deal2(), place("Ann", "R1", "R2"), place("Ben", "B1", "B2"), draw("Ann", "R7", "R8"),
              place("Ann", "R3", "Y1"), place("Ben", "B3", "B4"), draw("Ben", "R9", "Y7")]
    v = check(H2, events)
    assert v["status"] == "complete", v["error"]
    assert v["rounds"][0]["ender"] == "Ben" and v["rounds"][0]["turns"] == 4


def test_two_player_place_while_a_draw_is_due():
    events = [deal2(), place("Ann", "R1", "R2"), place("Ben", "B1", "B2"), place("Ann", "R3", "Y1")]
    assert_illegal(check(H2, events), 5, "must be drawn first")


def test_two_player_draw_must_match_the_pile_top():
    events = [deal2(), place("Ann", "R1", "R2"), place("Ben", "B1", "B2"), draw("Ann", "R8", "R7")]
    assert_illegal(check(H2, events), 5, "top two cards in order", "R7 R8")


def test_draw_at_the_wrong_time():
    assert_illegal(check(H2, [deal2(), place("Ann", "R1", "R2"), draw("Ann", "R7", "R8")]), 4,
                   "no draw is due")
    assert_illegal(check(H3, [deal3(), draw("Ann", "R1", "R2")]), 3, "only in a two-player game")


def test_two_player_deal_needs_the_pile():
    ev = deal2()
    del ev["pile"]
    assert_illegal(check(H2, [ev]), 2, "needs 'pile'")
    assert_illegal(check(H2, [deal2(PILE[:10])]), 2, "12 cards, got 10")


# ------------------------------------------------------------ whole games
def sim(n, seed, variants=()):
    suits = ["R", "Y", "G", "B", "P"][: 5 if n == 4 else 4]
    h = header("color_stacks", n, suits=suits, variants=list(variants))
    _, events = play_game(h, {p: RandomBot() for p in NAMES[:n]}, random.Random(seed), claims=True)
    return log_bytes(h, events)


def test_three_rounds_rotate_the_dealer_and_add_up():
    v = verdict(replay_bytes(sim(3, 4, ["three_rounds"]), "g.jsonl"))
    assert v["status"] == "complete" and len(v["rounds"]) == 3
    assert [r["dealer"] for r in v["rounds"]] == ["Cat", "Ann", "Ben"]
    for p in v["players"]:
        assert v["totals"][p] == sum(r["scores"][p] for r in v["rounds"])


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 10**6), three=st.booleans())
def test_random_legal_games(n, seed, three):
    data = sim(n, seed, ["three_rounds"] if three else [])
    a, b = replay_bytes(data, "g.jsonl"), replay_bytes(data, "g.jsonl")
    assert a.status == "complete", a.error
    assert a.facts == b.facts
    for f in a.facts:
        if isinstance(f, TurnTaken):
            assert f.ended == (max(k for _, k in f.stacks) >= 6)
