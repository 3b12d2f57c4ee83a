"""Issue 23's targets, in one interleaved run, each as a ratio with "met" or "not met".

    python -m bench --targets [--rounds 3] [--rss-sizes 10000,50000] [--analyse-bound 600]

In each round, taking turns: in-process replay against the orjson parse floor (a fresh
process, CPU seconds), a whole-process `verify --json` against an orjson pass of the same
files (CPU seconds of each child, start-up included), and loading the 2,000-log corpus into
the default embedded store with all cores against verifying the same files in one process
(wall seconds: the load uses every core, the verify one). Then once: `trickledger analyse`
of the sample logs (200 playouts a hand) with a bound on its wall time, and the parent's
peak RSS loading 10k and 50k logs. The load average is read before and after every step,
since the figures of a shared machine mean little without it.

Run it where the installed engine is the one measured (outside the checkout, or with the
checkout after the install on the path): `python -m bench` from the checkout's root puts its
interpreted replay/ first.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bench.run import (
    _ORJSON_PASS,
    _REPLAY_WORKER,
    CHECKOUT,
    VERIFY_GAMES,
    big_corpus,
    build_corpus,
    games,
    ingest_subprocess,
    machine,
    write_result,
)

CORPUS_PER_GAME = 500  # 2,000 logs: the corpus of the load target
SAMPLES = Path(__file__).resolve().parents[1] / "sample_logs"

# what each target compares, and its bound (a ratio, or minutes for analyse)
TARGETS: dict[str, tuple[str, float]] = {
    "replay": ("in-process replay / orjson parse floor, compiled, CPU", 4.0),
    "verify": ("whole-process verify --json / orjson pass, start-up included, CPU", 3.5),
    "ingest": ("load 2,000 logs (default store, all cores) / verify them, wall", 1.0),
    "rss": ("parent peak RSS, 50k logs / 10k logs (flat: within 15 %)", 1.15),
    "analyse": ("analyse of the sample logs, 200 playouts a hand, wall minutes", 5.0),
}


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def timed_process(cmd: list[str], cwd: Path, env: dict[str, str] | None = None,
                  timeout_s: float | None = None) -> dict[str, Any]:
    """Run `cmd` to its end: wall seconds, CPU seconds of the child and of what it waited
    for (the kernel's own accounting, so other jobs on a shared machine do not count), its
    exit status, and whether `timeout_s` stopped it (its whole session is ended)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass  # it ended as the bound came

    timer = threading.Timer(timeout_s, stop) if timeout_s is not None else None
    if timer is not None:
        timer.start()
    _, status, usage = os.wait4(p.pid, 0)  # not p.wait(): the rusage comes with the reaping
    if timer is not None:
        timer.cancel()
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": time.perf_counter() - t, "cpu_s": usage.ru_utime + usage.ru_stime,
            "exit": p.returncode, "stopped": stopped.is_set()}


def replay_round(work: Path, listing: Path) -> dict[str, Any]:
    """Floor and replay of the whole corpus in a fresh process of the installed engine."""
    out = subprocess.run([sys.executable, "-c", _REPLAY_WORKER, "", str(listing), CHECKOUT],
                         capture_output=True, text=True, check=True, cwd=work)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    o = r["replay"]["overall"]
    return {"engine": r["engine"], "events": o["events"],
            "floor_events_per_s": o["floor_events_per_s"],
            "replay_events_per_s": o["replay_events_per_s"], "ratio": o["replay_over_floor"],
            "per_game": {g: v["replay_over_floor"] for g, v in r["replay"].items()
                         if g != "overall"}}


def verify_cmd(files: list[str]) -> list[str]:
    return [sys.executable, "-m", "trickledger", "verify", "--json", *files]


def run_targets(args: argparse.Namespace) -> int:
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    rounds = args.rounds
    sizes = [int(x) for x in args.rss_sizes.split(",") if x]
    cores = os.cpu_count() or 1
    result: dict[str, Any] = {"machine": machine(), "command": "python -m bench --targets",
                              "loads": []}
    from trickledger import replay

    result["machine"]["engine"] = replay.engine_build()

    def note(step: str) -> None:
        result["loads"].append([step, load()])
        print(f"  {step} (load average {load()})", flush=True)

    t0 = time.perf_counter()
    note("start")
    corpus = build_corpus(work, args.per_game or CORPUS_PER_GAME)
    listing = work / "targets-corpus.json"
    listing.write_text(json.dumps({g: [str(p.resolve()) for p in fs]
                                   for g, fs in corpus.items()}))
    all_files = [str(p.resolve()) for g in games() for p in corpus[g]]
    verify_files = [str(p.resolve()) for g in games() for p in corpus[g][:VERIFY_GAMES]]
    lst = work / "targets-2000.txt"
    lst.write_text("\n".join(all_files))
    one_log = [verify_files[0]]
    steps: dict[str, list[Any]] = {k: [] for k in ("replay", "verify", "ingest")}
    for i in range(rounds):
        steps["replay"].append(replay_round(work, listing))
        note(f"round {i + 1}: replay {steps['replay'][-1]['ratio']:.2f}x the floor")
        orj = timed_process([sys.executable, "-c", _ORJSON_PASS, *verify_files], work)
        ver = timed_process(verify_cmd(verify_files), work)
        # start-up alone: the share of the whole-process ratio that no engine work removes
        up = timed_process(verify_cmd(one_log), work)
        steps["verify"].append({"orjson": orj, "verify": ver, "verify_one_log": up,
                                "ratio": ver["cpu_s"] / orj["cpu_s"]})
        note(f"round {i + 1}: verify {steps['verify'][-1]['ratio']:.2f}x the orjson pass")
        # the two take turns within a round, in alternating order from round to round
        pair: dict[str, Any] = {}
        for what in (("verify", "ingest") if i % 2 == 0 else ("ingest", "verify")):
            if what == "verify":
                pair["verify"] = timed_process(verify_cmd(all_files), work)
            else:
                t = time.perf_counter()
                pair["ingest"] = ingest_subprocess(lst, work / "targets.duckdb", cores)
                pair["ingest"]["wall_s"] = time.perf_counter() - t
        pair["ratio"] = pair["ingest"]["wall_s"] / pair["verify"]["wall_s"]
        steps["ingest"].append(pair)
        note(f"round {i + 1}: load {pair['ratio']:.2f}x the verify")
    result["rounds"] = steps
    ratios: dict[str, float | None] = {
        k: statistics.median(s["ratio"] for s in v) for k, v in steps.items()}
    result["analyse"] = analyse = analyse_samples(work, args.analyse_bound)
    note(f"analyse: {analyse['wall_s'] / 60:.1f} min"
         + (" (stopped at the bound)" if analyse["stopped"] else ""))
    ratios["analyse"] = analyse["wall_s"] / 60
    rss: list[dict[str, Any]] = []
    if sizes:
        big = big_corpus(work, corpus, max(sizes))
        for n in sizes:
            lst_n = work / f"targets-big-{n}.txt"
            lst_n.write_text("\n".join(str(p.resolve()) for p in big[:n]))
            r = ingest_subprocess(lst_n, work / f"targets-big-{n}.duckdb", cores)
            (work / f"targets-big-{n}.duckdb").unlink(missing_ok=True)
            r.pop("trace", None)
            r["games"] = n
            rss.append(r)
            note(f"{n:,} logs: parent peak {r['peak_rss_mb']:.0f} MB")
    result["rss"] = rss
    ratios["rss"] = rss[-1]["peak_rss_mb"] / rss[0]["peak_rss_mb"] if len(rss) > 1 else None
    result["ratios"] = ratios
    result["seconds"] = time.perf_counter() - t0
    print(targets_report(result))
    write_result(args.out, result)
    return 0


def analyse_samples(work: Path, bound_s: float) -> dict[str, Any]:
    """Load the sample logs into a fresh database and time `trickledger analyse` over it
    (every hand, 200 playouts, all cores), stopped at `bound_s` seconds."""
    db = work / "targets-samples.duckdb"
    db.unlink(missing_ok=True)
    subprocess.run([sys.executable, "-m", "trickledger", "ingest", "--db", str(db),
                    str(SAMPLES)], cwd=work, check=False, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    r = timed_process([sys.executable, "-m", "trickledger", "analyse", "--db", str(db)], work,
                      timeout_s=bound_s)
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        row = con.execute("SELECT count(*) FROM hand_estimates").fetchone()
    r["hands_estimated"] = row[0] if row else 0
    db.unlink(missing_ok=True)
    Path(str(db) + ".wal").unlink(missing_ok=True)  # left by a stopped analyse
    return r


def targets_report(r: dict[str, Any]) -> str:
    m, ratios = r["machine"], r["ratios"]
    loads = [x[1] for x in r["loads"]]
    lines = [f"machine: {m['cores']} cores, {m['cpu']}, Python {m['python']}, engine "
             f"{m['engine']}, duckdb {m['duckdb']}, orjson {m['orjson']}; load average "
             f"(1/5/15 min) from {loads[0]} to {loads[-1]}", "",
             f"{'target':<72}{'bound':>7}{'measured':>10}  result"]
    for key, (what, bound) in TARGETS.items():
        value = ratios.get(key)
        if key == "analyse" and r["analyse"]["stopped"]:
            shown, met = f">{value:.1f}", False
        elif value is None:
            shown, met = "-", False
        else:
            shown, met = f"{value:.2f}", value <= bound if key != "analyse" else value < bound
        lines.append(f"{what:<72}{bound:>7.2f}{shown:>10}  {'met' if met else 'not met'}")
    lines.append("")
    for i, (rp, vf, ig) in enumerate(zip(r["rounds"]["replay"], r["rounds"]["verify"],
                                         r["rounds"]["ingest"]), 1):
        lines.append(f"round {i}: replay {rp['replay_events_per_s']:,.0f} events/s, floor "
                     f"{rp['floor_events_per_s']:,.0f} ({rp['ratio']:.2f}x); verify "
                     f"{vf['verify']['cpu_s']:.2f} s CPU (one log: "
                     f"{vf['verify_one_log']['cpu_s']:.2f} s), orjson "
                     f"{vf['orjson']['cpu_s']:.2f} s ({vf['ratio']:.2f}x); load "
                     f"{ig['ingest']['wall_s']:.1f} s wall (parent "
                     f"{ig['ingest']['parent_cpu_s']:.1f} s CPU), verify "
                     f"{ig['verify']['wall_s']:.1f} s wall ({ig['ratio']:.2f}x)")
    for s in r["rss"]:
        lines.append(f"{s['games']:>7,} logs: {s['seconds']:.0f} s, parent peak "
                     f"{s['peak_rss_mb']:.0f} MB, workers {s['peak_worker_rss_mb']:.0f} MB")
    a = r["analyse"]
    lines.append(f"analyse of the samples: {a['wall_s']:.0f} s wall, "
                 f"{a['hands_estimated']:,} hands estimated, exit {a['exit']}"
                 + (" (stopped at the bound)" if a["stopped"] else ""))
    for step, avg in r["loads"]:
        lines.append(f"  load average {avg}: {step}")
    return "\n".join(lines)
