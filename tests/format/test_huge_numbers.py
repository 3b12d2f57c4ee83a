"""FORMAT.md: "a JSON integer of any size is an integer: a claim of 20 digits is checked,
not rejected" — in every verdict, the JSON one included."""

from __future__ import annotations

from pathlib import Path

import orjson

from trickledger import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_logs" / "plotters" / "plotters-5p-claims.jsonl"
HUGE = 123456789012345678901234  # beyond 64 bits, signed or not


def huge_claim_log(tmp_path: Path) -> Path:
    path = tmp_path / "huge.jsonl"
    path.write_bytes(SAMPLE.read_bytes() + b'{"type":"claim","totals":{"Yan":%d}}\n' % HUGE)
    return path


def test_verify_json_prints_a_claim_beyond_64_bits_exactly(tmp_path, capsys):
    path = huge_claim_log(tmp_path)
    assert main(["verify", "--json", str(path)]) == 1  # a claim that does not match
    out = capsys.readouterr().out
    v = orjson.loads(out.replace(str(HUGE), '"HUGE"'))  # orjson itself stops at 64 bits
    assert str(HUGE) in out
    huge = [c for c in v["claims"] if c["claimed"] == "HUGE"]
    assert huge and huge[0]["player"] == "Yan" and huge[0]["match"] is False
    assert v["status"] == "complete"


def test_only_a_line_with_a_number_beyond_64_bits_is_parsed_twice():
    """The reader parses a line again (exactly) only when orjson's reading holds a float,
    which is how orjson reads an integer beyond 64 bits. The decision is asked of the
    reader's own predicate, not by patching a function: the compiled engine calls its
    functions directly, and a patch would not be seen there."""
    from trickledger.replay import reader

    digits = b'{"type":"claim","totals":{"Ann":1},"note":"1234567890123456789012"}'
    assert not reader.has_float(orjson.loads(digits))  # digits inside a string: no number
    assert reader.event_object("t.jsonl", 2, digits)["totals"] == {"Ann": 1}
    huge = b'{"type":"claim","totals":{"Ann":%d}}' % HUGE
    assert reader.has_float(orjson.loads(huge))  # orjson's reading is not exact ...
    assert reader.event_object("t.jsonl", 3, huge)["totals"] == {"Ann": HUGE}  # ... this is
    nested = b'{"type":"claim","totals":{"Ann":1},"x":[[{"y":%d}]]}' % HUGE
    assert reader.has_float(orjson.loads(nested))
    lowest = b'{"type":"claim","totals":{"Ann":-9223372036854775808}}'  # still 64 bits
    assert not reader.has_float(orjson.loads(lowest))
