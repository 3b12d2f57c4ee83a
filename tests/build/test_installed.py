"""An installed wheel, not only an editable checkout, runs every command: the sample logs
and the SQL examples it needs travel inside the package."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
from helpers import free_port, wait_for_health

ROOT = Path(__file__).resolve().parents[2]


def run(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_every_command_runs_from_the_installed_wheel(installed_wheel, tmp_path):
    site = installed_wheel
    # one import namespace: the distribution installs nothing at the top level but
    # trickledger and its compiled library (its RECORD lists every file it installed)
    records = list(site.glob("trickledger-*.dist-info/RECORD"))
    assert len(records) == 1, records
    top = {line.split(",", 1)[0].split("/", 1)[0].split(".")[0]
           for line in records[0].read_text().splitlines()}
    top = {t for t in top if t and not t.startswith("trickledger-")} - {"", "__pycache__", "bin"}
    assert top == {"trickledger", "trickledger_engine__mypyc"}, top
    where = run(site, tmp_path, "-c", "import trickledger.replay, trickledger.ingest, "
                "trickledger.dashboard, trickledger.sample_logs as s;"
                "print(trickledger.__file__, s.SAMPLES)")
    assert where.returncode == 0, where.stderr
    cli_file, samples = where.stdout.split()
    assert cli_file.startswith(str(site)) and samples.startswith(str(site))
    sample = Path(samples) / "plotters" / "plotters-5p-claims.jsonl"
    assert sample.is_file()

    version = run(site, tmp_path, "-m", "trickledger", "--version")
    assert version.returncode == 0 and version.stdout.startswith("trickledger ")
    verify = run(site, tmp_path, "-m", "trickledger", "verify", "--json", str(sample))
    assert verify.returncode == 1  # the sample carries one wrong claim on purpose
    assert orjson.loads(verify.stdout)["status"] == "complete"
    replay = run(site, tmp_path, "-m", "trickledger", "replay", str(sample))
    assert "first winner" in replay.stdout
    sim = run(site, tmp_path, "-m", "trickledger", "simulate", "--game", "rage", "--games", "3",
              "--out", "sim")
    assert sim.returncode == 0, sim.stderr
    ingest = run(site, tmp_path, "-m", "trickledger", "ingest", "sim", "--db", "t.duckdb")
    assert ingest.returncode == 0, ingest.stdout + ingest.stderr
    sql = run(site, tmp_path, "-m", "trickledger", "sql", "SELECT count(*) AS n FROM games",
              "--db", "t.duckdb", "--format", "json")
    assert orjson.loads(sql.stdout) == [{"n": 3}]
    examples = run(site, tmp_path, "-c", "from trickledger.ingest.examples import examples; "
                   "print(len(examples()))")
    assert int(examples.stdout) > 5
    # the benchmark measures the project and is not installed with it
    no_bench = run(site, tmp_path, "-c", "import bench")
    assert no_bench.returncode != 0 and "ModuleNotFoundError" in no_bench.stderr


def test_the_installed_dashboard_starts_on_the_shipped_samples(installed_wheel, tmp_path):
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(installed_wheel)}
    log = open(tmp_path / "server.log", "w+")
    proc = subprocess.Popen([sys.executable, "-m", "trickledger", "dashboard", "--port", str(port),
                             "--db", "d.duckdb"], cwd=tmp_path, env=env, stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        up = wait_for_health(f"http://127.0.0.1:{port}", proc)
        log.seek(0)
        text = log.read()
        assert up, text
        assert "loading" in text and "sample logs" in text
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()
    count = run(installed_wheel, tmp_path, "-m", "trickledger", "sql", "SELECT count(*) AS n FROM logs",
                "--db", "d.duckdb", "--format", "json")
    shipped = len(list((ROOT / "sample_logs").rglob("*.jsonl")))
    assert orjson.loads(count.stdout) == [{"n": shipped}]
