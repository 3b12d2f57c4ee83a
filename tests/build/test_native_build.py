"""The native analysis engine's builds (issue 33): without a compiler the install still
succeeds, says why, and runs the engine and the judge in Python (`--version` says which
engine and analysis engine run); and the native engine built once with AddressSanitizer and
UndefinedBehaviorSanitizer passes the differential test against the Python rules (a read
past a hand, a shift too far or a signed overflow aborts the run).

The sanitizer build leaves mypyc out (TRICKLEDGER_PURE=1): only the native engine is compiled,
with sanitizers. Its module is then laid over a copy of the compiled install, so that the
oracle it is walked against runs compiled (interpreted, the Python rules were nine tenths of
the test's time)."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import ROOT, skip


def build(tmp: Path, env: dict[str, str]) -> tuple[Path, str]:
    """The checkout built as a wheel with `env` and installed into a folder of its own: the
    folder, and what the build said."""
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=skip)
    full = {**os.environ, "TRICKLEDGER_PURE": "1", **env}
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-v", "-w", str(tmp / "dist"), str(src)], capture_output=True, text=True,
                       env=full)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
    wheels = list((tmp / "dist").glob("trickledger-*.whl"))
    assert len(wheels) == 1, wheels
    target = tmp / "site"
    r2 = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                         str(target), str(wheels[0])], capture_output=True, text=True)
    assert r2.returncode == 0, r2.stderr[-4000:]
    return target, r.stdout + r.stderr


def in_target(target: Path, cwd: Path, *args: str, env: dict[str, str] | None = None
              ) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "PYTHONPATH": str(target), "TRICKLEDGER_ENGINE_PATH": str(target),
            **(env or {})}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=full, capture_output=True,
                          text=True)


def test_without_a_compiler_the_install_succeeds_and_runs_everything_in_python(
        no_compiler_install: tuple[Path, str], tmp_path: Path) -> None:
    target, said = no_compiler_install
    assert "compiling the native analysis engine failed" in said, said[-3000:]
    assert "the judge runs in Python" in said
    # found before mypyc's type check, which would cost a minute for nothing
    assert "no working C compiler" in said and "installing the engine interpreted" in said
    assert "Treating generator comprehension as list" not in said  # mypyc's own warning
    assert not list(target.rglob("*.so")), list(target.rglob("*.so"))
    version = in_target(target, tmp_path, "-m", "trickledger", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip().endswith(
        "(engine interpreted; analysis engine Python: the native engine is not built)"), \
        version.stdout
    # the rules still run, and the native engine says why it cannot
    probe = in_target(target, tmp_path, "-c",
                      "from trickledger.replay import native\n"
                      "from trickledger.replay.registry import registry\n"
                      "print(native.available(), native.knows(registry()['rage']))\n"
                      "print(native.why_not())")
    assert probe.returncode == 0, probe.stderr
    first, why = probe.stdout.strip().splitlines()
    assert first == "False False" and "trickledger.replay._native is not built" in why


def cxx_compiler() -> str | None:
    """The C++ compiler the build uses (setuptools takes $CXX, else Python's own CXX), as a
    path; None where this machine has none."""
    named = os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "c++"
    return shutil.which(shlex.split(named)[0])


def sanitizer_runtime(compiler: str, name: str) -> str:
    out = subprocess.run([compiler, f"-print-file-name={name}"], capture_output=True,
                         text=True).stdout.strip()
    # a compiler without the runtime is a failure, not a skip: the build would not run
    assert out and Path(out).is_file(), f"{compiler} has no {name}: install its sanitizer runtime"
    return out


def sanitized_over(compiled: Path, built: Path, overlay: Path) -> None:
    """`overlay`/trickledger: the compiled install's package with the native engine of the
    sanitizer build in place of its own (the mypyc runtime stays where it is installed)."""
    native = list((built / "trickledger" / "replay").glob("_native.*"))
    assert len(native) == 1, native
    shutil.copytree(compiled / "trickledger", overlay / "trickledger",
                    ignore=shutil.ignore_patterns("__pycache__", "_native.*"))
    shutil.copy2(native[0], overlay / "trickledger" / "replay" / native[0].name)


@pytest.mark.long(2.5)
def test_the_native_engine_built_with_sanitizers_passes_the_differential_test(
        tmp_path: Path, compiled_engine: Path) -> None:
    compiler = cxx_compiler()
    if compiler is None:
        pytest.skip("no C++ compiler on this machine (neither $CXX nor Python's CXX is found): "
                    "the native engine cannot be built with sanitizers here")
    target, said = build(tmp_path, {"TRICKLEDGER_SANITIZE": "1",
                                    "TRICKLEDGER_REQUIRE_COMPILED": "1"})
    assert "-fsanitize=address,undefined" in said
    overlay = tmp_path / "overlay"
    sanitized_over(compiled_engine, target, overlay)
    runtime = {"PYTHONPATH": f"{overlay}{os.pathsep}{compiled_engine}",
               "TRICKLEDGER_ENGINE_PATH": str(overlay),
               "LD_PRELOAD": f"{sanitizer_runtime(compiler, 'libasan.so')} "
                             f"{sanitizer_runtime(compiler, 'libubsan.so')}",
               # CPython's own allocations are not ours to report; any error of ours aborts
               "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
               "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
               "TRICKLEDGER_NATIVE_POSITIONS": "30000"}
    version = in_target(overlay, tmp_path, "-m", "trickledger", "--version", env=runtime)
    assert version.returncode == 0, version.stderr[-3000:]
    assert version.stdout.strip().endswith(
        "(engine compiled with mypyc; analysis engine native C++ with sanitizers)"), \
        version.stdout
    tests = [str(ROOT / "tests" / "units" / "test_native_differential.py"),
             str(ROOT / "tests" / "units" / "test_native.py")]
    run = in_target(overlay, ROOT, "-m", "pytest", "-o", "addopts=", "-q", "-p",
                    "no:cacheprovider", *tests, env=runtime)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-6000:]
    assert " passed" in run.stdout and "failed" not in run.stdout, run.stdout[-2000:]
    assert "runtime error" not in run.stderr and "AddressSanitizer" not in run.stderr, \
        run.stderr[-4000:]


def test_the_sanitizer_build_skips_only_where_no_cpp_compiler_is_found(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CXX", str(tmp_path / "no-such-c++"))
    assert cxx_compiler() is None
    fake = tmp_path / "c++"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    # the build's own way of naming it: a command with flags
    monkeypatch.setenv("CXX", f"{fake} -pthread")
    assert cxx_compiler() == str(fake)
