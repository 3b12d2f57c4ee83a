"""`python -m bench`, from a checkout's root: the benchmark measures the project and is not
installed with it (the installed package is the one measured: nothing at the checkout's
root is named trickledger)."""

from __future__ import annotations

import argparse
import sys

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
