"""The dashboard's pages ask their queries by name (dashboard/data.py's, a game's pages their
game's dashboard module's): no SQL of their own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from trickledger.dashboard.game_parts import script_path
from trickledger.replay.registry import registry

VIEWS = Path(__file__).resolve().parents[2] / "dashboard" / "views"
SQL = re.compile(r"\bSELECT\b.*\bFROM\b", re.IGNORECASE | re.DOTALL)


def pages() -> list[Path]:
    """Every page script: the core's and the games'."""
    return [*sorted(VIEWS.glob("*.py")),
            *(script_path(p.script) for g in registry().values() for p in g.pages)]


def test_no_page_writes_sql_or_runs_a_query_itself() -> None:
    places = []
    for path in pages():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("query", "filtered") \
                    and isinstance(node.value, ast.Name) and node.value.id == "data":
                places.append(f"{path.name}:{node.lineno}: data.{node.attr}")
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and SQL.search(node.value):
                places.append(f"{path.name}:{node.lineno}: SQL text")
    assert places == []


def test_no_page_defines_its_own_title_helper() -> None:
    helpers = [f"{path.name}:{node.lineno}" for path in pages()
               for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(node, ast.FunctionDef) and node.name == "_title"]
    assert helpers == []
