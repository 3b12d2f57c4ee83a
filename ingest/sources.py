"""What to load: files, folders and globs on this machine, or fsspec URLs.

A local argument is a file, a folder (searched recursively for *.jsonl and *.jsonl.gz)
or a glob. An argument with a protocol (`s3://bucket/logs`, `gs://...`, `file:///...`)
is opened with fsspec, which must be installed with the package for that protocol
(s3fs, gcsfs, ...); when it is not, the error says which one to install.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, Any

from trickledger.replay.errors import UnreadableLog
from trickledger.replay.files import LOG_SUFFIXES, STDIN, find_logs, once
from trickledger.replay.reader import read_file


class SourceError(ValueError):
    """An argument that cannot be opened at all (no filesystem for its protocol)."""



@dataclass(frozen=True)
class Source:
    """One log to load: a local path or an fsspec URL to read, or bytes from an upload."""

    name: str
    path: str | None = None
    data: bytes | None = None
    max_bytes: int | None = None  # cap on the decompressed log (default: the reader's)


def is_url(arg: str) -> bool:
    head, sep, _ = arg.partition("://")
    return bool(sep) and head.isidentifier()


def _fs(url: str) -> tuple[Any, str]:
    try:
        import fsspec
        from fsspec.registry import known_implementations
    except ImportError:
        raise SourceError(f"{url}: reading URLs needs fsspec (pip install fsspec, or "
                          f"trickledger's 'cluster' extra)") from None
    proto = url.split("://", 1)[0]
    try:
        fs, root = fsspec.core.url_to_fs(url)
    except ImportError as e:
        hint = known_implementations.get(proto, {}).get("err") or str(e)
        raise SourceError(f"{url}: the {proto}:// filesystem is not installed ({hint})") \
            from None
    except ValueError as e:
        raise SourceError(f"{url}: unknown protocol {proto!r} ({e})") from None
    return fs, root


def open_url(url: str) -> IO[bytes]:
    """Open one URL for reading its raw bytes (no decompression: the hash is of the bytes
    as stored). Raises OSError when it cannot be read."""
    try:
        fs, root = _fs(url)
    except SourceError as e:
        raise OSError(str(e)) from None
    f: IO[bytes] = fs.open(root, "rb")
    return f


def _expand_url(arg: str) -> tuple[list[Source], str | None]:
    fs, root = _fs(arg)
    proto = arg.split("://", 1)[0]

    def url(p: str) -> str:
        return p if is_url(p) else f"{proto}://{p}"

    try:
        if any(ch in root for ch in "*?["):
            found = sorted(p for p in fs.glob(root) if fs.isfile(p))
            if not found:
                return [], "pattern matches no file"
        elif fs.isdir(root):
            found = sorted(p for p in fs.find(root) if p.endswith(LOG_SUFFIXES))
            if not found:
                return [], "folder holds no .jsonl or .jsonl.gz files"
        elif fs.isfile(root):
            found = [root]
        else:
            return [], "no such file or folder"
    except OSError as e:
        return [], f"cannot list it ({e})"
    return [Source(url(p), path=url(p)) for p in found], None


def expand(paths: Iterable[str], follow_symlinks: bool = False
           ) -> tuple[list[Source], list[tuple[str, str]]]:
    """Files, folders (recursively, *.jsonl and *.jsonl.gz), globs, `-` (standard input)
    and URLs -> sources, and the arguments that matched nothing or were refused, each with
    the reason (reported and recorded, never silently skipped). Local arguments are found
    as `verify` finds them (replay.files): no symlink loops, no pipes or devices in
    folders, no symlinks out of the folder given unless `follow_symlinks`. Raises
    SourceError for a URL whose filesystem is not installed."""
    sources: list[Source] = []
    missing: list[tuple[str, str]] = []
    for arg in paths:
        if is_url(arg):
            found, why = _expand_url(arg)
            sources.extend(found)
            if why:
                missing.append((arg, why))
            continue
        local = find_logs([arg], follow_symlinks=follow_symlinks)
        missing.extend(local.refused)
        for f in local.paths:
            if f == STDIN:
                # read here: a worker elsewhere cannot read this process's standard input
                try:
                    sources.append(Source("<stdin>", data=read_file("/dev/stdin", "<stdin>")))
                except UnreadableLog as e:
                    missing.append((arg, e.message))
            else:
                # the name as given (what a person reads back); the path absolute, for
                # workers that run elsewhere (another process's folder, another machine's)
                sources.append(Source(f, path=os.path.abspath(f)))
    return sources, once(missing)
