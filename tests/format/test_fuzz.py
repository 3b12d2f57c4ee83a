"""Fuzzing: mutated logs always get a verdict with a line inside the file, never a traceback.

Longer run: `FUZZ_EXAMPLES=5000 .venv/bin/python -m pytest tests/format/test_fuzz.py` (see
docs/reliability.md).
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trickledger import main
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.reader import MAX_LINES, MAX_LOG_BYTES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = sorted((ROOT / "sample_logs").glob("*/*.jsonl"))
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "300"))
STATUSES = {"complete", "incomplete", "illegal", "unreadable"}

ODD_VALUES = [None, True, -1, 0, 2**70, 1.5, "", "R1", "JOKER", "filled-red-triangle", "red",
              "Ann", [], {}, ["R1", "R2"], {"Ann": 1}, "x" * 300, "\u202e\u0000"]


def check_verdict(data: bytes) -> dict:
    """The property every input must have."""
    v = verdict(replay_bytes(data, "fuzz.jsonl"))
    assert v["status"] in STATUSES
    lines = data.count(b"\n") + 1
    if v["status"] == "illegal":
        assert 1 <= v["error"]["line"] <= lines, v["error"]
        assert "internal error" not in v["error"]["message"], v["error"]
    elif v["status"] == "unreadable":
        assert v["error"]["line"] is None or 1 <= v["error"]["line"] <= lines
    return v


def mutate_value(obj, path_choice: int, value):
    """Replace one value somewhere inside a JSON object (depth-first, by index)."""
    spots = []

    def walk(o):
        if isinstance(o, dict):
            for k in o:
                spots.append((o, k))
                walk(o[k])
        elif isinstance(o, list):
            for i in range(len(o)):
                spots.append((o, i))
                walk(o[i])

    walk(obj)
    if spots:
        container, key = spots[path_choice % len(spots)]
        container[key] = value
    return obj


@st.composite
def mutated(draw):
    data = draw(st.sampled_from(SAMPLES)).read_bytes()
    lines = data.split(b"\n")
    n = len(lines) - 1
    op = draw(st.sampled_from(["truncate", "cut_line", "delete", "duplicate", "swap", "value",
                               "type", "nan", "utf8", "bom_crlf", "deep", "long", "gzip_cut"]))
    i = draw(st.integers(0, max(n - 1, 0)))
    j = draw(st.integers(0, max(n - 1, 0)))
    if op == "truncate":
        return data[:draw(st.integers(0, len(data)))]
    if op == "cut_line":
        lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
    elif op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif op in ("value", "type"):
        try:
            obj = orjson.loads(lines[i])
        except orjson.JSONDecodeError:
            return data
        value = draw(st.sampled_from(ODD_VALUES)) if op == "type" else \
            draw(st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=12)))
        # the stdlib writer: it can write what orjson refuses (2**70), as a user might
        lines[i] = json.dumps(mutate_value(obj, draw(st.integers(0, 10**6)), value)).encode()
    elif op == "nan":
        lines[i] = lines[i].replace(b":", b":NaN,\"x\":", 1)
    elif op == "utf8":
        k = draw(st.integers(0, len(lines[i])))
        lines[i] = lines[i][:k] + b"\xff\xfe\xc3" + lines[i][k:]
    elif op == "bom_crlf":
        return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")
    elif op == "deep":
        lines.insert(i, b'{"type":"play","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    elif op == "long":
        lines.insert(i, orjson.dumps({"type": "claim", "totals": {}, "note": "n" * 3_000_000}))
    elif op == "gzip_cut":
        z = gzip.compress(data)
        return z[:draw(st.integers(0, len(z)))]
    return b"\n".join(lines)


@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_logs_always_get_a_verdict(data):
    check_verdict(data)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_valid_logs_verify_complete(path):
    v = check_verdict(path.read_bytes())
    assert v["status"] in ("complete", "illegal")  # the corpus has injected illegal moves
    meta = orjson.loads(path.read_bytes().split(b"\n", 1)[0])["meta"]
    assert (v["status"] == "illegal") == ("illegal" in meta)


def test_a_file_of_a_million_lines_stops_at_the_line_limit():
    data = (ROOT / "sample_logs" / "rage" / "rage-3p-plus-minus-one-marching.jsonl").read_bytes()
    limit = MAX_LINES
    # stopping at the limit's line (not after the millionth) is what bounds the work: a
    # condition, not a time (the suite never races the clock)
    v = check_verdict(data + b'{"type":"claim","totals":{}}\n' * 1_000_000)
    assert v["status"] == "illegal" and v["error"]["line"] == limit + 1
    assert f"at most {limit:,} lines" in v["error"]["message"]
    assert v["rounds"] and v["totals"]  # the game itself was replayed
    v = check_verdict(data + b"\n" * 1_000_000 + b'{"type":"deal","hands":{}}\n')
    assert v["status"] == "illegal" and v["error"]["line"] == limit + 1
    # just under the limit, blank lines and all, a log is read to its end
    short = data + b"\n" * (limit - data.count(b"\n") - 1) + b'{"type":"deal","hands":{}}\n'
    v = check_verdict(short)
    assert v["status"] == "illegal" and v["error"]["line"] == limit


def blank_lines_gzip(mib: int) -> bytes:
    """One gzip member holding `mib` MiB of blank lines, made without compressing them all:
    after a full flush the compressor starts afresh, so every further MiB compresses to the
    same bytes, which are repeated; the trailer (the text's CRC-32 and length) is written
    for the whole text."""
    import struct

    piece = b"\n" * (1024 * 1024)
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
    again = packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH)
    assert packer.compress(piece) + packer.flush(zlib.Z_FULL_FLUSH) == again
    end = packer.flush()[:-8]  # the last (empty) block, without the trailer for 3 MiB
    crc = 0
    for _ in range(mib):
        crc = zlib.crc32(piece, crc)
    return first + again * (mib - 1) + end + struct.pack("<II", crc, (mib << 20) & 0xFFFFFFFF)


def test_a_gzip_bomb_is_refused_quickly(tmp_path):
    """A bomb of 1 GiB of blank lines in one gzip member (made without compressing 1 GiB,
    which would cost the suite five seconds of CPU: `blank_lines_gzip`, checked whole at a
    small size) is refused once the inflated text passes the cap: it is never inflated
    whole."""
    assert gzip.decompress(blank_lines_gzip(5)) == b"\n" * (5 * 1024 * 1024)
    bomb = blank_lines_gzip(1024)
    assert len(bomb) < 2 * 1024 * 1024  # a bomb: a thousandth of what it inflates to
    v = check_verdict(bomb)
    assert v["status"] == "unreadable" and "gzip bomb" in v["error"]["message"]
    assert f"more than {MAX_LOG_BYTES // (1024 * 1024)} MiB" in v["error"]["message"]
    p = tmp_path / "bomb.jsonl.gz"
    p.write_bytes(bomb)
    assert main(["verify", str(p)]) == 2


def test_tamper_evidence_sha256_ties_the_verdict_to_the_bytes(tmp_path, capsys):
    data = SAMPLES[0].read_bytes()
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(data)
    b.write_bytes(data.replace(b"}", b" }", 1))  # same game, one byte more
    main(["verify", "--json", str(a), str(b)])
    va, vb = orjson.loads(capsys.readouterr().out)
    import hashlib

    assert va["sha256"] == hashlib.sha256(data).hexdigest()
    assert vb["sha256"] != va["sha256"] and va["status"] == vb["status"]
