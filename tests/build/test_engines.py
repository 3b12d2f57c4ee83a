"""Both engines pass the same tests. The main run tests the engine as the editable install
has it (interpreted); here the compiled one is built as `pip install .` builds it (a wheel,
mypyc, the C compiler), installed into a folder of its own, and the conformance suite and
the rule tests run against it in a subprocess."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import replay
from trickledger import version_text

ROOT = Path(__file__).resolve().parents[2]
# The tests that pin the engine's behaviour: the conformance suite over every game, each
# game's rule tests, the format and verdict, simulation and the fifth (interpreted) game
# on top of the compiled contract.
ENGINE_TESTS = [
    "tests/rules/test_conformance.py",
    "tests/rules/test_plotters.py",
    "tests/rules/test_rage.py",
    "tests/rules/test_color_stacks.py",
    "tests/rules/test_under_the_radar.py",
    "tests/format/test_verify.py",
    "tests/units/test_simulate.py",
    "tests/rules/test_toy_game.py",
    "tests/rules/test_clone.py",
]
def in_target(target: Path, code: str) -> str:
    r = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(target)!r})\n"
                        + code], capture_output=True, text=True, cwd=target)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_the_compiled_engine_passes_the_engine_tests(compiled_engine: Path) -> None:
    env = {**os.environ, "TRICKLEDGER_ENGINE_PATH": str(compiled_engine),
           "TRICKLEDGER_EXPECT_ENGINE": "compiled"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p",
                        "no:cacheprovider", *ENGINE_TESTS], cwd=ROOT, env=env,
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


def test_setup_compiles_exactly_the_engine_modules() -> None:
    tree = ast.parse((ROOT / "setup.py").read_text())
    listed = next(node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "ENGINE" for t in node.targets))
    files = ast.literal_eval(listed)
    assert tuple(f[:-3].replace("/", ".") for f in files) == replay.ENGINE_MODULES
