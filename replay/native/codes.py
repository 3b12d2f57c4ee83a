"""The native engine's move codes (replay/native/common.hpp): a move is its kind, the seat
that makes it and a payload of 16 bits (a card's number, a set of trick positions, a bid),
packed in one integer. Each game's `NativeCodec` (declared in its module) writes and reads
them; this module only packs and unpacks, and knows no game."""

from __future__ import annotations

from typing import Final

PLAY: Final = 1
TAKE: Final = 2
KEEP: Final = 3
BID: Final = 4
PLACE: Final = 5
DRAW: Final = 6
TURN: Final = 7  # a chance card turned (rage's trump)


def pack(kind: int, seat: int, payload: int) -> int:
    """The code of a move of `kind` by `seat` (0 for a chance event) with `payload`."""
    if not 0 <= payload < 1 << 16 or not 0 <= seat < 256:
        raise ValueError(f"a move code holds a seat below 256 and a payload below 65536, "
                         f"got seat {seat}, payload {payload}")
    return kind << 24 | seat << 16 | payload


def kind_of(code: int) -> int:
    return code >> 24


def seat_of(code: int) -> int:
    return code >> 16 & 0xFF


def payload_of(code: int) -> int:
    return code & 0xFFFF
