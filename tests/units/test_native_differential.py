"""The Python rules are the native engine's oracle (issue 33): simulated games of every game,
table size, variant and edition, played by greedy and by random players, are walked move by
move, and at every position of a round the native engine (replay/native) is compared with the
Python engine: the position it was made from and the one it reached by its own moves (make),
whose decision it is, the legal moves and the mover's choices (in order), the greedy bot's score
of every choice, a move played and taken back (unmake), every finished trick's winners, where
the round ends and its scores; and on small endgames, the perfect-information solver's value
of every choice against the Python search. A difference fails with the game's log up to that
position.

How many positions: at least a million where the rules run compiled with mypyc (the README's
test command; from an editable install, tests/build/test_engines.py runs this file against a
wheel), where the oracle is fast; 60,000 where they run interpreted. TRICKLEDGER_NATIVE_POSITIONS
sets another number (the sanitizer test, tests/build/test_native_build.py, walks fewer).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson
import pytest
from helpers import TooLarge, after, reference

from trickledger import replay
from trickledger.replay import native
from trickledger.replay.bots import GreedyBot, RandomBot
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.games.plotters import TrickFinished
from trickledger.replay.games.rage import RageTrickFinished
from trickledger.replay.games.under_the_radar import UTRTrickFinished
from trickledger.replay.reader import parse_header
from trickledger.replay.registry import registry
from trickledger.replay.state import GameState, Move

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]
DECIDE, CHANCE, OVER = 0, 1, 2
TIE = 1e-9
OFF_CHOICES = 0.1  # the share of decisions made by a move of legal_moves() at random


def positions_wanted() -> int:
    given = os.environ.get("TRICKLEDGER_NATIVE_POSITIONS")
    if given:
        return int(given)
    return 1_000_000 if replay.engine_build() == "compiled" else 60_000


@dataclass(frozen=True)
class Table:
    """One kind of simulated game: a game, a table size, its variants or edition."""

    game: str
    players: int
    extra: tuple[tuple[str, Any], ...] = ()

    def header(self, seed: int) -> dict[str, Any]:
        h: dict[str, Any] = {"format": "trickledger/1", "game": self.game,
                             "players": NAMES[:self.players], **dict(self.extra)}
        h.update(registry()[self.game].state_class.random_setup(random.Random(seed),
                                                                 self.players))
        return h

    def __str__(self) -> str:
        extra = ",".join(f"{k}={v}" for k, v in self.extra)
        return f"{self.game}-{self.players}p" + (f"[{extra}]" if extra else "")


def tables() -> list[Table]:
    """Every game at every table size; each variant alone and all together; each edition."""
    out: list[Table] = []
    for name, info in sorted(registry().items()):
        if info.native is None:
            continue
        for n in range(info.min_players, info.max_players + 1):
            out.append(Table(name, n))
            for variant in info.variants:
                out.append(Table(name, n, (("variants", (variant,)),)))
            if len(info.variants) > 1:
                out.append(Table(name, n, (("variants", info.variants),)))
            for edition in info.editions[1:]:
                out.append(Table(name, n, (("edition", edition),)))
    return out


class Mismatch(AssertionError):
    pass


def log_text(header: dict[str, Any], events: list[Move]) -> str:
    return "\n".join(orjson.dumps(x).decode() for x in [header, *events])


def status_of(state: GameState) -> int:
    if not state.in_round:
        return OVER
    return CHANCE if state.next_chance() is not None else DECIDE


def trick_winners(fact: object) -> list[int] | None:
    """The winners the native engine reports for the trick `fact` closes (None: no trick)."""
    if isinstance(fact, TrickFinished):
        second = fact.second_winner
        return [fact.first_winner, -1 if second is None else second]
    if isinstance(fact, RageTrickFinished):
        return [fact.winner]
    if isinstance(fact, UTRTrickFinished):
        return [-1 if fact.taker is None else fact.taker]
    return None


# -------------------------------------------------------------- the reference search
# max^n over the rest of the round on the Python rules, the judge's solution concept
# (replay/search.py's docstring): the mover's best, the mean of the moves tied within TIE,
# a chance event averaged over its outcomes. Walked exhaustively on small endgames only.


# -------------------------------------------------------------- the walk


@dataclass
class Counts:
    positions: int = 0
    decisions: int = 0
    tricks: int = 0
    rounds: int = 0
    solved: int = 0


def cards_left(state: GameState) -> int:
    return sum(len(state.hand(s)) for s in range(state.n))


def walk_game(table: Table, seed: int, bot: GreedyBot | RandomBot, counts: Counts,
              solve_every: int, reference_budget: int) -> None:
    """Play one game with `bot` in every seat, comparing the engines at every position."""
    header = table.header(seed)
    rng = random.Random(seed)
    check_rng = random.Random(seed + 1)
    state = new_state(parse_header("<differential>", 1, orjson.dumps(header), "test"))
    events: list[Move] = []
    pos: Any = None  # the native position, moved by its own make since the round began

    def fail(what: str) -> None:
        raise Mismatch(f"{table}, seed {seed}, {bot.name} players, after {len(events)} "
                       f"events: {what}\nthe log so far:\n{log_text(header, events)}")

    while not state.is_over():
        chance = state.next_chance()
        if state.in_round:
            fresh = native.position(state)
            if pos is None:
                pos = fresh
            elif pos.numbers() != fresh.numbers():
                fail(f"the native position made by its moves {pos.numbers()} is not the one "
                     f"the state encodes {fresh.numbers()}")
            counts.positions += 1
            status = status_of(state)
            if pos.status() != status:
                fail(f"status {pos.status()}, the rules say {status}")
            if status == DECIDE:
                check_decision(state, pos, fail, check_rng, counts, solve_every,
                               reference_budget)
        if chance is not None:
            ev = state.draw_chance(rng)
        elif rng.random() < OFF_CHOICES:
            # now and then any legal move, any player's: what a log may hold beyond what a
            # simulated table chooses (a hidden bid out of order, the other player's keep or
            # draw, a card played before the secret bids)
            ev = rng.choice(state.legal_moves())
        else:
            ev = bot.choose(state, rng)
        before = len(state.facts)
        if pos is not None:
            code = native.move_code(state, ev)
        state.apply(Event(len(events) + 2, str(ev["type"]), ev))
        events.append(ev)
        if pos is None:
            continue
        pos.play(code)
        for fact in state.facts[before:]:
            winners = trick_winners(fact)
            if winners is not None:
                counts.tricks += 1
                if pos.winners() != winners:
                    fail(f"trick winners {pos.winners()}, the rules say {winners}")
        if not state.in_round:
            counts.rounds += 1
            counts.positions += 1
            if pos.status() != OVER:
                fail("the rules end the round here, the native engine does not")
            scores = [float(x) for x in state.rounds[-1].scores]
            if pos.scores() != scores:
                fail(f"round scores {pos.scores()}, the rules say {scores}")
            pos = None


def check_decision(state: GameState, pos: Any, fail: Any, rng: random.Random, counts: Counts,
                   solve_every: int, reference_budget: int) -> None:
    counts.decisions += 1
    who = state.to_move()
    if pos.mover() != state.seat[str(who)]:
        fail(f"the native engine's mover is seat {pos.mover()}, the rules say {who}")
    code_of = state.info.native.move_code  # native.move_code without its check, per move
    legal = sorted(code_of(state, m) for m in state.legal_moves())
    if sorted(pos.legal_moves()) != legal:
        ours = set(legal)
        theirs = set(pos.legal_moves())
        fail(f"legal moves differ: only the rules allow "
             f"{[native.move_of(state, c) for c in sorted(ours - theirs)]}, only the native "
             f"engine {[native.move_of(state, c) for c in sorted(theirs - ours)]}")
    choices = state.choices()
    codes = [code_of(state, m) for m in choices]
    if pos.choices() != codes:
        fail(f"the mover's choices {[native.move_of(state, c) for c in pos.choices()]}, the "
             f"rules say {choices}")
    score = state.info.heuristic
    for m, code in zip(choices, codes):
        if abs(pos.heuristic(code) - score(state, m)) > 1e-9:
            fail(f"the greedy bot scores {m} {score(state, m)}, the native engine "
                 f"{pos.heuristic(code)}")
    if len(codes) > 1:  # make and unmake: a move taken back leaves the position as it was
        numbers = pos.numbers()
        pos.play(codes[rng.randrange(len(codes))])
        pos.undo()
        if pos.numbers() != numbers:
            fail(f"a move played and taken back left {pos.numbers()}, not {numbers}")
    if len(codes) > 1 and counts.decisions % solve_every == 0:
        # an endgame the native solver finishes in a few dozen positions is one the
        # reference search (no table, no merging) may finish within its budget
        small, _ = pos.solve(codes, 60)
        if small is not None:
            check_solver(state, pos, choices, codes, fail, counts, reference_budget)


def check_solver(state: GameState, pos: Any, choices: list[Move], codes: list[int], fail: Any,
                 counts: Counts, reference_budget: int) -> None:
    """The solver's value of every choice against the reference search, on an endgame small
    enough for it (positions beyond the reference's budget are left out)."""
    sign = -1 if state.info.lowest_wins else 1
    left = [reference_budget]
    try:
        expected = [reference(after(state, m), state.round_no, sign, left) for m in choices]
    except TooLarge:
        return
    got, _ = pos.solve(codes, 10 ** 7)
    counts.solved += 1
    for m, want, have in zip(choices, expected, got):
        if any(abs(a - b) > 1e-9 * max(1.0, abs(a)) for a, b in zip(want, have)):
            fail(f"the solver values {m} at {have}, the reference search at {list(want)}")


def walk(wanted: int, game: str) -> Iterator[tuple[Table, Counts]]:
    """Games of every table of `game`, greedy and random players in turn, until each table
    has compared its share of the `wanted` positions (spread evenly over every table of
    every game, so that the games' walks add up to at least `wanted`)."""
    all_tables = tables()
    per_table = -(-wanted // len(all_tables))
    for i, table in enumerate(all_tables):
        if table.game != game:
            continue
        counts = Counts()
        seed = 1000 * i
        while counts.positions < per_table:
            bot: GreedyBot | RandomBot = GreedyBot() if seed % 2 else RandomBot()
            walk_game(table, seed, bot, counts, solve_every=10, reference_budget=400)
            seed += 1
        yield table, counts


def native_games() -> list[str]:
    return sorted(name for name, info in registry().items() if info.native is not None)


def test_every_game_the_native_engine_knows_is_walked() -> None:
    assert native_games() and {t.game for t in tables()} == set(native_games())


# one test per game: the walks run side by side in a parallel run (the compiled run's
# million positions were its longest step)
@pytest.mark.parametrize("game", [
    # a game's share of the walk is its share of the tables (rage: 36 of 53)
    pytest.param(g, marks=pytest.mark.long(3 * sum(t.game == g for t in tables()) / 36))
    for g in native_games()])
def test_the_native_engine_plays_every_game_as_the_rules_do(game: str) -> None:
    if not native.available():
        pytest.fail(f"the native engine is not built: {native.why_not()}")
    wanted = positions_wanted()
    mine = [t for t in tables() if t.game == game]
    total = Counts()
    for table, counts in walk(wanted, game):
        for field in ("positions", "decisions", "tricks", "rounds", "solved"):
            setattr(total, field, getattr(total, field) + getattr(counts, field))
        assert counts.rounds > 0 and counts.decisions > 0, table
    assert total.positions >= -(-wanted // len(tables())) * len(mine), total
    assert total.rounds > 0 and total.solved > 0, total  # color_stacks has turns, no tricks
