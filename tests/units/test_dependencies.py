"""Every library the installed packages import is declared in pyproject.toml: in
`dependencies`, or in the extra that the importing feature needs (the cluster's Dask and
fsspec). A library that arrives only because another one needs it today (pandas through
Streamlit) can leave with that library's next release."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("replay", "ingest", "dashboard", "sample_logs", "src/trickledger")
OPTIONAL = {"dask": "cluster", "distributed": "cluster", "fsspec": "cluster"}


def imported_libraries() -> dict[str, str]:
    """library -> one module that imports it."""
    found: dict[str, str] = {}
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if any(p.is_symlink() for p in (path, *path.parents)):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.split(".")[0]
                    if top not in sys.stdlib_module_names and top not in ("trickledger",):
                        found.setdefault(top, str(path.relative_to(ROOT)))
    return found


def declared(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower().replace("-", "_")
            for r in requirements}


def test_every_imported_library_is_declared() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = declared(project["dependencies"])
    extras = {k: declared(v) for k, v in project["optional-dependencies"].items()}
    libraries = imported_libraries()
    assert {"duckdb", "pandas", "streamlit"} <= set(libraries)  # the walk finds imports
    undeclared = sorted(f"{lib} (imported by {where})" for lib, where in libraries.items()
                        if lib not in required
                        and lib not in extras.get(OPTIONAL.get(lib, ""), set()))
    assert undeclared == []
