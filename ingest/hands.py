"""Bidding against the hand: how many tricks a dealt hand could be expected to take.

For one player's hand in one round of a bidding game (the hands a game declares worth it,
`GameInfo.estimated_hands`: rage's settled bids), a seeded Monte-Carlo:

1. what the player saw when bidding is kept: their own hand and the cards turned up
   after the deal (the log's own chance events the game declares as seen by all,
   `GameInfo.seen_after_deal`: rage's `trump`); every other card of the game's deck
   (its `GameInfo.deck`) is unseen;
2. each playout redeals the unseen cards at random to the other players (the rest stays
   in the pile), branches the state before the deal (`GameState.clone`; the log's
   earlier rounds are replayed once per hand, `replay_bytes` for the header, then
   `GameState.apply`), applies this deal and the cards turned after it, and plays the round out
   with the project's greedy bot in every seat, through `state.choices()`;
3. the tricks the player took are counted from the facts the engine emitted (those
   whose `GameInfo.trick_winner` is the player's seat).

The mean over the playouts is `expected_tricks`, their standard deviation
`expected_sd` (how much the same hand varies with the others' cards and play);
`expected_sd / sqrt(playouts)` is the Monte-Carlo error of the mean. Every bid is made
by the bot as well, so the expectation does not lean on the real bid. The random
stream of a hand is seeded by (seed, the log's SHA-256, round, player): the same log
gives the same numbers on any machine, in any order, on any number of processes.

The engine reaches round r only by playing rounds 1 to r-1 (a round's hand size follows
from its number): that replay is done once per hand, and every playout branches from it
with `GameState.clone`, a copy of the state's containers (docs/performance.md has the
figures).
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import orjson

from trickledger.replay.bots import GreedyBot
from trickledger.replay.cards import deal_hands, shuffle
from trickledger.replay.engine import replay_bytes
from trickledger.replay.events import Event
from trickledger.replay.judge import play_round_out
from trickledger.replay.registry import GameInfo, registry
from trickledger.replay.state import GameState

METHOD = "greedy-redeal-v1"
DEFAULT_PLAYOUTS = 200


def estimable() -> str:
    """SQL of every hand worth an estimate (game_id, round, player, and the tricks it won):
    the union of the games' declarations (`GameInfo.estimated_hands`: rage's settled bids);
    no row when no game declares any."""
    parts = [f"SELECT game_id, round, player, won FROM ({g.estimated_hands})"
             for g in sorted(registry().values(), key=lambda g: g.name) if g.estimated_hands]
    return " UNION ALL ".join(parts) or (
        "SELECT CAST(NULL AS VARCHAR) AS game_id, CAST(NULL AS INTEGER) AS round, "
        "CAST(NULL AS VARCHAR) AS player, CAST(NULL AS INTEGER) AS won WHERE false")


def estimable_games() -> list[str]:
    """The games whose hands `trickledger analyse` estimates."""
    return sorted(g.name for g in registry().values() if g.estimated_hands)


@dataclass(frozen=True)
class HandEstimate:
    """The Monte-Carlo outcome for one player's hand in one round."""

    round: int
    player: str
    playouts: int
    expected_tricks: float
    expected_sd: float
    tricks_seen: tuple[int, ...]  # playouts in which the player took 0, 1, 2, ... tricks
    seconds: float

    @property
    def expected_se(self) -> float:
        return self.expected_sd / math.sqrt(self.playouts) if self.playouts else math.nan


@dataclass
class ParsedLog:
    """A log's header line and its events (claims left out: they change no state)."""

    header_line: bytes
    header: dict[str, Any]
    events: list[tuple[int, dict[str, Any]]]  # (line number, event)

    @classmethod
    def parse(cls, raw: bytes) -> ParsedLog:
        header_line = b""
        header: dict[str, Any] = {}
        events: list[tuple[int, dict[str, Any]]] = []
        for number, line in enumerate(raw.splitlines(), 1):
            text = line.strip()
            if not text or text.startswith(b"#"):
                continue
            if not header_line:
                header_line, header = text, orjson.loads(text)
                continue
            ev = orjson.loads(text)
            if ev.get("type") != "claim":
                events.append((number, ev))
        return cls(header_line, header, events)

    def deals(self) -> list[int]:
        """Index in `events` of each round's deal (round r is deals()[r - 1])."""
        return [i for i, (_, ev) in enumerate(self.events) if ev.get("type") == "deal"]


def _deck(info: GameInfo) -> Counter[str]:
    """Every card of the game's deck by name, with its copies (`GameInfo.deck`)."""
    if info.deck is None or info.trick_winner is None:
        raise ValueError(f"{info.name} declares no deck and trick winner (GameInfo.deck, "
                         f"GameInfo.trick_winner): its hands cannot be estimated")
    return Counter({card.name: copies for card, copies in info.deck.items()})


def estimate_round(raw: bytes, round_no: int, players: list[str] | None = None,
                   playouts: int = DEFAULT_PLAYOUTS, seed: int = 0,
                   sha256: str = "") -> list[HandEstimate]:
    """The Monte-Carlo estimate of every (or the named) player's hand in round `round_no`
    of the log `raw` (whose SHA-256 seeds the random streams)."""
    log = ParsedLog.parse(raw)
    deals = log.deals()
    if not 1 <= round_no <= len(deals):
        raise ValueError(f"the log has no round {round_no}")
    at = deals[round_no - 1]
    deal_line, deal = log.events[at]
    game = str(log.header["game"])
    info = registry()[game]
    deck = _deck(info)
    turned: list[tuple[int, dict[str, Any]]] = []
    for line, ev in log.events[at + 1:]:
        if ev.get("type") not in info.seen_after_deal:
            break
        turned.append((line, ev))
    names = [str(p) for p in log.header["players"]]
    hands: dict[str, list[str]] = deal["hands"]
    # the state before this round's deal, replayed once: every playout branches from it
    before_deal = replay_prefix(log, log.events[:at])
    out = []
    for player in players or names:
        t0 = time.perf_counter()
        hand = list(hands[player])
        unseen = deck.copy()
        unseen.subtract(hand)
        unseen.subtract(ev["card"] for _, ev in turned)
        pool = [info.cards[name] for name in sorted(unseen.elements())]
        others = [p for p in names if p != player]
        seat = names.index(player)
        rng = random.Random(f"trickledger-hands:{METHOD}:{seed}:{sha256}:{round_no}:{player}")
        counts = [0] * (len(hand) + 1)
        for _ in range(playouts):
            shuffle(rng, pool)  # rng.shuffle's order, drawn by the compiled engine
            dealt = deal_hands(pool, others, len(hand))
            dealt[player] = hand
            won = _playout(info, before_deal, (deal_line, {"type": "deal", "hands": dealt}),
                           turned, seat, rng)
            counts[won] += 1
        mean = sum(k * c for k, c in enumerate(counts)) / playouts
        var = (sum(c * (k - mean) ** 2 for k, c in enumerate(counts)) / (playouts - 1)
               if playouts > 1 else 0.0)
        out.append(HandEstimate(round_no, player, playouts, mean, math.sqrt(var),
                                tuple(counts), time.perf_counter() - t0))
    return out


def replay_prefix(log: ParsedLog, events: list[tuple[int, dict[str, Any]]]) -> GameState:
    """The state after the log's header and `events`, replayed with the engine."""
    start = replay_bytes(log.header_line, "<playout>")
    state = start.state
    if state is None:
        raise ValueError(f"the header does not replay: {start.error}")
    for line, ev in events:
        state.apply(Event(line, ev["type"], ev))
    return state


def _playout(info: Any, before_deal: GameState, deal: tuple[int, dict[str, Any]],
             turned: list[tuple[int, dict[str, Any]]], seat: int, rng: random.Random) -> int:
    """One playout: the tricks `seat` takes when the bots play the round out."""
    state = before_deal.clone()
    for line, ev in (deal, *turned):
        state.apply(Event(line, ev["type"], ev))
    first = len(state.facts)
    play_round_out(state, rng, GreedyBot())
    won = info.trick_winner
    assert won is not None  # _deck checked it
    return sum(1 for f in state.facts[first:] if won(f) == seat)
