"""Checks of the command line's arguments that several commands share: a database path that
is, or becomes, a DuckDB database file, and numbers that must be above zero."""

from __future__ import annotations

import argparse
import math
import os
import re
from typing import Any

from trickledger.terminal import say

# DuckDB reads "NAME:..." (":memory:", "md:", "s3://...") as something other than a file
_NOT_A_FILE = re.compile(r"^(:memory:|[A-Za-z][A-Za-z0-9+._-]+:)")
# every DuckDB database file carries these bytes at offset 8 (its header's magic)
_DUCKDB_MAGIC = b"DUCK"


def database_problem(path: str, must_exist: bool = False) -> str | None:
    """Why `path` cannot be the database file (None when it can): it must be a file that is,
    or becomes, a DuckDB database. DuckDB itself would answer some of these with an
    in-memory database that silently keeps nothing (':memory:', an existing file that is
    not a database but has a suffix DuckDB knows, such as .jsonl)."""
    if not path:
        return "the database path is empty"
    if _NOT_A_FILE.match(path) and not os.path.exists(path):
        return (f"{path}: not a database file name (DuckDB reads it as an in-memory or "
                f"remote database, which keeps nothing here); give a file such as "
                f"trickledger.duckdb")
    if os.path.isdir(path):
        example = os.path.join(path, "trickledger.duckdb")
        return f"{path}: is a folder; --db needs a database file, e.g. {example}"
    if os.path.exists(path) and not os.path.isfile(path):
        # opening a FIFO would wait for a writer for ever: never open what is not a file
        return f"{path}: not a database file (a pipe, socket or device); refused"
    if os.path.exists(path):
        try:
            with open(path, "rb") as f:
                head = f.read(16)
        except OSError as e:
            return f"{path}: cannot read the database file ({e.strerror or e})"
        if head[8:12] != _DUCKDB_MAGIC:
            what = "an empty file" if not head else "a file"
            return (f"{path}: {what} that is not a DuckDB database (a database file is made "
                    f"by trickledger ingest; give a new file name or an existing database)")
        return None
    if must_exist:
        return (f"{path}: no such database file (create it with trickledger ingest SOURCE "
                f"--db {path})")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"{path}: the folder {folder} does not exist"
    return None


def refuse_database(command: str, path: str, must_exist: bool = False) -> bool:
    """Print why `path` cannot be the database (one line, to stderr); True when it cannot."""
    problem = database_problem(path, must_exist)
    if problem is not None:
        say(f"trickledger {command}: {problem}", error=True)
    return problem is not None


def positive(kind: type[int] | type[float]) -> Any:
    """An argparse type: a number of `kind` above zero (a clear usage error otherwise)."""

    def parse(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not (value > 0 and math.isfinite(value)):
            raise argparse.ArgumentTypeError(f"must be a finite number above 0, got {text}")
        return value

    parse.__name__ = kind.__name__
    return parse
