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
