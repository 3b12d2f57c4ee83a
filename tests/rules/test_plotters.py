"""docs/rules.md section 1, rule by rule: a log that obeys it and a log that breaks it."""

from __future__ import annotations

import random

import pytest
from helpers import NAMES, assert_illegal, check, fill_hands, header, log_bytes, names, run, seat
from hypothesis import given, settings
from hypothesis import strategies as st

from trickledger.replay.bots import RandomBot
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.games.plotters import DECK_TOP, TrickFinished, score
from trickledger.replay.reader import read_bytes
from trickledger.replay.simulate import play_game
from trickledger.replay.writer import rewrite


def deck(n: int) -> list[str]:
    return [f"{c}{v}" for c in "BGRY" for v in range(1, DECK_TOP[n][c] + 1)]


def deal(n: int, fixed: dict[str, list[str]], **extra) -> dict:
    ev = {"type": "deal", "hands": fill_hands(deck(n), n, 14, fixed)}
    ev.update(extra)
    return ev


def play(p: str, c: str) -> dict:
    return {"type": "play", "player": p, "card": c}


def take(p: str, *cards: str) -> dict:
    return {"type": "take", "player": p, "cards": list(cards)}


H4 = header("plotters", 4)
H5 = header("plotters", 5)


# ------------------------------------------------------------ scoring examples
@pytest.mark.parametrize("open_bgry,discards,expected", [
    ([0, 5, 6, 3], 0, 10),   # open 5 green, 6 red, 3 yellow
    ([4, 0, 5, 3], 0, 6),    # open 5 red, 4 blue, 3 yellow
    ([7, 8, 0, 0], 4, 14),   # open 7 blue, 8 green, 4 discarded
    ([1, 0, 1, 7], 0, 7),    # open 7 yellow, 1 red, 1 blue
    ([5, 3, 0, 0], 0, 15),   # open 3 green, 5 blue, nothing else
    ([0, 0, 9, 0], 3, 0),    # one colour only
    ([0, 0, 0, 0], 0, 0),    # nothing collected
])
def test_rule_book_scoring_examples(open_bgry, discards, expected):
    assert score(open_bgry, discards)[0] == expected


def test_score_derivation_text():
    assert score([0, 5, 6, 3], 0)[1] == "open G×5 R×6, other 3 -> 5×6=30 // 3 = 10"


# ------------------------------------------------------------ the trick example
def example_trick_log():
    # A red 10 (led), B yellow 6, C red 14, D blue 2, E yellow 16
    fixed = {"Ann": ["R10"], "Ben": ["Y6"], "Cat": ["R14"], "Dan": ["B2", "B1"], "Eve": ["Y16", "G9"]}
    return [deal(5, fixed), play("Ann", "R10"), play("Ben", "Y6"), play("Cat", "R14"),
            play("Dan", "B2")]


def test_rule_book_trick_example():
    events = example_trick_log() + [play("Eve", "Y16"), take("Cat", "R10", "R14", "Y16"),
                                    play("Dan", "B1")]
    r = run(H5, events)
    assert r.status == "incomplete", r.error
    trick = next(f for f in r.facts if isinstance(f, TrickFinished))
    assert trick.first_winner == seat("Cat") and trick.second_winner == seat("Dan")
    assert names(trick.rest) == ("Y6", "B2")
    assert trick.next_leader == seat("Dan")


def test_rule_book_trick_example_green_was_not_allowed():
    v = check(H5, example_trick_log() + [play("Eve", "G9")])
    assert_illegal(v, 7, "Eve cannot play G9", "at most three colours", "Eve holds")


def test_first_winner_must_take_three_of_five():
    v = check(H5, example_trick_log() + [play("Eve", "Y16"), take("Cat", "R10", "R14")])
    assert_illegal(v, 8, "must take 3 cards")


def test_take_by_wrong_player():
    v = check(H5, example_trick_log() + [play("Eve", "Y16"), take("Dan", "R10", "R14", "B2")])
    assert_illegal(v, 8, "Dan cannot take", "Cat")


def test_take_card_not_in_trick():
    v = check(H5, example_trick_log() + [play("Eve", "Y16"), take("Cat", "R10", "R14", "R1")])
    assert_illegal(v, 8, "R1", "not in the trick")


def test_take_same_card_twice():
    v = check(H5, example_trick_log() + [play("Eve", "Y16"), take("Cat", "R10", "R10", "Y16")])
    assert_illegal(v, 8, "twice")


def test_take_before_trick_is_complete():
    v = check(H5, example_trick_log() + [take("Cat", "R10", "R14", "B2")])
    assert_illegal(v, 7, "no trick is waiting")


def test_play_instead_of_take():
    v = check(H5, example_trick_log() + [play("Eve", "Y16"), play("Dan", "B1")])
    assert_illegal(v, 8, "Cat must first take")


# ------------------------------------------------------------ second winner ties
def test_equal_lowest_non_led_first_played_wins_second_part():
    fixed = {"Ann": ["R5"], "Ben": ["G2"], "Cat": ["B2"], "Dan": ["R1"]}
    events = [deal(4, fixed), play("Ann", "R5"), play("Ben", "G2"), play("Cat", "B2"),
              play("Dan", "R1"), take("Ann", "R5", "R1")]
    r = run(H4, events)
    trick = next(f for f in r.facts if isinstance(f, TrickFinished))
    assert trick.first_winner == seat("Ann") and trick.second_winner == seat("Ben")
    assert names(trick.rest) == ("G2", "B2")
    v = check(H4, events + [play("Cat", "B3")])
    assert_illegal(v, 8, "Cat plays out of turn", "Ben")


def test_monochrome_trick_discards_the_rest_and_first_winner_leads():
    fixed = {"Ann": ["R5"], "Ben": ["R2"], "Cat": ["R9"], "Dan": ["R1"]}
    events = [deal(4, fixed), play("Ann", "R5"), play("Ben", "R2"), play("Cat", "R9"),
              play("Dan", "R1"), take("Cat", "R9", "R5")]
    r = run(H4, events)
    trick = next(f for f in r.facts if isinstance(f, TrickFinished))
    assert trick.second_winner is None
    assert names(trick.rest) == ("R2", "R1") and trick.next_leader == seat("Cat")
    v = check(H4, events + [play("Ben", "B3")])
    assert_illegal(v, 8, "out of turn", "Cat")


# ------------------------------------------------------------ early end
def early_end_log():
    ys = [f"Y{v}" for v in range(1, 15)]
    fixed = {"Ann": ["R1"], "Ben": ["G1"], "Cat": ["B1"], "Dan": ys}
    return [deal(4, fixed), play("Ann", "R1"), play("Ben", "G1"), play("Cat", "B1")]


def test_early_end_when_next_player_holds_only_the_fourth_colour():
    v = check(H4, early_end_log())
    assert v["status"] == "incomplete"
    assert v["rounds"] == [{"round": 1, "dealer": "Dan", "tricks": 0, "ended_early": True,
                            "early_end_player": "Dan",
                            "scores": {"Ann": 0, "Ben": 0, "Cat": 0, "Dan": 0}}]


def test_nothing_may_be_played_after_an_early_end():
    v = check(H4, early_end_log() + [play("Dan", "Y1")])
    assert_illegal(v, 6, "round 1 is over")


def test_next_deal_after_early_end_is_accepted():
    v = check(H4, early_end_log() + [deal(4, {})])
    assert v["status"] == "incomplete" and len(v["rounds"]) == 1


def test_fourth_colour_while_holding_a_legal_card():
    fixed = {"Ann": ["R1"], "Ben": ["G1"], "Cat": ["B1"], "Dan": ["Y1", "R2"]}
    events = [deal(4, fixed), play("Ann", "R1"), play("Ben", "G1"), play("Cat", "B1"),
              play("Dan", "Y1")]
    assert_illegal(check(H4, events), 6, "Dan cannot play Y1", "R2")


# ------------------------------------------------------------ keep
def keep_log():
    fixed = {"Ann": ["R14", "Y14", "B14"], "Ben": ["G1", "Y1", "G5"],
             "Cat": ["B2", "R3", "B5"], "Dan": ["R1", "G3", "B6"]}
    return [deal(4, fixed),
            play("Ann", "R14"), play("Ben", "G1"), play("Cat", "B2"), play("Dan", "R1"),
            take("Ann", "G1", "B2"),          # Ben (G1) gets R14 R1 and leads
            play("Ben", "Y1"), play("Cat", "R3"), play("Dan", "G3"), play("Ann", "Y14"),
            take("Ann", "Y1", "R3")]          # Ann now holds all four colours


def test_keep_after_the_fourth_colour():
    events = keep_log() + [{"type": "keep", "player": "Ann", "colors": ["r", "Y"]},
                           play("Cat", "B5"), play("Dan", "B6"), play("Ann", "B14"),
                           play("Ben", "G5"), take("Ann", "B5", "B6")]
    r = run(H4, events)
    assert r.status == "incomplete", r.error
    last = [f for f in r.facts if isinstance(f, TrickFinished)][-1]
    ann = last.stacks[0]
    assert ann == (0, 0, 1, 1, 4)  # B G R Y open, then discards: G1 B2 at the keep, B5 B6 after


def test_missing_keep_is_reported_at_the_next_play():
    v = check(H4, keep_log() + [play("Cat", "B5")])
    assert_illegal(v, 13, "Ann", "must choose two to keep")


def test_missing_keep_is_reported_at_a_claim():
    v = check(H4, keep_log() + [{"type": "claim", "totals": {"Ann": 0}}])
    assert_illegal(v, 13, "must choose two to keep")


def test_keep_by_a_player_who_does_not_owe_one():
    v = check(H4, keep_log() + [{"type": "keep", "player": "Ben", "colors": ["R", "G"]}])
    assert_illegal(v, 13, "Ben cannot choose colours now")


def test_keep_at_the_wrong_time():
    events = keep_log()[:5] + [{"type": "keep", "player": "Ann", "colors": ["G", "B"]}]
    assert_illegal(check(H4, events), 7, "Ann cannot choose colours now")


def test_keep_needs_two_different_colours():
    v = check(H4, keep_log() + [{"type": "keep", "player": "Ann", "colors": ["R", "R"]}])
    assert_illegal(v, 13, "two different colours")
    v = check(H4, keep_log() + [{"type": "keep", "player": "Ann", "colors": ["R"]}])
    assert_illegal(v, 13, "two different colours")


def test_log_ending_while_keep_owed_is_incomplete_and_unscored():
    v = check(H4, keep_log())
    assert v["status"] == "incomplete" and v["rounds"] == []


# ------------------------------------------------------------ deals, rounds, dealers
def test_deck_per_player_count():
    assert_illegal(check(H4, [deal(4, {"Ann": ["R15"]})]), 2, "R15", "not in the 4-player deck")
    assert_illegal(check(H5, [deal(5, {"Ann": ["B18"]})]), 2, "B18", "not in the 5-player deck")
    assert check(H5, [deal(5, {"Ann": ["R18", "Y18"]})])["status"] == "incomplete"
    h6 = header("plotters", 6)
    assert check(h6, [deal(6, {"Ann": ["B21"]})])["status"] == "incomplete"


def test_deal_sizes_and_duplicates():
    ev = deal(4, {})
    ev["hands"]["Ann"] = ev["hands"]["Ann"][:13]
    assert_illegal(check(H4, [ev]), 2, "Ann must get 14 cards, got 13")
    ev = deal(4, {})
    ev["hands"]["Ben"][0] = ev["hands"]["Ann"][0]
    assert_illegal(check(H4, [ev]), 2, "dealt twice")


def test_dealer_and_leader_checks():
    assert_illegal(check(H4, [deal(4, {}, dealer="Ann")]), 2, "dealt by Dan")
    assert_illegal(check(H4, [deal(4, {}, leader="Cat")]), 2, "led by Ann")
    inc = header("plotters", 4, edition="plotters-inc")
    events = [deal(4, {"Cat": ["R1"]}, leader="Cat"), play("Cat", "R1")]
    assert check(inc, events)["status"] == "incomplete"
    assert_illegal(check(inc, [deal(4, {}), play("Cat", "B1")]), 3, "out of turn", "Ann")


def game_log(n: int, seed: int, **extra) -> bytes:
    h = header("plotters", n, **extra)
    _, events = play_game(h, {p: RandomBot() for p in NAMES[:n]}, random.Random(seed))
    return log_bytes(h, events)


@pytest.mark.parametrize("n", [4, 5, 6])
def test_full_game_has_as_many_rounds_as_players_and_rotating_dealers(n):
    v = verdict(replay_bytes(game_log(n, seed=n), "g.jsonl"))
    assert v["status"] == "complete"
    assert [r["dealer"] for r in v["rounds"]] == [NAMES[(n - 1 + i) % n] for i in range(n)]
    assert v["winners"] and all(v["totals"][w] == max(v["totals"].values())
                                for w in v["winners"])


def test_plotters_inc_later_rounds_follow_the_dealer_rule():
    data = game_log(4, seed=3, edition="plotters-inc")
    lines = data.splitlines()
    # the second deal names a leader who is not left of its dealer (Ann deals, Ben leads)
    second = [i for i, ln in enumerate(lines) if b'"deal"' in ln][1]
    lines[second] = lines[second][:-1] + b',"leader":"Dan"}'
    v = verdict(replay_bytes(b"\n".join(lines), "g.jsonl"))
    assert_illegal(v, second + 1, "led by Ben")


def test_events_after_the_game_is_over():
    data = game_log(4, seed=9) + b'{"type":"deal","hands":{}}\n'
    v = verdict(replay_bytes(data, "g.jsonl"))
    assert_illegal(v, len(data.splitlines()), "the game is over")


def test_mit_list_und_tuecke_alias():
    data = game_log(4, seed=1).replace(b'"game":"plotters"', b'"game":"mit-list-und-tuecke"', 1)
    v = verdict(replay_bytes(data, "g.jsonl"))
    assert v["status"] == "complete" and v["game"] == "plotters"


# ------------------------------------------------------------ property tests
@settings(max_examples=15, deadline=None)
@given(n=st.integers(4, 6), seed=st.integers(0, 10**6))
def test_random_legal_games_replay_deterministically_and_round_trip(n, seed):
    data = game_log(n, seed)
    a = replay_bytes(data, "g.jsonl")
    b = replay_bytes(data, "g.jsonl")
    assert a.status == "complete", a.error
    assert a.facts == b.facts
    again = rewrite(read_bytes(data, "g.jsonl"))
    assert again == data
    assert replay_bytes(again, "g.jsonl").facts == a.facts
