"""Users run the compiled engine: every test of a compiled module runs against it.

The README's test command installs the project as users do (`pip install .`: mypyc, the C
compiler), so the whole run tests the compiled engine, and here it is checked that it does.
A run from an editable install (`pip install -e .`, the engine interpreted, for editing)
builds the compiled engine as `pip install .` builds it (a wheel), installs it into a folder
of its own, and runs every test of a compiled module against it in a subprocess; so does a
compiled run that left some of those tests out (`pytest tests/build`, `-m fast`).

Which tests those are is collected, not listed: the whole fast set (tests/rules,
tests/format, tests/units), and every other test file that imports a compiled module
(`trickledger.replay.ENGINE_MODULES`: the engine core, every game, the bots, the search and
the judge). A module added to the compiled list is tested compiled by the tests that import
it; a compiled module that no collected test imports fails here.

The interpreted engine, what an install without a C compiler runs, is tested by
test_interpreted.py."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import installed_compiled

from trickledger import replay, version_text

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
FAST = ("rules", "format", "units")
# never run again inside the compiled run: the build itself, and the browser
NOT_AGAIN = ("build", "browser")


def imported_modules(path: Path) -> set[str]:
    """Every module a test file imports (`from a.b import c` counts a.b and a.b.c)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def engine_tests() -> dict[str, set[str]]:
    """test file (relative to the checkout) -> the compiled modules it imports: every file of
    the fast set, and every other test file that imports a compiled module."""
    compiled = set(replay.ENGINE_MODULES)
    out: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.relative_to(TESTS).parts[0]
        if folder in NOT_AGAIN:
            continue
        uses = imported_modules(path) & compiled
        if folder in FAST or uses:
            out[str(path.relative_to(ROOT))] = uses
    return out


def compiled_env(target: Path) -> dict[str, str]:
    """The environment of the compiled run: the wheel's folder first on PYTHONPATH, so that
    the processes the tests start (the command line, ingest's workers, the console) run the
    compiled engine too, and the run refuses to start unless it imports it."""
    path = os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {**os.environ, "PYTHONPATH": path, "TRICKLEDGER_ENGINE_PATH": str(target),
            "TRICKLEDGER_EXPECT_ENGINE": "compiled"}


def in_target(target: Path, code: str) -> str:
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=ROOT, env=compiled_env(target))
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_compiled_engine_passes_every_test_of_a_compiled_module(
        compiled_engine: Path, request: pytest.FixtureRequest) -> None:
    files = sorted(engine_tests())
    if replay.engine_build() == "compiled":
        # this run is the compiled run: what it collected has run (or runs) compiled here
        assert installed_compiled() == compiled_engine
        collected = {str(Path(str(item.fspath)).relative_to(ROOT))
                     for item in request.session.items}
        files = [f for f in files if f not in collected]
        if not files:
            return
    # in two processes: alone, this run was the suite's longest step
    r = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p",
                        "no:cacheprovider", "-n", "2", *files], cwd=ROOT,
                       env=compiled_env(compiled_engine), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-4000:]
    summary = r.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary


def test_every_compiled_module_is_imported_compiled(compiled_engine: Path) -> None:
    files = in_target(compiled_engine,
                      "import importlib\nfrom trickledger import replay\n"
                      "for name in replay.ENGINE_MODULES:\n"
                      "    print(name, importlib.import_module(name).__file__)")
    found = dict(line.split(" ", 1) for line in files.splitlines())
    assert sorted(found) == sorted(replay.ENGINE_MODULES)
    assert all(f.endswith(".so") and f.startswith(str(compiled_engine))
               for f in found.values()), found


def test_version_names_the_engine(compiled_engine: Path) -> None:
    # run from the checkout's root: nothing there shadows the installed package
    compiled = in_target(compiled_engine,
                         "from trickledger import version_text; print(version_text())")
    assert compiled.startswith("trickledger ") and compiled.endswith(
        "(engine compiled with mypyc; analysis engine native C++)")
    files = in_target(compiled_engine, "import trickledger.replay.games.rage as m, "
                                       "trickledger.replay.judge as j, "
                                       "trickledger.replay._native as n; print(m.__file__); "
                                       "print(j.__file__); print(n.__file__)")
    assert all(f.endswith(".so") and str(compiled_engine) in f for f in files.splitlines())
    # this run: compiled when installed as users install it, interpreted when editable
    engine = "compiled with mypyc" if replay.engine_build() == "compiled" else "interpreted"
    assert version_text().endswith(f"(engine {engine}; analysis engine native C++)")


def test_the_per_log_records_are_built_natively(compiled_engine: Path) -> None:
    # a dataclass-generated __init__ is a Python function even in a compiled module: only an
    # explicit one is compiled (and a fact or a header then costs a fraction to make)
    out = in_target(compiled_engine,
                    "import inspect\n"
                    "from trickledger.replay.engine import Replay\n"
                    "from trickledger.replay.events import Header\n"
                    "from trickledger.replay.reader import Log\n"
                    "from trickledger.replay.facts import RoundScored\n"
                    "print([inspect.isfunction(c.__init__) for c in "
                    "(Header, Log, Replay, RoundScored)])")
    assert out == "[False, False, False, False]"


def test_every_compiled_module_has_tests_that_run_compiled() -> None:
    from trickledger.replay.engine_modules import engine_files
    from trickledger.replay.registry import registry

    games = {info.state_class.__module__ for info in registry().values()
             if info.state_class.__module__.startswith("trickledger.replay.games.")}
    assert games and games <= set(replay.ENGINE_MODULES)
    package = ROOT / "src" / "trickledger"
    assert all((package / f).is_file() for f in engine_files(package))
    # setup.py compiles what replay/engine_modules.py names, and keeps no list of its own
    setup = (ROOT / "setup.py").read_text()
    assert "mypycify(engine_files()" in setup and "replay/games/" not in setup
    tests = engine_tests()
    covered = set().union(*tests.values())
    untested = sorted(set(replay.ENGINE_MODULES) - covered)
    assert untested == [], f"compiled modules no test file imports: {untested}"
    assert {f"tests/rules/test_{g.rsplit('.', 1)[1]}.py" for g in games} <= set(tests)
    # the judge, the search and analyse --moves are among them (issue 31)
    assert {"tests/units/test_judge.py", "tests/units/test_search.py",
            "tests/system/test_move_quality.py"} <= set(tests)


def test_the_collection_follows_the_imports(tmp_path: Path) -> None:
    probe = tmp_path / "test_probe.py"
    probe.write_text("import os\nfrom trickledger.replay.judge import band_of\n"
                     "from trickledger.replay import search\nfrom trickledger.ingest import db\n")
    assert imported_modules(probe) & set(replay.ENGINE_MODULES) == {
        "trickledger.replay.judge", "trickledger.replay.search"}
