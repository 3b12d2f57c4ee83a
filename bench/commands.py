"""`trickledger bench`: the benchmark with the same options as `python -m bench`."""

from __future__ import annotations

import argparse
from typing import Any

from .options import add_arguments


def cmd_bench(args: argparse.Namespace) -> int:
    from .run import run

    return run(args, args.argv)


def register_commands(sub: Any) -> None:
    """Add the `bench` subcommand to the `trickledger` parser."""
    b = sub.add_parser("bench", help="run the benchmark (the same as python -m bench)",
                       description="One benchmark run: JSON-parse floor, replay per game, "
                                   "ingest, scaling, dashboard queries and peers.")
    add_arguments(b)
    b.set_defaults(fn=cmd_bench, argv=[])
