"""The `trickledger` command: one parser composed of the commands each package exposes.

It sits above every package (replay < ingest < dashboard, and bench), so that no
package imports a layer above its own; each package offers `register_commands(sub)`.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    import dashboard.commands
    import ingest.commands
    import replay.commands

    p = argparse.ArgumentParser(prog="trickledger",
                                description="Replay card-game logs and settle the scores.")
    p.add_argument("--version", action=_Version, nargs=0,
                   help="show the version and which engine runs (compiled or interpreted)")
    sub = p.add_subparsers(dest="command", required=True)
    replay.commands.register_commands(sub)
    ingest.commands.register_commands(sub)
    dashboard.commands.register_commands(sub)
    _register_bench(sub)
    return p


def _register_bench(sub: argparse._SubParsersAction) -> None:
    """`trickledger bench` runs the benchmark of a source checkout (`bench/` is not installed
    with the package: it measures the project, it is not part of it)."""
    try:
        import bench.commands
    except ImportError:
        b = sub.add_parser("bench", help="run the benchmark (from a source checkout only)",
                           description="The benchmark lives in the source checkout's bench/ "
                                       "folder and is not installed with the package.")
        b.set_defaults(fn=_no_bench)
        return
    bench.commands.register_commands(sub)


def _no_bench(args: argparse.Namespace) -> int:
    import sys

    print("trickledger bench: the benchmark runs from a checkout of the source: "
          "cd into it and run 'python -m bench' (see docs/performance.md)", file=sys.stderr)
    return 2


class _Version(argparse.Action):
    """--version, worked out only when asked for (it imports the whole engine)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(version_text())
        parser.exit()


def version_text() -> str:
    """'trickledger 0.1.0 (engine compiled with mypyc)', or '... (engine interpreted)'."""
    from importlib.metadata import PackageNotFoundError, version

    from replay import compiled_modules, engine_build

    try:
        v = version("trickledger")
    except PackageNotFoundError:
        v = "unknown"
    build = engine_build()
    if build == "compiled":
        engine = "engine compiled with mypyc"
    elif build == "interpreted":
        engine = "engine interpreted"
    else:
        engine = f"engine partly compiled: {', '.join(compiled_modules())}"
    return f"trickledger {v} ({engine})"


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
