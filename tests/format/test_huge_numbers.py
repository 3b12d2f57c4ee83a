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


def test_only_a_line_with_a_number_beyond_64_bits_is_parsed_twice(monkeypatch):
    from replay import reader

    calls: list[bytes] = []
    real = reader.exact_loads
    monkeypatch.setattr(reader, "exact_loads", lambda raw: calls.append(raw) or real(raw))
    digits = b'{"type":"claim","totals":{"Ann":1},"note":"1234567890123456789012"}'
    assert reader.event_object("t.jsonl", 2, digits)["totals"] == {"Ann": 1}
    huge = b'{"type":"claim","totals":{"Ann":%d}}' % HUGE
    assert reader.event_object("t.jsonl", 3, huge)["totals"] == {"Ann": HUGE}
    assert calls == [huge]  # digits inside a string are no number: orjson's reading stands
