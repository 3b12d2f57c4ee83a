"""FORMAT.md: the reader, claims, the verdict and the verify/replay commands."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import assert_illegal, check, log_bytes

from cli import main
from replay.engine import replay_bytes, verdict

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_logs" / "plotters" / "plotters-5p-claims.jsonl"
SAMPLE_4P = ROOT / "sample_logs" / "plotters" / "plotters-4p-early-end.jsonl"
H4 = {**orjson.loads(SAMPLE_4P.read_bytes().splitlines()[0]), "meta": {}}


def v_of(data: bytes, name="t.jsonl"):
    return verdict(replay_bytes(data, name))


# ------------------------------------------------------------ reading
def test_comments_and_blank_lines_keep_line_numbers():
    data = b"# a comment\n\n" + orjson.dumps(H4) + b"\n  # indented comment\n\n" + \
        b'{"type":"nope"}\n'
    assert_illegal(v_of(data), 6, "unknown event type 'nope'")


def test_gzip_bom_and_crlf_are_read():
    base = SAMPLE.read_bytes()
    assert v_of(gzip.compress(base))["status"] == "complete"
    assert v_of(b"\xef\xbb\xbf" + base.replace(b"\n", b"\r\n"))["status"] == "complete"


def test_gzip_bomb_is_refused():
    bomb = gzip.compress(b" " * (300 * 1024 * 1024), compresslevel=9)
    v = v_of(bomb)
    assert v["status"] == "unreadable" and "MiB" in v["error"]["message"]


@pytest.mark.parametrize("line,words", [
    (b"{not json", ["not valid JSON"]),
    (b"[1, 2]", ["expected a JSON object"]),
    (b'{"player": "Ann"}', ["no 'type'"]),
    (b'{"type": 3}', ["'type' must be a string"]),
    (b'{"type": "bid", "player": "Ann", "bid": 1}', ["not part of plotters"]),
    (b'{"type": "play", "player": "Ann"}', ["needs 'card'"]),
    (b'{"type": "play", "player": "Ann", "card": 7}', ["'card' must be"]),
    (b'{"type": "play", "player": "Zed", "card": "R1"}', ["'Zed', who is not a player"]),
    (b'{"type": "play", "player": "Ann", "card": "X1"}', ["'X1' is not a plotters card"]),
    (b'{"type": "play", "player": "Ann", "card": "R1", "x": NaN}', ["not valid JSON"]),
    (b'{"type": "play", "player": "Ann", "card": "R\xff1"}', ["not valid UTF-8"]),
    (b'{"type": "play", "player": "Ann", "card": 99999999999999999999999}', ["'card' must be"]),
    (b"[" * 5000 + b"]" * 5000, ["not valid JSON"]),
])
def test_malformed_lines_are_illegal_on_their_line(line, words):
    deal = SAMPLE_4P.read_bytes().splitlines()[1]
    line = line.replace(b"Ann", H4["players"][0].encode())
    data = orjson.dumps(H4) + b"\n" + deal + b"\n" + line + b"\n"
    assert_illegal(v_of(data), 3, *words)


@pytest.mark.parametrize("first,words", [
    (b"", ["no header"]),
    (b"hello", ["not valid JSON"]),
    (b'{"format": "trickledger/2", "game": "plotters", "players": ["A","B","C","D"]}',
     ["unknown format"]),
    (b'{"format": "trickledger/1", "game": "chess", "players": ["A","B","C","D"]}',
     ["unknown game 'chess'"]),
    (b'{"format": "trickledger/1", "game": "plotters", "players": ["A","B","C"]}',
     ["4-6 players"]),
    (b'{"format": "trickledger/1", "game": "plotters", "players": ["A","B","C","A"]}',
     ["twice"]),
    (b'{"format": "trickledger/1", "game": "plotters", "players": "ABCD"}', ["'players'"]),
    (b'{"format": "trickledger/1", "game": "plotters", "players": ["A","B","C","D"], '
     b'"dealer": "Z"}', ["'dealer'"]),
    (b'{"format": "trickledger/1", "game": "rage", "players": ["A","B","C"], "rounds": 11}',
     ["at most 10"]),
    (b'{"format": "trickledger/1", "game": "rage", "players": ["A","B","C"], '
     b'"variants": ["fast"]}', ["unknown variant"]),
])
def test_unreadable_headers(first, words):
    v = v_of(first + b"\n")
    assert v["status"] == "unreadable"
    for w in words:
        assert w in v["error"]["message"]


# ------------------------------------------------------------ claims
def test_claims_are_checked_and_never_change_the_status():
    data = SAMPLE.read_bytes()
    wrong = orjson.loads(data.splitlines()[0])["meta"]["wrong_claims"]
    v = v_of(data)
    assert v["status"] == "complete"
    bad = [c for c in v["claims"] if not c["match"]]
    assert [(c["round"], c["player"]) for c in bad] == [(w["round"], w["player"]) for w in wrong]
    assert len(bad) == 1 and bad[0]["claimed"] != bad[0]["computed"]


def test_claim_for_an_unfinished_round_or_unknown_player():
    deal = {"type": "deal", "hands": {}}
    v = check(H4, [{"type": "claim", "round": 1, "scores": {"Ann": 0}}])
    assert_illegal(v, 2, "round 1, which has not finished")
    v = check(H4, [{"type": "claim", "totals": {"Zed": 0}}])
    assert_illegal(v, 2, "'Zed', who is not a player")
    v = check(H4, [{"type": "claim", "scores": {"Ann": 0}}])
    assert_illegal(v, 2, "needs 'round'")
    v = check(H4, [deal])
    assert v["status"] == "illegal"


def test_totals_claim_checks_rounds_finished_so_far():
    data = SAMPLE.read_bytes()
    lines = data.splitlines()
    v = v_of(data)
    totals = v["totals"]
    second = v["players"][1]
    good = orjson.dumps({"type": "claim", "totals": totals})
    wrong = orjson.dumps({"type": "claim", "totals": {**totals, second: totals[second] + 1}})
    v2 = v_of(b"\n".join(lines + [good, wrong]) + b"\n")
    added = v2["claims"][len(v["claims"]):]
    assert all(c["round"] is None for c in added)
    assert [c["match"] for c in added] == [True] * 5 + [p != second for p in v["players"]]
    # mid-game, a totals claim covers only the rounds finished so far
    first_round_end = next(i for i, ln in enumerate(lines) if b'"round":1' in ln)
    r1 = v["rounds"][0]["scores"]
    early = orjson.dumps({"type": "claim", "totals": r1})
    v3 = v_of(b"\n".join(lines[:first_round_end + 1] + [early]) + b"\n")
    assert all(c["match"] for c in v3["claims"])


# ------------------------------------------------------------ the commands
def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "cli", *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_verify_json_and_exit_status(tmp_path):
    p = run_cli("verify", "--json", str(SAMPLE))
    assert p.returncode == 1  # one claim does not match
    v = orjson.loads(p.stdout)
    assert v["status"] == "complete" and v["winners"]
    best = max(v["totals"].values())
    assert all(v["totals"][w] == best for w in v["winners"])
    good = tmp_path / "g.jsonl"
    good.write_bytes(b"\n".join(SAMPLE.read_bytes().splitlines()[:40]) + b"\n")
    assert run_cli("verify", str(good)).returncode == 0
    bad = tmp_path / "b.jsonl"
    bad.write_bytes(b"nothing")
    p = run_cli("verify", str(bad))
    assert p.returncode == 2 and "unreadable" in p.stdout and "Traceback" not in p.stderr
    assert run_cli("verify").returncode == 2
    assert run_cli("verify", str(tmp_path / "missing.jsonl")).returncode == 2


def test_verify_human_report_explains_the_mismatch(capsys):
    assert main(["verify", str(SAMPLE)]) == 1
    out = capsys.readouterr().out
    assert "1 does not match" in out
    wrong = orjson.loads(SAMPLE.read_bytes().splitlines()[0])["meta"]["wrong_claims"][0]
    assert f"{wrong['player']} round {wrong['round']}: open " in out
    assert ", sheet says " in out and f"(line {wrong['line']})" in out


def test_verify_reports_file_and_line(tmp_path, capsys):
    p = tmp_path / "broken.jsonl"
    p.write_bytes(log_bytes(H4, [{"type": "play", "player": "Ann", "card": "R1"}]))
    assert main(["verify", str(p)]) == 1
    assert f"{p}:2: no card may be played now" in capsys.readouterr().out


def test_replay_prints_tricks_picks_and_scores(capsys):
    assert main(["replay", str(SAMPLE)]) == 1
    out = capsys.readouterr().out
    assert "first winner" in out and "second winner" in out and "stacks:" in out
    assert "== Round 5" in out and "MISMATCH" in out
