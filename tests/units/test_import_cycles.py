"""No two modules of the project import each other: the layers stay a tree.

An import hidden inside a function still counts (it only defers the cycle to the first
call); an import under `if TYPE_CHECKING:` does not (it never runs).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("replay", "ingest", "dashboard", "trickledger", "bench")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


def test_no_two_modules_import_each_other() -> None:
    modules = {module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    edges = {name: imported(name, path) & set(modules) - {name}
             for name, path in modules.items()}
    cycles = sorted(f"{a} <-> {b}" for a, targets in edges.items() for b in targets
                    if a < b and a in edges[b])
    assert cycles == []
