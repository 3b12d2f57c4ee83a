"""The interpreted engine is the one an install without a C compiler runs (the .py files
always ship): it must give the same verdicts as the compiled one. The README's test command
runs the suite on the compiled engine; here each game's rule tests, the conformance tests
and the verdict tests run once more, in a subprocess, on the install that conftest's
`no_compiler_install` made without a compiler. Which rule tests those are follows the
registry: a game added is tested here by its tests/rules/test_GAME.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from trickledger.replay.registry import registry

ALSO = ("tests/rules/test_conformance.py", "tests/format/test_verify.py",
        "tests/format/test_sheets.py")


def interpreted_tests() -> list[str]:
    games = [f"tests/rules/test_{name}.py" for name, info in sorted(registry().items())]
    assert all((ROOT / f).is_file() for f in games), games
    return [*games, *ALSO]


@pytest.mark.long
def test_the_interpreted_engine_passes_every_games_rules(
        no_compiler_install: tuple[Path, str]) -> None:
    target, _ = no_compiler_install
    env = {**os.environ, "PYTHONPATH": str(target), "TRICKLEDGER_ENGINE_PATH": str(target),
           "TRICKLEDGER_EXPECT_ENGINE": "interpreted"}
    r = subprocess.run([sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p",
                        "no:cacheprovider", *interpreted_tests()], cwd=ROOT, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-4000:]
    summary = r.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, summary
