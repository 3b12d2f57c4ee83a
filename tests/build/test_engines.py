"""Both engines pass the same tests. The main run tests the engine as the editable install
has it (interpreted); here the compiled one is built as `pip install .` builds it (a wheel,
mypyc, the C compiler), installed into a folder of its own, and the conformance suite and
the rule tests run against it in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import replay
from trickledger import version_text

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
# The unit tests that run the engine itself (beside every rule and format test).
ENGINE_UNITS = ("test_simulate.py", "test_timeline.py", "test_log_records.py")


def engine_tests() -> list[str]:
    """The tests that pin the engine's behaviour, collected rather than listed: every file of
    tests/rules (the conformance suite over every game, each game's rule tests, the fifth,
    interpreted game on top of the compiled contract) and tests/format (the format, the
    verdict, the score sheets), and the units that run the engine."""
    files = [*sorted((TESTS / "rules").glob("test_*.py")),
             *sorted((TESTS / "format").glob("test_*.py")),
             *(TESTS / "units" / name for name in ENGINE_UNITS)]
    return [str(f.relative_to(ROOT)) for f in files]


def in_target(target: Path, code: str) -> str:
    r = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(target)!r})\n"
                        + code], capture_output=True, text=True, cwd=target)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_compiled_engine_passes_the_engine_tests(compiled_engine: Path) -> None:
    env = {**os.environ, "TRICKLEDGER_ENGINE_PATH": str(compiled_engine),
           "TRICKLEDGER_EXPECT_ENGINE": "compiled"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p",
                        "no:cacheprovider", *engine_tests()], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-4000:]
    summary = r.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary


def test_version_names_the_engine(compiled_engine: Path) -> None:
    compiled = in_target(compiled_engine, "from trickledger import version_text; print(version_text())")
    assert compiled.startswith("trickledger ") and compiled.endswith("(engine compiled with mypyc)")
    files = in_target(compiled_engine, "import replay.games.rage as m, replay.state as s; "
                                       "print(m.__file__); print(s.__file__)")
    assert all(f.endswith(".so") and str(compiled_engine) in f for f in files.splitlines())
    # this run: the editable install, interpreted
    assert replay.engine_build() == "interpreted"
    assert version_text().endswith("(engine interpreted)")


def test_the_per_log_records_are_built_natively(compiled_engine: Path) -> None:
    # a dataclass-generated __init__ is a Python function even in a compiled module: only an
    # explicit one is compiled (and a fact or a header then costs a fraction to make)
    out = in_target(compiled_engine,
                    "import inspect\n"
                    "from replay.engine import Replay\nfrom replay.events import Header\n"
                    "from replay.reader import Log\nfrom replay.state import RoundScored\n"
                    "print([inspect.isfunction(c.__init__) for c in "
                    "(Header, Log, Replay, RoundScored)])")
    assert out == "[False, False, False, False]"


def test_every_game_module_is_compiled_and_every_engine_test_collected() -> None:
    from replay.engine_modules import engine_files
    from replay.registry import registry

    games = {info.state_class.__module__ for info in registry().values()
             if info.state_class.__module__.startswith("replay.games.")}
    assert games and games <= set(replay.ENGINE_MODULES)
    assert all((ROOT / f).is_file() for f in engine_files(ROOT))
    # setup.py compiles what replay/engine_modules.py names, and keeps no list of its own
    setup = (ROOT / "setup.py").read_text()
    assert "mypycify(engine_files()" in setup and "replay/games/" not in setup
    tests = engine_tests()
    assert {f"tests/rules/test_{g.rsplit('.', 1)[1]}.py" for g in games} <= set(tests)
    assert "tests/rules/test_conformance.py" in tests and "tests/rules/test_toy_game.py" in tests
    assert all((ROOT / t).is_file() for t in tests)
