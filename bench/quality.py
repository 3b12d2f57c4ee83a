"""Figures of decision quality (docs/performance.md): playouts per second per game, and the
time to judge one game of each game at its common table size, on one core.

    python -m bench.quality [--games 1] [--samples 16] [--out FILE]
    python -m bench.quality --playouts-only [--out FILE]
    python -m bench.quality --margin [--only GAME] --games 40 --samples 8

`--margin` measures instead how much better the greedy bot decides than a random bot
(docs/analytics.md, "Greedy against random"): at every decision of games simulated with
greedy bots in every seat, the judge's value of greedy's move minus the mean of the values
of all legal alternatives (what a uniformly random move is worth on average), all valued on
the same samples; per game the mean over decisions and its 95 % interval.

Times are CPU time of this process (`time.process_time`), so a machine busy with other
work does not inflate them. A playout is what the hand estimates and the judge repeat:
branch a state at the start of a round (`GameState.clone`) and let the greedy bot play
the round out. Games are simulated with a fixed seed, so two runs measure the same
positions.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import random
import statistics
import time
from typing import Any

import orjson

from trickledger.replay import build_text
from trickledger.replay.bots import GreedyBot
from trickledger.replay.engine import new_state
from trickledger.replay.events import Event
from trickledger.replay.judge import (
    DEFAULT_SAMPLES,
    better_sign,
    decisions,
    evaluate,
    judge_log,
    move_label,
    play_round_out,
)
from trickledger.replay.reader import parse_header
from trickledger.replay.simulate import play_game
from trickledger.replay.state import GameState
from trickledger.replay.writer import dump_lines

TABLES = {"plotters": 4, "rage": 4, "color_stacks": 3, "under_the_radar": 4}
NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def header(game: str, n: int, **extra: Any) -> dict[str, Any]:
    h: dict[str, Any] = {"format": "trickledger/1", "game": game, "players": NAMES[:n], **extra}
    if game == "color_stacks":
        h["suits"] = ["R", "Y", "G", "B"]
    return h


def round_starts(game: str, seed: int) -> tuple[bytes, list[GameState]]:
    """A simulated game's log and its state right after each deal."""
    h = header(game, TABLES[game])
    _, events = play_game(h, {p: GreedyBot() for p in h["players"]}, random.Random(seed))
    state = new_state(parse_header("<bench>", 1, orjson.dumps(h), "bench"))
    starts = []
    for i, ev in enumerate(events, 2):
        state.apply(Event(i, ev["type"], ev))
        if ev["type"] == "deal":
            starts.append(state.clone())
    return dump_lines(h, events), starts


def playouts_per_second(starts: list[GameState], branch: str, seconds: float = 3.0) -> float:
    rng = random.Random(0)
    done, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        for st in starts:
            s = st.clone() if branch == "clone" else copy.deepcopy(st)
            play_round_out(s, rng)
            done += 1
    return done / (time.process_time() - t0)


# (players, header keys) of the small games the margin is measured on: one-round games,
# the test suite's tables (tests/system/test_move_quality.py)
MARGIN_TABLES: dict[str, tuple[int, dict[str, Any]]] = {
    "plotters": (4, {"rounds": 1}), "rage": (3, {"rounds": 1}),
    "color_stacks": (2, {"suits": ["R", "Y", "G", "B"]}),
    "under_the_radar": (3, {"rounds": 1})}


def _same_move(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # the same cards in another order are the same move (the judge's own rule)
    return sorted(move_label(a).split()) == sorted(move_label(b).split())


def greedy_margins(game: str, games: int, samples: int,
                   seed: int = 2) -> list[tuple[str, float]]:
    """Per decision of `games` simulated games (greedy bots in every seat, deals seeded
    0, 1, ...): the value of greedy's move minus the mean value of all legal alternatives,
    in the game's points, turned so that above 0 means greedy is better (= the expected
    cost of a random legal move minus the cost of greedy's move), with the decision's kind
    (the move's type). Decisions taken out of turn (rage's hidden bids) are left out: the
    bots only move in turn."""
    n, extra = MARGIN_TABLES[game]
    h = {"format": "trickledger/1", "game": game, "players": NAMES[:n], **extra}
    sign = better_sign(game)
    out: list[tuple[str, float]] = []
    for deal in range(games):
        _, events = play_game(h, {p: GreedyBot() for p in NAMES[:n]}, random.Random(deal))
        for d in decisions(dump_lines(h, events)):
            if d.truth.to_move() != d.player:
                continue
            values = evaluate(d, samples, seed).values
            if not values:
                continue
            pick = GreedyBot().choose(d.truth, random.Random(d.line))
            g = next(i for i, m in enumerate(d.alternatives) if _same_move(m, pick))
            means = [statistics.fmean(v) for v in values]
            out.append((str(d.made["type"]), sign * (means[g] - statistics.fmean(means))))
    return out


def margin_summary(margins: list[float]) -> tuple[float, float]:
    """The mean of per-decision margins and its standard error."""
    return statistics.fmean(margins), statistics.stdev(margins) / math.sqrt(len(margins))


def _margin_row(margins: list[float]) -> dict[str, Any]:
    mean, se = margin_summary(margins) if len(margins) > 1 else (margins[0], math.nan)
    return {"decisions": len(margins), "mean": round(mean, 4), "se": round(se, 4),
            "ci95": [round(mean - 1.96 * se, 4), round(mean + 1.96 * se, 4)],
            "zero_share": round(sum(1 for x in margins if x == 0) / len(margins), 3)}


def margin_main(args: argparse.Namespace) -> None:
    out: dict[str, Any] = {"engine": build_text(), "samples": args.samples,
                           "games_per_game": args.games, "margin": {}}
    for game in [args.only] if args.only else list(MARGIN_TABLES):
        t0 = time.process_time()
        kinds = greedy_margins(game, args.games, args.samples)
        row = _margin_row([m for _, m in kinds])
        row["cpu_seconds"] = round(time.process_time() - t0, 1)
        row["by_kind"] = {kind: _margin_row([m for k, m in kinds if k == kind])
                          for kind in sorted({k for k, _ in kinds})}
        out["margin"][game] = row
        print(game, row, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1, help="games judged per game (default 1)")
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--out", default=None)
    ap.add_argument("--margin", action="store_true",
                    help="measure greedy's margin over random moves instead")
    ap.add_argument("--only", choices=sorted(MARGIN_TABLES), default=None,
                    help="with --margin: one game only")
    ap.add_argument("--playouts-only", action="store_true",
                    help="playouts per second only, without judging a game of each")
    args = ap.parse_args()
    if args.margin:
        margin_main(args)
        return
    out: dict[str, Any] = {"engine": build_text(), "samples": args.samples, "games": {}}
    for game, n in TABLES.items():
        raw, starts = round_starts(game, 1)
        row: dict[str, Any] = {"players": n, "rounds": len(starts)}
        row["playouts_per_s_clone"] = round(playouts_per_second(starts, "clone"), 1)
        row["playouts_per_s_deepcopy"] = round(playouts_per_second(starts, "deepcopy"), 1)
        if args.playouts_only:
            out["games"][game] = row
            print(game, row, flush=True)
            continue
        judged = []
        for seed in range(1, args.games + 1):
            raw, _ = round_starts(game, seed)
            t0 = time.process_time()
            js = judge_log(raw, args.samples, 0)
            judged.append((time.process_time() - t0, len(js), sum(j.alternatives for j in js)))
        row["judge_seconds_per_game"] = round(sum(t for t, _, _ in judged) / len(judged), 1)
        row["decisions_per_game"] = sum(d for _, d, _ in judged) / len(judged)
        row["alternatives_per_decision"] = round(
            sum(a for _, _, a in judged) / max(1, sum(d for _, d, _ in judged)), 2)
        out["games"][game] = row
        print(game, row, flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
