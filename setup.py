"""Build script: compiles the replay engine with mypyc for normal (wheel) installs.

All metadata stays in pyproject.toml; this file only adds the engine's extension modules.

    pip install .                       the engine (replay/engine_modules.py) compiled with mypyc
    pip install -e .                    interpreted: an editable install is for editing
    TRICKLEDGER_PURE=1 pip install .    interpreted
    no C compiler, or mypyc fails       interpreted, with a warning (the .py files always ship)
    TRICKLEDGER_REQUIRE_COMPILED=1      any such fallback is an error instead (the tests)
    TRICKLEDGER_MYPYC_OPT=0..3          the C compiler's optimisation level (default 3)

`trickledger --version` says which engine an installation runs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


PACKAGE = Path("src") / "trickledger"  # replay/ is linked there as trickledger/replay


def engine_files() -> list[str]:
    """The engine's modules, from the one list in replay/engine_modules.py (loaded by path:
    nothing of trickledger is installed while it builds), as paths under src/trickledger/:
    mypyc names a module by its path, trickledger.replay.state."""
    spec = importlib.util.spec_from_file_location("_engine_modules",
                                                  ROOT / "replay" / "engine_modules.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    files: list[str] = module.engine_files(ROOT / PACKAGE)
    return [str(PACKAGE / f) for f in files]


# Commands that build the package's files; metadata-only runs (egg_info, dist_info, sdist)
# must not pay for mypyc's code generation.
BUILDING = {"bdist_wheel", "build", "build_ext", "install", "bdist_egg"}
# PEP 660 (`pip install -e .`) runs `editable_wheel`; the legacy editable install `develop`.
EDITABLE = {"editable_wheel", "develop"}


def flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def note(msg: str) -> None:
    print(f"trickledger setup.py: {msg}", file=sys.stderr)


def engine_extensions() -> list[Any]:
    commands = set(sys.argv[1:])
    if commands & EDITABLE:
        note("editable install: the engine stays interpreted")
        return []
    if not commands & BUILDING:
        return []
    if flag("TRICKLEDGER_PURE"):
        note("TRICKLEDGER_PURE is set: the engine stays interpreted")
        return []
    try:
        from mypyc.build import mypycify

        opt = os.environ.get("TRICKLEDGER_MYPYC_OPT", "3")
        return mypycify(engine_files(), opt_level=opt, group_name="trickledger_engine")
    except (Exception, SystemExit) as e:  # mypyc missing, or mypy found a type error
        if flag("TRICKLEDGER_REQUIRE_COMPILED"):
            raise
        note(f"mypyc could not compile the engine ({type(e).__name__}: {e}); "
             f"installing it interpreted")
        return []


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the interpreted engine when the C compiler is missing
    or fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # CompileError, LinkError, DistutilsExecError, PlatformError
            if flag("TRICKLEDGER_REQUIRE_COMPILED"):
                raise
            note(f"compiling the engine failed ({type(e).__name__}: {e}); "
                 f"installing it interpreted")
            # A half-built set is worse than none: each module's .so needs the shared
            # trickledger_engine library, so every extension built so far goes.
            for ext in self.extensions:
                path = self.get_ext_fullpath(ext.name)
                if os.path.exists(path):
                    os.remove(path)
            self.extensions = []
            self.distribution.ext_modules = []


setup(ext_modules=engine_extensions(), cmdclass={"build_ext": OptionalBuildExt})
