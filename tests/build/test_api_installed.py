"""The Python API from a fresh `pip install .` (the wheel, outside the checkout): the
walk-through of docs/python.md runs as written, and the package is typed for its users."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    env.pop("TRICKLEDGER_DB", None)
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=900)


def test_the_documented_walk_through_runs_on_the_installed_package(installed_wheel, tmp_path):
    blocks = re.findall(r"^```python\n(.*?)^```", (ROOT / "docs" / "python.md").read_text(),
                        re.M | re.S)
    script = tmp_path / "walk_through.py"
    # a script, so its work goes under the guard that docs/python.md, "In a script", shows
    script.write_text(
        "import warnings\nwarnings.simplefilter('error')\n"
        "if __name__ == '__main__':\n"
        + textwrap.indent("\n".join(blocks), "    ")
        + "\n    import trickledger.replay, trickledger.ingest.load\n"
          "    print('FROM', trickledger.__file__, trickledger.replay.__file__,"
          " trickledger.ingest.load.__file__,"
          " trickledger.SAMPLES)\n")
    done = run(installed_wheel, tmp_path, str(script))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    where = done.stdout.rsplit("FROM ", 1)[1].split()
    assert all(w.startswith(str(installed_wheel)) for w in where), where
    assert (tmp_path / "games.duckdb").is_file() and (tmp_path / "lake" / "_manifest").is_dir()


@pytest.mark.long
def test_the_installed_package_is_typed_for_its_users(installed_wheel, tmp_path):
    assert (installed_wheel / "trickledger" / "py.typed").is_file()  # PEP 561: the whole tree
    user = tmp_path / "notebook.py"
    user.write_text(
        "import trickledger\n"
        "v = trickledger.verify('a.jsonl')\n"
        "reveal_type(v.status)\n"
        "reveal_type(v.to_dict())\n"
        "reveal_type(trickledger.replay_log('a.jsonl').facts)\n"
        "reveal_type(trickledger.ingest_logs('logs', db='t.duckdb').loaded)\n"
        "store = trickledger.connect('t.duckdb')\n"
        "reveal_type(store.sql('SELECT 1'))\n"
        "reveal_type(store.table('games'))\n"
        "reveal_type(store.tables())\n"
        "v.status = 1\n")  # a mistake mypy must see
    done = run(installed_wheel, tmp_path, "-m", "mypy", "--no-incremental",
               "--python-executable", sys.executable, str(user))
    out = done.stdout
    revealed = re.findall(r'Revealed type is "(.*)"', out)
    assert revealed == ["str", "dict[str, Any]", "list[trickledger.replay.facts.Fact]", "int",
                        "polars.dataframe.frame.DataFrame", "polars.lazyframe.frame.LazyFrame",
                        "list[str]"], out
    assert "notebook.py:11: error" in out, out  # the frozen verdict's field, and its type
