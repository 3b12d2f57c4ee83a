"""Figures of the native analysis engine (issue 33; docs/native.md, docs/analytics.md).

    python -m bench.native speed      [--seconds 3] [--out FILE]
    python -m bench.native defaults   [--games 2] [--out FILE]
    python -m bench.native stability  [--games 6] [--first-game 0] [--seeds 0 1] [--samples 16]
                                      [--game G] [--out FILE]
    python -m bench.native strength   [--deals 100] [--samples 16] [--out FILE]
    python -m bench.native corpus     [--samples 16] [--rage-only] [--out FILE]

`speed`: per game, playouts per second of the native engine and of the Python rules (as this
installation runs them: compiled with mypyc in a wheel install, which the targets are about)
from the same round starts, A and B interleaved in one run, and their ratio; and the
solver's positions per second on the rest of rounds from trick starts.
`defaults`: per game and number of cards left in the hands at a trick start, the positions and
the time the solver needs for the rest of the round (what the codecs' `solve_cards` and
`endgame_cards` and the budgets of replay/native/judging.py are chosen from).
`stability`: decisions of simulated games (a random and a greedy player in turn at every
seat, so that there are mistakes to find) judged at the defaults with seed 0 and with seed
1: the share that keep their band (with its 95 % interval) and which bands changed; the bands
of the random and of the greedy moves apart (a judge that is stable because it calls
everything best would show it there); and the mistakes and blunders of seed 0 judged again at
4x the samples (seed 2): the share that are still a mistake or a blunder.
`strength`: per deal (one round), one seat plays the judge's best move at every decision and,
on the same deal, the same seat plays greedy; the others greedy (table "others greedy"), and
again with every other seat playing the judge too (table "others judge"): the seat's round
score, judge minus greedy, its mean and 95 % interval (higher is better, lower for
under_the_radar's tricks: the difference is turned so that above 0 is better). The deal
and every chance card of the round come from a stream of the deal alone.
`corpus`: the sample corpus (sample_logs/) judged at the defaults, CPU seconds, and one
4-player rage game.

Times are CPU seconds of this process; every output carries the load average.
The judge runs on the engine `trickledger analyse --moves` uses by default (native where it is
built); `TRICKLEDGER_ANALYSIS=python` runs it in Python instead (the other side of a
comparison).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from trickledger.replay import build_text, native
from trickledger.replay.bots import GreedyBot, RandomBot
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.judge import (
    BANDS,
    DEFAULT_SAMPLES,
    Judgement,
    better_sign,
    cost_of,
    decisions,
    evaluate,
    judge_log,
    play_round_out,
)
from trickledger.replay.native import judging
from trickledger.replay.reader import parse_header
from trickledger.replay.simulate import play_game
from trickledger.replay.state import GameState, Move
from trickledger.replay.writer import dump_lines

from .quality import TABLES, header

ROOT = Path(__file__).resolve().parent.parent


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def states_of(game: str, seed: int) -> list[GameState]:
    """Every state in the middle of a round of a simulated game (greedy players)."""
    h = header(game, TABLES[game])
    _, events = play_game(h, {p: GreedyBot() for p in h["players"]}, random.Random(seed))
    state = new_state(parse_header("<bench>", 1, orjson.dumps(h), "bench"))
    out = []
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if state.in_round:
            out.append(state.clone())
    return out


def _starts(game: str, seed: int) -> list[GameState]:
    h = header(game, TABLES[game])
    _, events = play_game(h, {p: GreedyBot() for p in h["players"]}, random.Random(seed))
    state = new_state(parse_header("<bench>", 1, orjson.dumps(h), "bench"))
    starts = []
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if ev["type"] == "deal":
            starts.append(state.clone())
    return starts


def _ci(diffs: list[float]) -> dict[str, Any]:
    mean = statistics.fmean(diffs)
    se = statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.nan
    return {"n": len(diffs), "mean": round(mean, 3), "se": round(se, 3),
            "ci95": [round(mean - 1.96 * se, 3), round(mean + 1.96 * se, 3)]}


# ------------------------------------------------------------------- speed


def speed(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for game in TABLES:
        starts = _starts(game, 1)
        positions = [native.position(s) for s in starts]
        py_done = nat_done = 0
        py_t = nat_t = 0.0
        rng = random.Random(0)
        deadline = time.process_time() + 2 * args.seconds
        seed = 0
        while time.process_time() < deadline:  # A and B interleaved, round start by round start
            for st, pos in zip(starts, positions):
                t0 = time.process_time()
                play_round_out(st.clone(), rng)
                t1 = time.process_time()
                pos.playouts("greedy", seed, 20)
                t2 = time.process_time()
                seed += 20
                py_t += t1 - t0
                nat_t += t2 - t1
                py_done += 1
                nat_done += 20
        # the solver: the rest of the round from trick starts with few cards left
        nodes, solve_t = 0, 0.0
        for st in states_of(game, 2):
            if solve_t > args.seconds:
                break
            if st.next_chance() is not None or len(st.choices()) < 2:
                continue
            pos = native.position(st)
            if not pos.table_point():
                continue
            t0 = time.process_time()
            value, visited = pos.solve(None, 200_000, 18)
            solve_t += time.process_time() - t0
            nodes += visited
        row = {"python_playouts_per_s": round(py_done / py_t, 1),
               "native_playouts_per_s": round(nat_done / nat_t, 1),
               "ratio": round((nat_done / nat_t) / (py_done / py_t), 1),
               "solver_positions_per_s": round(nodes / solve_t) if solve_t else None}
        out[game] = row
        print(game, row, flush=True)
    return out


# ------------------------------------------------------------------- defaults


def defaults(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for game in TABLES:
        by_cards: dict[int, list[tuple[int, float]]] = {}
        for seed in range(args.games):
            for st in states_of(game, 10 + seed):
                if st.next_chance() is not None:
                    continue
                pos = native.position(st)
                if not pos.table_point() or pos.status() != 0:
                    continue
                cards = sum(len(st.hand(s)) for s in range(len(st.players)))
                t0 = time.process_time()
                value, visited = pos.solve(None, 2_000_000, 18)
                took = time.process_time() - t0
                by_cards.setdefault(cards, []).append(
                    (visited if value is not None else 2_000_001, took))
        row = {}
        for cards in sorted(by_cards):
            got = by_cards[cards]
            row[cards] = {"n": len(got),
                          "median_positions": int(statistics.median(v for v, _ in got)),
                          "max_ms": round(1000 * max(t for _, t in got), 1),
                          "fits_solve_budget": round(sum(v <= judging.SOLVE_BUDGET
                                                         for v, _ in got) / len(got), 2),
                          "fits_endgame_budget": round(sum(v <= judging.ENDGAME_BUDGET
                                                           for v, _ in got) / len(got), 2)}
        out[game] = row
        print(game, json.dumps(row), flush=True)
    return out


# ------------------------------------------------------------------- stability


def mixed_games(game: str, games: int, first: int = 0) -> list[tuple[bytes, set[int]]]:
    """Logs of simulated games where every seat plays a random and a greedy move in turn,
    each with the lines of its random moves."""
    class Mixed:
        name = "mixed"

        def __init__(self) -> None:
            self.k = 0

        def choose(self, state: GameState, rng: random.Random) -> Move:
            self.k += 1
            bot = RandomBot() if self.k % 2 else GreedyBot()
            move = bot.choose(state, rng)
            if self.k % 2:
                randoms.append(move)
            return move

    out = []
    for seed in range(first, first + games):
        randoms: list[Move] = []  # kept alive: their ids name them in the log below
        h = header(game, TABLES[game], rounds=2) if game != "color_stacks" else header(game, 3)
        _, events = play_game(h, {p: Mixed() for p in h["players"]}, random.Random(seed))
        chosen = {id(m) for m in randoms}
        out.append((dump_lines(h, events),
                    {i + 2 for i, ev in enumerate(events) if id(ev) in chosen}))
    return out


def _said_of_moves(judged: list[Judgement]) -> dict[str, Any]:
    """What the judge said of one kind of player's decisions: the share of each band and
    the mean cost."""
    n = len(judged)
    return {"decisions": n,
            "bands": {b: round(sum(j.band == b for j in judged) / n, 3) for b in BANDS} if n
            else {},
            "mean_cost": round(statistics.fmean(j.cost for j in judged), 3) if n else None}


def stability(args: argparse.Namespace) -> dict[str, Any]:
    """Per game: the share of decisions that keep their band under another seed, the
    bands of the random and of the greedy moves (that the judge still tells them apart),
    and the mistakes and blunders confirmed at 4x the samples."""
    out: dict[str, Any] = {}
    engine = judging.default_engine()
    for game in args.games_list or list(TABLES):
        t0 = time.process_time()
        same = total = 0
        worse: list[tuple[bytes, int, str]] = []
        changed: dict[str, int] = {}
        kinds: dict[str, list[Judgement]] = {"random": [], "greedy": []}
        seed_a, seed_b = args.seeds
        for i, (raw, randoms) in enumerate(mixed_games(game, args.games, args.first_game)):
            a = judge_log(raw, args.samples, seed_a, f"stab-{i}", engine=engine)
            b = {j.line: j for j in judge_log(raw, args.samples, seed_b, f"stab-{i}",
                                              engine=engine)}
            for j in a:
                kinds["random" if j.line in randoms else "greedy"].append(j)
                if j.line not in b:
                    continue
                total += 1
                same += b[j.line].band == j.band
                if b[j.line].band != j.band:
                    pair = " / ".join(sorted((j.band, b[j.line].band), key=BANDS.index))
                    changed[pair] = changed.get(pair, 0) + 1
                if j.band in ("mistake", "blunder"):
                    worse.append((raw, j.line, f"stab-{i}"))
        confirmed = 0
        for raw, line, name in worse:
            again = [j for j in judge_log(raw, 4 * args.samples, max(args.seeds) + 1, name,
                                          engine=engine)
                     if j.line == line]
            confirmed += bool(again) and again[0].band in ("mistake", "blunder")
        row = {"decisions": total, "keep_band": round(same / total, 3) if total else None,
               "keep_band_ci95": _share_ci(same, total),
               "band_changes": dict(sorted(changed.items(), key=lambda kv: -kv[1])),
               "random_moves": _said_of_moves(kinds["random"]),
               "greedy_moves": _said_of_moves(kinds["greedy"]),
               "mistakes_and_blunders": len(worse),
               "confirmed_at_4x": confirmed,
               "cpu_seconds": round(time.process_time() - t0, 1)}
        out[game] = row
        print(game, row, flush=True)
    return out


def _share_ci(k: int, n: int) -> list[float] | None:
    """The 95 % Wilson interval of a share k / n."""
    if not n:
        return None
    z = 1.96
    p = k / n
    mid = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(mid - half, 3), round(mid + half, 3)]


# ------------------------------------------------------------------- strength


class Judged:
    """Plays the judge's best move (the judge as a player): at each of its decisions the
    game so far, with greedy's move made, becomes a log whose last decision is judged with
    `samples` samples like a decision of a log (the judge's view, seed and samples)."""

    name = "judge"

    def __init__(self, samples: int, engine: str) -> None:
        self.samples = samples
        self.engine = engine

    def choose(self, state: GameState, h: dict[str, Any], events: list[dict[str, Any]],
               rng: random.Random) -> Move:
        ev = GreedyBot().choose(state, rng)
        got = list(decisions(dump_lines(h, [*events, ev]), "<bench>"))
        if not got or got[-1].line != len(events) + 2:
            return ev  # a single distinct legal move: no decision
        d = got[-1]
        values = evaluate(d, self.samples, 0, self.engine).values
        best, _, _ = cost_of(values, 0, better_sign(state.info.name))
        return d.alternatives[best]


def play_deal(game: str, deal: int, judged: set[int], samples: int) -> list[int]:
    """One round of `game` from the deal seeded `deal`: the seats in `judged` play the judge's
    best move, the others greedy. The round's scores by seat."""
    h = header(game, TABLES[game], rounds=1) if game != "color_stacks" else header(game, 3)
    state = new_state(parse_header("<bench>", 1, orjson.dumps(h), "bench"))
    chance = random.Random(f"deal-{game}-{deal}")  # the deal and the round's chance cards
    bots = random.Random(f"bots-{game}-{deal}")
    judge = Judged(samples, judging.default_engine())
    greedy = GreedyBot()
    events: list[dict[str, Any]] = []
    line = 1
    while not state.rounds:
        kind = state.next_chance()
        if kind is not None:
            ev = state.draw_chance(chance)
        else:
            who = state.to_move()
            assert who is not None
            if state.seat[who] in judged:
                ev = judge.choose(state, h, events, random.Random(line))
            else:
                ev = greedy.choose(state, bots)
        line += 1
        state.apply(Event(line, str(ev["type"]), ev))
        events.append(ev)
    return list(state.rounds[0].scores)


def strength(args: argparse.Namespace) -> dict[str, Any]:
    """The table where the others play greedy first, deal by deal, then the table where they
    judge too: a run stopped early has the first table whole. A line every 10 deals (the
    interval so far and the load average), so that a slow run shows where it is."""
    out: dict[str, Any] = {}
    for game in args.games_list or list(TABLES):
        n = TABLES[game]
        sign = better_sign(game)
        row: dict[str, Any] = {}
        for table, deals in (("others_greedy", args.deals), ("others_judge", args.deals_all)):
            t0 = time.process_time()
            diffs: list[float] = []
            for deal in range(deals):
                seat = deal % n
                if table == "others_greedy":
                    base = play_deal(game, deal, set(), args.samples)[seat]
                    judged = play_deal(game, deal, {seat}, args.samples)[seat]
                else:
                    others = set(range(n)) - {seat}
                    base = play_deal(game, deal, others, args.samples)[seat]
                    judged = play_deal(game, deal, set(range(n)), args.samples)[seat]
                diffs.append(sign * (judged - base))
                if (deal + 1) % 10 == 0 and len(diffs) > 1:
                    print(f"  {game} {table} {deal + 1} deals: {_ci(diffs)} "
                          f"({time.process_time() - t0:.0f} CPU s, load {load()})", flush=True)
            if len(diffs) > 1:
                row[table] = {**_ci(diffs), "cpu_seconds": round(time.process_time() - t0, 1)}
        out[game] = row
        print(game, row, flush=True)
    return out


# ------------------------------------------------------------------- corpus


def corpus(args: argparse.Namespace) -> dict[str, Any]:
    logs = ([] if args.rage_only else
            sorted(p for p in (ROOT / "sample_logs").rglob("*.jsonl") if p.is_file()))
    t0 = time.process_time()
    decided = 0
    for p in logs:
        try:
            decided += len(judge_log(p.read_bytes(), args.samples, 0, p.name,
                                     engine=judging.default_engine()))
        except ValueError:
            continue  # a sample log that breaks the rules on purpose
    corpus_s = time.process_time() - t0
    h = header("rage", 4)
    _, events = play_game(h, {p: GreedyBot() for p in h["players"]}, random.Random(1))
    raw = dump_lines(h, events)
    t1 = time.process_time()
    rage = judge_log(raw, args.samples, 0, "rage-game", engine=judging.default_engine())
    row = {"logs": len(logs), "decisions": decided,
           "corpus_cpu_seconds": round(corpus_s, 1) if logs else None,
           "rage_4p_game_cpu_seconds": round(time.process_time() - t1, 2),
           "rage_4p_decisions": len(rage)}
    print(row, flush=True)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=["speed", "defaults", "stability", "strength", "corpus"])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--first-game", type=int, default=0,
                    help="stability: the first simulated game's seed (other games: 6, 12, ...)")
    ap.add_argument("--seeds", type=int, nargs=2, default=[0, 1], metavar=("A", "B"),
                    help="stability: the two judge seeds compared (4x run: the larger + 1)")
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--deals", type=int, default=100)
    ap.add_argument("--deals-all", type=int, default=100,
                    help="deals of the table where the others play the judge too")
    ap.add_argument("--game", action="append", dest="games_list")
    ap.add_argument("--rage-only", action="store_true",
                    help="corpus: only the one 4-player rage game, not the sample corpus")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    started = load()
    t0 = time.time()
    run: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
        "speed": speed, "defaults": defaults, "stability": stability, "strength": strength,
        "corpus": corpus}
    figures = run[args.what](args)
    result = {"what": args.what, "engine": build_text(), "judge": judging.default_engine(),
              "samples": args.samples, "load_average_start": started,
              "load_average_end": load(), "wall_seconds": round(time.time() - t0, 1),
              "figures": figures}
    print("load average", started, "->", result["load_average_end"])
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
