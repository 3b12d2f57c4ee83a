"""Every dashboard page at scale: how long each takes to settle in a browser, and the
heaviest query behind it (a benchmark, not a test: the figures depend on the machine).

    python -m bench.pages [--sizes 20000,100000] [--work DIR] [--visits 2]
                          [--screenshots DIR] [--out FILE] [--skip-ingest]

For each size N it simulates N games (a quarter of each game; seeded, so the same command
writes the same logs: every size's logs are the first N/4 of each game's, generated once),
loads them into a fresh database with `trickledger ingest` (then `trickledger analyse
--no-hands`, as docs/performance.md advises after a load), starts `trickledger dashboard`
on it, and opens every page in headless Chromium, in a fresh browser context per visit,
timing from the request until the page is idle: Streamlit's script has run to its end and
every chart is drawn. The first visit meets the server's caches cold, the next ones warm;
a fresh context also loads the app's JavaScript anew (plotly's among it), as a visitor's
first visit does. Then every page once more in one context that has opened the dashboard
before ("moving on": a visitor going from page to page). Then each page runs once more in-
process (Streamlit's AppTest) with every query it asks recorded, and each query is timed
again on a read-only connection of its own: the slowest is the page's heaviest query.
Also: the database's size on disk after the load, and the load's time. Prints a table and
the load average before and after; `--out FILE` writes the results as JSON.

Run it from the checkout's root with the installed (compiled) trickledger, on a quiet
machine for figures to keep. Needs Debian's chromium and playwright (the `test` extra).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
GAMES = ("plotters", "rage", "color_stacks", "under_the_radar")
SEED = 36
# what a club's history looks like: score sheets with a few wrong claims, a few illegal logs
SIMULATE = ["--claims", "--wrong-claims", "0.01", "--illegal", "0.005", "--variants", "random"]
IDLE = ("() => { const app = document.querySelector(\"[data-testid='stApp']\");"
        " if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;"
        " if (document.querySelector(\"[data-testid='stSkeleton']\")) return false;"
        " const charts = document.querySelectorAll(\"[data-testid='stPlotlyChart']\");"
        " for (const c of charts) { if (!c.querySelector('svg.main-svg')) return false; }"
        " return true; }")
PATIENCE_MS = 600_000


def pages(player: str, game_id: str) -> dict[str, tuple[str, str]]:
    """page -> (path and query, its title), every page a visitor opens."""
    return {
        "overview": ("", "Overview"), "splits": ("splits", "Splits"),
        "early_ends": ("early_ends", "Early ends"), "bidding": ("bidding", "Bidding"),
        "results": ("results", "Results"), "ratings": ("ratings", "Ratings"),
        "head_to_head": (f"head_to_head?player={player}", "Head-to-head"),
        "seats": ("seats", "Seat effects"), "decisions": ("decisions", "Decisions"),
        "player": (f"player?player={player}", "Player"),
        "viewer": (f"viewer?game={game_id}&round=2&trick=3", "Game viewer"),
        "verify": ("verify", "Verify a log"), "upload": ("upload", "Upload logs"),
        "sheet": ("sheet", "Score sheet"), "sql": ("sql", "SQL console"),
    }


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def trickledger(*args: str) -> list[str]:
    return [sys.executable, "-m", "trickledger", *args]


def corpus(work: Path, size: int) -> Path:
    """The first size/4 logs of each game in a folder of their own (hard links into the
    one generated corpus, made as large as the largest size asked for)."""
    per_game = size // len(GAMES)
    folder = work / f"corpus-{size}"
    if folder.exists() and sum(1 for _ in folder.rglob("*.jsonl")) == per_game * len(GAMES):
        return folder
    shutil.rmtree(folder, ignore_errors=True)
    for game in GAMES:
        base = work / "logs" / game
        have = sorted(base.glob("*.jsonl")) if base.exists() else []
        if len(have) < per_game:
            # a first run writes them all; a run stopped half-way is topped up with games
            # of a seed and id prefix of their own, named to sort after the first ones
            top_up = ["--seed", str(SEED + len(have)), "--id-prefix", f"{game}-topup"] \
                if have else ["--seed", str(SEED)]
            extra = ["--edition", "mixed"] if game == "plotters" else []
            more = base / ".more" if have else base
            shutil.rmtree(more, ignore_errors=True)
            subprocess.run(trickledger("simulate", "--game", game, "--games",
                                       str(per_game - len(have)), *top_up, *SIMULATE,
                                       *extra, "--out", str(more)), check=True, cwd=work)
            if have:
                for path in more.glob("*.jsonl"):
                    path.rename(base / path.name)
                more.rmdir()
            have = sorted(base.glob("*.jsonl"))
        (folder / game).mkdir(parents=True)
        for path in have[:per_game]:  # the same seed: the first logs are the same games
            os.link(path, folder / game / path.name)
    return folder


def load(work: Path, size: int) -> dict[str, Any]:
    """A fresh database of `size` logs; the load's time and the file's size."""
    logs = corpus(work, size)
    db = work / f"games-{size}.duckdb"
    for leftover in (db, Path(f"{db}.wal")):
        leftover.unlink(missing_ok=True)
    t0 = time.perf_counter()
    done = subprocess.run(trickledger("ingest", str(logs), "--db", str(db)), cwd=work,
                          capture_output=True, text=True)
    ingest_s = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"ingest of {size} failed:\n{done.stderr[-3000:]}")
    t0 = time.perf_counter()
    subprocess.run(trickledger("analyse", "--no-hands", "--db", str(db)), cwd=work,
                   check=True, capture_output=True)
    analyse_s = time.perf_counter() - t0
    return {"db": str(db), "logs": size, "ingest_s": round(ingest_s, 1),
            "analyse_ratings_s": round(analyse_s, 1),
            "db_bytes": db.stat().st_size,
            "summary": done.stdout.strip().splitlines()[0] if done.stdout else ""}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_dashboard(db: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(trickledger("dashboard", "--db", db, "--no-samples", "--port",
                                        str(port)), cwd=ROOT, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    while proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as r:
                if r.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the dashboard ended before it answered (see {log})")


def sample_ids(db: str) -> tuple[str, str]:
    """A player who played much, and a finished plotters game, to open the pages on."""
    import duckdb

    with duckdb.connect(db, read_only=True) as con:
        player = con.execute("SELECT player FROM players GROUP BY player "
                             "ORDER BY count(*) DESC, player LIMIT 1").fetchone()
        game = con.execute("SELECT game_id FROM games WHERE game = 'plotters' AND status = "
                           "'complete' ORDER BY game_id LIMIT 1").fetchone()
    return (player[0] if player else "Ann"), (game[0] if game else "")


def browse(url: str, visits: int, player: str, game_id: str,
           shots: Path | None) -> dict[str, list[float]]:
    """Seconds to idle per page and visit (a fresh browser context each time)."""
    from playwright.sync_api import sync_playwright

    times: dict[str, list[float]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=CHROMIUM_ARGS)
        for visit in range(visits):
            for name, (path, title) in pages(player, game_id).items():
                width = 1400
                context = browser.new_context(viewport={"width": width, "height": 1000})
                page = context.new_page()
                t0 = time.perf_counter()
                page.goto(f"{url}/{path}", wait_until="domcontentloaded")
                page.get_by_role("heading", name=title).first.wait_for(timeout=PATIENCE_MS)
                page.wait_for_function(IDLE, timeout=PATIENCE_MS, polling=50)
                times.setdefault(name, []).append(round(time.perf_counter() - t0, 3))
                print(f"  visit {visit + 1}: {name:<13} {times[name][-1]:6.2f} s (load "
                      f"{load_average()[0]})", flush=True)  # a slow run shows where it is
                if shots is not None and visit == visits - 1:
                    shots.mkdir(parents=True, exist_ok=True)
                    for shot_width in (1400, 390):
                        screenshot(page, shot_width, shots / f"{name}-{shot_width}.png")
                context.close()
        browser.close()
    return times


def browse_on(url: str, player: str, game_id: str) -> dict[str, float]:
    """Seconds to idle per page as a visitor moving from page to page meets it: one browser
    context, which has opened the dashboard once already (its cache holds the app's
    JavaScript, plotly's 4.7 MB among it, as a returning visitor's browser does), each page
    opened by its address in turn."""
    from playwright.sync_api import sync_playwright

    times: dict[str, float] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        visits = list(pages(player, game_id).values())
        for path, title in [visits[0], *visits]:  # the first, untimed: the browser's cache
            t0 = time.perf_counter()
            page.goto(f"{url}/{path}", wait_until="domcontentloaded")
            page.get_by_role("heading", name=title).first.wait_for(timeout=PATIENCE_MS)
            page.wait_for_function(IDLE, timeout=PATIENCE_MS, polling=50)
            times[path] = round(time.perf_counter() - t0, 3)
        context.close()
        browser.close()
    by_name = {name: times[path] for name, (path, _) in pages(player, game_id).items()}
    for name, secs in by_name.items():
        print(f"  moving on:   {name:<13} {secs:6.2f} s (load {load_average()[0]})", flush=True)
    return by_name


def screenshot(page: Any, width: int, path: Path) -> None:
    """The whole page at `width` px: Streamlit scrolls its main block inside the window, so
    the window is made as tall as that block (a full-page shot would stop at the fold)."""
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(300)  # plotly redraws at the new width
    page.wait_for_function(IDLE, timeout=PATIENCE_MS, polling=50)
    tall = page.evaluate("() => { const m = document.querySelector(\"[data-testid='stMain']\")"
                         " || document.body; return m.scrollHeight; }")
    page.set_viewport_size({"width": width, "height": min(max(int(tall), 900), 16000)})
    page.wait_for_timeout(300)
    page.wait_for_function(IDLE, timeout=PATIENCE_MS, polling=50)
    page.screenshot(path=str(path))


def seen_by(into: list[tuple[str, tuple[Any, ...]]]) -> Any:
    """An observer of the pages' queries that keeps each (sql, params) in `into`."""
    def observe(sql: str, params: tuple[Any, ...]) -> None:
        into.append((sql, params))
    return observe


def heaviest_queries(db: str, player: str, game_id: str) -> dict[str, dict[str, Any]]:
    """Each page run once in-process with its queries recorded, then every query timed
    alone on a read-only connection (the best of two): the slowest per page, and the sum."""
    import duckdb
    from streamlit.testing.v1 import AppTest

    os.environ["TRICKLEDGER_DB"] = db
    os.environ.setdefault("TRICKLEDGER_LISTEN", "127.0.0.1")
    from trickledger import dashboard
    from trickledger.dashboard.data import access
    from trickledger.dashboard.game_parts import script_path
    from trickledger.replay.registry import registry

    out: dict[str, dict[str, Any]] = {}
    views = Path(dashboard.__file__).resolve().parent / "views"
    # a game's pages (splits, bidding...) are its declaration's scripts, not views/
    scripts = {page.url_path: script_path(page.script)
               for info in registry().values() for page in info.pages}
    for name, (path, _) in pages(player, game_id).items():
        if name in ("verify", "upload", "sheet"):
            continue  # forms: no query until something is given
        script = scripts.get(name, views / f"{name}.py")
        seen: list[tuple[str, tuple[Any, ...]]] = []
        access.query.clear()
        at = AppTest.from_file(str(script), default_timeout=PATIENCE_MS / 1000)
        if "?" in path:
            for pair in path.split("?", 1)[1].split("&"):
                k, v = pair.split("=", 1)
                at.query_params[k] = v
        with access.observe_queries(seen_by(seen)):
            at.run()
        timed = []
        with duckdb.connect(db, read_only=True) as con:
            for sql, params in dict.fromkeys(seen):
                best = float("inf")
                for _ in range(2):
                    t0 = time.perf_counter()
                    con.execute(sql, list(params)).fetchall()
                    best = min(best, time.perf_counter() - t0)
                timed.append((best, sql))
        timed.sort(reverse=True)
        top = timed[0] if timed else (0.0, "")
        out[name] = {"queries": len(timed), "sum_s": round(sum(t for t, _ in timed), 3),
                     "heaviest_s": round(top[0], 3),
                     "heaviest": " ".join(top[1].split())[:160]}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.pages", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="20000,100000",
                    help="games per database, comma-separated (default 20000,100000)")
    ap.add_argument("--work", default=str(ROOT / "bench" / "corpus" / "pages"),
                    help="folder for the logs and databases (default bench/corpus/pages)")
    ap.add_argument("--visits", type=int, default=2,
                    help="visits of every page (the first meets cold caches; default 2)")
    ap.add_argument("--skip-ingest", action="store_true",
                    help="reuse the databases a previous run made in --work")
    ap.add_argument("--screenshots", default=None, metavar="DIR",
                    help="also save every page at 1400 and 390 px wide (last visit)")
    ap.add_argument("--out", default=None, metavar="FILE", help="write the results as JSON")
    args = ap.parse_args(argv)
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    from trickledger import version_text

    results: dict[str, Any] = {"engine": version_text(), "load_before": load_average(),
                               "sizes": {}}
    print(f"{version_text()}; load average {results['load_before']}", flush=True)
    for size in [int(s) for s in args.sizes.split(",") if s.strip()]:
        db = work / f"games-{size}.duckdb"
        if args.skip_ingest and db.exists():
            loaded: dict[str, Any] = {"db": str(db), "logs": size,
                                      "db_bytes": db.stat().st_size}
        else:
            loaded = load(work, size)
        print(f"{size:,} games: {loaded}", flush=True)
        player, game_id = sample_ids(str(db))
        proc, url = start_dashboard(str(db), work / f"dashboard-{size}.log")
        try:
            shots = Path(args.screenshots) / str(size) if args.screenshots else None
            times = browse(url, args.visits, player, game_id, shots)
            moving_on = browse_on(url, player, game_id)
        finally:
            proc.terminate()
            proc.wait(60)
        queries = heaviest_queries(str(db), player, game_id)
        rows = {}
        for name, secs in times.items():
            q = queries.get(name, {})
            rows[name] = {"first_s": secs[0], "later_s": statistics.median(secs[1:] or secs),
                          "moving_on_s": moving_on.get(name), **q}
            print(f"  {name:<13} first {secs[0]:6.2f} s  later "
                  f"{statistics.median(secs[1:] or secs):6.2f} s  moving on "
                  f"{moving_on.get(name, 0):6.2f} s  queries "
                  f"{q.get('queries', 0):>3} (sum {q.get('sum_s', 0):.2f} s, heaviest "
                  f"{q.get('heaviest_s', 0):.2f} s: {q.get('heaviest', '')[:70]})", flush=True)
        results["sizes"][str(size)] = {**loaded, "pages": rows, "load": load_average()}
    results["load_after"] = load_average()
    print(f"load average {results['load_after']}")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
