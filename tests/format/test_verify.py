"""docs/format.md: the reader, claims, the verdict and the verify/replay commands."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import assert_illegal, check, log_bytes

from trickledger import main
from trickledger.replay.engine import replay_bytes, verdict

ROOT = Path(__file__).resolve().parents[2]
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


def test_a_json_error_names_the_files_line_only():
    deal = SAMPLE_4P.read_bytes().splitlines()[1]
    data = orjson.dumps(H4) + b"\n" + deal + b'\n{"type": "play",, "player": "x"}\n'
    v = v_of(data)
    assert_illegal(v, 3, "not valid JSON", "at column 17")
    assert "line 1" not in v["error"]["message"]


@pytest.mark.parametrize("extra,words", [
    ({"t": 5}, ["'t' must be a timestamp string"]),
    ({"t": None}, ["'t' must be a timestamp string, got null"]),
    ({"note": ["a"]}, ["'note' must be a string, got a list"]),
])
def test_every_known_key_of_the_wrong_kind_is_an_error_on_its_line(extra, words):
    deal = orjson.loads(SAMPLE_4P.read_bytes().splitlines()[1])
    data = log_bytes(H4, [{**deal, **extra}])
    assert_illegal(v_of(data), 2, *words)
    # keys this version does not know are ignored, whatever their value
    assert v_of(log_bytes(H4, [{**deal, "later": None, "x": [1, {}]}]))["status"] == "incomplete"


def test_optional_list_keys_given_as_null_are_the_wrong_kind():
    lines = (ROOT / "sample_logs" / "color_stacks" / "color-stacks-3p.jsonl").read_bytes().splitlines()
    deal = orjson.loads(lines[1])
    head = orjson.loads(lines[0])
    assert_illegal(v_of(log_bytes(head, [{**deal, "pile": None}])), 2, "'pile' must be",
                   "got null")
    assert_illegal(v_of(log_bytes(head, [{**deal, "aside": None}])), 2, "'aside' must be")
    utr = (ROOT / "sample_logs" / "under_the_radar" / "under-the-radar-3p.jsonl")
    head, deal = (orjson.loads(x) for x in utr.read_bytes().splitlines()[:2])
    assert_illegal(v_of(log_bytes(head, [{**deal, "removed": None}])), 2, "'removed' must be")
    assert v_of(log_bytes(head, [{**deal, "removed": []}]))["status"] == "incomplete"


def test_a_rage_as_of_the_wrong_kind_is_an_error_even_on_a_plain_card():
    data = (ROOT / "sample_logs" / "rage" / "rage-5p-hidden-bid.jsonl").read_bytes().splitlines()
    i = next(k for k, ln in enumerate(data) if b'"type":"play"' in ln and b"JOKER" not in ln)
    ev = orjson.loads(data[i])
    assert v_of(b"\n".join(data[:i] + [orjson.dumps({**ev, "as": "G"})]))["status"] != "illegal"
    bad = b"\n".join(data[:i] + [orjson.dumps({**ev, "as": 3})])
    assert_illegal(v_of(bad), i + 1, "'as' must be a colour letter, got an integer")


def test_an_integer_of_any_size_is_an_integer():
    data = SAMPLE.read_bytes()
    v = v_of(data)
    player = v["players"][0]
    huge = 10**20 + 7
    line = b'{"type":"claim","round":1,"scores":{"%s":%d}}' % (player.encode(), huge)
    v2 = v_of(data + line + b"\n")
    last = v2["claims"][-1]
    assert last["claimed"] == huge and last["match"] is False and v2["status"] == "complete"


@pytest.mark.parametrize("name,words", [
    ("A" * 65, ["at most 64 characters"]),
    ("Ann\u001b[2J", ["control character U+001B"]),
    ("Ann\u202eevil", ["control character U+202E"]),
    ("Ann\nBen", ["control character U+000A"]),
])
def test_player_names_are_plain_text_of_bounded_length(name, words):
    head = {**H4, "players": [name, *H4["players"][1:]]}
    v = v_of(orjson.dumps(head) + b"\n")
    assert v["status"] == "unreadable" and v["error"]["line"] == 1
    for w in words:
        assert w in v["error"]["message"]


def test_verify_reads_devices_and_pipes_within_bounds(tmp_path):
    import os

    zero = run_cli("verify", "--json", "/dev/zero")
    assert zero.returncode == 2 and "more than 64 MiB" in orjson.loads(zero.stdout)["error"]["message"]
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    nobody = run_cli("verify", "--json", str(fifo))  # no writer: read as empty
    assert nobody.returncode == 2 and "no header" in orjson.loads(nobody.stdout)["error"]["message"]


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
    return subprocess.run([sys.executable, "-m", "trickledger", *args], capture_output=True,
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
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert "b.jsonl:1: line is not valid JSON" in p.stderr  # errors go to standard error
    assert run_cli("verify").returncode == 2
    missing = run_cli("verify", str(tmp_path / "missing.jsonl"))
    assert missing.returncode == 2 and "no such file or folder" in missing.stderr


def test_verify_takes_folders_and_standard_input(tmp_path):
    folder = tmp_path / "logs"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.jsonl").write_bytes(SAMPLE.read_bytes())
    (folder / "sub" / "b.jsonl.gz").write_bytes(gzip.compress(SAMPLE_4P.read_bytes()))
    (folder / "notes.txt").write_text("not a log")
    p = run_cli("verify", "--json", str(folder))
    verdicts = orjson.loads(p.stdout)
    assert [Path(v["file"]).name for v in verdicts] == ["a.jsonl", "b.jsonl.gz"]
    assert p.returncode == 1  # the first carries a wrong claim
    piped = subprocess.run([sys.executable, "-m", "trickledger", "verify", "--json", "-"],
                           input=SAMPLE_4P.read_bytes(), capture_output=True, cwd=ROOT)
    v = orjson.loads(piped.stdout)
    assert v["file"] == "<stdin>" and v["status"] == "complete" and piped.returncode == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    p = run_cli("verify", str(empty))
    assert p.returncode == 2 and "holds no .jsonl" in p.stderr


def test_folders_refuse_what_is_not_a_regular_file_and_links_that_leave(tmp_path):
    import os

    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(SAMPLE_4P.read_bytes())
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "ok.jsonl").write_bytes(SAMPLE_4P.read_bytes())
    os.mkfifo(folder / "pipe.jsonl")
    (folder / "away.jsonl").symlink_to(outside)
    (folder / "loop").symlink_to(folder)  # a loop must not make the walk endless
    p = run_cli("verify", "--json", str(folder))
    assert p.returncode == 2
    assert [Path(v["file"]).name for v in orjson.loads(p.stdout)] == ["ok.jsonl"]
    assert "pipe.jsonl: not a regular file" in p.stderr
    assert "away.jsonl: a symlink that leads out of" in p.stderr
    p = run_cli("verify", "--json", "--follow-symlinks", str(folder))
    names = sorted(Path(v["file"]).name for v in orjson.loads(p.stdout))
    assert "away.jsonl" in names and names.count("ok.jsonl") == 1
    glob = run_cli("verify", "--json", str(tmp_path / "**" / "*.jsonl"))
    assert "ok.jsonl" in glob.stdout and "pipe.jsonl: not a regular file" in glob.stderr


def test_one_set_of_exit_codes_for_verify_replay_and_ingest(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(SAMPLE_4P.read_bytes())
    illegal = tmp_path / "illegal.jsonl"
    head, rest = SAMPLE_4P.read_bytes().split(b"\n", 1)
    other_id = orjson.dumps({**orjson.loads(head), "id": "another-game"})
    illegal.write_bytes(other_id + b"\n" + rest.replace(b'"type":"take"', b'"type":"tak"', 1))
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"junk")
    for cmd in (["verify"], ["replay"]):
        assert run_cli(*cmd, str(good)).returncode == 0
        assert run_cli(*cmd, str(SAMPLE)).returncode == 1  # disputed
        assert run_cli(*cmd, str(illegal)).returncode == 1
        assert run_cli(*cmd, str(junk)).returncode == 2
    db = str(tmp_path / "t.duckdb")
    assert run_cli("ingest", "--db", db, str(good)).returncode == 0
    disputed = run_cli("ingest", "--db", db, str(SAMPLE))
    assert disputed.returncode == 1 and "disputed: 1 claimed score does not match" in \
        disputed.stderr
    assert run_cli("ingest", "--db", db, str(illegal)).returncode == 1
    assert run_cli("ingest", "--db", db, str(junk)).returncode == 2
    help_text = " ".join(run_cli("verify", "--help").stdout.split())
    assert "exit status: 0" in help_text and "2 when a log is unreadable" in help_text
    assert run_cli("--version").stdout.startswith("trickledger ")


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
