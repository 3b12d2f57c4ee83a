"""`trickledger bench`: the benchmark with the same options as `python -m bench`."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .options import add_arguments


def dispatch(args: argparse.Namespace, argv: list[str]) -> int:
    """The targets run (`--targets`) or the full one."""
    if args.targets:
        from .targets import run_targets

        return run_targets(args)
    from .run import run

    return run(args, argv)


def main(argv: list[str] | None = None) -> int:
    """`python -m bench`."""
    ap = argparse.ArgumentParser(prog="python -m bench")
    add_arguments(ap)
    return dispatch(ap.parse_args(argv), argv if argv is not None else sys.argv[1:])


def cmd_bench(args: argparse.Namespace) -> int:
    return dispatch(args, args.argv)


def register_commands(sub: Any) -> None:
    """Add the `bench` subcommand to the `trickledger` parser."""
    b = sub.add_parser("bench", help="run the benchmark (the same as python -m bench)",
                       description="One benchmark run: JSON-parse floor, replay per game, "
                                   "ingest, scaling, dashboard queries and peers.")
    add_arguments(b)
    b.set_defaults(fn=cmd_bench, argv=[])
