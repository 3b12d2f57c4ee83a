"""Build script: compiles the replay engine with mypyc for normal (wheel) installs, and the
native analysis engine (C++, replay/native/) for every install.

All metadata stays in pyproject.toml; this file only adds the extension modules.

    pip install .                       the engine (replay/engine_modules.py) compiled with mypyc,
                                        and the native analysis engine
    pip install -e .                    the engine interpreted (an editable install is for
                                        editing); the native analysis engine built in place
    TRICKLEDGER_PURE=1 pip install .    the engine interpreted
    no C compiler, or mypyc fails       interpreted, with a warning (the .py files always ship)
    no C++ compiler, or it fails        no native analysis engine, with a warning: the judge
                                        runs in Python
    TRICKLEDGER_NO_NATIVE=1             no native analysis engine
    TRICKLEDGER_SANITIZE=1              the native analysis engine built with AddressSanitizer
                                        and UndefinedBehaviorSanitizer (a test does this once)
    TRICKLEDGER_REQUIRE_COMPILED=1      any such fallback is an error instead (the tests)
    TRICKLEDGER_MYPYC_OPT=0..3          the C compiler's optimisation level (default 3)

`trickledger --version` says which engine and which analysis engine an installation runs.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import sys
from pathlib import Path
from typing import Any

from setuptools import Extension, setup
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


def c_compiler_fails() -> str | None:
    """Why the C compiler cannot build an extension here (None when it can): a file of one
    function compiled as setuptools would compile the engine's."""
    import tempfile

    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.sysconfig import customize_compiler

    compiler: Any = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.c"
        probe.write_text("int trickledger_probe(void) { return 0; }\n")
        try:
            compiler.compile([str(probe)], output_dir=tmp)
        except Exception as e:  # CompileError, DistutilsExecError: missing or failing
            return f"no working C compiler ({type(e).__name__}: {e})"
    return None


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
    why_not = c_compiler_fails()
    if why_not is not None:
        if flag("TRICKLEDGER_REQUIRE_COMPILED"):
            raise SystemExit(f"trickledger setup.py: {why_not}")
        # before mypyc's type check (a minute) rather than after it
        note(f"{why_not}: installing the engine interpreted")
        return []
    try:
        from mypyc.build import mypycify

        opt = os.environ.get("TRICKLEDGER_MYPYC_OPT", "3")
        # multi_file: one C file per module instead of one 17 MB file, so that the C
        # compiler runs on every core (OptionalBuildExt) and the build takes about half as
        # long on two; the modules stay one shared library, calling each other directly
        return mypycify(engine_files(), opt_level=opt, group_name="trickledger_engine",
                        multi_file=True)
    except (Exception, SystemExit) as e:  # mypyc missing, or mypy found a type error
        if flag("TRICKLEDGER_REQUIRE_COMPILED"):
            raise
        note(f"mypyc could not compile the engine ({type(e).__name__}: {e}); "
             f"installing it interpreted")
        return []


NATIVE = "trickledger.replay._native"
NATIVE_DIR = Path("replay") / "native"


def native_extensions() -> list[Extension]:
    """The native analysis engine: one C++17 translation unit (replay/native/module.cpp and
    the headers beside it), bound with pybind11 (header-only: nothing to link, and
    setuptools builds it as it builds any extension). Built for editable installs too, so
    that the test suite of a checkout runs it."""
    commands = set(sys.argv[1:])
    if not commands & (BUILDING | EDITABLE):
        return []
    if flag("TRICKLEDGER_NO_NATIVE"):
        note("TRICKLEDGER_NO_NATIVE is set: no native analysis engine (the judge runs in Python)")
        return []
    try:
        import pybind11
    except ImportError as e:
        if flag("TRICKLEDGER_REQUIRE_COMPILED"):
            raise
        note(f"pybind11 is missing ({e}): no native analysis engine (the judge runs in Python)")
        return []
    compile_args = ["-std=c++17", "-fvisibility=hidden", "-Wall", "-Wextra"]
    link_args: list[str] = []
    macros: list[tuple[str, str | None]] = []
    if flag("TRICKLEDGER_SANITIZE"):
        sanitize = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
                    "-fno-omit-frame-pointer"]
        # line tables only (-g1): a report still names the file and line, and the build
        # takes two thirds of the CPU of -g (at -O0 the solver's tests ran 3x slower)
        compile_args += ["-O1", "-g1", *sanitize]
        link_args += sanitize
        macros.append(("TRICKLEDGER_SANITIZE", "1"))
    else:
        compile_args += ["-O2", "-g0"]
    if platform.machine().lower() in ("x86_64", "amd64"):
        # x86-64-v2 (every x86-64 processor since 2009): a hand's size is one popcnt
        # instruction, not a call into libgcc
        compile_args.append("-march=x86-64-v2")
    headers = sorted(str(NATIVE_DIR / p.name) for p in (ROOT / NATIVE_DIR).glob("*.hpp"))
    return [Extension(NATIVE, sources=[str(NATIVE_DIR / "module.cpp")], depends=headers,
                      include_dirs=[pybind11.get_include()], language="c++",
                      extra_compile_args=compile_args, extra_link_args=link_args,
                      define_macros=macros)]


def compile_in_parallel(compiler: Any) -> None:
    """Make `compiler` compile an extension's C files in parallel, one process per core.
    distutils compiles one file after another; the mypyc extension has one C file per module
    (and its runtime's), so a build on n cores takes about 1/n of the time."""
    jobs = os.cpu_count() or 1
    if jobs < 2 or getattr(compiler, "_trickledger_parallel", False):
        return

    def compile_all(sources: list[str], output_dir: str | None = None, macros: Any = None,
                    include_dirs: Any = None, debug: bool = False, extra_preargs: Any = None,
                    extra_postargs: Any = None, depends: Any = None) -> list[str]:
        macros, objects, extra_postargs, pp_opts, build = compiler._setup_compile(
            output_dir, macros, include_dirs, sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj: str) -> None:
            src, ext = build[obj]
            compiler._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)

        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            list(pool.map(one, objects))  # list(): a compile error raises here
        return list(objects)

    compiler.compile = compile_all
    compiler._trickledger_parallel = True


class OptionalBuildExt(build_ext):
    """build_ext that falls back to the interpreted engine when the C compiler is missing
    or fails, and to no native analysis engine when the C++ compiler is missing or fails.
    The native engine is built first: a failure of the mypyc modules after it leaves it."""

    def build_extension(self, ext: Any) -> None:
        compile_in_parallel(self.compiler)
        if ext.name != NATIVE:
            super().build_extension(ext)
            return
        try:
            super().build_extension(ext)
        except Exception as e:  # CompileError, LinkError, DistutilsExecError, PlatformError
            if flag("TRICKLEDGER_REQUIRE_COMPILED"):
                raise
            note(f"compiling the native analysis engine failed ({type(e).__name__}: {e}); "
                 f"installing without it: the judge runs in Python, slower")
            path = self.get_ext_fullpath(ext.name)
            if os.path.exists(path):
                os.remove(path)

    def run(self) -> None:
        try:
            super().run()
        except Exception as e:  # CompileError, LinkError, DistutilsExecError, PlatformError
            if flag("TRICKLEDGER_REQUIRE_COMPILED"):
                raise
            note(f"compiling the engine failed ({type(e).__name__}: {e}); "
                 f"installing it interpreted")
            # A half-built set is worse than none: each module's .so needs the shared
            # trickledger_engine library, so every extension built so far goes (but the
            # native analysis engine, which stands alone).
            for ext in self.extensions:
                path = self.get_ext_fullpath(ext.name)
                if ext.name != NATIVE and os.path.exists(path):
                    os.remove(path)
            self.extensions = [e for e in self.extensions if e.name == NATIVE]
            self.distribution.ext_modules = list(self.extensions)


setup(ext_modules=[*native_extensions(), *engine_extensions()],
      cmdclass={"build_ext": OptionalBuildExt})
