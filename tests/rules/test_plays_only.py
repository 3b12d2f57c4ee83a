"""Plays-only rounds (docs/format.md, "Plays-only rounds"): what is checked as the cards
come, what only once the hands are inferred, the `shown` event, what stays unknown — each
rule broken on a line of its own — and revokes injected into simulated games, found on the
line the full log finds them, with both cards named."""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
from helpers import assert_illegal, check, header

from trickledger.replay.engine import new_state, replay_bytes, verdict
from trickledger.replay.events import Event
from trickledger.replay.games.rage import RageTrickFinished
from trickledger.replay.playsonly import plays_only, with_shown
from trickledger.replay.reader import parse_header
from trickledger.replay.simulate import SimOptions, simulate_one


def deal(**extra: Any) -> dict[str, Any]:
    return {"type": "deal", **extra}


def play(p: str, c: str, as_: str | None = None) -> dict[str, Any]:
    ev: dict[str, Any] = {"type": "play", "player": p, "card": c}
    if as_:
        ev["as"] = as_
    return ev


def shown(p: str, *cards: str) -> dict[str, Any]:
    return {"type": "shown", "player": p, "cards": list(cards)}


# ------------------------------------------------------------ rage: what each play shows

R3 = header("rage", 3, rounds=1)  # one round of 10 cards: Ann leads (the dealer is Cat)
RAGE_START = [deal(), {"type": "trump", "card": "Y15"},
              {"type": "bid", "player": "Ann", "bid": 1}, {"type": "bid", "player": "Ben", "bid": 1},
              {"type": "bid", "player": "Cat", "bid": 1}]  # lines 2-6


def test_a_revoke_is_found_on_its_line_naming_both_cards() -> None:
    # Ben does not follow red in trick 1 (line 8), then plays R2 in trick 2 (line 11)
    events = RAGE_START + [play("Ann", "R10"), play("Ben", "G5"), play("Cat", "R4"),
                           play("Ann", "R11"), play("Ben", "R2"), play("Cat", "R5")]
    v = check(R3, events)  # the log stops mid-round: what the plays show is checked
    assert_illegal(v, 8, "Ben played G5 on a red lead while holding R2",
                   "Ben played R2 in trick 2, line 11", "a revoke")


def test_a_card_before_the_one_that_proves_it_is_no_revoke_yet() -> None:
    events = RAGE_START + [play("Ann", "R10"), play("Ben", "G5"), play("Cat", "R4")]
    v = check(R3, events)
    assert v["status"] == "incomplete", v["error"]


def test_an_action_card_on_a_lead_the_player_could_follow() -> None:
    events = RAGE_START + [play("Ann", "R10"), play("Ben", "JOKER", "B"), play("Cat", "R4"),
                           play("Ann", "G1"), play("Ben", "R2")]
    assert_illegal(check(R3, events), 8, "Ben played JOKER on a red lead while holding R2",
                   "action cards may be played only by the leader")


def test_the_first_violation_is_the_one_reported() -> None:
    # the revoke on line 8 is proven on line 11; Cat's play out of turn on line 12 comes later
    events = RAGE_START + [play("Ann", "R10"), play("Ben", "G5"), play("Cat", "R4"),
                           play("Ann", "R11"), play("Ben", "R2"), play("Ann", "R5")]
    assert_illegal(check(R3, events), 8, "Ben played G5 on a red lead while holding R2")
    # proven only after the out-of-turn play: that one is the first that can be shown
    events = RAGE_START + [play("Ann", "R10"), play("Ben", "G5"), play("Ann", "R4")]
    assert_illegal(check(R3, events), 9, "Ann plays out of turn")


def test_what_needs_no_hand_is_checked_as_the_cards_come() -> None:
    base = RAGE_START + [play("Ann", "R10")]
    assert_illegal(check(R3, base + [play("Cat", "R4")]), 8, "Cat plays out of turn")
    assert_illegal(check(R3, base + [play("Ben", "R10")]), 8, "Ben cannot play R10",
                   "Ann played it in trick 1 (line 7)")
    assert_illegal(check(R3, base + [play("Ben", "Y15")]), 8, "Ben cannot play Y15",
                   "turned up as trump (line 3)")
    assert_illegal(check(R3, base + [play("Ben", "R16")]), 8, "'R16' is not a rage card")
    jokers = RAGE_START + [play("Ann", "JOKER", "R"), play("Ben", "JOKER", "G"),
                           play("Cat", "JOKER", "B")]
    assert_illegal(check(R3, jokers), 9, "the deck holds 2 JOKER, and all were seen")
    bids = [deal(), {"type": "trump", "card": "Y15"}, {"type": "bid", "player": "Ben", "bid": 1}]
    assert_illegal(check(R3, bids), 4, "Ben bids out of turn")


def test_a_deal_without_hands_gives_nothing_else_either() -> None:
    v = check(header("color_stacks", 2, suits=list("RGBY")), [deal(pile=["R1", "R2"])])
    assert_illegal(v, 2, "a deal without hands gives no 'pile' either")


def test_a_card_turned_up_as_trump_is_in_nobodys_hand() -> None:
    head = header("rage", 3, rounds=10)
    events = [deal(), {"type": "trump", "card": "B3"}] + [
        {"type": "bid", "player": p, "bid": 0} for p in ("Ann", "Ben", "Cat")] + [
        play("Ann", "B3")]
    assert_illegal(check(head, events), 7, "Ann cannot play B3", "turned up as trump (line 3)")


# ------------------------------------------------------------ plotters: three colours, early ends

P4 = header("plotters", 4, rounds=1)  # Dan deals, Ann leads


def test_a_fourth_colour_is_refused_at_once() -> None:
    events = [deal(), play("Ann", "R1"), play("Ben", "B2"), play("Cat", "G3"), play("Dan", "Y4")]
    assert_illegal(check(P4, events), 6, "Dan cannot play Y4",
                   "the trick already holds R, B and G (a trick holds at most three colours)")
    assert_illegal(check(P4, [deal(), play("Ann", "R15")]), 3, "Ann cannot play R15",
                   "is not in the 4-player deck")


def test_an_early_end_is_said_by_what_follows_the_plays() -> None:
    data = _early_end_full()
    full = replay_bytes(data, "full.jsonl")
    assert full.status == "complete" and verdict(full)["rounds"][0]["ended_early"]
    v_full = verdict(replay_bytes(with_shown(data), "a"))
    for variant in (plays_only(data), plays_only(data, shown=False) + _claim_line(full),
                    plays_only(data, shown=False) + _deal_line()):
        v = verdict(replay_bytes(variant, "po.jsonl"))
        assert v["rounds"][0] == {**v_full["rounds"][0], **({"unknown": v["rounds"][0]["unknown"]}
                                                            if "unknown" in v["rounds"][0] else {})}
    bare = verdict(replay_bytes(plays_only(data, shown=False), "bare.jsonl"))
    assert bare["status"] == "incomplete"  # nothing after the last play says the round ended
    unknown = verdict(replay_bytes(plays_only(data, shown=False) + _claim_line(full), "c"))
    notes = " ".join(unknown["rounds"][0]["unknown"])
    assert "never played nor shown" in notes and "held only the fourth colour" in notes


def _early_end_full() -> bytes:
    """A simulated plotters game of one round that ends early (found by seed)."""
    for i in range(400):
        opts = SimOptions(game="plotters", games=1, players=(4, 4), seed=3, rounds=1,
                          bots=("random",))
        _, data, _ = simulate_one(opts, i)
        v = verdict(replay_bytes(data, "x"))
        if v["rounds"][0]["ended_early"]:
            return data
    raise AssertionError("no early end in 400 simulated rounds")


def _claim_line(full: Any) -> bytes:
    return orjson.dumps({"type": "claim", "round": 1, "scores": dict(zip(
        full.state.players, full.state.rounds[0].scores))}) + b"\n"


def _deal_line() -> bytes:
    return b'{"type": "deal"}\n'


def _lines(data: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(x) for x in data.splitlines()]


def test_an_early_end_that_a_shown_card_contradicts() -> None:
    data = _early_end_full()
    full = replay_bytes(data, "full.jsonl")
    early = full.state.rounds[0].outcome.early_end_player
    po = _lines(plays_only(data))
    trick = [f for f in full.facts if type(f).__name__ == "RoundEnded"][0].unfinished
    colours = {c.color for _, c in trick}
    name = full.state.players[early]
    # give the player who could not play a card of the trick's colours, from another's hand
    for i, ev in enumerate(po):
        if ev.get("type") == "shown" and ev["player"] != name:
            fits = [c for c in ev["cards"] if c[0] in colours]
            if fits:
                mine = next(j for j, e in enumerate(po) if e.get("type") == "shown"
                            and e["player"] == name)
                given, taken = fits[0], po[mine]["cards"][0]
                po[i]["cards"] = [taken if c == given else c for c in ev["cards"]]
                po[mine]["cards"] = [given] + po[mine]["cards"][1:]
                v = verdict(replay_bytes(b"\n".join(orjson.dumps(e) for e in po) + b"\n", "x"))
                assert_illegal(v, mine + 1, "the round cannot end early here",
                               f"{name} shows {given}", "could play it")
                return
    pytest.skip("no other player showed a card of the trick's colours")


def test_cards_are_shown_at_a_rounds_end() -> None:
    events = [deal(), play("Ann", "R1"), shown("Ben", "R2")]
    assert_illegal(check(P4, events), 4, "cards are shown at a round's end",
                   "does not hold three colours")
    data = _early_end_full()
    po = _lines(plays_only(data))
    at = next(i for i, e in enumerate(po) if e.get("type") == "shown")
    too_few = [dict(e) for e in po]
    too_few[at] = {**too_few[at], "cards": too_few[at]["cards"][:-1] + ["B99"]}
    v = verdict(replay_bytes(b"\n".join(orjson.dumps(e) for e in too_few) + b"\n", "x"))
    assert_illegal(v, at + 1, "'B99' is not a plotters card")
    played = next(e["card"] for e in po if e.get("type") == "play")
    twice = [dict(e) for e in po]
    twice[at] = {**twice[at], "cards": [played] + twice[at]["cards"][1:]}
    v = verdict(replay_bytes(b"\n".join(orjson.dumps(e) for e in twice) + b"\n", "x"))
    assert_illegal(v, at + 1, f"cannot show {played}", "played it in trick")
    extra = [dict(e) for e in po]
    extra[at] = {**extra[at], "cards": extra[at]["cards"][:-1]} if len(
        extra[at]["cards"]) > 1 else {**extra[at], "cards": []}
    v = verdict(replay_bytes(b"\n".join(orjson.dumps(e) for e in extra) + b"\n", "x"))
    assert_illegal(v, at + 1, "a shown event lists them all")


# ------------------------------------------------------------ color_stacks: the hands score

def _stacks_log(players: int) -> bytes:
    opts = SimOptions(game="color_stacks", games=1, players=(players, players), seed=5)
    return simulate_one(opts, 0)[1]


def test_color_stacks_hands_must_be_shown_to_score() -> None:
    data = _stacks_log(3)
    bare = _lines(plays_only(data, shown=False))
    v = verdict(replay_bytes(b"\n".join(orjson.dumps(e) for e in bare) + b"\n", "x"))
    assert v["status"] == "incomplete" and v["rounds"] == []
    claim = {"type": "claim", "round": 1, "scores": {bare[0]["players"][0]: 0}}
    v = verdict(replay_bytes(b"\n".join(orjson.dumps(e) for e in bare + [claim]) + b"\n", "x"))
    assert_illegal(v, len(bare) + 1, "round 1 is scored by the cards left in the hands",
                   "must be shown first")
    full = verdict(replay_bytes(data, "full"))
    v = verdict(replay_bytes(plays_only(data), "po"))
    assert (v["status"], v["rounds"], v["winners"]) == (full["status"], full["rounds"],
                                                        full["winners"])


def test_the_pile_and_the_card_aside_are_inferred_or_stay_unknown() -> None:
    two = _stacks_log(2)
    po = [e for e in _lines(plays_only(two)) if e.get("from") != "pile"]
    r = replay_bytes(b"\n".join(orjson.dumps(e) for e in po) + b"\n", "x")
    v = verdict(r)
    full = verdict(replay_bytes(two, "full"))
    assert v["rounds"][0]["scores"] == full["rounds"][0]["scores"]
    if any(e.get("type") == "shown" and e.get("from") == "pile" for e in _lines(plays_only(two))):
        assert "the pile's last" in " ".join(v["rounds"][0]["unknown"])
    four = _stacks_log(4)
    po4 = [e for e in _lines(plays_only(four)) if e.get("from") != "aside"]
    r4 = replay_bytes(b"\n".join(orjson.dumps(e) for e in po4) + b"\n", "x")
    assert r4.status == "complete" and "unknown" not in verdict(r4)["rounds"][0]
    assert r4.facts == replay_bytes(with_shown(four), "f").facts  # the aside card is inferred


def test_a_place_of_a_card_seen_already() -> None:
    head = header("color_stacks", 3, suits=list("RGBY"))
    events = [deal(), {"type": "place", "player": "Ann", "cards": ["R1", "R2"]},
              {"type": "place", "player": "Ben", "cards": ["R2", "G2"]}]
    assert_illegal(check(head, events), 4, "Ben cannot play R2", "Ann played it in turn 1")


# ------------------------------------------------------------ injected revokes


def _events(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = _lines(data)
    return lines[0], lines[1:]


def _log(head: dict[str, Any], events: list[dict[str, Any]]) -> bytes:
    return b"\n".join(orjson.dumps(e) for e in [head] + events) + b"\n"


def _rage_swaps(head: dict[str, Any], events: list[dict[str, Any]],
                rng: random.Random) -> list[tuple[int, int]]:
    """Indexes (into `events`) of two plays whose cards, swapped between the two hands,
    make the first player hold the led colour they then do not follow, without changing any
    trick's winner (so every later play stays in turn): A followed the led colour with a
    card that did not win and plays that colour again later; B played, later, a plain card of
    neither that trick's led colour nor its trump, which did not win its own trick, fixed no
    led colour there, and A's card can win nothing there either."""
    r = replay_bytes(_log(head, events), "x")
    tricks = [f for f in r.facts if isinstance(f, RageTrickFinished)]
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    seq: list[tuple[int, RageTrickFinished, int]] = []  # (event index, trick, position)
    k = 0
    for t in tricks:
        for pos in range(len(t.cards)):
            seq.append((plays[k], t, pos))
            k += 1
    found = []
    for ia, ta, pa in seq:
        sa, a, _ = ta.cards[pa]
        first_colour = next((p for p, (_, c, as_) in enumerate(ta.cards) if c.color or as_),
                            None)
        if not a.color or a.color != ta.led_color or first_colour is None or first_colour >= pa:
            continue
        if ta.winning_card is a:
            continue
        later_same = [i for i, t, p in seq if t.round == ta.round and t.trick > ta.trick
                      and t.cards[p][0] == sa and t.cards[p][1].color == a.color]
        if not later_same:
            continue
        for ib, tb, pb in seq:
            sb, b, _ = tb.cards[pb]
            if tb.round != ta.round or tb.trick <= ta.trick or sb == sa or not b.color:
                continue
            fixer = next((p for p, (_, c, as_) in enumerate(tb.cards) if c.color or as_), None)
            if b.color in (ta.led_color, ta.trump) or tb.winning_card is b or fixer == pb:
                continue
            if a.color in (tb.led_color, tb.trump):
                continue
            found.append((ia, ib))
    rng.shuffle(found)
    return found


def _swap_in_deal(events: list[dict[str, Any]], at: int, p1: str, c1: str, p2: str,
                  c2: str) -> None:
    """Swap card c1 of p1 and c2 of p2 in the deal that precedes event `at`."""
    d = max(i for i in range(at) if events[i]["type"] == "deal")
    hands = {p: list(h) for p, h in events[d]["hands"].items()}
    hands[p1][hands[p1].index(c1)] = c2
    hands[p2][hands[p2].index(c2)] = c1
    events[d] = {**events[d], "hands": hands}


@pytest.mark.parametrize("players", [3, 5, 8])
def test_revokes_injected_into_rage_are_found_where_the_full_log_finds_them(players: int) -> None:
    rng = random.Random(players)
    checked = 0
    for i in range(40):
        opts = SimOptions(game="rage", games=1, players=(players, players), seed=11, rounds=4,
                          bots=("random", "greedy"))
        head, events = _events(simulate_one(opts, i)[1])
        for ia, ib in _rage_swaps(head, events, rng)[:3]:
            swapped = [dict(e) for e in events]
            a, b = swapped[ia], swapped[ib]
            _swap_in_deal(swapped, ia, a["player"], a["card"], b["player"], b["card"])
            swapped[ia] = {**a, "card": b["card"]}
            swapped[ib] = {**b, "card": a["card"]}
            full = verdict(replay_bytes(_log(head, swapped), "full"))
            po = verdict(replay_bytes(plays_only(_log(head, swapped), shown=False), "po"))
            assert full["status"] == "illegal", full
            assert po["status"] == "illegal" and po["error"]["line"] == full["error"]["line"], (
                full["error"], po["error"])
            message = po["error"]["message"]
            # both cards: the one played and the one held, named in the full log's message too
            held = full["error"]["message"].split(" holds ")[1].split()[0].rstrip(",")
            assert " while holding " + held in message, (message, full["error"])
            assert "revoke" in message or "action cards" in message, message
            if full["error"]["line"] == ia + 2:  # A's own revoke: B's swapped card played
                assert f"played {b['card']} on a" in message, message
            checked += 1
    assert checked >= 20, f"only {checked} revokes injected: the test tests too little"


def test_revokes_injected_into_under_the_radar_are_found_where_the_full_log_finds_them() -> None:
    """A card left in another player's hand at the round's end, swapped with one of the
    taker's own cards left: the plays stay as they were, and the taker held a card the
    trick would have taken."""
    checked = 0
    for i in range(60):
        opts = SimOptions(game="under_the_radar", games=1, players=(4, 5), seed=13,
                          bots=("random", "greedy"))
        data = simulate_one(opts, i)[1]
        head, events = _events(with_shown(data))
        shown_at = [j for j, e in enumerate(events) if e["type"] == "shown" and "player" in e]
        for ja in shown_at:
            for jb in shown_at:
                pa, pb = events[ja]["player"], events[jb]["player"]
                if pa == pb:
                    continue
                for x in events[jb]["cards"][:3]:
                    z = events[ja]["cards"][0]
                    if x == z:
                        continue
                    swapped = [dict(e) for e in events]
                    _swap_in_deal(swapped, ja, pa, z, pb, x)
                    swapped[ja] = {**swapped[ja], "cards": [x] + events[ja]["cards"][1:]}
                    theirs = list(events[jb]["cards"])
                    theirs[theirs.index(x)] = z
                    swapped[jb] = {**swapped[jb], "cards": theirs}
                    full = verdict(replay_bytes(_log(head, swapped), "full"))
                    if full["status"] != "illegal" or "which is" not in full["error"]["message"]:
                        continue  # the swap broke no rule of the plays: nothing to find
                    po = verdict(replay_bytes(_strip(head, swapped), "po"))
                    assert po["status"] == "illegal", (full["error"], po)
                    assert po["error"]["line"] == full["error"]["line"], (full["error"],
                                                                          po["error"])
                    message = po["error"]["message"]
                    played = full["error"]["message"].split("cannot play ")[1].split(":")[0]
                    held = full["error"]["message"].split(" holds ")[1].split(",")[0]
                    assert f"played {played}, which trick" in message, message
                    assert f"while holding {held} (" in message and "showed" in message, message
                    checked += 1
    assert checked >= 10, f"only {checked} revokes injected: the test tests too little"


def _strip(head: dict[str, Any], events: list[dict[str, Any]]) -> bytes:
    """The log with every deal's hands (and removed) left out, its shown events kept."""
    return _log(head, [{k: v for k, v in e.items() if k not in ("hands", "removed")}
                       if e["type"] == "deal" else e for e in events])


def test_a_legal_plays_only_game_applied_move_by_move_offers_every_card_played() -> None:
    """The moves a plays-only round offers (`legal_moves`) hold every card that was played:
    what the Record page offers a player is what they could still hold."""
    for game, n in (("plotters", 5), ("rage", 4), ("under_the_radar", 4), ("color_stacks", 3)):
        opts = SimOptions(game=game, games=1, players=(n, n), seed=17, rounds=2)
        data = plays_only(simulate_one(opts, 0)[1])
        head, events = _events(data)
        state = new_state(parse_header("x", 1, orjson.dumps(head), "x"))
        for line, ev in enumerate(events, start=2):
            if ev["type"] in ("play", "place") and state.live is not None:
                offered = state.legal_moves()
                key = ("card", ev["card"]) if "card" in ev else ("cards", ev["cards"])
                assert any(m.get(key[0]) == key[1] and m["player"] == ev["player"]
                           for m in offered), (game, line, ev)
            state.apply(Event(line, ev["type"], ev))
        state.log_ended()
        assert state.is_over(), game


def test_a_plays_only_rage_game_bids_are_estimated_from_the_hands_inferred() -> None:
    """`trickledger analyse` estimates a rage bid against the hand its player held: in a
    plays-only log, the hand the cards played gave (it failed with KeyError 'hands'
    before), the same estimate as the full log's."""
    from trickledger.ingest.hands import estimate_round

    _, data, _ = simulate_one(SimOptions("rage", 1, (4, 4), rounds=2, seed=11), 0)
    full, po = with_shown(data), plays_only(data)
    for round_no in (1, 2):
        want = estimate_round(full, round_no, None, playouts=4, seed=1, sha256="x")
        got = estimate_round(po, round_no, None, playouts=4, seed=1, sha256="x")
        assert [(e.player, e.tricks_seen) for e in got] == [(e.player, e.tricks_seen) for e in want]


def test_a_round_with_cards_nobody_saw_is_not_estimated() -> None:
    """A plotters round that ended early and whose hands were not shown: its hands are not
    guessed for an estimate; the error says why (the analysis reports it, and goes on)."""
    from trickledger.ingest.hands import estimate_round

    _, data, _ = simulate_one(SimOptions("plotters", 12, (4, 4), seed=3), 1)
    po = plays_only(data, shown=False)
    with pytest.raises(ValueError, match="round 2 was recorded without its hands"):
        estimate_round(po, 2, None, playouts=2, seed=1)
