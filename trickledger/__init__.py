"""trickledger: the `trickledger` command, and the Python API (docs/python.md).

The command is one parser composed of the commands each package exposes. It sits above
every package (replay < ingest < dashboard, and bench), so that no package imports a
layer above its own; each package offers `register_commands(sub)`.

The API (`verify`, `replay`, `connect`, `ingest`, ...) lives in trickledger.api and is
imported on the first use of one of its names: `import trickledger`, and so every
command, starts without DuckDB, pyarrow or polars.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    __version__: str
    from .api import (
        SAMPLES,
        IngestSummary,
        Replay,
        Source,
        Store,
        Verdict,
        connect,
        ingest,
        replay,
        verify,
    )

__all__ = ["__version__", "SAMPLES", "IngestSummary", "Replay", "Source", "Store", "Verdict",
           "build_parser", "connect", "ingest", "main", "replay", "verify", "version_text"]
_API = {"SAMPLES", "IngestSummary", "Replay", "Source", "Store", "Verdict", "connect", "ingest",
        "replay", "verify"}


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    if name == "__version__":
        return _version()
    raise AttributeError(f"module 'trickledger' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API | {"__version__"})


def _replay_commands(sub: argparse._SubParsersAction) -> None:
    import replay.commands

    replay.commands.register_commands(sub)


def _ingest_commands(sub: argparse._SubParsersAction) -> None:
    import ingest.commands

    ingest.commands.register_commands(sub)


def _dashboard_commands(sub: argparse._SubParsersAction) -> None:
    import dashboard.commands

    dashboard.commands.register_commands(sub)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; or, given the `command` about to run, the parser as far as the
    package that has it: the packages are registered in layer order and the rest is left
    out (registering ingest's commands imports DuckDB, which `verify` never needs). A
    command's own parser, its help and its errors are the same either way."""
    p = argparse.ArgumentParser(prog="trickledger",
                                description="Replay card-game logs and settle the scores.")
    p.add_argument("--version", action=_Version, nargs=0,
                   help="show the version and which engine runs (compiled or interpreted)")
    sub = p.add_subparsers(dest="command", required=True)
    registers: list[Callable[[argparse._SubParsersAction], None]] = [
        _replay_commands, _ingest_commands, _dashboard_commands, _register_bench]
    for register in registers:
        register(sub)
        if command is not None and command in sub.choices:
            break
    return p


def _register_bench(sub: argparse._SubParsersAction) -> None:
    """`trickledger bench` runs the benchmark of a source checkout (`bench/` is not installed
    with the package: it measures the project, it is not part of it)."""
    try:
        import bench.commands
    except ImportError:
        if _checkout_bench():
            import bench.commands

            bench.commands.register_commands(sub)
            return
        b = sub.add_parser("bench", help="run the benchmark (from a source checkout only)",
                           description="The benchmark lives in the source checkout's bench/ "
                                       "folder and is not installed with the package.")
        b.set_defaults(fn=_no_bench)
        return
    bench.commands.register_commands(sub)


def _checkout_bench() -> bool:
    """Whether the current folder is a source checkout with its bench/: it is then put on
    the path *after* the installed packages, so that the installed (compiled) engine is the
    one measured, not the checkout's interpreted replay/."""
    import os
    import sys

    here = os.getcwd()
    if not os.path.isfile(os.path.join(here, "bench", "commands.py")):
        return False
    sys.path.append(here)
    try:
        import bench.commands  # noqa: F401
    except ImportError:
        sys.path.remove(here)
        return False
    return True


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


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("trickledger")
    except PackageNotFoundError:
        return "unknown"


def version_text() -> str:
    """'trickledger 0.1.0 (engine compiled with mypyc)', or '... (engine interpreted)'."""
    from replay import compiled_modules, engine_build

    v = _version()
    build = engine_build()
    if build == "compiled":
        engine = "engine compiled with mypyc"
    elif build == "interpreted":
        engine = "engine interpreted"
    else:
        engine = f"engine partly compiled: {', '.join(compiled_modules())}"
    return f"trickledger {v} ({engine})"


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    args_given = list(sys.argv[1:] if argv is None else argv)
    # the first word is the command unless it is an option (-h, --version: the whole parser)
    command = args_given[0] if args_given and not args_given[0].startswith("-") else None
    parser = build_parser(command)
    try:
        args = parser.parse_args(args_given)
    except SystemExit as e:  # argparse: misuse is exit status 2
        return int(e.code or 0)
    try:
        return int(args.fn(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
