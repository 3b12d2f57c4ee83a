import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# tests/test_engines.py runs the conformance and rule tests once more in a subprocess, against
# the compiled engine installed into a folder of its own: that folder goes first, and the
# run refuses to start unless the engine imported from it really is compiled.
ENGINE_PATH = os.environ.get("TRICKLEDGER_ENGINE_PATH")
if ENGINE_PATH:
    sys.path.insert(0, ENGINE_PATH)


def pytest_configure(config):
    want = os.environ.get("TRICKLEDGER_EXPECT_ENGINE")
    if want:
        import replay

        got = replay.engine_build()
        if got != want:
            raise RuntimeError(f"expected the {want} engine, imported the {got} one from "
                               f"{replay.__file__}")
