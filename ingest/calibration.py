"""How well the hand estimates (ingest/hands.py) predict the tricks the bots really take.

`python -m trickledger.ingest.calibration --games 8 --players 4` simulates games of a game
whose hands are estimated (`--game`; the first such game by default) with the greedy bot in
every seat (the bot the playouts use), loads them into a fresh database, runs the
Monte-Carlo for every hand and compares each hand's `expected_tricks` with the tricks taken
at the real table. docs/analytics.md reports a run.
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from .db import reading
from .hands import estimable, estimable_games

# every estimated hand (`{hands}`: the games' declarations) with the tricks it took
CALIBRATION_SQL = """
    SELECT b.won, h.expected_tricks, h.expected_sd, h.playouts
    FROM ({hands}) b JOIN games g USING (game_id)
    JOIN hand_estimates h ON h.sha256 = g.sha256 AND h.round = b.round AND h.player = b.player
    ORDER BY b.game_id, b.round, b.player"""


@dataclass(frozen=True)
class Calibration:
    hands: int
    mean_won: float
    mean_expected: float
    mean_difference: float  # won - expected, averaged over hands
    difference_se: float  # its standard error: sd(won - expected) / sqrt(hands)
    mean_mc_se: float  # the Monte-Carlo error of one hand's expectation, averaged
    within_one_sd: float  # share of hands whose real tricks fall within expected ± sd
    mean_abs_difference: float
    buckets: list[tuple[str, int, float, float]]  # expected range, hands, mean expected, won

    def lines(self) -> list[str]:
        out = [f"hands: {self.hands}",
               f"mean tricks taken: {self.mean_won:.3f}; mean expected: "
               f"{self.mean_expected:.3f}",
               f"mean (taken - expected): {self.mean_difference:+.3f} ± "
               f"{self.difference_se:.3f} (standard error)",
               f"Monte-Carlo error of one hand's expectation: {self.mean_mc_se:.3f} on average",
               f"mean |taken - expected|: {self.mean_abs_difference:.3f}",
               f"taken within expected ± 1 sd: {self.within_one_sd:.1%}",
               "expected   hands  mean expected  mean taken"]
        out += [f"{r:<9} {n:>6}  {e:>13.3f}  {w:>10.3f}" for r, n, e, w in self.buckets]
        return out


def measure(path: str) -> Calibration:
    """Compare the stored estimates with the tricks taken, over every estimated hand."""
    with reading(path) as con:
        rows = con.execute(CALIBRATION_SQL.format(hands=estimable())).fetchall()
    if not rows:
        raise ValueError("no hand estimates to compare")
    n = len(rows)
    diffs = [w - e for w, e, _, _ in rows]
    mean_d = sum(diffs) / n
    sd_d = math.sqrt(sum((d - mean_d) ** 2 for d in diffs) / (n - 1)) if n > 1 else math.nan
    buckets = []
    for lo in range(0, 11):
        inside = [(w, e) for w, e, _, _ in rows if lo <= e < lo + 1]
        if inside:
            buckets.append((f"{lo}-{lo + 1}", len(inside),
                            sum(e for _, e in inside) / len(inside),
                            sum(w for w, _ in inside) / len(inside)))
    return Calibration(
        hands=n, mean_won=sum(r[0] for r in rows) / n,
        mean_expected=sum(r[1] for r in rows) / n, mean_difference=mean_d,
        difference_se=sd_d / math.sqrt(n),
        mean_mc_se=sum(sd / math.sqrt(p) for _, _, sd, p in rows) / n,
        within_one_sd=sum(1 for w, e, sd, _ in rows if abs(w - e) <= sd) / n,
        mean_abs_difference=sum(abs(d) for d in diffs) / n, buckets=buckets)


def simulate_and_measure(games: int, players: int, playouts: int, seed: int, jobs: int,
                         rounds: int | None, folder: Path, game: str = ""
                         ) -> tuple[Calibration, float]:
    """Simulate greedy games of `game` (by default the first whose hands are estimated)
    into `folder`, load, estimate, measure."""
    from trickledger.replay.simulate import SimOptions, write_run

    from .analyse import estimate_hands
    from .load import expand, ingest

    logs = folder / "logs"
    write_run(SimOptions(game=game or estimable_games()[0], games=games,
                         players=(players, players),
                         bots=("greedy",), seed=seed, rounds=rounds,
                         id_prefix="calibration"), logs, jobs=1, progress=False)
    db = str(folder / "calibration.duckdb")
    sources, _ = expand([str(logs)])
    ingest(sources, db, jobs=1)
    t0 = time.perf_counter()
    estimate_hands(db, playouts=playouts, seed=seed, jobs=jobs)
    return measure(db), time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m trickledger.ingest.calibration", description=__doc__)
    p.add_argument("--game", choices=estimable_games(), default=None,
                   help="a game whose hands are estimated (default: the first)")
    p.add_argument("--games", type=int, default=8)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--rounds", type=int, default=None, help="rounds per game (default 10)")
    p.add_argument("--playouts", type=int, default=200)
    p.add_argument("--seed", type=int, default=18)
    p.add_argument("--jobs", type=int, default=None)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        cal, seconds = simulate_and_measure(args.games, args.players, args.playouts,
                                            args.seed, args.jobs or 0, args.rounds,
                                            Path(tmp), args.game or "")
    game = args.game or estimable_games()[0]
    print(f"{args.games} greedy {game} games of {args.players} players, {args.playouts} "
          f"playouts a hand, seed {args.seed}: {seconds:.0f} s")
    for line in cal.lines():
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
