"""The `trickledger` command: one parser composed of the commands each package exposes.

It sits above every package (replay < ingest < dashboard, and bench), so that no
package imports a layer above its own; each package offers `register_commands(sub)`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    import bench.commands
    import dashboard.commands
    import ingest.commands
    import replay.commands

    p = argparse.ArgumentParser(prog="trickledger",
                                description="Replay card-game logs and settle the scores.")
    p.add_argument("--version", action="version", version=version_text())
    sub = p.add_subparsers(dest="command", required=True)
    replay.commands.register_commands(sub)
    ingest.commands.register_commands(sub)
    dashboard.commands.register_commands(sub)
    bench.commands.register_commands(sub)
    return p


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("trickledger")
    except PackageNotFoundError:
        v = "unknown"
    return f"trickledger {v}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: misuse is exit status 2
        return int(e.code or 0)
    try:
        return int(args.fn(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
