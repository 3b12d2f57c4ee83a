"""trickledger: the `trickledger` command, and the Python API (docs/python.md).

The command is one parser composed of the commands each package exposes. It sits above
every package (replay < ingest < dashboard), so that no package imports a
layer above its own; each package offers `register_commands(sub)`.

The API (`verify`, `replay_log`, `connect`, `ingest_logs`, ...) lives in trickledger.api and is
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
        ingest_logs,
        replay_log,
        verify,
    )

__all__ = ["__version__", "SAMPLES", "IngestSummary", "Replay", "Source", "Store", "Verdict",
           "build_parser", "connect", "ingest_logs", "main", "replay_log", "verify", "version_text"]
_API = {"SAMPLES", "IngestSummary", "Replay", "Source", "Store", "Verdict", "connect",
        "ingest_logs", "replay_log", "verify"}


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
    from .replay import commands

    commands.register_commands(sub)


def _ingest_commands(sub: argparse._SubParsersAction) -> None:
    from .ingest import commands

    commands.register_commands(sub)


def _dashboard_commands(sub: argparse._SubParsersAction) -> None:
    from .dashboard import commands

    commands.register_commands(sub)


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
        _replay_commands, _ingest_commands, _dashboard_commands]
    for register in registers:
        register(sub)
        if command is not None and command in sub.choices:
            break
    return p


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
    """'trickledger 0.1.0 (engine compiled with mypyc; analysis engine native C++)', or
    '... (engine interpreted; analysis engine Python: the native engine is not built)'."""
    from trickledger.replay import build_text

    return f"trickledger {_version()} ({build_text()})"


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
