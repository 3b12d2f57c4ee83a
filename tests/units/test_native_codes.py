"""The native engine's move codes (replay/native/codes.py, compiled with the engine): a move's
kind, seat and payload come back out of its code, and what does not fit is refused."""

from __future__ import annotations

import pytest

from trickledger.replay.native.codes import BID, PLAY, TURN, kind_of, pack, payload_of, seat_of


@pytest.mark.parametrize("kind,seat,payload", [
    (PLAY, 0, 0), (BID, 7, 12), (TURN, 0, 65535), (PLAY, 255, 1 << 15)])
def test_a_code_gives_back_its_kind_seat_and_payload(kind: int, seat: int,
                                                     payload: int) -> None:
    code = pack(kind, seat, payload)
    assert (kind_of(code), seat_of(code), payload_of(code)) == (kind, seat, payload)


def test_codes_of_different_moves_differ() -> None:
    codes = {pack(k, s, p) for k in (PLAY, BID) for s in range(8) for p in (0, 1, 300)}
    assert len(codes) == 2 * 8 * 3


@pytest.mark.parametrize("seat,payload", [(256, 0), (-1, 0), (0, 65536), (0, -1)])
def test_what_does_not_fit_is_refused_with_the_numbers(seat: int, payload: int) -> None:
    with pytest.raises(ValueError, match=f"got seat {seat}, payload {payload}"):
        pack(PLAY, seat, payload)
