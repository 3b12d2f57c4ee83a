"""The suite's own shape: no test module imports another (what two test files share lives in
tests/conftest.py or tests/helpers.py), and a test's folder says its speed (the fast set
ingests nothing and runs no Streamlit app)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FAST = ("rules", "format", "units")  # tests/conftest.py's FOLDER_MARKERS "fast"


def suite_modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("test_*.py") if ".venv" not in p.parts)


def imported(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every import in a module, those inside functions included."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.append((node.lineno, base))
            if not node.module:  # from . import test_x
                found += [(node.lineno, "." * node.level + a.name) for a in node.names]
    return found


def is_test_module(name: str) -> bool:
    return any(part.startswith("test_") for part in name.lstrip(".").split("."))


def test_no_test_module_imports_another() -> None:
    found = [f"{path.relative_to(TESTS)}:{line}: imports {name}"
             for path in suite_modules()
             for line, name in imported(ast.parse(path.read_text(encoding="utf-8")))
             if is_test_module(name)]
    assert found == []


def test_the_check_finds_an_import_of_a_test_module() -> None:
    for text in ("from test_reliability import PAUSE", "import test_conformance",
                 "def f():\n    from test_storage_compat import oldest_duckdb",
                 "from tests.system.test_x import y", "from . import test_clone"):
        assert any(is_test_module(name) for _, name in imported(ast.parse(text))), text
    for text in ("from helpers import rows", "import pytest",
                 "from trickledger.replay.engine import replay_bytes"):
        assert not any(is_test_module(name) for _, name in imported(ast.parse(text))), text


# what makes a test slow: loading logs into a database (through the library or the command
# line), running the Streamlit app
SLOW_CALLS = {"ingest", "ingest_paths", "ingest_sources", "ingest_logs", "AppTest",
              "dashboard_database"}
SLOW_COMMANDS = {"ingest", "analyse", "dashboard"}


def command_of(call: ast.Call) -> str | None:
    """The command a call runs, when its first argument names one: `run_cli("ingest", ...)`,
    `main(["ingest", ...])`."""
    first = call.args[0] if call.args else None
    if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
        first = first.elts[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) \
        else None


def slow_calls(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else \
            node.attr if isinstance(node, ast.Attribute) else None
        if name in SLOW_CALLS:
            found.append((node.lineno, name))
        elif isinstance(node, ast.Call) and command_of(node) in SLOW_COMMANDS:
            found.append((node.lineno, f"the {command_of(node)} command"))
    return found


def test_the_check_finds_what_makes_a_test_slow() -> None:
    for text in ("ingest(sources, db)", "AppTest.from_file(PAGE)", "load.ingest(s, db)",
                 'run_cli("ingest", "--db", db)', 'main(["analyse", "--db", db])'):
        assert slow_calls(ast.parse(text)), text
    for text in ('main(["verify", path])', 'run_cli("replay", path)', "replay_bytes(b, n)"):
        assert not slow_calls(ast.parse(text)), text


def test_the_fast_folders_ingest_nothing_and_run_no_app() -> None:
    found = [f"{path.relative_to(TESTS)}:{line}: {name}"
             for path in suite_modules() if path.parent.name in FAST
             for line, name in slow_calls(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == []
