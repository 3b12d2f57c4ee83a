"""The benchmark: one run, one machine, every figure as a rate and a ratio.

    python -m bench [--quick] [--replay-only] [--sizes 1000,10000,100000] [--skip-peers]

Builds a fixed seeded corpus with `simulate`, then measures the JSON-parse
floor and single-core replay per game for each engine (a compiled install is
also measured interpreted, from a copy of its .py files; the engines take
turns in fresh processes), `trickledger verify --json` as a whole process
against a plain orjson pass over the same files, ingest on all cores, ingest
scaling with peak RSS, dashboard query latency, and (with the `bench` extra)
OpenSpiel and python-chess replaying their own recorded games. Prints a
table; `--out FILE` also writes the results as JSON (the committed figures
are bench/results/latest.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from trickledger.replay.engine import replay_bytes
from trickledger.replay.registry import registry
from trickledger.replay.simulate import SimOptions, simulate

SEED = 2026


def games() -> list[str]:
    """Every registered game, in a stable order."""
    return sorted(registry())


def machine() -> dict[str, Any]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import duckdb

    return {"cores": os.cpu_count(), "cpu": model, "python": platform.python_version(),
            "platform": platform.platform(), "duckdb": duckdb.__version__,
            "orjson": orjson.__version__}


def build_corpus(work: Path, per_game: int) -> dict[str, list[Path]]:
    """`per_game` seeded games of each game (mixed tables, bots and variants), reused if present."""
    out: dict[str, list[Path]] = {}
    for game in games():
        info = registry()[game]
        d = work / "base" / game
        files = sorted(d.glob("*.jsonl")) if d.exists() else []
        if len(files) != per_game:
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True)
            opts = SimOptions(game=game, games=per_game,
                              players=(info.min_players, info.max_players),
                              bots=("greedy", "random"), seed=SEED, variants=None,
                              edition="mixed" if info.editions else None, claims=True)
            for name, data, _ in simulate(opts):
                (d / name).write_bytes(data)
            files = sorted(d.glob("*.jsonl"))
        out[game] = files
    return out


def timed(fn: Any, repeat: int = 3, clock: Any = time.perf_counter) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = clock()
        fn()
        best = min(best, clock() - t)
    return best


def floor_and_replay(corpus: dict[str, list[Path]], repeat: int = 3) -> dict[str, Any]:
    """Per game and overall: JSON-parse floor and single-core replay of the engine this
    process imported, best of `repeat`, in CPU seconds of this process."""
    loads = orjson.loads
    res: dict[str, Any] = {}
    tot_events = tot_floor = tot_replay = 0.0
    for game, files in corpus.items():
        blobs = [f.read_bytes() for f in files]
        events = sum(b.count(b"\n") - 1 for b in blobs)  # every line but the header

        def floor(files: list[Path] = files) -> None:
            for p in files:  # read + parse every line, as the reader does
                for line in p.read_bytes().split(b"\n"):
                    if line:
                        loads(line)

        def rep(files: list[Path] = files) -> None:
            for p in files:
                r = replay_bytes(p.read_bytes(), p.name)
                assert r.status == "complete", (p, r.error)

        # CPU time of this process: on a shared machine, others' load does not count
        f = timed(floor, repeat, time.process_time)
        r = timed(rep, repeat, time.process_time)
        res[game] = {"games": len(files), "events": events, "floor_s": f, "replay_s": r,
                     "floor_events_per_s": events / f, "replay_events_per_s": events / r,
                     "replay_over_floor": r / f}
        tot_events += events
        tot_floor += f
        tot_replay += r
    res["overall"] = {"events": tot_events, "floor_events_per_s": tot_events / tot_floor,
                      "replay_events_per_s": tot_events / tot_replay,
                      "replay_over_floor": tot_replay / tot_floor}
    return res


def engine_paths(work: Path) -> dict[str, str | None]:
    """The engines to measure, each as the folder to put first on sys.path (None: as
    installed). A compiled install is measured as it is and, from a copy of its .py files,
    interpreted; an interpreted (editable) install has only the interpreted engine."""
    import trickledger
    from trickledger import replay

    if replay.engine_build() != "compiled":
        return {"interpreted": None}
    src = Path(trickledger.__file__).parent
    copy = work.resolve() / "interpreted"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(src, copy / "trickledger",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return {"compiled": None, "interpreted": str(copy)}


CHECKOUT = str(Path(__file__).resolve().parents[1])
_REPLAY_WORKER = """
import json, sys
from pathlib import Path
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
sys.path.append(sys.argv[3])  # the checkout, for bench/: after the installed engine
from trickledger import replay
from bench.run import floor_and_replay
corpus = json.loads(Path(sys.argv[2]).read_text())
res = floor_and_replay({g: [Path(p) for p in fs] for g, fs in corpus.items()}, repeat=1)
print(json.dumps({"engine": replay.engine_build(), "replay": res}))
"""


def replay_engines(work: Path, corpus: dict[str, list[Path]], rounds: int = 3
                   ) -> dict[str, Any]:
    """Floor and replay per game for every engine, each in a fresh process; the engines
    take turns (A B A B ...) so that a drift of the machine's speed hits both, and each
    figure is the best of `rounds`."""
    paths = engine_paths(work)
    listing = work.resolve() / "replay-corpus.json"
    listing.write_text(json.dumps({g: [str(p.resolve()) for p in fs]
                                   for g, fs in corpus.items()}))
    best: dict[str, dict[str, dict[str, float]]] = {e: {} for e in paths}
    for _ in range(rounds):
        for engine, path in paths.items():
            # run from the work folder: `python -c` puts the current folder first on
            # sys.path, and a checkout's replay/ there would shadow the installed engine
            out = subprocess.run([sys.executable, "-c", _REPLAY_WORKER, path or "",
                                  str(listing), CHECKOUT], capture_output=True, text=True, check=True,
                                 cwd=work)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            assert r["engine"] == engine, (engine, r["engine"])
            for game, v in r["replay"].items():
                if game == "overall":
                    continue
                b = best[engine].setdefault(game, {"events": v["events"], "games": v["games"],
                                                   "floor_s": v["floor_s"],
                                                   "replay_s": v["replay_s"]})
                b["floor_s"] = min(b["floor_s"], v["floor_s"])
                b["replay_s"] = min(b["replay_s"], v["replay_s"])
    games_ = sorted(corpus)
    floor = {g: min(best[e][g]["floor_s"] for e in paths) for g in games_}
    res: dict[str, Any] = {"engines": list(paths), "games": {}}
    for g in games_ + ["overall"]:
        if g == "overall":
            events = sum(best[next(iter(paths))][x]["events"] for x in games_)
            f = sum(floor.values())
        else:
            events = best[next(iter(paths))][g]["events"]
            f = floor[g]
        row: dict[str, Any] = {"events": events, "floor_s": f, "floor_events_per_s": events / f}
        for e in paths:
            t = (sum(best[e][x]["replay_s"] for x in games_) if g == "overall"
                 else best[e][g]["replay_s"])
            row[e] = {"replay_s": t, "events_per_s": events / t, "over_floor": t / f}
        if len(paths) == 2:
            row["speedup"] = row["interpreted"]["replay_s"] / row["compiled"]["replay_s"]
        res["games"][g] = row
    return res


VERIFY_GAMES = 300  # per game: the whole-process verify target is over 1,200 games
_ORJSON_PASS = """
import sys, orjson
for p in sys.argv[1:]:
    for line in open(p, "rb").read().split(b"\\n"):
        if line:
            orjson.loads(line)
"""


def whole_process(work: Path, corpus: dict[str, list[Path]], runs: int = 5) -> dict[str, Any]:
    """`trickledger verify --json` over VERIFY_GAMES games of each game, as a whole process
    (start-up included), against a plain orjson parse of the same files in a process of its
    own; the commands take turns, medians of `runs`."""
    paths = engine_paths(work)
    files = [str(p.resolve()) for g in sorted(corpus) for p in corpus[g][:VERIFY_GAMES]]
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "orjson": ([sys.executable, "-c", _ORJSON_PASS, *files], dict(os.environ))}
    for engine, path in paths.items():
        env = dict(os.environ)
        if path:
            env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
        commands[engine] = ([sys.executable, "-m", "trickledger", "verify", "--json", *files], env)
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(runs):
        for name, (cmd, env) in commands.items():
            t = time.perf_counter()
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, check=False, cwd=work)
            times[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {"files": len(files), "runs": runs, "median_s": med, "all_s": times,
            "over_orjson": {e: med[e] / med["orjson"] for e in paths}}


class TreeRss:
    """Samples the resident memory of this process and all its descendants (the replay
    workers live under a forkserver, out of reach of RUSAGE_CHILDREN)."""

    def __init__(self, every_s: float = 0.05) -> None:
        import threading

        self.peak_total_mb = 0.0
        self.peak_other_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._thread.start()

    @staticmethod
    def _tree() -> dict[int, int]:
        parent: dict[int, int] = {}
        rss: dict[int, int] = {}
        for d in Path("/proc").iterdir():
            if not d.name.isdigit():
                continue
            try:
                stat = (d / "stat").read_text()
                fields = stat.rsplit(")", 1)[1].split()
                parent[int(d.name)] = int(fields[1])
                rss[int(d.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
            except (OSError, IndexError, ValueError):
                continue
        me = os.getpid()
        out = {me: rss.get(me, 0)}
        changed = True
        while changed:
            changed = False
            for pid, ppid in parent.items():
                if ppid in out and pid not in out:
                    out[pid] = rss.get(pid, 0)
                    changed = True
        return out

    def _run(self, every_s: float) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            tree = self._tree()
            total = sum(tree.values()) / 2**20
            other = sum(v for k, v in tree.items() if k != me) / 2**20
            self.peak_total_mb = max(self.peak_total_mb, total)
            self.peak_other_mb = max(self.peak_other_mb, other)
            self._stop.wait(every_s)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def ingest_subprocess(files_list: Path, db: Path, jobs: int, mode: str = "db",
                      batch: int = 500) -> dict[str, Any]:
    """Ingest in a fresh process, so its peak RSS (and its workers') is its own. `mode`:
    "db" (the embedded DuckDB file), "lake" (a lake folder), or "cluster" (a lake folder,
    batches on a Dask LocalCluster of `jobs` workers). It runs in the target's folder: from
    a checkout's root, `python -c` would import the checkout's (interpreted) replay/
    instead of the installed engine."""
    db, files_list = db.resolve(), files_list.resolve()
    if db.is_dir():
        shutil.rmtree(db)
    elif db.exists():
        db.unlink()
    target = (f"lake={str(db)!r}" if mode != "db" else f"path={str(db)!r}")
    if mode == "cluster":
        target += f", cluster='local:{jobs}'"
    trace = Path(str(db) + ".progress")
    code = (
        "import json, resource, sys, time\n"
        f"sys.path.append({CHECKOUT!r})\n"  # bench/, after the installed engine
        "from bench.run import TreeRss\n"
        "from ingest.load import Source, ingest\n"
        f"paths = open({str(files_list)!r}).read().split()\n"
        "tree = TreeRss()\n"
        "t = time.perf_counter()\n"
        f"trace = open({str(trace)!r}, 'w')\n"
        "def progress(done, total):\n"
        "    rss = int(open('/proc/self/statm').read().split()[1]) * 4096 / 2**20\n"
        "    trace.write(json.dumps([round(time.perf_counter() - t, 1), done, round(rss),"
        " round(tree.peak_total_mb)]) + '\\n'); trace.flush()\n"
        f"s = ingest([Source(p, path=p) for p in paths], {target}, jobs={jobs},"
        f" batch_size={batch}, keep_all=False, progress=progress)\n"
        "dt = time.perf_counter() - t\n"
        "tree.stop()\n"
        "me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "ru = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(json.dumps({'seconds': dt, 'loaded': s.loaded, 'events': s.events,"
        " 'parent_cpu_s': ru.ru_utime + ru.ru_stime,"
        " 'peak_rss_mb': me / 1024, 'peak_worker_rss_mb': tree.peak_other_mb,"
        " 'peak_tree_rss_mb': tree.peak_total_mb}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=db.parent)
    if out.returncode != 0:
        raise RuntimeError(f"ingest ({mode}) failed:\n{out.stderr[-3000:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    r["mode"] = mode
    r["events_per_s"] = r["events"] / r["seconds"]
    r["games_per_s"] = r["loaded"] / r["seconds"]
    r["db_mb"] = _size_mb(db)
    # the parent's RSS after every batch: [seconds, logs done, RSS MB, tree peak so far]
    r["trace"] = [json.loads(x) for x in trace.read_text().splitlines()]
    return r


def replay_subprocess(files_list: Path) -> float:
    """Single-core replay (read + validate + replay + derive) of the listed logs in a fresh
    process: events per second."""
    code = ("import json, sys, time\n"
            "from pathlib import Path\n"
            "from replay.engine import replay_bytes\n"
            f"paths = open({str(files_list)!r}).read().split()\n"
            "t = time.perf_counter(); n = 0\n"
            "for p in paths:\n"
            "    n += replay_bytes(Path(p).read_bytes(), p).events\n"
            "print(json.dumps(n / (time.perf_counter() - t)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=files_list.resolve().parent)  # the installed engine
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def _size_mb(p: Path) -> float:
    if p.is_dir():
        return sum(f.stat().st_size for f in p.rglob("*") if f.is_file()) / 2**20
    return p.stat().st_size / 2**20 if p.exists() else 0.0


def ingest_modes(lst: Path, work: Path, cores: int, rounds: int, rate: float
                 ) -> dict[str, Any]:
    """The same corpus into the embedded DuckDB file (one INSERT per table per batch),
    into a lake read in place, and into a lake through Dask LocalCluster(cores):
    interleaved rounds, medians, each against single-core replay x cores."""
    try:
        import dask.distributed  # noqa: F401

        modes = ["db", "lake", "cluster"]
    except ImportError:
        modes = ["db", "lake"]
    runs: dict[str, list[dict[str, Any]]] = {m: [] for m in modes}
    replays: list[float] = []
    for i in range(rounds):
        # single-core replay of the same corpus in each round: on a shared machine the
        # ratio to replay x cores is only meaningful against a replay measured alongside
        replays.append(replay_subprocess(lst))
        print(f"  round {i + 1}   replay: {replays[-1]:,.0f} events/s on one core", flush=True)
        for m in modes if i % 2 == 0 else modes[::-1]:
            target = work / ("modes.duckdb" if m == "db" else f"modes-{m}")
            r = ingest_subprocess(lst, target, cores, m)
            runs[m].append(r)
            print(f"  round {i + 1} {m:>8}: {r['games_per_s']:.0f} games/s, parent "
                  f"{r['peak_rss_mb']:.0f} MB, tree {r['peak_tree_rss_mb']:.0f} MB", flush=True)
    out: dict[str, Any] = {"replay_events_per_s": replays,
                           "replay_events_per_s_median": statistics.median(replays)}
    for m, rs in runs.items():
        med = statistics.median(r["games_per_s"] for r in rs)
        out[m] = {"games_per_s_median": med,
                  "events_per_s_median": statistics.median(r["events_per_s"] for r in rs),
                  "runs": rs, "over_replay_x_cores": statistics.median(
                      r["events_per_s"] / (rp * cores) for r, rp in zip(rs, replays))}
    if "cluster" in out:
        out["cluster_over_db"] = out["cluster"]["games_per_s_median"] / \
            out["db"]["games_per_s_median"]
        out["cluster_over_lake"] = out["cluster"]["games_per_s_median"] / \
            out["lake"]["games_per_s_median"]
    out["lake_over_db"] = out["lake"]["games_per_s_median"] / out["db"]["games_per_s_median"]
    return out


def million(work: Path, base: dict[str, list[Path]], cores: int, n: int) -> dict[str, Any]:
    """One run of `n` distinct simulated games (1M by default) into the embedded file."""
    big = big_corpus(work, base, n)
    lst = work / f"big-{n}.txt"
    lst.write_text("\n".join(str(p) for p in big[:n]))
    r = ingest_subprocess(lst, work / f"big-{n}.duckdb", cores)
    r["games"] = n
    return r


def big_corpus(work: Path, base: dict[str, list[Path]], n: int) -> list[Path]:
    """`n` distinct logs: the base corpus cycled, each copy with its own header id."""
    d = work / "big"
    d.mkdir(parents=True, exist_ok=True)
    pool = [p for game in games() for p in base[game]]
    random.Random(SEED).shuffle(pool)
    existing = len(list(d.glob("*.jsonl")))
    for i in range(existing, n):
        src = pool[i % len(pool)]
        head, rest = src.read_bytes().split(b"\n", 1)
        h = orjson.loads(head)
        h["id"] = f"big-{i:07d}"
        (d / f"big-{i:07d}.jsonl").write_bytes(orjson.dumps(h) + b"\n" + rest)
    return [d / f"big-{i:07d}.jsonl" for i in range(n)]


def dashboard_queries(db: Path, runs: int = 20, lake: Path | None = None) -> dict[str, Any]:
    """Every query the dashboard's pages issue (captured by running each page), timed."""
    os.environ["TRICKLEDGER_DB"] = str(db)
    from streamlit.testing.v1 import AppTest

    from trickledger import dashboard
    from trickledger.dashboard.data import access
    from trickledger.ingest.db import reading

    captured: dict[tuple[str, tuple[Any, ...]], str] = {}
    page_times: dict[str, float] = {}
    current = [""]

    def spy(sql: str, params: tuple[Any, ...]) -> None:
        captured.setdefault((sql, params), current[0])

    access.database.clear()
    access.query.clear()
    with access.observe_queries(spy):
        for view in sorted((Path(dashboard.__file__).parent / "views").glob("*.py")):
            if view.name == "__init__.py":
                continue
            current[0] = view.stem
            access.query.clear()
            at = AppTest.from_file(str(view), default_timeout=300)
            t = time.perf_counter()
            at.run()
            page_times[view.stem] = time.perf_counter() - t
            assert not at.exception, (view, at.exception)
    out: list[dict[str, Any]] = []
    from trickledger.ingest import lake as lakes

    lake_con = lakes.connect(str(lake)) if lake is not None else None
    with reading(str(db)) as con:
        for (sql, params), page in captured.items():
            entry: dict[str, Any] = {"page": page, "sql": " ".join(sql.split())[:90]}
            for key, c in (("", con), ("lake_", lake_con)):
                if c is None:
                    continue
                times = []
                for _ in range(runs):
                    t = time.perf_counter()
                    c.execute(sql, list(params)).fetchall()
                    times.append((time.perf_counter() - t) * 1000)
                times.sort()
                entry[key + "p50_ms"] = statistics.median(times)
                entry[key + "p95_ms"] = times[max(0, int(round(0.95 * len(times))) - 1)]
            out.append(entry)
    if lake_con is not None:
        lake_con.close()
    return {"queries": out, "page_cold_s": page_times,
            "worst_p95_ms": max(q["p95_ms"] for q in out) if out else None,
            "lake_worst_p95_ms": max(q["lake_p95_ms"] for q in out)
            if out and lake is not None else None}


def peers(our_rate: float) -> dict[str, Any]:
    res: dict[str, Any] = {}
    try:
        import chess
        import chess.pgn
    except ImportError:
        res["chess"] = "not installed (pip install -e '.[bench]')"
    else:
        rng = random.Random(SEED)
        pgns = []
        moves = 0
        for _ in range(300):
            board = chess.Board()
            game = chess.pgn.Game()
            node = game
            while not board.is_game_over() and board.ply() < 200:
                mv = rng.choice(list(board.legal_moves))
                board.push(mv)
                node = node.add_variation(mv)
                moves += 1
            pgns.append(str(game))
        text = "\n\n".join(pgns)

        def replay_pgn() -> None:
            import io

            stream = io.StringIO(text)
            while (g := chess.pgn.read_game(stream)) is not None:
                b = g.board()
                for mv in g.mainline_moves():
                    assert b.is_legal(mv)
                    b.push(mv)

        s = timed(replay_pgn, 1, time.process_time)
        res["chess"] = {"games": 300, "moves": moves, "moves_per_s": moves / s,
                        "ours_over_theirs": our_rate / (moves / s)}
    try:
        import pyspiel
    except ImportError:
        res["oh_hell"] = "not installed (pip install -e '.[bench]')"
    else:
        game = pyspiel.load_game("oh_hell")
        rng = random.Random(SEED)
        histories = []
        for _ in range(300):
            st = game.new_initial_state()
            while not st.is_terminal():
                if st.is_chance_node():
                    actions, probs = zip(*st.chance_outcomes())
                    a = rng.choices(actions, probs)[0]
                else:
                    a = rng.choice(st.legal_actions())
                st.apply_action(a)
            histories.append(st.history())
        n_actions = sum(len(h) for h in histories)

        def replay_spiel() -> None:
            for h in histories:
                st = game.new_initial_state()
                for a in h:
                    legal = (st.legal_actions() if not st.is_chance_node()
                             else [o for o, _ in st.chance_outcomes()])
                    assert a in legal
                    st.apply_action(a)

        s = timed(replay_spiel, 1, time.process_time)
        res["oh_hell"] = {"games": 300, "actions": n_actions, "actions_per_s": n_actions / s,
                          "ours_over_theirs": our_rate / (n_actions / s)}
    return res


def run(args: argparse.Namespace, argv: list[str] | None = None) -> int:
    per_game = args.per_game or (250 if args.quick else 1000)
    sizes = [int(x) for x in (args.sizes or ("1000,5000" if args.quick else
                                             "1000,10000,100000")).split(",")]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cores = os.cpu_count() or 1
    result: dict[str, Any] = {"machine": machine(),
                              "command": "python -m bench " + " ".join(argv or [])}
    t0 = time.perf_counter()
    print("building the corpus ...", flush=True)
    corpus = build_corpus(work, per_game)
    print("floor and single-core replay, engine by engine ...", flush=True)
    result["replay"] = fr = replay_engines(work, corpus)
    overall = fr["games"]["overall"]
    rate = overall[fr["engines"][0]]["events_per_s"]  # the installed engine
    print("whole-process verify against an orjson pass ...", flush=True)
    result["verify"] = whole_process(work, corpus)
    if args.replay_only:
        return finish(args, result, rate, t0)
    print("ingest on all cores: database file, lake, Dask local cluster ...", flush=True)
    lst = work / "base.txt"
    lst.write_text("\n".join(str(p.resolve()) for g in games() for p in corpus[g]))
    rounds = args.ingest_rounds or (1 if args.quick else 3)
    result["ingest_modes"] = modes = ingest_modes(lst, work, cores, rounds, rate)
    runs = sorted(modes["db"]["runs"], key=lambda r: r["games_per_s"])
    ing = dict(runs[len(runs) // 2])
    ing["over_replay_x_cores"] = modes["db"]["over_replay_x_cores"]
    result["ingest"] = ing
    print("ingest scaling ...", flush=True)
    big = big_corpus(work, corpus, max(sizes))
    scaling = []
    for n in sizes:
        lst = work / f"big-{n}.txt"
        lst.write_text("\n".join(str(p.resolve()) for p in big[:n]))
        r = ingest_subprocess(lst, work / f"big-{n}.duckdb", cores)
        r["games"] = n
        scaling.append(r)
        print(f"  {n:>7} games: {r['seconds']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB, "
              f"whole process tree {r['peak_tree_rss_mb']:.0f} MB", flush=True)
    result["scaling"] = scaling
    if not args.skip_queries:
        print("dashboard queries (database file, then the same queries on a lake) ...",
              flush=True)
        lst = work / f"big-{max(sizes)}.txt"
        lake = work / f"big-{max(sizes)}-lake"
        result["lake_ingest"] = ingest_subprocess(lst, lake, cores, "lake")
        result["queries"] = dashboard_queries(work / f"big-{max(sizes)}.duckdb", lake=lake)
    if args.million:
        print(f"{args.million:,} games once ...", flush=True)
        result["million"] = million(work, corpus, cores, args.million)
    return finish(args, result, rate, t0)


def finish(args: argparse.Namespace, result: dict[str, Any], rate: float, t0: float) -> int:
    if not args.skip_peers:
        print("peers ...", flush=True)
        result["peers"] = peers(rate)
    result["seconds"] = time.perf_counter() - t0
    print(report(result))
    write_result(args.out, result)
    return 0


def write_result(path: str | None, result: dict[str, Any]) -> None:
    """Keep a run's figures as JSON at `path` (if one was given)."""
    if path:
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2, default=str))
        print(f"written to {out}")


def report(r: dict[str, Any]) -> str:
    m = r["machine"]
    rp = r["replay"]
    engines = rp["engines"]
    lines = [f"machine: {m['cores']} cores, {m['cpu']}, Python {m['python']}, "
             f"duckdb {m['duckdb']}, orjson {m['orjson']}", "",
             "replay events/s, one core (ratio: replay time / JSON-parse floor time)",
             f"{'game':<16}{'events':>10}{'floor':>12}"
             + "".join(f"{e:>13}{'ratio':>7}" for e in engines)
             + (f"{'speed-up':>10}" if len(engines) == 2 else "")]
    for g, v in rp["games"].items():
        lines.append(f"{g:<16}{int(v['events']):>10}{v['floor_events_per_s']:>12,.0f}"
                     + "".join(f"{v[e]['events_per_s']:>13,.0f}{v[e]['over_floor']:>7.2f}"
                               for e in engines)
                     + (f"{v['speedup']:>9.2f}x" if "speedup" in v else ""))
    if "compiled" not in engines:
        lines.append("(this install runs the interpreted engine; `pip install .` builds the "
                     "compiled one)")
    w = r["verify"]
    lines += ["", f"whole process, verify --json over {w['files']} logs (median of {w['runs']}): "
                  f"orjson pass {w['median_s']['orjson']:.2f} s; "
              + "; ".join(f"{e} {w['median_s'][e]:.2f} s = {w['over_orjson'][e]:.2f}x"
                          for e in w["over_orjson"])]
    if "ingest" in r:
        i = r["ingest"]
        lines += ["", f"ingest, all cores: {i['events_per_s']:,.0f} events/s, "
                      f"{i['games_per_s']:,.0f} games/s, {i['over_replay_x_cores']:.0%} of "
                      f"replay x cores"]
        md = r.get("ingest_modes", {})
        for m in ("db", "lake", "cluster"):
            if m in md:
                lines.append(f"  {m:>8}: median {md[m]['games_per_s_median']:,.0f} games/s "
                             f"({md[m]['over_replay_x_cores']:.0%} of replay x cores, replay "
                             f"measured in each round)")
        if "cluster_over_db" in md:
            lines.append(f"  cluster / db = {md['cluster_over_db']:.2f}, lake / db = "
                         f"{md['lake_over_db']:.2f}")
        lines += ["",
                  f"{'games':>8}{'seconds':>10}{'games/s':>10}{'parent MB':>11}"
                  f"{'workers MB':>12}{'all MB':>9}{'db MB':>9}"]
        for s in r["scaling"]:
            lines.append(f"{s['games']:>8}{s['seconds']:>10.1f}{s['games_per_s']:>10.0f}"
                         f"{s['peak_rss_mb']:>11.0f}{s['peak_worker_rss_mb']:>12.0f}"
                         f"{s['peak_tree_rss_mb']:>9.0f}{s['db_mb']:>9.0f}")
        if "million" in r:
            mm = r["million"]
            lines.append(f"{mm['games']:>8}{mm['seconds']:>10.1f}{mm['games_per_s']:>10.0f}"
                         f"{mm['peak_rss_mb']:>11.0f}{mm['peak_worker_rss_mb']:>12.0f}"
                         f"{mm['peak_tree_rss_mb']:>9.0f}{mm['db_mb']:>9.0f}")
        q = r.get("queries")
        if q:
            lines += ["", f"dashboard queries on {r['scaling'][-1]['games']} games: "
                          f"{len(q['queries'])} queries, worst p95 {q['worst_p95_ms']:.0f} ms"
                      + (f" (on the lake: {q['lake_worst_p95_ms']:.0f} ms)"
                         if q.get("lake_worst_p95_ms") is not None else "")]
            for x in sorted(q["queries"], key=lambda x: -x["p95_ms"])[:8]:
                lines.append(f"  {x['page']:<11} p50 {x['p50_ms']:7.1f} ms  p95 "
                             f"{x['p95_ms']:7.1f} ms  {x['sql'][:60]}")
    for name, p in r.get("peers", {}).items():
        if isinstance(p, dict):
            rate = p.get("moves_per_s") or p.get("actions_per_s")
            lines.append(f"peer {name}: {rate:,.0f} moves/s; ours ({engines[0]}) / theirs = "
                         f"{p['ours_over_theirs']:.2f}")
        else:
            lines.append(f"peer {name}: {p}")
    return "\n".join(lines)
