"""Score sheets (docs/format.md, "Score sheets"): a move log and its sheet give the same
scores; every end-of-round rule is broken by a sheet of its own, on the line named; the
CLI verifies, replays and writes sheets; ingest loads them into a real DuckDB file."""

from __future__ import annotations

import copy
import gzip
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import NAMES, assert_illegal, log_bytes

from trickledger import main
from trickledger.replay.engine import exit_status, replay_bytes, replay_path, verdict
from trickledger.replay.sheetlog import NoSheet, sheet_of

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
GAMES = ("plotters", "rage", "color_stacks", "under_the_radar")


def same_outcome(log: dict[str, Any], sheet: dict[str, Any]) -> None:
    """A log's verdict and its sheet's agree on everything a sheet can know."""
    assert log["kind"] == "moves"
    # a sheet without a round (a log illegal in its first round) is just a header
    assert sheet["kind"] == "sheet" or not sheet["rounds"]
    assert [r["scores"] for r in sheet["rounds"]] == [r["scores"] for r in log["rounds"]]
    assert [r["round"] for r in sheet["rounds"]] == [r["round"] for r in log["rounds"]]
    assert [r["dealer"] for r in sheet["rounds"]] == [r["dealer"] for r in log["rounds"]]
    assert sheet["totals"] == log["totals"] and sheet["winners"] == log["winners"]
    key = [(c["round"], c["player"], c["claimed"], c["computed"], c["match"])
           for c in log["claims"]]
    assert sorted(map(str, key)) == sorted(map(str, (
        (c["round"], c["player"], c["claimed"], c["computed"], c["match"])
        for c in sheet["claims"])))
    want = "complete" if log["status"] == "complete" else "incomplete"
    assert sheet["status"] == want, sheet["error"]
    for lr, sr in zip(log["rounds"], sheet["rounds"]):
        for k in ("tricks", "turns", "ender"):  # what a sheet tells, it tells as the log
            if k in sr:
                assert sr[k] == lr[k], (k, lr, sr)


@pytest.mark.parametrize("game", GAMES)
def test_the_sheet_of_every_sample_log_gives_its_scores(game):
    """Every sample log of the game (curated and corpus, illegal ones included: their
    sheet holds the rounds before the illegal line) and its sheet agree."""
    logs = [*sorted((SAMPLES / game).glob("*.jsonl")),
            *sorted((SAMPLES / "corpus" / game).glob("*.jsonl"))]
    assert len(logs) > 50
    for path in logs:
        r = replay_path(str(path))
        sheet = replay_bytes(sheet_of(r), path.name + ".sheet")
        same_outcome(verdict(r), verdict(sheet))


def test_simulate_writes_sheets_beside_the_logs(tmp_path, capsys):
    for game in GAMES:
        out = tmp_path / game
        assert main(["simulate", "--game", game, "--games", "3", "--seed", "5", "--sheets",
                     "--wrong-claims", "0.2", "--rounds", "2", "--jobs", "1", "--out",
                     str(out)]) == 0
        logs = sorted(p for p in out.glob("*.jsonl") if not p.name.endswith(".sheet.jsonl"))
        assert len(logs) == 3
        for log in logs:
            sheet = log.with_name(log.name.replace(".jsonl", ".sheet.jsonl"))
            v, s = verdict(replay_path(str(log))), verdict(replay_path(str(sheet)))
            same_outcome(v, s)
            head = orjson.loads(sheet.read_bytes().splitlines()[0])
            assert head["id"] == v["id"] and head["meta"]["sheet_of"] == v["sha256"]
    capsys.readouterr()
    out = tmp_path / "gz"
    assert main(["simulate", "--game", "rage", "--games", "1", "--sheets", "--gzip",
                 "--rounds", "1", "--out", str(out)]) == 0
    sheet = next(out.glob("*.sheet.jsonl.gz"))
    assert gzip.decompress(sheet.read_bytes()).count(b'"type":"sheet"') == 1


def test_sheet_of_command(tmp_path, capsys):
    src = SAMPLES / "rage" / "rage-8p-secret-bid-claims.jsonl"
    out = tmp_path / "s.jsonl"
    assert main(["sheet-of", str(src), "-o", str(out)]) == 0
    same_outcome(verdict(replay_path(str(src))), verdict(replay_path(str(out))))
    assert main(["sheet-of", str(out)]) == 2  # a sheet has no sheet
    assert "is a score sheet already" in capsys.readouterr().err
    lines = src.read_bytes().splitlines()
    bad = next(i for i, ln in enumerate(lines) if b'"round":3' in ln and b"claim" in ln)
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"\n".join(lines[:bad + 1] + [b'{"type":"play","player":"nobody"}']))
    assert main(["sheet-of", str(broken)]) == 1
    io = capsys.readouterr()
    assert "3 rounds finished before the illegal line" in io.err
    assert io.out.count('"type":"sheet"') == 3
    with pytest.raises(NoSheet):
        sheet_of(replay_bytes(b"not a log", "x"))


# ----------------------------------------------------------------- valid sheets


def header(game: str, n: int, **extra: Any) -> dict[str, Any]:
    return {"format": "trickledger/1", "game": game, "players": NAMES[:n], **extra}


PLOTTERS = (header("plotters", 5, rounds=2), [
    {"type": "sheet", "round": 1, "players": {
        "Ann": {"open": {"G": 5, "R": 6, "Y": 3}}, "Ben": {"open": {"R": 5, "B": 4, "Y": 3}},
        "Cat": {"open": {"B": 7, "G": 8}, "face_down": 4},
        "Dan": {"open": {"Y": 7, "R": 1, "B": 1}}, "Eve": {"open": {"G": 3, "B": 5}}}},
    {"type": "sheet", "round": 2, "players": {
        "Ann": {"open": {"R": 9}}, "Ben": {"open": {"B": 6, "G": 6}, "face_down": 2},
        "Cat": {"open": {}}, "Dan": {"open": {"G": 2, "Y": 4}},
        "Eve": {"open": {"B": 3, "R": 2, "Y": 5}}}},
])
RAGE = (header("rage", 3, rounds=2, variants=["plus_minus_one"]), [
    {"type": "sheet", "round": 1, "players": {
        "Ann": {"bid": 4, "won": 4, "plus5": 1}, "Ben": {"bid": 3, "won": 5, "minus5": 1},
        "Cat": {"bid": 2, "won": 1}}},
    {"type": "sheet", "round": 2, "players": {
        "Ann": {"bid": 2, "won": 2}, "Ben": {"bid": 4, "won": 3, "plus5": 2},
        "Cat": {"bid": 4, "won": 4, "minus5": 1}}},
])
STACKS = (header("color_stacks", 3, suits=["R", "Y", "G", "B"]), [
    {"type": "sheet", "round": 1, "stacks": {"R": 6, "Y": 4, "G": 3, "B": 3}, "ender": "Ben",
     "players": {"Ann": {"hand": {"R": 1, "Y": 2, "G": 1, "B": 2}},
                 "Ben": {"hand": {"R": 2, "Y": 1, "G": 2, "B": 1}},
                 "Cat": {"hand": {"Y": 2, "G": 3, "B": 3}}}},
])
# two players: Ann ended it with her fourth turn; three draws were made, six cards remain
STACKS_2P = (header("color_stacks", 2, suits=["R", "Y", "G", "B"]), [
    {"type": "sheet", "round": 1, "stacks": {"R": 6, "Y": 5, "G": 5, "B": 4}, "ender": "Ann",
     "players": {"Ann": {"hand": {"R": 1, "Y": 1, "G": 1, "B": 1}},
                 "Ben": {"hand": {"R": 1, "Y": 2, "G": 1, "B": 2}}}},
])
# two players, ended by a draw after the sixth turn (Ann drew): equal hands
STACKS_2P_DRAW = (header("color_stacks", 2, suits=["R", "Y", "G", "B"]), [
    {"type": "sheet", "round": 1, "stacks": {"R": 6, "Y": 5, "G": 4, "B": 3}, "ender": "Ann",
     "players": {"Ann": {"hand": {"R": 1, "Y": 2, "G": 2, "B": 1}},
                 "Ben": {"hand": {"R": 1, "Y": 1, "G": 2, "B": 2}}}},
])
RADAR = (header("under_the_radar", 4, rounds=2), [
    {"type": "sheet", "round": 1, "players": {
        "Ann": {"taken": 3}, "Ben": {"taken": 5}, "Cat": {"taken": 0}, "Dan": {"taken": 2}}},
    {"type": "sheet", "round": 2, "players": {
        "Ann": {"taken": 1}, "Ben": {"taken": 2}, "Cat": {"taken": 4}, "Dan": {"taken": 3}}},
])
VALID = {"plotters": PLOTTERS, "rage": RAGE, "color_stacks": STACKS, "color_stacks_2p": STACKS_2P,
         "color_stacks_2p_draw": STACKS_2P_DRAW, "under_the_radar": RADAR}


def run(head: dict[str, Any], lines: list[dict[str, Any]]) -> dict[str, Any]:
    return verdict(replay_bytes(log_bytes(head, lines), "sheet.jsonl"))


@pytest.mark.parametrize("name", VALID)
def test_valid_sheets_are_complete(name):
    v = run(*VALID[name])
    assert v["status"] == "complete" and v["kind"] == "sheet", v["error"]


def test_scores_come_with_their_derivations():
    r = replay_bytes(log_bytes(*PLOTTERS), "p.jsonl")
    first = r.state.rounds[0]
    assert first.scores == (10, 6, 14, 7, 15)  # the rule book's five examples
    assert first.derivations[0] == "open G×5 R×6, other 3 -> 5×6=30 // 3 = 10"
    assert first.derivations[2] == "open B×7 G×8, other 4 -> 7×8=56 // 4 = 14"
    assert verdict(r)["winners"] == ["Ben"]
    v = run(*RAGE)
    assert v["totals"] == {"Ann": 31, "Ben": 3, "Cat": 5} and v["rounds"][1]["tricks"] == 9
    v = run(*STACKS)
    assert v["rounds"][0]["scores"] == {"Ann": 17, "Ben": 15, "Cat": 26}
    assert v["rounds"][0]["turns"] == 8 and v["rounds"][0]["ender"] == "Ben"
    v = run(*RADAR)
    assert v["winners"] == ["Ann", "Cat"]  # lowest total wins; ties share


# ----------------------------------------------------------------- what cannot be


def broken(name: str, change) -> dict[str, Any]:
    head, lines = copy.deepcopy(VALID[name])
    out = change(head, lines)
    return run(head, out if out is not None else lines)


def entry(lines: list[dict[str, Any]], r: int, player: str) -> dict[str, Any]:
    return lines[r - 1]["players"][player]


def set_(d: dict[str, Any], **kv: Any) -> None:
    d.update(kv)


CASES = {
    # every game: rounds beyond the game's number, in order, one entry per player
    "a sheet after the last round": ("rage", lambda h, ls: ls + [dict(ls[1], round=3)], 4,
                                     ["the game is over", "2 rounds"]),
    "a round the game does not have": ("under_the_radar",
                                       lambda h, ls: [dict(ls[0], round=3)], 2,
                                       ["round 3", "rounds 1-2"]),
    "a round out of order": ("under_the_radar", lambda h, ls: [ls[1]], 2,
                             ["round 2", "round 1 comes next"]),
    "a player without an entry": ("rage", lambda h, ls: ls[0]["players"].pop("Cat") and None,
                                  2, ["no entry for Cat"]),
    "an entry for a stranger": ("rage", lambda h, ls: set_(ls[0]["players"],
                                                          Zed={"bid": 0, "won": 0}), 2,
                                ["'Zed'", "not a player"]),
    "a negative count": ("under_the_radar", lambda h, ls: set_(entry(ls, 1, "Cat"), taken=-1),
                         2, ["Cat's entry", "cannot be negative"]),
    "a count that is not a whole number": ("rage", lambda h, ls: set_(entry(ls, 1, "Ann"),
                                                                      won=4.5), 2,
                                           ["'won' must be a whole number"]),
    "a required count left out": ("rage", lambda h, ls: entry(ls, 1, "Ben").pop("bid") and None,
                                  2, ["Ben's entry needs 'bid'"]),
    "the wrong dealer": ("rage", lambda h, ls: set_(ls[1], dealer="Ben"), 3,
                         ["round 2 is dealt by Ann", "not Ben"]),
    "a written score for a stranger": ("rage", lambda h, ls: set_(ls[0], scores={"Zed": 3}), 2,
                                       ["'Zed'"]),
    # plotters
    "plotters: four open colours": ("plotters", lambda h, ls: entry(ls, 1, "Ann")["open"].update(
        B=1), 2, ["Ann has open stacks of all four colours"]),
    "plotters: face-down cards beside three open colours": (
        "plotters", lambda h, ls: set_(entry(ls, 1, "Dan"), face_down=2), 2,
        ["Dan has 2 face-down cards but 3 open colours"]),
    "plotters: one face-down card": ("plotters", lambda h, ls: set_(entry(ls, 1, "Cat"),
                                                                    face_down=1), 2,
                                     ["Cat has 1 face-down card", "at least one card of each"]),
    "plotters: cards no round can give": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:4], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       p: {"open": {"G": 1, "R": 2 if p == "Ann" else 1}}
                                       for p in NAMES[:4]}}])[1], 2,
        ["Ann collected 3 cards", "come in twos"]),
    "plotters: more of a colour than the deck": (
        "plotters", lambda h, ls: entry(ls, 1, "Eve")["open"].update(G=5), 2,
        ["hold 18 green cards in open stacks", "5-player deck has 17 green cards (G1-G17)"]),
    "plotters: a face-down card of a colour the open stacks exhaust": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:4], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       "Ann": {"open": {"B": 14}},
                                       "Ben": {"open": {"R": 2, "G": 2}, "face_down": 2},
                                       "Cat": {}, "Dan": {}}}])[1], 2,
        ["14 blue cards in open stacks and at least 1 face down", "15 in all",
         "4-player deck has 14 blue cards"]),
    "plotters: second halves without first picks": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:5], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       p: {"open": {"B": 1, "G": 1}} for p in NAMES[:5]}}])[1],
        2, ["(2, 2, 2, 2, 2) cannot come from one round", "3 cards to its first winner"]),
    "plotters: more cards than the round deals": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:4], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       p: {"open": {"G": 1, "R": 1}, "face_down": 26}
                                       for p in NAMES[:4]}}])[1], 2,
        ["collected 112 cards in all", "deals only 56"]),
    "plotters: not a colour": ("plotters", lambda h, ls: entry(ls, 2, "Cat")["open"].update(
        P=1), 3, ["'P' under 'open' is not a plotters colour"]),
    # rage
    "rage: a bid beyond the hand": ("rage", lambda h, ls: set_(entry(ls, 1, "Ann"), bid=11), 2,
                                    ["Ann bids 11", "0 to 10 in round 1"]),
    "rage: tricks that do not add up": ("rage", lambda h, ls: set_(entry(ls, 1, "Ben"), won=6),
                                        2, ["add up to 11", "round 1 has 10 tricks"]),
    "rage: round 2 has nine tricks": ("rage", lambda h, ls: set_(entry(ls, 2, "Ann"), won=3), 3,
                                      ["add up to 10", "round 2 has 9 tricks"]),
    "rage: more +5 cards than the deck": ("rage", lambda h, ls: (
        set_(entry(ls, 1, "Ann"), plus5=2), set_(entry(ls, 1, "Ben"), plus5=2)) and None, 2,
        ["+5 cards taken add up to 4", "deck holds 3"]),
    "rage: more -5 cards than the deck": ("rage", lambda h, ls: (
        set_(entry(ls, 1, "Ann"), minus5=2), set_(entry(ls, 1, "Cat"), minus5=2)) and None, 2,
        ["-5 cards taken add up to 5", "deck holds 3"]),
    "rage: a -5 card without a trick won": ("rage", lambda h, ls: (
        set_(entry(ls, 1, "Cat"), won=0, minus5=1), set_(entry(ls, 1, "Ben"), won=6)) and None,
        2, ["Cat took 1 -5 card in 0 tricks won"]),
    "rage: plus_minus_one bids that add up": ("rage", lambda h, ls: set_(entry(ls, 1, "Ben"),
                                                                         bid=4), 2,
                                              ["plus_minus_one", "4 + 4 + 2 = 10"]),
    # color_stacks
    "color_stacks: more of a suit than the deck": (
        "color_stacks", lambda h, ls: entry(ls, 1, "Cat")["hand"].update(R=1), 2,
        ["R: 6 on the stack and 4 in hands make 10", "9 cards"]),
    "color_stacks: no stack of six": ("color_stacks", lambda h, ls: ls[0]["stacks"].update(R=5),
                                      2, ["no stack holds 6 cards"]),
    "color_stacks: six with no ender": ("color_stacks", lambda h, ls: ls[0].pop("ender") and None,
                                        2, ["must name the 'ender'"]),
    "color_stacks: too many cards above five": (
        "color_stacks", lambda h, ls: (ls[0]["stacks"].update(R=8),
                                       entry(ls, 1, "Ben")["hand"].update(R=0)) and None, 2,
        ["3 cards above five", "two cards on stacks of at most five"]),
    "color_stacks: a hand no turns leave": (
        "color_stacks", lambda h, ls: entry(ls, 1, "Cat")["hand"].update(B=2), 2,
        ["Cat holds 7 cards", "12, 10, 8"]),
    "color_stacks: hands out of turn order": (
        "color_stacks", lambda h, ls: set_(ls[0], ender="Cat"), 2,
        ["do not fit the order of turns", "from Ann (left of the dealer Cat)",
         "every player has taken as many turns"]),
    "color_stacks: cards unaccounted for": (
        "color_stacks", lambda h, ls: ls[0]["stacks"].update(G=1), 2,
        ["hold 34 of the 36 cards", "every card is in a hand or on a stack"]),
    "color_stacks: two players, the pile miscounted": (
        "color_stacks_2p", lambda h, ls: ls[0]["stacks"].update(B=5), 2,
        ["hold 31 of the 36 cards", "pile not yet drawn", "holds 6 cards"]),
    "color_stacks: two players, hands two turns apart": (
        "color_stacks_2p", lambda h, ls: entry(ls, 1, "Ben")["hand"].update(B=4), 2,
        ["do not fit the order of turns", "Ann has taken one turn more than Ben",
         "the hands hold Ann 4, Ben 8"]),
    "color_stacks: not a suit of the game": (
        "color_stacks", lambda h, ls: entry(ls, 1, "Ann")["hand"].update(W=1), 2,
        ["'W' under 'hand' is not a suit of this game (R, Y, G, B)"]),
    # under_the_radar
    "under_the_radar: more tricks than a hand pays for": (
        "under_the_radar", lambda h, ls: set_(entry(ls, 1, "Ann"), taken=9), 2,
        ["Ann took 9 tricks", "a hand holds 15 cards", "at most 8 tricks"]),
    "under_the_radar: two game-ending takes": (
        "under_the_radar", lambda h, ls: (set_(entry(ls, 2, "Ann"), taken=8),
                                          set_(entry(ls, 2, "Ben"), taken=8)) and None, 3,
        ["Ann, Ben each took 8 tricks", "only one player can make it"]),
    "under_the_radar: nobody took a trick": (
        "under_the_radar", lambda h, ls: ls[0]["players"].update(
            {p: {"taken": 0} for p in NAMES[:4]}), 2,
        ["nobody took a trick in round 1", "green one is unacceptable"]),
    # Ann leads round 1 (left of the dealer Dan): she laid the first lead before any take
    "under_the_radar: the first leader at the odd hand's most": (
        "under_the_radar", lambda h, ls: set_(entry(ls, 1, "Ann"), taken=8), 2,
        ["Ann took 8 tricks", "first leader of round 1", "at most 7 tricks"]),
    # round 2 is led by the highest total after round 1: Ben (5)
    "under_the_radar: a later round's first leader at the odd hand's most": (
        "under_the_radar", lambda h, ls: set_(entry(ls, 2, "Ben"), taken=8), 3,
        ["Ben took 8 tricks", "first leader of round 2", "at most 7 tricks"]),
    # plotters: a lone collector had no second winner, so every trick was of one colour
    "plotters: a lone collector with a pick of two colours": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:4], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       "Ann": {"open": {"B": 1, "G": 1}}, "Ben": {}, "Cat": {},
                                       "Dan": {}}}])[1], 2,
        ["Ann is the only player who collected", "come in 2s"]),
    "plotters: a lone collector's face-down cards": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:5], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       "Ann": {"open": {"B": 3, "G": 6}, "face_down": 3},
                                       "Ben": {}, "Cat": {}, "Dan": {}, "Eve": {}}}])[1], 2,
        ["Ann is the only player who collected", "at least one pick of each",
         "at least 6 face down"]),
    "plotters: four colours from one trick": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:4], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       "Ann": {"open": {"B": 1, "G": 1}},
                                       "Ben": {"open": {"R": 1, "Y": 1}}, "Cat": {},
                                       "Dan": {}}}])[1], 2,
        ["show 4 colours", "hold at most 3", "at most three colours"]),
    # at 5 players Ann's 7 cards are one pick of 3 and two second halves of 2, which need
    # two tricks first-picked by others, and Ben's 3 are only one
    "plotters: second halves from one's own picks": (
        "plotters", lambda h, ls: (set_(h, players=NAMES[:5], rounds=1),
                                   [{"type": "sheet", "round": 1, "players": {
                                       "Ann": {"open": {"B": 3, "G": 2, "R": 2}},
                                       "Ben": {"open": {"B": 3}}, "Cat": {}, "Dan": {},
                                       "Eve": {}}}])[1], 2,
        ["(7, 3, 0, 0, 0) cannot come from one round",
         "nor a player's second halves the other players' first picks"]),
}


@pytest.mark.parametrize("case", CASES)
def test_every_impossible_sheet_is_illegal_on_its_line(case):
    name, change, line, words = CASES[case]
    v = broken(name, change)
    assert_illegal(v, line, *words)
    # the rounds before the illegal line still count
    assert len(v["rounds"]) == line - 2


def test_a_log_is_a_move_log_or_a_sheet_never_both():
    head, lines = copy.deepcopy(RAGE)
    deal = {"type": "deal", "hands": {p: [] for p in NAMES[:3]}}
    v = run(head, [lines[0], deal])
    assert_illegal(v, 3, "a 'deal' line cannot stand in a score sheet", "never both")
    assert v["kind"] == "sheet" and len(v["rounds"]) == 1
    move = (SAMPLES / "rage" / "rage-5p-hidden-bid.jsonl").read_bytes().splitlines()
    mixed = b"\n".join(move[:3] + [orjson.dumps(lines[0])]) + b"\n"
    v = verdict(replay_bytes(mixed, "mixed.jsonl"))
    assert_illegal(v, 4, "a 'sheet' line cannot stand in a move log", "never both")
    assert v["kind"] == "moves"
    # a claim first does not decide: the first other event does
    claim = {"type": "claim", "totals": {p: 0 for p in NAMES[:3]}}
    v = run(head, [claim, *lines])
    assert v["status"] == "complete" and v["kind"] == "sheet"
    assert all(c["match"] for c in v["claims"])


def test_a_game_without_a_sheet_says_so(register_game):
    import dataclasses

    import toy_high_card

    class PlainToyState(toy_high_card.ToyState):
        """The toy game without its score sheet."""

    plain = register_game(dataclasses.replace(toy_high_card.INFO, name="toy_without_sheet",
                                              state_class=PlainToyState, sheet_state=None,
                                              tables={}))
    head = {"format": "trickledger/1", "game": plain.name, "players": NAMES[:2]}
    v = run(head, [{"type": "sheet", "round": 1, "players": {}}])
    assert_illegal(v, 2, f"{plain.name} has no score sheet")


def test_a_written_score_that_differs_is_a_dispute(tmp_path, capsys):
    head, lines = copy.deepcopy(PLOTTERS)
    lines[0]["scores"] = {"Ann": 12, "Ben": 6}
    path = tmp_path / "dispute.jsonl"
    path.write_bytes(log_bytes(head, lines))
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "complete (plotters score sheet, 5 players, 2 of 2 rounds)" in out
    assert "claims: 2 checked, 1 does not match:" in out
    assert "Ann round 1: open G×5 R×6, other 3 -> 5×6=30 // 3 = 10, sheet says 12 (line 2)" in out
    assert main(["verify", "--json", str(path)]) == 1
    v = orjson.loads(capsys.readouterr().out)
    assert v["kind"] == "sheet" and v["status"] == "complete"
    assert v["claims"][0] == {"round": 1, "player": "Ann", "claimed": 12, "computed": 10,
                              "match": False}
    assert exit_status(replay_bytes(log_bytes(*PLOTTERS), "ok.jsonl")) == 0


def test_replay_prints_the_sheet_as_a_table_with_derivations(tmp_path, capsys):
    path = tmp_path / "s.jsonl"
    path.write_bytes(log_bytes(*STACKS))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "color_stacks score sheet, players Ann, Ben, Cat" in out
    assert "== Round 1 (score sheet, line 2): Cat deals" in out
    assert "stacks R×6 Y×4 G×3 B×3; Ben ended the game" in out
    assert re.search(r"player\s+R\s+Y\s+G\s+B\s+score", out)
    assert re.search(r"Cat\s+0\s+2\s+3\s+3\s+26", out)
    assert "Ben        R: 2 in hand × stack 6 = 0, Y: 1 in hand × stack 4 = 4, " \
           "G: 2 in hand × stack 3 = 6, B: 1 in hand × stack 3 = 3, ender +2 -> 15" in out


# ----------------------------------------------------------------- the docs


def blocks(doc: str) -> list[str]:
    return re.findall(r"```jsonl\n(.*?)```", (ROOT / "docs" / doc).read_text("utf-8"), re.S)


def test_the_docs_show_a_complete_sheet_per_game():
    for doc in ("format.md", "examples.md"):
        sheets = {}
        for text in blocks(doc):
            r = replay_bytes(text.encode(), doc)
            if r.state is not None and r.state.is_sheet:
                v = verdict(r)
                assert v["status"] == "complete" and all(c["match"] for c in v["claims"]), doc
                sheets[v["game"]] = v
        assert set(sheets) == set(GAMES), doc


# ----------------------------------------------------------------- the database


def test_ingest_loads_sheets_as_results_not_as_tricks(tmp_path):
    from trickledger.ingest.db import reading
    from trickledger.ingest.load import Source, ingest

    db = str(tmp_path / "sheets.duckdb")
    move = (SAMPLES / "plotters" / "plotters-6p.jsonl").read_bytes()
    sheet = sheet_of(replay_bytes(move, "plotters-6p.jsonl"))
    own = log_bytes(*RAGE)
    head, lines = copy.deepcopy(RADAR)
    partial = log_bytes(head, lines[:1])
    summary = ingest([Source("rage-sheet.jsonl", data=own),
                      Source("utr-partial.jsonl", data=partial),
                      Source("plotters-6p.jsonl", data=move)], db, jobs=1)
    assert (summary.sheet, summary.incomplete, summary.complete) == (1, 1, 1)
    assert "1 score sheet" in summary.line()
    # the sheet of a loaded log is the same game: refused as an id conflict, never counted twice
    again = ingest([Source("plotters-6p.sheet.jsonl", data=sheet)], db, jobs=1)
    assert again.conflicts == 1 and again.loaded == 0
    with reading(db) as con:
        gid, status, winners = con.execute(
            "SELECT game_id, status, winners FROM games WHERE file_name = 'rage-sheet.jsonl'"
        ).fetchone()
        assert status == "sheet" and winners == ["Ann"]
        assert con.execute("SELECT status FROM logs WHERE game_id = ?", [gid]).fetchone() == \
            ("sheet",)
        counts = {t: con.execute(f"SELECT count(*) FROM {t} WHERE game_id = ?",
                                 [gid]).fetchone()[0]
                  for t in ("players", "rounds", "round_scores", "claims", "tricks", "plays",
                            "takes", "bids", "trumps")}
        assert counts == {"players": 3, "rounds": 2, "round_scores": 6, "claims": 0,
                          "tricks": 0, "plays": 0, "takes": 0, "bids": 0, "trumps": 0}
        assert con.execute("SELECT DISTINCT end_reason, hand_size FROM rounds WHERE game_id = ? "
                           "ORDER BY 2", [gid]).fetchall() == [("score sheet", 9),
                                                               ("score sheet", 10)]
        assert con.execute("SELECT derivation FROM round_scores WHERE game_id = ? AND round = 1 "
                           "AND player = 'Ann'", [gid]).fetchone() == \
            ("4 tricks, bid 4 -> 4 + 10 = 14, +5 card -> 19",)
        # results count the complete sheet; the incomplete one counts nowhere
        assert con.execute("SELECT games, wins FROM player_results WHERE game = 'rage' AND "
                           "player = 'Ann'").fetchone() == (1, 1)
        assert con.execute("SELECT count(*) FROM player_results WHERE game = "
                           "'under_the_radar'").fetchone() == (0,)
        # a plotters sheet's rounds do not count in the early-ends view
        early = con.execute("SELECT count(*) FROM early_ends").fetchone()[0]
        assert early == con.execute("SELECT count(*) FROM rounds r JOIN games g USING (game_id) "
                                    "WHERE g.game = 'plotters' AND g.status <> 'sheet'"
                                    ).fetchone()[0]


# ----------------------------------------------------------------- at the limit


def sheet_verdict(path_or_bytes: Any, name: str = "x.jsonl") -> tuple[dict[str, Any],
                                                                     dict[str, Any]]:
    """The verdict of a move log and of its score sheet."""
    r = replay_bytes(path_or_bytes, name)
    return verdict(r), verdict(replay_bytes(sheet_of(r), name + ".sheet"))


def test_a_first_leader_at_the_limit_is_legal_and_one_more_is_not():
    """A legal 4-player game (15 cards each) whose first leader, Wes, took 7 tricks: the
    most a first leader can (15 // 2). Its sheet is complete; with 8 it is illegal."""
    data = (ROOT / "tests" / "format" / "data" /
            "under_the_radar-4p-first-leader-takes-7.jsonl").read_bytes()
    log, sheet = sheet_verdict(data)
    assert log["status"] == sheet["status"] == "complete"
    assert log["rounds"][0]["scores"]["Wes"] == sheet["rounds"][0]["scores"]["Wes"] == 7
    head, *lines = [orjson.loads(x) for x in sheet_of(replay_bytes(data, "x")).splitlines()]
    line = next(x for x in lines if x["type"] == "sheet")
    line["players"]["Wes"]["taken"] = 8
    assert_illegal(verdict(replay_bytes(log_bytes(head, [line]), "s.jsonl")), 2,
                   "Wes took 8 tricks", "first leader of round 1", "at most 7")


def test_a_lone_collector_at_the_limit_is_legal_and_two_colours_are_not():
    """A legal 4-player round where only Ann collects: the first trick is all blue (Ann
    picks B14 and B13, the other two are discarded), and in the second Dan, holding only
    yellow, cannot play after red, green and blue: the round ends early. Her two cards are
    one colour; a sheet giving her two colours is illegal."""
    ones = [str(v) for v in range(1, 14)]
    hands = {"Ann": ["B14"] + [f"R{v}" for v in ones], "Ben": ["B13"] + [f"G{v}" for v in ones],
             "Cat": [f"B{v}" for v in range(2, 13)] + ["R14", "G14", "Y14"],
             "Dan": ["B1"] + [f"Y{v}" for v in ones]}
    events = [{"type": "deal", "hands": hands},
              *({"type": "play", "player": p, "card": c} for p, c in
                (("Ann", "B14"), ("Ben", "B13"), ("Cat", "B12"), ("Dan", "B1"))),
              {"type": "take", "player": "Ann", "cards": ["B14", "B13"]},
              *({"type": "play", "player": p, "card": c} for p, c in
                (("Ann", "R1"), ("Ben", "G1"), ("Cat", "B2")))]
    head = {"format": "trickledger/1", "game": "plotters", "players": NAMES[:4], "rounds": 1}
    log, sheet = sheet_verdict(log_bytes(head, events))
    assert log["status"] == sheet["status"] == "complete", (log["error"], sheet["error"])
    assert log["rounds"][0]["early_end_player"] == "Dan"
    r = replay_bytes(log_bytes(head, events), "x")
    _, *lines = [orjson.loads(x) for x in sheet_of(r).splitlines()]
    line = next(x for x in lines if x["type"] == "sheet")
    assert line["players"]["Ann"]["open"] == {"B": 2}
    assert all(not line["players"][p].get("open") for p in NAMES[1:4])
    line["players"]["Ann"]["open"] = {"B": 1, "R": 1}
    assert_illegal(verdict(replay_bytes(log_bytes(head, [line]), "s.jsonl")), 2,
                   "Ann is the only player who collected")


def test_three_colours_from_one_trick_are_legal():
    """The other side of 'four colours from one trick': at 4 players, 2 + 2 cards in three
    colours can be one trick's split."""
    head = {"format": "trickledger/1", "game": "plotters", "players": NAMES[:4], "rounds": 1}
    line = {"type": "sheet", "round": 1, "players": {
        "Ann": {"open": {"B": 1, "G": 1}}, "Ben": {"open": {"R": 1, "B": 1}}, "Cat": {},
        "Dan": {}}}
    v = verdict(replay_bytes(log_bytes(head, [line]), "s.jsonl"))
    assert v["status"] == "complete", v["error"]


def test_a_count_of_31_digits_is_judged_by_the_rules_not_called_a_number():
    """A sheet's counts are read exactly, however long: a 31-digit count of tricks is refused
    by the rule it breaks, not as 'a number' that is not a whole number."""
    import json

    head, lines = copy.deepcopy(RADAR)
    lines[0]["players"]["Ann"]["taken"] = 10 ** 30
    data = "\n".join(json.dumps(x) for x in [head, *lines]).encode() + b"\n"
    v = verdict(replay_bytes(data, "sheet.jsonl"))
    assert_illegal(v, 2, f"Ann took {10 ** 30} tricks", "at most 8")


def test_messages_count_one_as_one():
    """'the game is over (its only round was played)', 'round 1 only', never '1 rounds'."""
    head, lines = copy.deepcopy(RADAR)
    head["rounds"] = 1
    v = run(head, [lines[0], dict(lines[1], round=2)])
    assert_illegal(v, 3, "its only round was played")
    v = run(head, [lines[0], {"type": "claim", "round": 2, "scores": {"Ann": 1}}])
    assert_illegal(v, 3, "the game has round 1 only")


def test_every_games_sheet_state_is_a_sheet_state() -> None:
    """`sheet_class` (replay/sheet.py, compiled) gives each game's declared score sheet, a
    SheetState, and None for a game without one."""
    from trickledger.replay.registry import registry
    from trickledger.replay.sheet import SheetState, sheet_class

    found = {name: sheet_class(info) for name, info in registry().items()}
    assert all(s is None or issubclass(s, SheetState) for s in found.values())
    assert {name for name, s in found.items() if s is not None} == \
        {name for name, info in registry().items() if info.sheet_state is not None}
    assert any(s is not None for s in found.values())
