import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# tests/build/test_engines.py runs the conformance and rule tests once more in a subprocess, against
# the compiled engine installed into a folder of its own: that folder goes first, and the
# run refuses to start unless the engine imported from it really is compiled.
ENGINE_PATH = os.environ.get("TRICKLEDGER_ENGINE_PATH")
if ENGINE_PATH:
    sys.path.insert(0, ENGINE_PATH)


# The suite in two speeds. Each folder holds one kind of test and carries its marker:
#   fast      rules/, format/, units/: the games' rules, conformance, the format, score
#             sheets, units (`python -m pytest -m fast`, well under a minute)
#   system    system/: real DuckDB files, processes, the Streamlit app (AppTest)
#   browser   browser/: the real dashboard server in headless Chromium
#   compiled  build/: builds the wheel with mypyc and tests what it installs
# `cluster` marks the system tests that start a Dask cluster. The README's command runs all.
FOLDER_MARKERS = {"rules": "fast", "format": "fast", "units": "fast", "system": "system",
                  "browser": "browser", "build": "compiled"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        folder = Path(str(item.fspath)).parent.name
        marker = FOLDER_MARKERS.get(folder)
        if marker is None:
            raise pytest.UsageError(f"{item.nodeid}: a test belongs in one of the folders "
                                    f"{', '.join(FOLDER_MARKERS)} (tests/conftest.py)")
        item.add_marker(getattr(pytest.mark, marker))
        if {"cluster", "clustered"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.cluster)


def pytest_configure(config):
    want = os.environ.get("TRICKLEDGER_EXPECT_ENGINE")
    if want:
        import replay

        got = replay.engine_build()
        if got != want:
            raise RuntimeError(f"expected the {want} engine, imported the {got} one from "
                               f"{replay.__file__}")


NOT_SOURCE = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".ruff_cache",
              ".mypy_cache", ".hypothesis"}


def skip(folder: str, names: list[str]) -> set[str]:
    """What the copy of the source leaves out: caches, builds, the bench's corpus."""
    out = {n for n in names if n in NOT_SOURCE or n.endswith((".so", ".egg-info", ".duckdb"))}
    if Path(folder) == ROOT / "bench":
        out.add("corpus")
    return out


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    r = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True,
                       env=env)
    if r.returncode:
        raise AssertionError(f"pip {' '.join(args)} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")


@pytest.fixture(scope="session")
def compiled_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel (the engine compiled; a fallback to the interpreted
    engine is an error here) and installed into a folder of its own, once per session."""
    tmp = tmp_path_factory.mktemp("compiled")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=skip)
    env = {**os.environ, "TRICKLEDGER_REQUIRE_COMPILED": "1",
           # a lower C optimisation level builds about twice as fast; the code is the same
           "TRICKLEDGER_MYPYC_OPT": os.environ.get("TRICKLEDGER_MYPYC_OPT", "1")}
    pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"), str(src),
        env=env)
    wheels = list((tmp / "dist").glob("trickledger-*.whl"))
    assert len(wheels) == 1 and "-any.whl" not in wheels[0].name, wheels  # a platform wheel
    target = tmp / "site"
    pip("install", "--no-deps", "-q", "--target", str(target), str(wheels[0]))
    return target



@pytest.fixture(scope="session")
def installed_wheel(compiled_engine: Path) -> Path:
    """The package as `pip install .` installs it (the same build as `compiled_engine`):
    put it first on PYTHONPATH and run from outside the checkout to use it."""
    return compiled_engine
