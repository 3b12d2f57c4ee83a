"""The benchmark's options (`python -m bench --help`)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The benchmark's options."""
    ap.add_argument("--quick", action="store_true", help="small corpus, sizes 1k and 5k")
    ap.add_argument("--sizes", default=None, help="ingest scaling sizes, e.g. 1000,10000,100000")
    ap.add_argument("--per-game", type=int, default=None, help="base corpus games per game")
    ap.add_argument("--work", default=str(Path("bench") / "corpus"),
                    help="folder for the generated corpus and databases (default: bench/corpus)")
    ap.add_argument("--out", default=None, metavar="FILE",
                    help="also write the results as JSON to FILE (the committed figures are "
                         "bench/results/latest.json); by default nothing is written")
    ap.add_argument("--skip-peers", action="store_true")
    ap.add_argument("--replay-only", action="store_true",
                    help="only the floor, replay per engine, whole-process verify and peers "
                         "(no ingest, scaling or dashboard queries)")
    ap.add_argument("--ingest-rounds", type=int, default=None,
                    help="interleaved rounds of the ingest modes (database file, lake, "
                         "Dask local cluster); default 3, 1 with --quick")
    ap.add_argument("--million", type=int, nargs="?", const=1_000_000, default=None,
                    metavar="N", help="also ingest N simulated games once (default N: "
                                      "1,000,000) and report time and peak RSS")
    ap.add_argument("--skip-queries", action="store_true",
                    help="skip the dashboard query latencies")
    ap.add_argument("--targets", action="store_true",
                    help="only issue 23's targets, in one interleaved run, each with met or "
                         "not met (docs/performance.md)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="with --targets: interleaved rounds of replay, verify and load "
                         "(default 3; medians)")
    ap.add_argument("--rss-sizes", default="10000,50000",
                    help="with --targets: the loads whose parent peak RSS is compared "
                         "(default 10000,50000; empty: skip)")
    ap.add_argument("--analyse-bound", type=float, default=600.0, metavar="SECONDS",
                    help="with --targets: stop `analyse` of the samples after this long "
                         "(default 600, twice the target)")
