"""No core module names a game (docs/games.md, "What counts as naming a game").

The core is every module of the trickledger package but the games' own: replay/games/ (a
game's rules and declaration) and dashboard/games/ (its pages and its parts of the core's
pages). A game is named by anything its declaration makes its own, read from the registry
(so a game added later is covered without editing this test) and from the example plugin
game's declaration (examples/toy_high_card: the core names no plugin either): its name, aliases, title,
editions and variants; its own tables; its columns of the shared tables; its SQL objects.
A core module names one when, in its code (comments and docstrings are prose about the
code and may cite a game as an example):

- an identifier (a name, an attribute, a keyword argument, a parameter, a function or
  class) is one of those words;
- a string is one of them, or holds one as a whole word where the string is SQL (it
  holds SELECT, FROM, JOIN, WHERE or CREATE);
- any string holds a game's name, alias, title, edition or variant as a whole word (a
  caption saying "in under_the_radar" names the game as surely as code does).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import toy_high_card

from trickledger.replay.info import GameInfo
from trickledger.replay.registry import registry
from trickledger.replay.tables import SHARED

ROOT = Path(__file__).resolve().parents[2]
CORE = [ROOT / "replay", ROOT / "ingest", ROOT / "dashboard", ROOT / "sample_logs",
        ROOT / "src" / "trickledger"]
OWN = [ROOT / "replay" / "games", ROOT / "dashboard" / "games"]
SQL = re.compile(r"\b(SELECT|FROM|JOIN|WHERE|CREATE)\b")
WORD = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")


def core_files() -> list[Path]:
    out = []
    for base in CORE:
        for path in sorted(base.rglob("*.py")):
            if path.is_symlink() or any(p.is_symlink() for p in path.parents if p != ROOT):
                continue
            if any(own in path.parents for own in OWN):
                continue
            out.append(path)
    return out


def names_of(info: GameInfo) -> set[str]:
    """What names the game itself: its name, aliases, editions and variants."""
    return {info.name, *info.aliases, *info.editions, *info.variants}


def words_of(info: GameInfo) -> set[str]:
    """What the game's declaration makes its own in the database."""
    core_columns = {c.name for cols in SHARED.values() for c in cols}
    columns = {c.name for run in info.columns for c in run.columns} - core_columns
    objects = {name.split("(")[0] for _, name, _ in info.analytics}
    return {*info.tables, *columns, *objects}


def vocabulary() -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(names, database words, titles), each word -> the game it belongs to."""
    names: dict[str, str] = {}
    words: dict[str, str] = {}
    titles: dict[str, str] = {}
    for info in [*registry().values(), toy_high_card.INFO]:
        names.update({w: info.name for w in names_of(info)})
        words.update({w: info.name for w in words_of(info)})
        titles[info.title] = info.name
    return names, words, titles


def docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    return found


def named(path: Path, root: Path = ROOT) -> list[str]:
    """Where the module names a game: 'file:line: what (game)'."""
    names, words, titles = vocabulary()
    both = {**words, **names}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    rel = path.relative_to(root)
    out: list[str] = []

    def hit(node: ast.AST, what: str, word: str, game: str) -> None:
        out.append(f"{rel}:{getattr(node, 'lineno', '?')}: {what} {word!r} ({game})")

    for node in ast.walk(tree):
        ident = None
        if isinstance(node, ast.Name):
            ident = node.id
        elif isinstance(node, ast.Attribute):
            ident = node.attr
        elif isinstance(node, ast.keyword):
            ident = node.arg
        elif isinstance(node, ast.arg):
            ident = node.arg
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            ident = node.name
        if ident is not None and ident in both:
            hit(node, "identifier", ident, both[ident])
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            text = node.value
            tokens = {t for w in WORD.findall(text) for t in (w, *w.split("-"))}
            if text in both:
                hit(node, "string", text, both[text])
            elif SQL.search(text):
                for w in sorted(tokens & words.keys()):
                    hit(node, "SQL naming", w, words[w])
            for w in sorted(tokens & names.keys()):
                if text not in both:
                    hit(node, "text naming", w, names[w])
            for title, game in titles.items():
                if re.search(rf"(?<![\w-]){re.escape(title)}(?![\w-])", text):
                    hit(node, "text naming", title, game)
    return out


def test_the_core_is_found() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in core_files()}
    assert {"replay/rows.py", "ingest/analytics.py", "dashboard/app.py",
            "dashboard/views/player.py", "src/trickledger/api.py"} <= files
    assert not [f for f in files if f.startswith(("replay/games/", "dashboard/games/"))]


def test_the_vocabulary_is_the_games_declarations() -> None:
    names, words, titles = vocabulary()
    assert {"plotters", "rage", "color_stacks", "under_the_radar", "mit-list-und-tuecke",
            "secret_bid"} <= names.keys()
    assert {"keeps", "trumps", "bids", "turns", "first_winner", "closed", "ender",
            "split_stats_of", "bid_rounds", "toy_boasts", "toy_boasts_made"} <= words.keys()
    assert {"toy_high_card", "Toy high card"} <= names.keys() | titles.keys()
    assert not {"tricks", "plays", "winner", "stacks", "game_id"} & words.keys()  # the core's


@pytest.mark.parametrize("path", core_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_core_module_names_a_game(path: Path) -> None:
    assert named(path) == []


def test_naming_is_found_where_it_is_code_and_not_in_prose(tmp_path: Path) -> None:
    source = tmp_path / "sample.py"
    source.write_text('''"""A docstring may say rage, keeps and Under the Radar."""
# so may a comment: plotters
bids = 1
def f(keeps): return x.trumps
g(closed=1)
q = "SELECT player FROM keeps"
w = "won by the lowest total in under_the_radar"
t = "Under the Radar"
ok = "Ctrl-C stops and keeps what is done"
''', encoding="utf-8")
    found = sorted(line.split(": ", 1)[1] for line in named(source, tmp_path))
    assert found == sorted([
        "identifier 'bids' (rage)", "identifier 'keeps' (plotters)",
        "identifier 'trumps' (rage)", "identifier 'closed' (under_the_radar)",
        "SQL naming 'keeps' (plotters)", "text naming 'under_the_radar' (under_the_radar)",
        "text naming 'Under the Radar' (under_the_radar)"])
