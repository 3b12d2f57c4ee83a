"""The suite's folders are all collected by the README's command: pytest's default
`norecursedirs` holds "build", so tests/build (the compiled wheel's tests) was silently
left out of every whole run until pyproject named its own list."""

from fnmatch import fnmatch
from pathlib import Path

import pytest
from conftest import FOLDER_MARKERS

TESTS = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("folder", sorted(FOLDER_MARKERS))
def test_every_folder_of_the_suite_is_collected(folder: str, pytestconfig) -> None:
    assert (TESTS / folder).is_dir(), folder
    skipped = [p for p in pytestconfig.getini("norecursedirs") if fnmatch(folder, p)]
    assert not skipped, f"tests/{folder} is skipped by norecursedirs {skipped}"
    assert str(TESTS.relative_to(pytestconfig.rootpath)) in pytestconfig.getini("testpaths")


def test_every_folder_holding_tests_is_a_folder_of_the_suite() -> None:
    holding = {p.parent.name for p in TESTS.rglob("test_*.py")}
    assert holding <= set(FOLDER_MARKERS), holding - set(FOLDER_MARKERS)


def test_a_modules_tests_run_in_one_process_and_a_long_test_alone(tmp_path: Path) -> None:
    """tests/conftest.py's `schedule` in a real parallel run: pytest-xdist 3.8 names a
    test's group where pytest 9.2 no longer reads it, and every test was handed out alone
    (a module's fixtures built in every process) until the conftest named it itself."""
    import os
    import re
    import subprocess
    import sys

    folder = tmp_path / "system"  # a folder the suite's conftest knows
    folder.mkdir()
    for name in ("test_one", "test_two"):
        (folder / f"{name}.py").write_text(
            "import os\nimport pytest\n\n"
            + "".join(f"def test_{i}():\n    print(os.getpid())\n\n" for i in range(6))
            + "@pytest.mark.long(2)\ndef test_long():\n    pass\n", encoding="utf-8")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "conftest", "-p",
                        "no:cacheprovider", "-n", "3", "--dist", "loadgroup",
                        "--no-loadscope-reorder", "-vv", "--rootdir", str(tmp_path),
                        str(folder)], capture_output=True, text=True, cwd=tmp_path,
                       env={**os.environ, "PYTHONPATH": str(TESTS)}, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    ran = re.findall(r"\[(gw\d+)\].* PASSED (\S+?)::(test_\w+)(@\w+)?", r.stdout)
    assert len(ran) == 14, r.stdout
    for module in ("system/test_one.py", "system/test_two.py"):
        grouped = {(worker, group) for worker, path, test, group in ran
                   if path.endswith(module) and test != "test_long"}
        # one process, and the group named after the module
        assert len(grouped) == 1 and next(iter(grouped))[1] == "@" + module[7:-3], grouped
    alone = [group for _w, _p, test, group in ran if test == "test_long"]
    assert alone == ["", ""], alone
    assert "handed out one by one" not in r.stdout + r.stderr
