"""A log is a score sheet when its first event other than a claim is a `sheet` line, a move
log otherwise (docs/format.md): the reader answers most logs without parsing a line, so
every spelling that could hide a `sheet` or a `claim` must still be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from trickledger.replay.reader import read_bytes

SHEET = Path(__file__).resolve().parents[2] / "sample_logs" / "sheets" / "rage-4p.sheet.jsonl"


def kind_of(body: list[bytes]) -> bool:
    header = SHEET.read_bytes().split(b"\n", 1)[0]
    return read_bytes(b"\n".join([header, *body]) + b"\n", "x.jsonl").is_sheet()


@pytest.mark.parametrize("body, sheet", [
    ([b'{"type":"sheet","round":1}'], True),
    ([b'{"type":"\\u0073heet","round":1}'], True),  # escaped: no "sheet" in the bytes
    ([b"# a comment", b"", b'{"type":"sheet","round":1}'], True),
    ([b'{"type":"claim","totals":{}}', b'{"type":"sheet","round":1}'], True),
    ([b'{"type":"cl\\u0061im","totals":{}}', b'{"type":"sheet","round":1}'], True),
    ([b'{"type":"claim","totals":{}}', b'{"type":"deal","hands":{}}'], False),
    ([b'{"type":"deal","hands":{}}', b'{"type":"sheet","round":1}'], False),
    ([b'{"type":"deal","note":"no sheet here"}'], False),
    ([b'not json', b'{"type":"sheet","round":1}'], False),
    ([b'["sheet"]'], False),
    ([], False),
])
def test_a_log_is_a_sheet_by_its_first_event_that_is_not_a_claim(body: list[bytes],
                                                                 sheet: bool) -> None:
    assert kind_of(body) is sheet
