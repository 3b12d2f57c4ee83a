"""Finding log files: the arguments of `verify` and `ingest` (files, folders, globs, `-`).

A folder is searched recursively for `*.jsonl` and `*.jsonl.gz`; a glob is matched the
same way from its fixed prefix. Both walk the tree themselves, so a symlink loop cannot
make them run forever, and both refuse (and report) what is not a regular file and
symlinks that lead out of the folder given, unless `follow_symlinks` is set. A path
named explicitly is read as it is, pipe or device included (the reader bounds it).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

LOG_SUFFIXES = (".jsonl", ".jsonl.gz")
STDIN = "-"
_MAGIC = re.compile(r"[*?\[]")


@dataclass
class Found:
    """What a list of arguments named: log paths in order, and what was refused or missing
    (each with the reason), so that nothing is skipped silently."""

    paths: list[str] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)


def _pattern(glob: str) -> re.Pattern[str]:
    """A glob as a regular expression on '/'-separated paths (`**` spans folders)."""
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[":
            end = glob.find("]", i + 1)
            if end < 0:
                out.append(re.escape("["))
                i += 1
            else:
                out.append("[" + glob[i + 1:end].replace("\\", "\\\\") + "]")
                i = end + 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def _walk(root: Path, follow_symlinks: bool, found: Found, match: re.Pattern[str] | None,
          label_root: str) -> None:
    """Every regular log file under `root` (sorted), refusing what must be refused."""
    real_root = root.resolve()
    seen: set[tuple[int, int]] = set()
    stack = [root]
    results: list[str] = []
    while stack:
        folder = stack.pop()
        try:
            info = os.stat(folder)
        except OSError as e:
            found.refused.append((str(folder), f"cannot read the folder ({e.strerror or e})"))
            continue
        key = (info.st_dev, info.st_ino)
        if key in seen:  # a symlink loop, or a folder reached twice
            continue
        seen.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as e:
            found.refused.append((str(folder), f"cannot read the folder ({e.strerror or e})"))
            continue
        for entry in entries:
            path = Path(entry.path)
            rel = path.relative_to(root).as_posix()
            is_link = entry.is_symlink()
            if is_link and not follow_symlinks:
                try:
                    target = path.resolve()
                except (OSError, RuntimeError):
                    found.refused.append((str(path), "a symlink that cannot be resolved "
                                                     "(a loop?)"))
                    continue
                if target != real_root and real_root not in target.parents:
                    # a folder is reported too: the logs in it would otherwise vanish unseen
                    if entry.name.endswith(LOG_SUFFIXES) or match is not None and \
                            match.match(rel) or target.is_dir():
                        found.refused.append((str(path), f"a symlink that leads out of "
                                                         f"{label_root} (not followed; "
                                                         f"--follow-symlinks to read it)"))
                    continue
            try:
                mode = os.stat(path).st_mode
            except OSError as e:
                found.refused.append((str(path), f"cannot read it ({e.strerror or e})"))
                continue
            if stat.S_ISDIR(mode):
                stack.append(path)
                continue
            wanted = match.match(rel) if match is not None else entry.name.endswith(LOG_SUFFIXES)
            if not wanted:
                continue
            if not stat.S_ISREG(mode):
                found.refused.append((str(path), "not a regular file (a pipe, socket or "
                                                 "device); refused"))
                continue
            results.append(str(path))
    found.paths.extend(sorted(results))


def find_logs(args: list[str], follow_symlinks: bool = False) -> Found:
    """The log files the arguments name, in order, and what was refused or missing."""
    found = Found()
    for arg in args:
        if arg == STDIN:
            found.paths.append(STDIN)
            continue
        p = Path(arg)
        if p.is_dir():
            before = len(found.paths)
            _walk(p, follow_symlinks, found, None, arg)
            if len(found.paths) == before:
                found.refused.append((arg, "the folder holds no .jsonl or .jsonl.gz files"))
        elif p.exists() or p.is_symlink():
            found.paths.append(arg)  # named explicitly: read as it is, within the caps
        elif _MAGIC.search(arg):
            parts = Path(arg).parts
            fixed = [x for x in parts[:next(i for i, x in enumerate(parts) if _MAGIC.search(x))]]
            base = Path(*fixed) if fixed else Path(".")
            rest = "/".join(parts[len(fixed):])
            before = len(found.paths)
            if base.is_dir():
                _walk(base, follow_symlinks, found, _pattern(rest), str(base))
            if len(found.paths) == before:
                found.refused.append((arg, "the pattern matches no file"))
        else:
            found.refused.append((arg, "no such file or folder"))
    found.refused = once(found.refused)
    return found


def once(refused: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each refused path once (the first reason given), however many arguments reach it."""
    seen: set[str] = set()
    out = []
    for path, why in refused:
        key = os.path.normpath(path)
        if key not in seen:
            seen.add(key)
            out.append((path, why))
    return out
