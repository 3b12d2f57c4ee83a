"""replay/search.py: the perfect-information search is exact on a hand-built endgame of
each game (values argued from the rules in each test's docstring), stops at its budget,
and the Monte-Carlo judge never calls its best move a mistake or worse on small endgames
of every game."""

from __future__ import annotations

import random

import orjson
import pytest
from helpers import NAMES, header

from trickledger.replay.bots import GreedyBot
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.games import color_stacks, plotters, under_the_radar
from trickledger.replay.games.rage import CARDS, Phase, color_counts
from trickledger.replay.judge import ENDGAME_BUDGET, band_of, better_sign, cost_of, decisions, evaluate
from trickledger.replay.reader import parse_header
from trickledger.replay.search import BudgetExceeded, Unsearchable, best_indices, exact_values
from trickledger.replay.simulate import play_game
from trickledger.replay.writer import dump_lines


def rage_two_tricks_left():
    """A 3-player rage round (ten tricks) played by the greedy bots up to the moment two
    tricks are left and the leader is to lead; the seat that leads next."""
    h = header("rage", 3, rounds=1)
    _, events = play_game(h, {p: GreedyBot() for p in NAMES[:3]}, random.Random(4))
    state = new_state(parse_header("<endgame>", 1, orjson.dumps(h), "test"))
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if state.trick_no == state.hs - 2 and not state.trick and state.phase is Phase.PLAY:
            return state
    raise AssertionError("the round never reached its last two tricks")


def test_a_rage_endgame_by_argument():
    """Trump red, two tricks left, Ann to lead (Ann, Ben, Cat clockwise):

        Ann R2 B9      Ben B10 G5      Cat B1 G7

    Ann has won 3 tricks and bid 4: she needs exactly one more. Ben has won 2 and bid 2:
    he wants no more. Cat's bid does not matter (her cards cannot win a trick).

    - Ann leads B9: Ben must follow with B10 and wins; Ben then leads G5, Ann has no green
      and trumps with R2. Ann takes exactly one trick: 4 tricks, bid made, 4 + 10 = 14.
    - Ann leads R2, the only trump: she wins. Ben, void in red, chooses: keeping B10 would
      make him win the B9 Ann must lead next (a trick he does not want), so he throws B10
      now. Ann then leads B9; Ben has only G5, Cat only green or B1: B9 wins. Ann takes
      both: 5 tricks against a bid of 4, 5 - 5 = 0.

    So leading B9 is worth 14 to Ann and leading R2 is worth 0.
    """
    st = rage_two_tricks_left()
    ann = st.leader
    ben, cat = st.left_of(ann), st.left_of(st.left_of(ann))
    st.trump = "R"
    st.notrump = False
    hands = {ann: ["R2", "B9"], ben: ["B10", "G5"], cat: ["B1", "G7"]}
    for seat, cards in hands.items():
        st.hands[seat] = {CARDS[c]: 1 for c in cards}
        st.colors[seat] = color_counts(st.hands[seat])  # the follow rule reads these
    st.won = [0, 0, 0]
    st.won[ann], st.won[ben], st.won[cat] = 3, 2, 3
    st.bids = [0, 0, 0]
    st.bids[ann], st.bids[ben], st.bids[cat] = 4, 2, 1
    st.plus5 = [0, 0, 0]
    st.minus5 = [0, 0, 0]
    moves = [m for m in st.legal_moves() if m["player"] == st.players[ann]]
    assert sorted(m["card"] for m in moves) == ["B9", "R2"]
    values = dict(zip((m["card"] for m in moves), exact_values(st, ann, moves)))
    assert values == {"B9": 14, "R2": 0}
    assert [moves[i]["card"] for i in best_indices(list(values.values()), False)] == ["B9"]


def dealt(game: str, n: int, **extra):
    """A fresh round of `game` at a table of `n`, just dealt (the hands are replaced by
    each test's own)."""
    h = header(game, n, **extra)
    state = new_state(parse_header("<endgame>", 1, orjson.dumps(h), "test"))
    state.apply(Event(2, "deal", state.draw_chance(random.Random(0))))
    return state


def values_by(state, seat: int, key) -> dict:
    """The exact value of each legal move of `seat`, by `key(move)`; and the key of the
    move `best_index` picks."""
    moves = [m for m in state.legal_moves() if m["player"] == state.players[seat]]
    values = exact_values(state, seat, moves)
    best = [key(moves[i]) for i in best_indices(values, state.info.lowest_wins)]
    return dict(zip(map(key, moves), values)), best


def test_a_plotters_endgame_by_argument():
    """Four players, the round's last two tricks (13 and 14). Ben led B9, Cat followed
    with G5; Ann, third, holds R3 G1; Dan holds Y4 Y6. Everybody has kept two colours:

        Ann keeps B G: open B×4 G×4, 2 discarded -> 16 // 2 = 8
        Ben keeps B Y: open B×5 Y×5, nothing discarded -> 25
        Ben and Cat hold one card each for the last trick: R1 and R2.

    - Ann plays R3: the trick holds blue, green and red, and Dan, next, holds nothing but
      yellow. The round stops at once and is scored as it lies: Ann 8.
    - Ann plays G1: Dan may play either yellow (two colours so far). Blue was led; Ben's
      B9 is its highest card, and Ann's G1 the lowest of the others: Ben picks two cards,
      Ann gets the other two. Ben's best pick is B9 and the yellow (B×6 Y×6 = 36; any
      green would go to his discards: at most 30). Ann gets G5 and G1: B×4 G×6. Then Ann
      must lead her R3 to the last trick; Ben's R1, Cat's R2 and Dan's yellow cannot beat
      it, so Ann wins it and must pick two of its four cards: red or yellow, both colours
      she discards. 24 // 4 = 6.

    So R3, ending the round before Ann collects anything more, is worth 8; G1 is worth 6.
    """
    st = dealt("plotters", 4, rounds=1)
    ben = st.leader
    cat, ann, dan = (ben + 1) % 4, (ben + 2) % 4, (ben + 3) % 4
    cards = plotters.CARDS
    hands = {ann: ["R3", "G1"], ben: ["R1"], cat: ["R2"], dan: ["Y4", "Y6"]}
    for seat, names in hands.items():
        st.hands[seat] = {cards[c] for c in names}
    st.open = [[0, 0, 0, 0] for _ in range(4)]  # B G R Y
    st.open[ann] = [4, 4, 0, 0]
    st.open[ben] = [5, 0, 0, 5]
    st.open[cat] = [3, 3, 0, 0]
    st.open[dan] = [0, 0, 3, 3]
    st.discards = [0] * 4
    st.discards[ann] = 2
    st.kept = [(0, 1), (0, 1), (0, 1), (0, 1)]
    st.kept[ben], st.kept[dan] = (0, 3), (2, 3)
    st.trick = [(ben, cards["B9"]), (cat, cards["G5"])]
    st.trick_colors = {"B", "G"}
    st.trick_no = 12
    st.turn = ann
    values, best = values_by(st, ann, lambda m: m["card"])
    assert values == {"R3": 8, "G1": 6}
    assert best == ["R3"]


def test_a_color_stacks_endgame_by_argument():
    """Three players, no pile. Stacks R×5 Y×4 G×3 B×1; Ann to place, then Ben, then Cat:

        Ann R1 Y1 G1 B1      Ben Y2 Y4 B3      Cat G5 G6

    A card in hand is worth its stack below six, else nothing; who ends the game adds 2.

    - Any pair with R1 brings red to six and ends the game, Ann keeping the other two:
      R1 Y1 -> G1 3 + B1 1 + 2 = 6; R1 G1 -> Y1 4 + B1 1 + 2 = 7;
      R1 B1 -> Y1 4 + G1 3 + 2 = 9 (B goes to 2, but Ann no longer holds blue).
    - Y1 G1 (Y×5 G×4): Ben ends it either way. Y2 Y4 keeps B3: 1 + 2 = 3 for him; a
      yellow with B3 keeps a yellow on a stack of six: 0 + 2 = 2. He plays Y2 Y4: Ann
      holds R1 5 + B1 1 = 6.
    - Y1 B1 (Y×5 B×2): Y2 Y4 gives Ben B3 2 + 2 = 4, a yellow with B3 only 2; he plays
      Y2 Y4, yellow is dead, Ann holds R1 5 + G1 3 = 8.
    - G1 B1 (G×4 B×2): Y2 Y4 ends it (Y×6) with B3 kept, 2 + 2 = 4 for Ben, and leaves
      Ann R1 5 + Y1 0 = 5. But a yellow with B3 (Y×5 B×3) ends nothing: Cat must place
      G5 G6 and ends it (G×6), and Ben keeps a yellow worth 5 > 4. So he does, and Ann
      holds R1 5 + Y1 5 = 10.

    So G1 B1 is best (10), because Ben, playing for himself, lets the yellow stack stay
    at five; a search that let the others play against Ann would value it 5.
    """
    st = dealt("color_stacks", 3, suits=["R", "Y", "G", "B"])
    ann = st.turn
    ben, cat = st.left_of(ann), st.left_of(st.left_of(ann))
    st.stacks = {"R": 5, "Y": 4, "G": 3, "B": 1}
    hands = {ann: ["R1", "Y1", "G1", "B1"], ben: ["Y2", "Y4", "B3"], cat: ["G5", "G6"]}
    for seat, names in hands.items():
        st.hands[seat] = {color_stacks.CARDS[c] for c in names}
    values, best = values_by(st, ann, lambda m: " ".join(sorted(m["cards"])))
    assert values == {"R1 Y1": 6, "G1 R1": 7, "B1 R1": 9, "G1 Y1": 6, "B1 Y1": 8,
                      "B1 G1": 10}
    assert best == ["B1 G1"]


def test_an_under_the_radar_endgame_by_argument():
    """Three players, nobody has taken a trick; Ann leads (fewer tricks is better):

        Ann triangle partial      Ben filled partial hollow      Cat red

    - Ann leads partial. Ben's only acceptable card is his partial (filled and hollow
      would show a second pattern): he plays it. Cat's red is acceptable: her last card,
      she is out. Ann's triangle is acceptable (no shape shown): she is out too. Ben,
      holding filled and hollow, has nothing acceptable: he takes the trick, leads his
      last card, and nobody is left to play. Ann takes 0.
    - Ann leads triangle. Ben may play any of his patterns. Cat plays red and is out.
      If Ben played partial, Ann's partial is acceptable and Ben takes the trick as
      before; if he played filled or hollow, Ann's partial is not, and Ann takes the
      trick with her last card, which ends the round. Ben, playing for himself, plays
      filled or hollow: Ann takes 1.

    So leading partial is worth 0 tricks and leading triangle 1.
    """
    st = dealt("under_the_radar", 3, rounds=1)
    ann = st.turn
    ben, cat = (ann + 1) % 3, (ann + 2) % 3
    cards = under_the_radar.CARDS
    hands = {ann: ["triangle", "partial"], ben: ["filled", "partial", "hollow"],
             cat: ["red"]}
    for seat, names in hands.items():
        st.hands[seat] = {cards[c]: 1 for c in names}
    values, best = values_by(st, ann, lambda m: m["card"])
    assert values == {"partial": 0, "triangle": 1}
    assert best == ["partial"]


def test_the_search_stops_at_its_budget():
    st = rage_two_tricks_left()
    who = st.players[st.turn]
    moves = [m for m in st.legal_moves() if m["player"] == who]
    with pytest.raises(BudgetExceeded):
        exact_values(st, st.turn, moves, budget=2)


# (game, players, header keys): small games, their last few moves searched
ENDGAMES = [("plotters", 4, {"rounds": 1}), ("rage", 3, {"rounds": 1}),
            ("color_stacks", 2, {"suits": ["R", "Y", "G", "B"]}),
            ("under_the_radar", 3, {"rounds": 1})]
WANTED = 4  # endgames checked per game


@pytest.mark.parametrize("game,n,extra", ENDGAMES, ids=[g[0] for g in ENDGAMES])
def test_monte_carlo_never_calls_the_searched_best_move_a_mistake(game, n, extra):
    """On every decision whose rest of the round the search finishes within a small
    budget, the Monte-Carlo band of the search's best move (judged from the player's
    information, with greedy playouts) is best, good or an inaccuracy: never a mistake or
    a blunder."""
    h = header(game, n, **extra)
    sign = better_sign(game)
    checked = 0
    for seed in range(20):
        if checked >= WANTED:
            break
        _, events = play_game(h, {p: GreedyBot() for p in NAMES[:n]}, random.Random(seed))
        # the game's decisions from the last back: once one's rest of the round is too
        # large (or holds an unlisted chance event), every earlier one of that round is too,
        # since its search holds the later position's whole search (no cache, no pruning):
        # the same decisions are checked as front to back, without searching the rest of a
        # round in vain up to the budget at each earlier decision
        too_large: set[int] = set()
        for d in reversed(list(decisions(dump_lines(h, events)))):
            if d.truth.to_move() != d.player or d.truth.round_no in too_large:
                continue
            try:
                exact = exact_values(d.truth, d.seat, d.alternatives, budget=ENDGAME_BUDGET)
            except (BudgetExceeded, Unsearchable):
                too_large.add(d.truth.round_no)
                continue
            best = best_indices(exact, sign < 0)[0]
            values = evaluate(d, 8, seed).values
            if not values:
                continue
            _, cost, se = cost_of(values, best, sign)
            band = band_of(game, cost, se, False) if se == se else "good"
            assert band not in ("mistake", "blunder"), (game, d.line, exact, cost, se)
            checked += 1
    assert checked >= WANTED, f"only {checked} endgames small enough in {game}"


# (game, players, header keys): every table size, for the order test
TABLES = [("plotters", n, {"rounds": 1}) for n in (4, 5, 6)] + \
    [("rage", n, {"rounds": 1}) for n in (3, 4, 5, 6, 7, 8)] + \
    [("color_stacks", 2, {"suits": ["R", "Y", "G", "B"]}),
     ("color_stacks", 3, {"suits": ["R", "Y", "G", "B"]}),
     ("color_stacks", 4, {"suits": ["R", "Y", "G", "B", "K"]})] + \
    [("under_the_radar", n, {"rounds": 1}) for n in (3, 4, 5, 6, 7)]


@pytest.mark.parametrize("game,n,extra", TABLES, ids=[f"{g}-{n}" for g, n, _ in TABLES])
def test_no_value_depends_on_the_order_of_the_moves(game, n, extra):
    """The tie rule (equally good moves averaged, summed in sorted order) is order-free:
    searched again with the legal moves shuffled at every node, by two seeds, every
    alternative of every endgame small enough keeps its value to the last bit. (The old
    rule, ties to the first move in `choices()` order, changed values here.) Positions are
    the true states of decisions among simulated games' last moves whose rest of the
    round the search finishes in 1,000 positions (4,000 in color_stacks); at least five
    per table, and some with ties."""
    h = header(game, n, **extra)
    budget = 4000 if game == "color_stacks" else 1000  # its pairs branch widely
    checked = tied = 0
    for seed in range(12):
        if checked >= 5:
            break
        _, events = play_game(h, {p: GreedyBot() for p in NAMES[:n]}, random.Random(seed))
        late = list(decisions(dump_lines(h, events)))[-3 * n:]  # the round's last moves
        for d in reversed(late):  # the smallest endgames first
            if d.truth.to_move() != d.player:
                continue
            try:
                plain = exact_values(d.truth, d.seat, d.alternatives, budget=budget)
            except BudgetExceeded:
                break  # earlier positions have more below them
            for k in (1, 2):
                shuffled = exact_values(d.truth, d.seat, d.alternatives, budget=budget,
                                        order=random.Random(k))
                assert shuffled == plain, (game, n, d.line, plain, shuffled)
            checked += 1
            tied += len(best_indices(plain, d.truth.info.lowest_wins)) > 1
    assert checked >= 5, f"only {checked} endgames small enough"
    if game != "color_stacks":  # color_stacks' few endgames rarely tie at the root
        assert tied, "no endgame had equally good alternatives"


def rage_last_trick(hands: dict[str, list[str]], bids: dict[str, int]):
    """The last round (one card each) of a 3-player rage game after nine simulated rounds,
    dealt by hand: `hands`, trump R turned (red is nobody's), the bids made."""
    h = header("rage", 3)
    _, events = play_game(h, {p: GreedyBot() for p in NAMES[:3]}, random.Random(3))
    state = new_state(parse_header("<endgame>", 1, orjson.dumps(h), "test"))
    line = 2
    for ev in events:
        if ev["type"] == "deal" and state.round_no == 9:
            break
        state.apply(Event(line, ev["type"], ev))
        line += 1
    state.apply(Event(line, "deal", {"type": "deal", "hands": hands}))
    state.apply(Event(line + 1, "trump", {"type": "trump", "card": "R3"}))
    first = state.to_move()
    order = [first, *[p for p in NAMES[:3] if p != first]]
    while state.to_move() in bids and state.phase is not Phase.PLAY:
        who = state.to_move()
        state.apply(Event(line + 2, "bid", {"type": "bid", "player": who, "bid": bids[who]}))
    assert state.phase is Phase.PLAY, order
    return state


def test_a_trump_turned_inside_the_round_is_averaged_over_the_pile():
    """Rage, the last trick: the leader plays CHANGE, a new trump is turned from the pile,
    then B5 and G5 follow (blue is led by the first colour card). G5 wins only when the
    first colour card turned is green (action cards turned up are set aside and the next
    is turned); otherwise B5 wins (the trump, or the led colour). The holder of G5 bid 1:
    she scores 1 + 10 = 11 when she wins and 0 - 5 = -5 otherwise, so her value is
    11 p - 5 (1 - p), p = green cards / colour cards left in the pile. (The search
    once raised Unsearchable here.)"""
    probe = rage_last_trick({"Ann": ["CHANGE"], "Ben": ["B5"], "Cat": ["G5"]},
                            {"Ann": 0, "Ben": 0, "Cat": 1})
    lead = probe.to_move()
    names = {probe.players[probe.turn]: "CHANGE"}
    assert names  # the leader is left of the dealer: give that seat the CHANGE
    seats = [probe.turn, probe.left_of(probe.turn), probe.left_of(probe.left_of(probe.turn))]
    hands = dict(zip((probe.players[s] for s in seats), (["CHANGE"], ["B5"], ["G5"])))
    bids = {probe.players[seats[2]]: 1, probe.players[seats[0]]: 0,
            probe.players[seats[1]]: 0}
    st = rage_last_trick(hands, bids)
    assert st.to_move() == lead
    pile = st.pile()
    colour = [c for c in pile if c.color]
    p = sum(1 for c in colour if c.color == "G") / len(colour)
    move = {"type": "play", "player": lead, "card": "CHANGE"}
    (value,) = exact_values(st, seats[2], [move])
    assert value == pytest.approx(11 * p - 5 * (1 - p), abs=1e-12)
    assert 0 < p < 1
