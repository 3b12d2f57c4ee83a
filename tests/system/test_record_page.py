"""The Record page under AppTest, on a real DuckDB file: a game is set up, entered tap by
tap, a card that breaks a rule the table sees is refused with its reason, a card that proves
a revoke is taken and the revoke shown at once, a wrong tap is undone, a reload goes on
where it was, and the recording is exported by `trickledger recordings export` as the
plays-only log that was entered."""

from __future__ import annotations

import re
import subprocess
import sys

import orjson
import pytest
from helpers import DASHBOARD
from streamlit.testing.v1 import AppTest

from trickledger.ingest.recordings import read_listing, read_recording
from trickledger.replay.engine import replay_bytes, verdict

PAGE = DASHBOARD / "views" / "record.py"


@pytest.fixture()
def db(empty_dashboard_db: str) -> str:
    return empty_dashboard_db


def unescape(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def ok(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def said(at: AppTest) -> str:
    """Everything the page says in words (headings, markdown, messages, captions)."""
    parts = [*at.subheader, *at.markdown, *at.error, *at.warning, *at.info, *at.success,
             *at.caption]
    return unescape(" ".join(str(p.value) for p in parts))


def started(game: str, players: str, rounds: int | None = None) -> tuple[AppTest, str]:
    at = ok(AppTest.from_file(str(PAGE), default_timeout=90))
    at.selectbox(key="rec_game").set_value(game)
    at.text_input(key="rec_players").set_value(players)
    ok(at)
    if rounds is not None:
        at.number_input(key=f"rec_rounds_{game}").set_value(rounds)
        ok(at)
    at.button(key="rec_start").click()
    ok(at)
    rid = at.query_params["rec"]
    rid = rid[0] if isinstance(rid, list) else rid
    assert re.fullmatch(r"[0-9a-f]{12}", rid), rid
    return at, rid


def entries(at: AppTest) -> int:
    m = re.search(r"· (\d+) entr(?:y|ies)", said(at))
    assert m, said(at)
    return int(m.group(1))


def show_colour(at: AppTest, colour: str) -> AppTest:
    """Show the cards of one colour: the picker's colour chosen, unless it is already the
    one shown (the led colour is, by default: choosing it again would only rerun the page)."""
    if at.segmented_control[0].value != colour:
        at.segmented_control[0].set_value(colour)
        ok(at)
    return at


def card(at: AppTest, name: str, colour: str | None = None) -> AppTest:
    """Tap a card's button, showing its colour first."""
    if colour is not None and at.segmented_control:
        show_colour(at, colour)
    buttons = [b for b in at.button if b.label == name and (b.key or "").startswith(
        ("card-", "chosen-"))]
    assert buttons, [b.label for b in at.button]
    buttons[0].click()
    return ok(at)


def tap(at: AppTest, key_start: str) -> AppTest:
    buttons = [b for b in at.button if (b.key or "").startswith(key_start)]
    assert buttons, [b.key for b in at.button]
    buttons[0].click()
    return ok(at)


def rage_start(at: AppTest) -> AppTest:
    """Deal, turn up Y15 as trump, each bids 1 (Cat deals, Ann bids and leads first)."""
    tap(at, "big-deal")
    card(at, "Y15", "Y")
    for _ in range(3):
        tap(at, "big-bid-1-")
    return at


def test_setup_refuses_a_player_count_the_game_does_not_allow(db):
    at = ok(AppTest.from_file(str(PAGE), default_timeout=90))
    at.selectbox(key="rec_game").set_value("rage")
    at.text_input(key="rec_players").set_value("Ann, Ben")
    ok(at)
    assert "Rage is for 3 to 8 players; you named 2" in said(at)
    assert not [b for b in at.button if b.key == "rec_start"]
    assert read_listing(db) == []


def test_a_revoke_is_shown_the_moment_a_card_proves_it_and_the_log_is_exported(db, tmp_path):
    at, rid = started("rage", "Ann, Ben, Cat", rounds=1)
    rage_start(at)
    assert "Ann to play" in said(at)
    card(at, "R10", "R")
    assert "Ben to play" in said(at)
    card(at, "G5", "G")  # Ben does not follow red: nobody can tell yet
    assert "revoke" not in said(at)
    card(at, "R4", "R")
    assert "Ann to play" in said(at)  # Ann's R10 won: she leads
    card(at, "R11", "R")
    card(at, "R2", "R")  # Ben had a red card: taken, because it was played, and named
    words = said(at)
    assert "Ben played R2: taken, and it proves a revoke" in words
    assert "line 8: Ben played G5 on a red lead while holding R2" in words
    assert "Ben played R2 in trick 2, line 11" in words
    assert entries(at) == 10
    # exported from the command line, the log is the one entered, and verify names the line
    out = tmp_path / "rec.jsonl"
    done = subprocess.run([sys.executable, "-m", "trickledger", "recordings", "export", rid,
                           "-o", str(out), "--db", db], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    lines = [orjson.loads(x) for x in out.read_bytes().splitlines()]
    assert lines[0]["game"] == "rage" and lines[0]["players"] == ["Ann", "Ben", "Cat"]
    assert lines[1] == {"type": "deal"} and lines[2] == {"type": "trump", "card": "Y15"}
    assert [e["card"] for e in lines[1:] if e["type"] == "play"] == ["R10", "G5", "R4", "R11",
                                                                 "R2"]
    v = verdict(replay_bytes(out.read_bytes(), "rec.jsonl"))
    assert v["status"] == "illegal" and v["error"]["line"] == 8, v["error"]
    listed = subprocess.run([sys.executable, "-m", "trickledger", "recordings", "--db", db],
                            capture_output=True, text=True)
    assert listed.returncode == 0 and rid in listed.stdout and "10 taps" in listed.stdout


def test_cards_already_played_or_turned_up_are_not_offered(db):
    at, rid = started("rage", "Ann, Ben, Cat", rounds=1)
    rage_start(at)
    card(at, "R10", "R")
    show_colour(at, "R")
    offered = [b.label for b in at.button if (b.key or "").startswith("card-")]
    assert "R11" in offered and "R10" not in offered
    show_colour(at, "Y")
    offered = [b.label for b in at.button if (b.key or "").startswith("card-")]
    assert "Y14" in offered and "Y15" not in offered  # the trump turned up is nobody's


def test_plotters_refuses_a_fourth_colour_in_a_trick_with_the_reason(db):
    at, rid = started("plotters", "Ann, Ben, Cat, Dan", rounds=1)
    tap(at, "big-deal")
    card(at, "R14", "R")
    card(at, "G1", "G")
    card(at, "B7", "B")
    n = entries(at)
    card(at, "Y3", "Y")  # a fourth colour: refused, nothing stored
    words = said(at)
    assert "Not taken:" in words and "colour" in words
    assert entries(at) == n == 4
    assert len(read_recording(db, rid).events()) == 4


def test_undo_across_a_tricks_end_and_a_reload_give_the_log_entered(db):
    at, rid = started("rage", "Ann, Ben, Cat", rounds=1)
    rage_start(at)
    for c in ("R10", "R3", "R4"):  # trick 1: Ann wins with R10
        card(at, c, "R")
    card(at, "B9", "B")  # Ann leads trick 2
    assert entries(at) == 9
    tap(at, "big-undo")  # takes back B9
    tap(at, "big-undo")  # and across the trick's end: R4
    assert "Cat to play" in said(at) and entries(at) == 11
    card(at, "R12", "R")  # Cat wins trick 1 now and leads
    assert "Cat to play" in said(at)
    # a reload (a new session on the same address) shows the recording where it was
    again = AppTest.from_file(str(PAGE), default_timeout=90)
    again.query_params["rec"] = rid
    ok(again)
    assert "Cat to play" in said(again) and entries(again) == 12
    card(again, "B9", "B")
    events = read_recording(db, rid).events()
    assert [e.get("card") for e in events if e["type"] == "play"] == ["R10", "R3", "R12",
                                                                      "B9"]
    rec = read_recording(db, rid)
    assert [k for k, _ in rec.taps].count("undo") == 2  # nothing is deleted: undos are taps


def test_a_second_phone_on_a_stale_view_stores_nothing_in_the_wrong_place(db):
    one, rid = started("rage", "Ann, Ben, Cat", rounds=1)
    two = AppTest.from_file(str(PAGE), default_timeout=90)
    two.query_params["rec"] = rid
    ok(two)
    tap(one, "big-deal")
    ok(two)
    assert "Turn up the trump" in said(two)  # phone two sees phone one's deal
    two.segmented_control[0].set_value("Y")
    ok(two)
    card(one, "Y15", "Y")
    card(two, "Y14")  # phone two still saw 1 entry: its tap is refused, not misplaced
    assert "moved on meanwhile" in said(two)
    assert entries(two) == 2 and "Ann bids" in said(two)
    assert read_recording(db, rid).events() == [{"type": "deal"},
                                                {"type": "trump", "card": "Y15"}]


def test_an_abandoned_recording_is_kept_and_resumed_from_the_list(db):
    at, rid = started("rage", "Ann, Ben, Cat", rounds=1)
    rage_start(at)
    card(at, "R10", "R")
    home = ok(AppTest.from_file(str(PAGE), default_timeout=90))
    resume = [b for b in home.button if b.key == f"resume-{rid}"]
    assert resume and "6 taps" in resume[0].label
    resume[0].click()
    ok(home)
    assert "Ben to play" in said(home) and entries(home) == 6
    # the download is the log so far: incomplete, not lost
    log = read_recording(db, rid).log()
    assert verdict(replay_bytes(log, "x.jsonl"))["status"] == "incomplete"


def test_a_visitor_who_may_not_write_is_told_and_nothing_is_stored(db, monkeypatch):
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    at = ok(AppTest.from_file(str(PAGE), default_timeout=90))
    assert "Recording a game needs an account" in said(at)
    assert not [b for b in at.button if b.key == "rec_start"]


def test_a_revoke_the_cards_shown_at_the_rounds_end_prove_is_shown_with_both_cards(db):
    """under_the_radar: Dan's play in trick 7 is legal as far as the plays tell; the hand he
    shows when the last trick is taken holds a card that trick would have taken. The page
    says so the moment his cards are in, on the play's line, naming both cards."""
    from helpers import log_bytes

    from trickledger.dashboard.data import recordings
    from trickledger.ingest.recordings import new_id
    from trickledger.replay.playsonly import with_shown
    from trickledger.replay.registry import registry
    from trickledger.replay.simulate import SimOptions, simulate_one

    opts = SimOptions(game="under_the_radar", games=1, players=(3, 3), seed=13, rounds=1,
                      bots=("random", "greedy"))
    lines = [orjson.loads(x) for x in with_shown(simulate_one(opts, 0)[1]).splitlines()]
    head, events = lines[0], lines[1:]
    # a card of Lou's hand left (jb) swapped with Dan's first one (ja): Dan now held it
    ja, jb = len(events) - 1, len(events) - 2
    assert events[ja]["player"] == "Dan" and events[jb]["player"] == "Lou"
    x, z = "hollow-red-triangle", events[ja]["cards"][0]
    events[ja] = {**events[ja], "cards": [x, *events[ja]["cards"][1:]]}
    events[jb] = {**events[jb], "cards": [z if c == x else c for c in events[jb]["cards"]]}
    events = [{"type": "deal"} if e["type"] == "deal" else e for e in events]
    # the full log of the swap names the same line: the revoke is the rules', not the page's
    whole = verdict(replay_bytes(log_bytes(head, events), "swapped"))
    assert whole["status"] == "illegal" and whole["error"]["line"] == 52, whole["error"]
    rid = new_id()
    who = {"user": None, "via": "test", "address": None}
    recordings.record_start({k: v for k, v in head.items() if k != "meta"}, who, rid)
    for seq, ev in enumerate(events[:ja]):
        recordings.record_tap(rid, seq, "event", ev, who)
    at = AppTest.from_file(str(PAGE), default_timeout=90)
    at.query_params["rec"] = rid
    ok(at)
    assert "Round 1 is over" in said(at) and "revoke" not in said(at)
    tap(at, "big-show-Dan-")
    info = registry()["under_the_radar"]
    for c in events[ja]["cards"]:
        colour = str(info.cards.parse(c).color)
        card(at, c.replace("-", " ") if c[:1].isalpha() else c, colour)
    words = said(at)
    assert entries(at) == ja + 1
    assert ("Line 52: Dan played filled-red-circle, which trick 7 does not take" in words
            ), words
    assert ("while holding hollow-red-triangle (Dan showed hollow-red-triangle at the "
            "round's end, line 59)") in words, words
    assert read_recording(db, rid).events() == events
