"""What a reader cannot see: names refused at read time, text escaped for the terminal
(docs/reliability.md, 'A name is plain text' and 'No escape codes reach the terminal')."""

from __future__ import annotations

import gzip
import sys
import unicodedata

import orjson
import pytest
from helpers import header, log_bytes

from trickledger.replay.commands import json_text, terminal
from trickledger.replay.engine import replay_bytes
from trickledger.replay.reader import INVISIBLE, MAX_GZIP_MEMBERS, bad_name


def test_every_control_format_and_separator_character_is_invisible():
    missing = [f"U+{c:04X}" for c in range(sys.maxunicode + 1)
               if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")
               and not INVISIBLE.match(chr(c))]
    assert not missing, missing


BLANK_OR_ALIKE = {
    "\u3164": "Hangul filler", "\u115f": "Hangul choseong filler",
    "\u1160": "Hangul jungseong filler", "\uffa0": "halfwidth Hangul filler",
    "\u2800": "Braille blank", "Ann\u034f": "combining grapheme joiner",
    "Ann\ufe0f": "variation selector", "Ann\U000e0100": "variation selector supplement",
    "Ann\u180b": "Mongolian selector", "Ann\u200b": "zero width space",
    "Ann\u2060": "word joiner", "Ann\u00ad": "soft hyphen", "Ann\U000e0041": "tag",
    "Ann\u200e": "left-to-right mark", "Ann\u061c": "Arabic letter mark",
    "Ann\u17b4": "Khmer inherent vowel", "Ann\u00a0Lee": "no-break space",
    "Ann\u3000": "ideographic space", " Ann": "leading space", "Ann ": "trailing space",
    "\u0301\u0301": "combining marks alone",
    "Lou\U0001d159": "musical null notehead",
    "Ned\U00016fe4": "Khitan small script filler", "Lou\ufffc": "object replacement character",
    "Lou\U0001d173": "musical begin beam", "Lou\u2061": "function application",
    "Lou\u2064": "invisible plus",
}


@pytest.mark.parametrize("name", list(BLANK_OR_ALIKE), ids=list(BLANK_OR_ALIKE.values()))
def test_names_that_look_blank_or_alike_are_refused_at_read_time(name):
    assert bad_name(name)
    head = header("rage", 4)
    head["players"] = [name, *head["players"][1:]]
    r = replay_bytes(log_bytes(head, []), "t.jsonl")
    assert r.status == "unreadable" and r.error is not None and r.error.line == 1, r.error
    assert "name" in r.error.message


@pytest.mark.parametrize("pair", [("Jos\u00e9", "Jose\u0301"), ("Ann", "\uff21nn")],
                         ids=["composed and decomposed", "full-width"])
def test_two_names_that_look_the_same_are_refused(pair):
    head = header("rage", 4)
    head["players"] = [*pair, *head["players"][2:]]
    r = replay_bytes(log_bytes(head, []), "t.jsonl")
    assert r.status == "unreadable" and r.error is not None and "look alike" in r.error.message


@pytest.mark.parametrize("name", ["Ann", "Ann Lee", "Zoë", "José", "李小龍", "Ann 🎉",
                                  "O'Brien", "김민준", "Ann-Marie", "$"])
def test_ordinary_names_stay_names(name):
    assert bad_name(name) is None


ATTACKS = ["\x1b[2J", "\x1b]0;pwned\x07", "\x9b2J", "\u202egnp", "\u200e", "\u200f",
           "\u061c", "\u2066x\u2069", "\x7f", "\u2028", "\U000e0041"]


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.encode("unicode_escape").decode()
                                                 for a in ATTACKS])
def test_no_escape_code_or_direction_mark_reaches_the_terminal(attack):
    shown = terminal(f"Ann{attack}.jsonl")
    assert not INVISIBLE.search(shown), shown
    as_json = json_text({"name": f"Ann{attack}", "n": [1, 2]})
    assert not INVISIBLE.search(as_json.replace("\n", "")), as_json
    assert orjson.loads(as_json) == {"name": f"Ann{attack}", "n": [1, 2]}  # the same JSON


@pytest.mark.parametrize("field", ["x\ntrusted.jsonl: complete (rage, 4 players)\ny",
                                   "a\tb", "a\r\n(0 rows)"])
def test_a_line_break_or_tab_in_a_data_field_is_escaped(field, capsys):
    """A file name, value or column name cannot add a line of its own (a forged verdict,
    a forged table row): its line breaks and tabs show as escapes."""
    from trickledger.replay.commands import say

    shown = terminal(field)
    assert "\n" not in shown and "\t" not in shown and "\r" not in shown, shown
    say(f"{terminal(field)}: illegal\n  next line")
    out = capsys.readouterr().out
    assert out.splitlines() == [f"{shown}: illegal", "  next line"], out


def _split_log() -> tuple[bytes, bytes]:
    from pathlib import Path

    data = (Path(__file__).resolve().parents[2] / "sample_logs" / "rage"
            / "rage-5p-hidden-bid.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    return b"".join(lines[:3]), b"".join(lines[3:])


def test_every_gzip_member_is_read():
    first, rest = _split_log()
    whole = replay_bytes(first + rest, "whole.jsonl")
    split = replay_bytes(gzip.compress(first) + gzip.compress(rest), "split.jsonl.gz")
    assert whole.status == "complete"
    assert split.status == "complete" and len(split.state.rounds) == len(whole.state.rounds)
    hidden = replay_bytes(gzip.compress(first + rest) + gzip.compress(b'{"type":"nonsense"}\n'),
                          "hidden.jsonl.gz")
    assert hidden.status == "illegal", hidden.status


def test_gzip_members_are_bounded_and_trailing_bytes_refused():
    first, rest = _split_log()
    many = replay_bytes(gzip.compress(first) + gzip.compress(b"") * 200_000, "many.jsonl.gz")
    assert many.status == "unreadable" and f"{MAX_GZIP_MEMBERS:,} gzip members" in \
        many.error.message
    tail = replay_bytes(gzip.compress(first + rest) + b"garbage", "tail.jsonl.gz")
    assert tail.status == "unreadable" and "not gzip" in tail.error.message
    cut = replay_bytes(gzip.compress(first) + gzip.compress(rest)[:-9], "cut.jsonl.gz")
    assert cut.status == "unreadable" and "truncated" in cut.error.message


def test_a_file_name_with_a_line_break_cannot_forge_a_verdict(capsys):
    """`verify` on a file named "x<newline>trusted.jsonl: complete (...)<newline>y.jsonl":
    the name stays on its own report line, escaped."""
    from trickledger.replay.commands import human_report, say

    first, rest = _split_log()
    name = "x\ntrusted.jsonl: complete (rage, 5 players)\ny.jsonl"
    for data in (first + rest, b"not json\n"):
        say(human_report(replay_bytes(data, name)))
        lines = capsys.readouterr().out.splitlines()
        assert not any(line.startswith("trusted.jsonl") for line in lines), lines
        assert any(line.startswith("x\\ntrusted.jsonl") for line in lines), lines

