"""Figures of decision quality (docs/performance.md): playouts per second per game, and the
time to judge one game of each game at its common table size, on one core.

    python -m bench.quality [--games 1] [--samples 16] [--out FILE]

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
import random
import time
from typing import Any

import orjson

from replay.bots import GreedyBot
from replay.engine import new_state
from replay.events import Event
from replay.judge import DEFAULT_SAMPLES, judge_log, play_round_out
from replay.reader import parse_header
from replay.simulate import play_game
from replay.state import GameState
from replay.writer import dump_lines
from trickledger import version_text

TABLES = {"plotters": 4, "rage": 4, "color_stacks": 3, "under_the_radar": 4}
NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]


def header(game: str, n: int) -> dict[str, Any]:
    h: dict[str, Any] = {"format": "trickledger/1", "game": game, "players": NAMES[:n]}
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1, help="games judged per game (default 1)")
    ap.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out: dict[str, Any] = {"engine": version_text(), "samples": args.samples, "games": {}}
    for game, n in TABLES.items():
        raw, starts = round_starts(game, 1)
        row: dict[str, Any] = {"players": n, "rounds": len(starts)}
        row["playouts_per_s_clone"] = round(playouts_per_second(starts, "clone"), 1)
        row["playouts_per_s_deepcopy"] = round(playouts_per_second(starts, "deepcopy"), 1)
        judged = []
        for seed in range(1, args.games + 1):
            raw, _ = round_starts(game, seed)
            t0 = time.process_time()
            js = judge_log(raw, args.samples, 0, f"bench-{seed}")
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
