"""Hosting, round two: every input gets a verdict (gzip members, symlinked folders) and no
escape code reaches the terminal (docs/reliability.md)."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import orjson
from helpers import rows

from trickledger import main
from trickledger.replay.reader import INVISIBLE

ROOT = Path(__file__).resolve().parents[2]
RAGE = ROOT / "sample_logs" / "rage"
GAME = RAGE / "rage-5p-hidden-bid.jsonl"


def test_every_gzip_member_is_loaded_and_kept(tmp_path, capsys):
    lines = GAME.read_bytes().splitlines(keepends=True)
    first, rest = b"".join(lines[:3]), b"".join(lines[3:])
    split = tmp_path / "split.jsonl.gz"
    split.write_bytes(gzip.compress(first) + gzip.compress(rest))
    db = str(tmp_path / "t.duckdb")
    assert main(["ingest", "--db", db, str(split)]) == 0
    capsys.readouterr()
    assert rows(db, "SELECT status, raw_text FROM logs") == [("complete", (first + rest).decode())]


def test_a_symlink_out_of_the_folder_is_reported_once_folder_or_file(tmp_path, capsys):
    inside, outside = tmp_path / "in", tmp_path / "out"
    (outside / "sub").mkdir(parents=True)
    inside.mkdir()
    shutil.copy(GAME, inside / "game.jsonl")
    shutil.copy(GAME, outside / "elsewhere.jsonl")
    shutil.copy(RAGE / "rage-8p-secret-bid-claims.jsonl", outside / "sub" / "hidden.jsonl")
    os.symlink(outside / "sub", inside / "linked")
    os.symlink(outside / "elsewhere.jsonl", inside / "linked.jsonl")
    db = str(tmp_path / "t.duckdb")
    # the folder, a glob over it and the folder again: each refused path once
    assert main(["ingest", "--db", db, str(inside), str(inside / "*"), str(inside)]) == 2
    err = capsys.readouterr().err
    for link in ("linked", "linked.jsonl"):
        said = [line for line in err.splitlines()
                if line.startswith(f"{inside / link}: a symlink that leads out")]
        assert len(said) == 1, (link, err)
        assert rows(db, "SELECT count(*) FROM ingest_errors WHERE file_name = ?",
                    [str(inside / link)]) == [(1,)], link
    assert rows(db, "SELECT count(*) FROM logs") == [(1,)]
    assert main(["verify", str(inside)]) == 2
    assert capsys.readouterr().err.count("a symlink that leads out") == 2


EVIL = "\x1b]0;pwned\x07\x1b[2J\x9b1m\u202e\u200e\u200f\u061c"


def _clean(text: str) -> bool:
    # our own line breaks (CSV's are \r\n) and tabs are not an attack
    return not INVISIBLE.search(text.replace("\r\n", "").replace("\n", "").replace("\t", ""))


def test_no_escape_code_reaches_the_terminal_from_sql_or_verify(tmp_path, capsys):
    db = str(tmp_path / "t.duckdb")
    assert main(["ingest", "--db", db, str(GAME)]) == 0
    capsys.readouterr()
    for fmt in ("table", "csv", "json"):
        assert main(["sql", "--db", db, "--format", fmt,
                     f"SELECT '{EVIL}' AS \"{EVIL}\""]) == 0
        out = capsys.readouterr().out
        assert _clean(out), (fmt, out)
        if fmt == "json":
            assert orjson.loads(out) == [{EVIL: EVIL}]  # the same JSON, spelled safely
    assert main(["sql", "--db", db, f"SELECT * FROM \"{EVIL}\""]) != 0  # quoted in the error
    err = capsys.readouterr().err
    assert "pwned" in err and _clean(err), err
    named = tmp_path / f"game{EVIL}.jsonl"
    shutil.copy(GAME, named)
    assert main(["verify", "--json", str(named)]) == 0
    out = capsys.readouterr().out
    assert _clean(out) and orjson.loads(out)["file"] == str(named)
    assert main(["verify", str(named)]) == 0
    out = capsys.readouterr().out
    assert "pwned" in out and _clean(out), out


def test_analyse_dashboard_simulate_and_users_write_no_escape_code_to_the_terminal(
        tmp_path, capsys):
    """Attack on issue 35's fixes, 'terminal escapes through every command': the commands
    the issue did not name printed what they were given raw. Before: `analyse --lake`
    wrote the folder's name with its ESC, OSC, C1 and RLO to standard error, `dashboard`
    its address and database path, `simulate` the folder it wrote to, and `users add`
    the name in its password prompt (and, with nothing on standard input, ended in an
    EOFError traceback)."""
    import subprocess
    import sys

    evil = tmp_path / f"x{EVIL}"
    assert main(["analyse", "--lake", str(evil)]) == 2
    err = capsys.readouterr().err
    assert "pwned" in err and _clean(err), err
    assert main(["dashboard", "--address", f"127.0.0.1{EVIL}", "--port", "1",
                 "--db", str(tmp_path / "d.duckdb")]) == 2
    err = capsys.readouterr().err
    assert "pwned" in err and _clean(err), err
    assert main(["simulate", "--game", "rage", "--games", "1", "--out", str(evil)]) == 0
    out = capsys.readouterr().out
    assert "pwned" in out and _clean(out), out
    users = subprocess.run(
        [sys.executable, "-m", "trickledger", "users", "add", f"ann{EVIL}", "--users",
         str(tmp_path / "users.toml")], stdin=subprocess.DEVNULL, capture_output=True,
        text=True, start_new_session=True, timeout=120)  # no terminal: stdin is empty
    assert users.returncode == 2, users.stdout + users.stderr
    assert "Traceback" not in users.stderr, users.stderr
    shown = users.stdout + users.stderr.replace("Warning: Password input may be echoed.", "")
    assert _clean(shown), shown
    assert "no password given" in users.stderr
