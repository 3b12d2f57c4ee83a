"""The import structure: no two modules of the project import each other, and no module
imports a layer above its own (replay < ingest < dashboard < the command line and the API;
bench above them all). Modules are named as installed: the checkout's replay/ is
trickledger.replay.

An import hidden inside a function still counts (it only defers the cycle to the first
call); an import under `if TYPE_CHECKING:` does not (it never runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# folder -> the installed name of its package
PACKAGES = {"replay": "trickledger.replay", "ingest": "trickledger.ingest",
            "dashboard": "trickledger.dashboard", "sample_logs": "trickledger.sample_logs",
            "src/trickledger": "trickledger", "bench": "bench"}
# lower number = lower layer; a module may import its own layer and those below
# trickledger.terminal (the commands' safe printing) sits beside the engine, outside it
LAYERS = {"trickledger.sample_logs": 0, "trickledger.replay": 0, "trickledger.terminal": 0,
          "trickledger.ingest": 1,
          "trickledger.dashboard": 2, "trickledger": 3, "bench": 4}


def sources() -> dict[str, Path]:
    """Every module of the project by its installed name (the links under src/trickledger/
    are not walked twice)."""
    out: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        base = ROOT / folder
        for path in base.rglob("*.py"):
            rel = path.relative_to(base)
            if rel.parts[0] in PACKAGES or (base / rel.parts[0]).is_symlink():
                continue
            parts = [package, *rel.with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def imported(name: str, path: Path) -> set[str]:
    """Every module `path` (the module `name`) imports, anywhere in its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    type_only = {id(node) for branch in ast.walk(tree)
                 if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
                 for node in ast.walk(branch)}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            # `from package import module` imports the module
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


def edges() -> dict[str, set[str]]:
    modules = sources()
    return {name: imported(name, path) & set(modules) - {name}
            for name, path in modules.items()}


def test_every_module_is_found_by_its_installed_name() -> None:
    names = set(sources())
    assert {"trickledger", "trickledger.api", "trickledger.replay.state",
            "trickledger.replay.games.rage", "trickledger.ingest.load",
            "trickledger.dashboard.views.viewer", "bench.run"} <= names
    assert not [n for n in names if n.split(".")[0] in ("replay", "ingest", "dashboard")]


def test_no_two_modules_import_each_other() -> None:
    found = edges()
    cycles = sorted(f"{a} <-> {b}" for a, targets in found.items() for b in targets
                    if a < b and a in found[b])
    assert cycles == []


def test_no_module_imports_a_layer_above_its_own() -> None:
    # the package `trickledger` itself is the command line; its __init__ may name the
    # layers below, and `import trickledger.x` imports the package trickledger first, which
    # is not an upward arrow (it is light: tests/system/test_api.py)
    upward = sorted(f"{a} -> {b}" for a, targets in edges().items() for b in targets
                    if b != "trickledger" and layer(b) > layer(a))
    assert upward == []


def test_the_loader_borrows_no_command_line_code_from_the_engine() -> None:
    # what every command prints through (escaping, the exit statuses) is trickledger.terminal;
    # the engine's commands are its own
    borrowed = sorted(f"{a} -> {b}" for a, targets in edges().items() for b in targets
                      if b == "trickledger.replay.commands"
                      and not a.startswith("trickledger.replay") and a != "trickledger")
    assert borrowed == []
