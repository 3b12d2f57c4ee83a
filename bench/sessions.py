"""Many browser sessions against one dashboard while an ingest writes: a load run that
reports figures (it is not a test: how long pages take depends on the machine).

    python -m bench.sessions [--sessions 20] [--games 150] [--out FILE]

Starts `trickledger dashboard` on a database loaded with the sample logs, simulates
`--games` rage games, then opens `--sessions` headless-Chromium pages at once (each one
page of five) while `trickledger ingest` loads the new games from another process. Prints
how many pages finished without an error box, their median and p95 time, and what the
ingest said. Needs Debian's chromium and playwright (the `test` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
VIEWS = ["overview", "bidding", "results", "early_ends", "splits"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def trickledger(*args: str) -> list[str]:
    return [sys.executable, "-m", "trickledger", *args]


def wait_for_health(url: str, proc: subprocess.Popen[bytes]) -> None:
    while proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"the dashboard ended before it answered (exit {proc.returncode})")


async def sessions(url: str, n: int, chromium: str) -> tuple[list[float], list[str]]:
    from playwright.async_api import async_playwright

    times: list[float] = []
    failures: list[str] = []

    async def one(browser: object, k: int) -> None:
        page = await browser.new_page()  # type: ignore[attr-defined]
        page.set_default_timeout(0)  # a load run measures; it does not give up
        view = VIEWS[k % len(VIEWS)]
        t = time.perf_counter()
        await page.goto(f"{url}/{view}", wait_until="domcontentloaded")
        await page.locator("h1").first.wait_for()
        await page.locator("[data-testid='stPlotlyChart']").first.wait_for()
        await page.locator("[data-testid='stStatusWidget']").wait_for(state="hidden")
        times.append(time.perf_counter() - t)
        for box in ("stException", "stAlertContentError"):
            if await page.locator(f"[data-testid='{box}']").count():
                failures.append(f"{view}: {box}")
        await page.close()

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            await asyncio.gather(*(one(browser, k) for k in range(n)))
        finally:
            await browser.close()
    return times, failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.sessions", description=__doc__)
    ap.add_argument("--sessions", type=int, default=20)
    ap.add_argument("--games", type=int, default=150)
    ap.add_argument("--out", help="also write the figures as JSON to this file")
    args = ap.parse_args(argv)
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "busy.duckdb")
        extra = os.path.join(tmp, "extra")
        subprocess.run(trickledger("ingest", "--db", db, str(ROOT / "sample_logs")),
                       cwd=ROOT, check=False, capture_output=True)
        subprocess.run(trickledger("simulate", "--game", "rage", "--games", str(args.games),
                                   "--seed", "11", "--out", extra), cwd=ROOT, check=True,
                       capture_output=True)
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        with open(os.path.join(tmp, "server.log"), "w") as log:
            server = subprocess.Popen(trickledger("dashboard", "--port", str(port), "--db", db,
                                                  "--no-samples"),
                                      cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
            try:
                wait_for_health(url, server)
                writer = subprocess.Popen(trickledger("ingest", "--db", db, "--batch", "50",
                                                      "--jobs", "1", extra),
                                          cwd=ROOT, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True)
                times, failures = asyncio.run(sessions(url, args.sessions, chromium))
                out, err = writer.communicate()
            finally:
                server.terminate()
                server.wait()
    result = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python "
                   f"{platform.python_version()}",
        "sessions": args.sessions, "finished": len(times), "errors": failures,
        "median_s": round(statistics.median(times), 2) if times else None,
        "p95_s": round(statistics.quantiles(times, n=20)[-1], 2) if len(times) > 1 else None,
        "ingest_exit": writer.returncode,
        "ingest_said": (out.strip().splitlines() or [""])[-1],
    }
    print(json.dumps(result, indent=2))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if not failures and writer.returncode in (0, 1) else 1


if __name__ == "__main__":
    raise SystemExit(main())
