"""rage's playout shortcuts say what the plain rules say: at every position of simulated
games (every bidding variant, random and greedy players, CHANGE and NOTRUMP turning new
trumps), the hands' per-colour counts match the hands, the moves offered are those the
bidding rule (`why_no_bid`) and the follow rule give, the pile is every card neither dealt
nor turned up (and the trump drawn is `rng.choice`'s card of it), and the greedy bot
picks what the largest (score, draw, index) picks."""

from __future__ import annotations

import random

import orjson
import pytest
from helpers import header

from trickledger.replay.bots import GreedyBot, RandomBot
from trickledger.replay.cards import card_order
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.games.rage import CARDS, COLORS, DECK, JOKER, Phase, RageState, color_counts
from trickledger.replay.reader import parse_header
from trickledger.replay.state import GameState, Move

VARIANTS = [[], ["hidden_bid"], ["secret_bid"], ["secret_bid", "plus_minus_one"],
            ["plus_minus_one", "marching_through"]]


def positions(variants: list[str], n: int, seed: int, greedy: bool):
    """Every position of a 3-round game of `n` players, the bots (or chance) moving."""
    h = header("rage", n, variants=variants, rounds=3)
    state = new_state(parse_header("<counts>", 1, orjson.dumps(h), "test"))
    assert isinstance(state, RageState)
    rng = random.Random(seed)
    bot = GreedyBot() if greedy else RandomBot()
    line = 1
    while not state.is_over():
        yield state
        ev = state.draw_chance(rng) if state.next_chance() else bot.choose(state, rng)
        line += 1
        state.apply(Event(line, str(ev["type"]), ev))
    yield state


def plain_legal_moves(st: RageState) -> list[Move]:
    """The legal moves from the rules alone: each seat `why_no_bid` lets bid, every bid
    value; the player to play, every card the follow rule (read off the hand) allows."""
    moves: list[Move] = []
    if st.phase in (Phase.DEAL, Phase.TRUMP) or st.over:
        return moves
    for s in range(st.n):
        if st.why_no_bid(s) is None:
            moves.extend({"type": "bid", "player": st.players[s], "bid": b}
                         for b in st.legal_bids())
    if st.phase is Phase.PLAY:
        hand = st.hands[st.turn]
        led = st.led
        for c in sorted(hand, key=card_order):
            if led is not None and c.color != led and any(h.color == led for h in hand):
                continue
            for col in (COLORS if c is JOKER else [None]):
                m: Move = {"type": "play", "player": st.players[st.turn], "card": c.name}
                if col is not None:
                    m["as"] = col
                moves.append(m)
    return moves


def plain_pile(st: RageState) -> list:
    out = []
    for c, k in DECK.items():
        out.extend([c] * (k - st.used.get(c, 0)))
    return out


@pytest.mark.parametrize("variants", VARIANTS)
@pytest.mark.parametrize("greedy", [False, True])
def test_the_shortcuts_agree_with_the_rules(variants, greedy):
    seen = {"play": 0, "bid": 0, "trump": 0}
    for seed, n in ((1, 3), (2, 5), (3, 8)):
        for st in positions(variants, n, seed, greedy):
            for s in range(st.n):
                assert {c: k for c, k in st.colors[s].items() if k} == color_counts(st.hands[s])
            assert st.legal_moves() == plain_legal_moves(st)
            # the generic choices: the legal moves of the player to move
            assert st.choices() == GameState.choices(st) or st._bidder() is not None
            assert st.pile() == plain_pile(st)
            if st.phase is Phase.TRUMP:  # the trump drawn is rng.choice's card of the pile
                k = len(st.used) + st.round_no
                assert st.draw_chance(random.Random(k)) == \
                    {"type": "trump", "card": random.Random(k).choice(plain_pile(st)).name}
            for m in st.choices():
                seen[str(m["type"])] += 1
            seen["trump"] += st.phase is Phase.TRUMP
    assert min(seen.values()) > 10, seen


def test_the_greedy_bot_picks_the_largest_score_draw_and_index():
    picked = 0
    for variants in VARIANTS[:3]:
        for st in positions(variants, 4, 7, greedy=True):
            if st.next_chance() or st.is_over():
                continue
            moves = st.choices()
            if len(moves) < 2:
                continue
            a, b = random.Random(picked), random.Random(picked)
            scored = [(st.info.heuristic(st, m), a.random(), i) for i, m in enumerate(moves)]
            assert GreedyBot().choose(st, b) == moves[max(scored)[2]]
            assert a.random() == b.random()  # as many draws
            picked += 1
    assert picked > 50



def test_a_hand_dealt_out_of_deck_order_is_offered_in_deck_order():
    hands = {"Ann": ["R10", "R2", "+5", "JOKER", "G5", "B5", "NOTRUMP", "O0", "O1", "O2"],
             "Ben": ["R5", "G3", "NOTRUMP", "CHANGE", "JOKER", "B6", "O3", "O4", "O5", "O6"],
             "Cat": ["B9", "Y1", "Y2", "-5", "NOTRUMP", "CHANGE", "O7", "O8", "O9", "O10"]}
    h = header("rage", 3)
    st = new_state(parse_header("<order>", 1, orjson.dumps(h), "test"))
    assert isinstance(st, RageState)
    st.apply(Event(2, "deal", {"type": "deal", "hands": hands}))
    st.apply(Event(3, "trump", {"type": "trump", "card": "Y5"}))
    line = 3
    while st.phase is not Phase.PLAY or st.bid_count < st.n:
        line += 1
        move = st.choices()[0]
        st.apply(Event(line, "bid", move))
    for _ in range(3):  # the three players' first cards, each offered in deck order
        moves = st.legal_moves()
        assert moves == plain_legal_moves(st)
        cards = [CARDS[m["card"]] for m in moves]
        assert cards == sorted(cards, key=card_order)
        line += 1
        st.apply(Event(line, "play", moves[0]))
