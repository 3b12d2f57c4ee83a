"""The example plugin game, installed as a user installs it: `pip install` of
examples/toy_high_card into a folder of its own beside trickledger (no file of trickledger
changed), then walked end to end in processes that find it only through its
`trickledger.games` entry point: simulated, verified, ingested, judged (`analyse --moves`, on
its declared scale), queried (its table and view) and shown (its page, its part of the
Player page and of the game viewer, in Streamlit's AppTest).

Nothing here registers the game in this test process: the processes are the user's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "toy_high_card"


def run(args: list[str], env: dict[str, str], cwd: Path, code: int = 0) -> str:
    r = subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd)
    assert r.returncode == code, f"{args}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


@pytest.fixture(scope="module")
def beside(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], Path]:
    """The example installed with pip into a folder of its own (the way `pip install
    ./examples/toy_high_card` puts it into site-packages), and the environment of a process
    that has it beside trickledger: (environment, working folder)."""
    tmp = tmp_path_factory.mktemp("plugin")
    site = tmp / "site"
    # from a copy: a build leaves its egg-info beside the source, and the fast tests put
    # the checkout's example on the path (an entry point there would be found by them all)
    source = tmp / "toy_high_card"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__"))
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                          "--no-build-isolation", "--target", str(site), str(source)],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    # what pip installed: the package and its metadata with the entry point, nothing else
    assert sorted(p.name for p in site.iterdir() if not p.name.startswith(".")) == [
        "toy_high_card", "trickledger_toy_high_card-0.1.0.dist-info"]
    points = (site / "trickledger_toy_high_card-0.1.0.dist-info" / "entry_points.txt")
    assert "[trickledger.games]\ntoy_high_card = toy_high_card:INFO" in points.read_text()
    work = tmp / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "TRICKLEDGER_DB": str(work / "toy.duckdb")}
    return env, work


def trickledger(env: dict[str, str], cwd: Path, *args: str, code: int = 0) -> str:
    return run([sys.executable, "-m", "trickledger", *args], env, cwd, code)


def test_the_checkout_does_not_have_it_without_the_install() -> None:
    # the test process (and every other test) sees the four games only: the example is
    # found through its entry point, which only the installed copy has
    from trickledger.replay.registry import registry

    assert "toy_high_card" not in registry()


def test_installed_it_is_simulated_verified_ingested_judged_and_queried(beside) -> None:
    env, work = beside
    listed = trickledger(env, work, "simulate", "--help")
    assert "toy_high_card" in listed
    trickledger(env, work, "simulate", "--game", "toy_high_card", "--games", "12",
                "--claims", "--seed", "7", "--out", "logs")
    verdicts = orjson.loads(trickledger(env, work, "verify", "--json", "logs"))
    assert len(verdicts) == 12
    assert {v["status"] for v in verdicts} == {"complete"}
    assert {v["game"] for v in verdicts} == {"toy_high_card"}
    assert all(c["match"] for v in verdicts for c in v["claims"])
    trickledger(env, work, "ingest", "logs")
    # two samples, as the other analyse tests take: what is checked is that its moves are
    # judged on its scale, not how closely
    trickledger(env, work, "analyse", "--moves", "--samples", "2", "--jobs", "1")
    counts = orjson.loads(trickledger(env, work, "sql", "--format", "json", """
        SELECT (SELECT count(*) FROM games WHERE game = 'toy_high_card') AS games,
               (SELECT count(*) FROM toy_boasts) AS boasts,
               (SELECT count(*) FROM toy_boasts_made WHERE made IS NOT NULL) AS judged,
               (SELECT count(*) FROM move_quality) AS decisions,
               (SELECT count(DISTINCT band) FROM move_quality) AS bands"""))
    row = counts[0]
    assert row["games"] == 12 and row["boasts"] > 0 and row["judged"] == row["boasts"]
    assert row["decisions"] > 0 and row["bands"] >= 1
    # the boasts stored are the boast lines of the logs, one for one
    logged = sum(1 for f in (work / "logs").iterdir()
                 for line in f.read_bytes().splitlines() if b'"type":"boast"' in line)
    assert logged == row["boasts"]


APP = """
import os
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

import trickledger.dashboard
from trickledger.dashboard import game_parts
from trickledger.replay.registry import registry
from trickledger.ingest.db import reading

info = registry()["toy_high_card"]
app = (Path(trickledger.dashboard.__file__).parent / "app.py").resolve()
at = AppTest.from_file(str(app), default_timeout=120)
at.run()
assert not at.exception, at.exception
page = game_parts.script_path(info.pages[0].script)
print("PAGE", page)
# the whole app, switched to the game's page: refused unless its navigation has the page
at.switch_page(os.path.relpath(page, app.parent))
at.run()
assert not at.exception, at.exception
print("TITLE", [t.value for t in at.title])
print("METRICS", [(m.label, m.value) for m in at.metric])
print("TABLES", len(at.dataframe))
with reading(sys.argv[1]) as con:
    gid, rnd, player = con.execute(
        "SELECT game_id, round, player FROM toy_boasts ORDER BY game_id, round LIMIT 1"
    ).fetchone()
viewer = game_parts.script_path("trickledger.dashboard.views.viewer")
at = AppTest.from_file(str(viewer), default_timeout=120)
at.query_params["game"] = gid
at.query_params["round"] = str(rnd)
at.run()
assert not at.exception, at.exception
print("VIEWER", [s.value for s in at.subheader], [m.value for m in at.markdown
      if "boasted" in m.value])
player_page = game_parts.script_path("trickledger.dashboard.views.player")
at = AppTest.from_file(str(player_page), default_timeout=120)
at.query_params["player"] = player
at.run()
assert not at.exception, at.exception
print("PLAYER", [s.value for s in at.subheader], [(m.label, m.value) for m in at.metric
      if m.label in ("Boasts", "Came true")])
"""


def test_installed_its_page_and_parts_are_shown(beside) -> None:
    env, work = beside
    if not (work / "toy.duckdb").exists():
        trickledger(env, work, "simulate", "--game", "toy_high_card", "--games", "12",
                    "--claims", "--seed", "7", "--out", "logs")
        trickledger(env, work, "ingest", "logs")
    out = run([sys.executable, "-c", APP, env["TRICKLEDGER_DB"]], env, work)
    lines = {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in out.splitlines()
             if line.split(" ", 1)[0].isupper()}
    assert lines["PAGE"].endswith("toy_high_card/page.py") and "site" in lines["PAGE"]
    assert "'Boasts'" in lines["TITLE"]
    assert "('Boasts'," in lines["METRICS"] and "('Came true'," in lines["METRICS"]
    assert lines["TABLES"] != "0"
    assert "'Boast'" in lines["VIEWER"] and "boasted (line" in lines["VIEWER"]
    assert "'Boasts (Toy high card)'" in lines["PLAYER"] and "('Boasts'," in lines["PLAYER"]
