"""Helpers to write small logs in tests."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

import trickledger.dashboard
from trickledger.replay.engine import Replay, replay_bytes, verdict

# The dashboard as installed, whose pages the app registers (site-packages' after `pip
# install .`, the checkout's through src/trickledger/ after `pip install -e .`): an AppTest
# of the checkout's copy beside an installed package would mix two sets of page files.
DASHBOARD = Path(trickledger.dashboard.__file__).parent

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal"]


def header(game: str, n: int, **extra: Any) -> dict[str, Any]:
    h = {"format": "trickledger/1", "game": game, "players": NAMES[:n]}
    h.update(extra)
    return h


def log_bytes(head: dict[str, Any], events: list[dict[str, Any]]) -> bytes:
    return b"\n".join([orjson.dumps(head)] + [orjson.dumps(e) for e in events]) + b"\n"


def run(head: dict[str, Any], events: list[dict[str, Any]], name: str = "t.jsonl") -> Replay:
    return replay_bytes(log_bytes(head, events), name)


def check(head: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    return verdict(run(head, events))


def conformance_games() -> dict[str, Any]:
    """The games the conformance and clone tests check: every registered one and the example
    plugin game (examples/toy_high_card; its tests register it with the `toy_game`
    fixture)."""
    import toy_high_card

    from trickledger.replay.registry import registry

    return {**registry(), toy_high_card.NAME: toy_high_card.INFO}


def configs() -> list[tuple[str, int, tuple[str, ...]]]:
    """Every game of `conformance_games`, every table size, each variant on its own."""
    out = []
    for name, info in sorted(conformance_games().items()):
        for n in range(info.min_players, info.max_players + 1):
            out.append((name, n, ()))
        for v in info.variants:
            out.append((name, info.min_players + 1 if info.max_players > info.min_players
                        else info.min_players, (v,)))
        for e in info.editions[1:]:
            out.append((name, info.max_players, ("edition:" + e,)))
    return out


def header_for(game: str, n: int, options: tuple[str, ...], seed: int) -> dict[str, Any]:
    """A header of `game` for `n` players with `options` (variants, "edition:NAME") and the
    game's random setup from `seed`."""
    import random

    info = conformance_games()[game]
    h: dict[str, Any] = {"format": "trickledger/1", "game": game, "players": NAMES[:n]}
    variants = [o for o in options if not o.startswith("edition:")]
    if variants:
        h["variants"] = variants
    for o in options:
        if o.startswith("edition:"):
            h["edition"] = o.split(":", 1)[1]
    h.update(info.state_class.random_setup(random.Random(seed), n))
    if game == "rage":
        h["rounds"] = 3  # the rules are the same in every round; keep the test quick
    return h


def toy_games(k: int) -> list[tuple[str, bytes]]:
    """`k` simulated games of the example plugin game (examples/toy_high_card), as (file
    name, bytes), with claims, some of them wrong."""
    import toy_high_card

    from trickledger.replay.simulate import SimOptions, simulate_one

    opts = SimOptions(game=toy_high_card.NAME, games=k, players=(2, 4), bots=("greedy", "random"),
                      claims=True, wrong_claims=0.2, seed=4)
    return [simulate_one(opts, i)[:2] for i in range(k)]


# Score sheets (docs/format.md, "Score sheets") of two rounds: rage with plus_minus_one, and
# under_the_radar; each verifies as complete.
RAGE_SHEET = (header("rage", 3, rounds=2, variants=["plus_minus_one"]), [
    {"type": "sheet", "round": 1, "players": {
        "Ann": {"bid": 4, "won": 4, "plus5": 1}, "Ben": {"bid": 3, "won": 5, "minus5": 1},
        "Cat": {"bid": 2, "won": 1}}},
    {"type": "sheet", "round": 2, "players": {
        "Ann": {"bid": 2, "won": 2}, "Ben": {"bid": 4, "won": 3, "plus5": 2},
        "Cat": {"bid": 4, "won": 4, "minus5": 1}}},
])
RADAR_SHEET = (header("under_the_radar", 4, rounds=2), [
    {"type": "sheet", "round": 1, "players": {
        "Ann": {"taken": 3}, "Ben": {"taken": 5}, "Cat": {"taken": 0}, "Dan": {"taken": 2}}},
    {"type": "sheet", "round": 2, "players": {
        "Ann": {"taken": 1}, "Ben": {"taken": 2}, "Cat": {"taken": 4}, "Dan": {"taken": 3}}},
])


def run_cli(*args: str) -> Any:
    """`python -m trickledger ARGS...` in a process of its own, from the checkout's root:
    the finished process (its exit status, standard output and error as text)."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "trickledger", *args], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[1])


def logs_of_each_status(folder: Path, good_log: Path) -> tuple[Path, Path, Path]:
    """Three files in `folder`: a copy of `good_log` (a complete move log of plotters), an
    illegal game (another id, its first take misspelt) and junk."""
    good = folder / "good.jsonl"
    good.write_bytes(good_log.read_bytes())
    illegal = folder / "illegal.jsonl"
    head, rest = good_log.read_bytes().split(b"\n", 1)
    other_id = orjson.dumps({**orjson.loads(head), "id": "another-game"})
    illegal.write_bytes(other_id + b"\n" + rest.replace(b'"type":"take"', b'"type":"tak"', 1))
    junk = folder / "junk.jsonl"
    junk.write_bytes(b"junk")
    return good, illegal, junk


def fill_hands(deck: list[str], n: int, size: int, fixed: dict[str, list[str]],
               players: list[str] | None = None) -> dict[str, list[str]]:
    """Hands of `size` cards: `fixed` cards first, the rest of `deck` dealt round-robin."""
    players = players or NAMES[:n]
    used = {c for cards in fixed.values() for c in cards}
    rest = [c for c in deck if c not in used]
    hands = {p: list(fixed.get(p, [])) for p in players}
    i = 0
    for p in players:
        while len(hands[p]) < size:
            hands[p].append(rest[i])
            i += 1
    return hands


def assert_illegal(v: dict[str, Any], line: int, *words: str) -> None:
    assert v["status"] == "illegal", v
    assert v["error"]["line"] == line, v["error"]
    for w in words:
        assert w in v["error"]["message"], (w, v["error"]["message"])


# How often a test's wait for a condition in the page checks it: playwright's default is every
# animation frame, and a check that reads the page's text lays it out each time, so a
# browser waiting on a loaded machine spent its CPU on waiting
POLL_MS = 50
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def dashboard_database(path: str) -> Iterator[str]:
    """Point the dashboard's data module at the database `path` (for AppTest runs in this
    process), with its caches emptied before and after."""
    import os

    from trickledger.dashboard.data import access, viewer

    old = os.environ.get("TRICKLEDGER_DB")
    os.environ["TRICKLEDGER_DB"] = path
    os.environ.setdefault("TRICKLEDGER_LISTEN", "127.0.0.1")  # as `trickledger dashboard`
    access.database.clear()
    access.query.clear()
    viewer.timeline.clear()
    try:
        yield path
    finally:
        access.database.clear()
        access.query.clear()
        viewer.timeline.clear()
        if old is None:
            os.environ.pop("TRICKLEDGER_DB", None)
        else:
            os.environ["TRICKLEDGER_DB"] = old


def every_page() -> dict[str, Any]:
    """Every page of the dashboard by its address: the core's (dashboard/views/NAME.py) and
    the games' (their declarations' `GameInfo.pages`), each with its file."""
    from trickledger.dashboard.game_parts import script_path
    from trickledger.replay.registry import registry

    views = DASHBOARD / "views"
    pages: dict[str, Any] = {p.stem: p for p in sorted(views.glob("*.py"))
                             if p.stem != "__init__"}
    for info in registry().values():
        for page in info.pages:
            pages[page.url_path] = script_path(page.script)
    return pages


def page_file(name: str) -> Any:
    """The file of the dashboard page at the address `name` (a core page or a game's)."""
    return every_page()[name]


def run_page(name: str, **params: str) -> Any:
    """Run the dashboard page at the address `name` (`page_file`) in Streamlit's AppTest
    with these query parameters; it must raise nothing."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(page_file(name)), default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def wait_for_health(url: str, proc: Any, limit_s: float = 180) -> bool:
    """Poll Streamlit's health endpoint until the server answers, the process ends, or a
    generous limit passes (a loaded CI machine starts slowly)."""
    import time
    import urllib.request

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.3)
    return False


@contextmanager
def dashboard_server(db: str, log_path: str, no_samples: bool = False) -> Iterator[str]:
    """`trickledger dashboard` for real on a free port; yields its URL."""
    with dashboard_process(db, log_path, no_samples) as (url, _):
        yield url


@contextmanager
def dashboard_process(db: str, log_path: str, no_samples: bool = False,
                      args: tuple[str, ...] = (), env: dict[str, str] | None = None,
                      preexec_fn: Any = None) -> Iterator[tuple[str, Any]]:
    """`trickledger dashboard` for real on a free port (with these further arguments and
    environment); yields its URL and its process (the server itself: the command becomes
    Streamlit's server by exec)."""
    import os
    import subprocess
    import sys
    root = Path(__file__).resolve().parent.parent
    port = free_port()
    log = open(log_path, "w+")
    cmd = [sys.executable, "-m", "trickledger", "dashboard", "--port", str(port), "--db", db,
           *args]
    if no_samples:
        cmd.append("--no-samples")
    proc = subprocess.Popen(cmd, cwd=root, stdout=log, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
                            preexec_fn=preexec_fn)
    url = f"http://127.0.0.1:{port}"
    up = wait_for_health(url, proc)
    try:
        if not up:
            log.seek(0)
            raise AssertionError("dashboard did not start:\n" + log.read())
        yield url, proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def visible(markdown: str) -> str:
    """What a reader sees of markdown the pages escaped (dashboard/ui.py, `md`): the
    backslashes and word joiners go."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def seat(name: str) -> int:
    """The seat of one of the test players (facts carry seats, not names)."""
    return NAMES.index(name)


def names(cards: Any) -> tuple[str, ...]:
    """Card names of a fact's cards."""
    return tuple(c.name for c in cards)


def rows(db: str | Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    """The rows of one query on a database file, read-only as the dashboard reads it
    (waiting while a writer holds the file)."""
    from trickledger.ingest.db import reading

    # `reading` makes a missing file an empty database; a test reading one made a mistake
    assert Path(db).is_file(), f"no database file {db}"
    with reading(str(db)) as con:
        return con.execute(sql, list(params)).fetchall()


def console_workers(min_cpu_ticks: int = 0) -> list[int]:
    """Live console worker processes (`python -m trickledger.ingest.console`) whose parent is this
    process; with `min_cpu_ticks`, only those that have used more CPU than that (a query
    running)."""
    import os
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[1]) == os.getpid() and stat[0] != "Z" and b"trickledger.ingest.console" in cmd and \
                int(stat[11]) + int(stat[12]) >= min_cpu_ticks:  # utime + stime, in ticks
            found.append(int(proc.name))
    return found


# A script for `python -c`: a real `trickledger ARGS...` (argv[3:]) that, after committing its
# first batch, marks the moment in the file argv[1] and waits (the run not over) until the
# file argv[2] exists: the test acts while an ingest is under way, whatever the machine's
# speed.
PAUSE_BETWEEN_BATCHES = """
import sys, time
from pathlib import Path
from trickledger.ingest.load import DatabaseWriter
real = DatabaseWriter.commit
def commit(self, tasks, dones, *rest):
    again = real(self, tasks, dones, *rest)
    if self.batches == 1:
        Path(sys.argv[1]).write_text("between batches")
        while not Path(sys.argv[2]).exists():
            time.sleep(0.05)
    return again
DatabaseWriter.commit = commit
from trickledger import main
raise SystemExit(main(sys.argv[3:]))
"""


def pause_in_batch(batch: int) -> str:
    """A script for `python -c`: a real `trickledger ARGS...` (argv[2:]) whose database
    writer, in batch `batch`'s transaction (after the `players` rows are in), marks the
    moment in the file argv[1] and waits there to be killed. The pause is patched in by the
    test; the product has no test hooks."""
    return f"""
import sys, time
from pathlib import Path
from trickledger.ingest.load import DatabaseWriter
real = DatabaseWriter.insert
def insert(self, con, table, files):
    real(self, con, table, files)
    if self.batches + 1 == {batch} and table == "players":
        Path(sys.argv[1]).write_text("mid-batch")
        time.sleep(3600)
DatabaseWriter.insert = insert
from trickledger import main
raise SystemExit(main(sys.argv[2:]))
"""


def pip_target(folder: Path, spec: str) -> Path:
    """`spec` installed from the package index into `folder` (for PYTHONPATH), without its
    dependencies."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                           "--disable-pip-version-check", "--target", str(folder), spec],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


# ------------------------------------------------------ the reference max^n (native tests)
# The judge's solution concept written plainly: every seat maximises its own score, the
# moves tied for best (within TIE) averaged, a chance event averaged over its outcomes.
# Walked exhaustively on small endgames only.

TIE = 1e-9


class TooLarge(Exception):
    pass


def reference(state: Any, round_no: int, sign: int, left: list[int]) -> tuple[float, ...]:
    left[0] -= 1
    if left[0] < 0:
        raise TooLarge
    chance = state.next_chance()
    if state.is_over() or chance == "deal":
        return tuple(float(x) for x in state.rounds[-1].scores)
    if chance is not None:
        from collections import Counter

        pile = Counter(c.name for c in state.pile())  # type: ignore[attr-defined]
        total = sum(pile.values())
        acc = [0.0] * state.n
        for name, copies in pile.items():
            v = reference(after(state, {"type": chance, "card": name}), round_no, sign, left)
            for i in range(state.n):
                acc[i] += copies * v[i]
        return tuple(a / total for a in acc)
    seat = state.seat[str(state.to_move())]
    values = [reference(after(state, m), round_no, sign, left) for m in state.choices()]
    best = max(sign * v[seat] for v in values)
    tied = sorted(v for v in values if sign * v[seat] >= best - TIE)
    return tuple(sum(v[i] for v in tied) / len(tied) for i in range(state.n))


def after(state: Any, move: dict[str, Any]) -> Any:
    branch = state.clone()
    from trickledger.replay.events import Event

    branch.apply(Event(0, str(move["type"]), move))
    return branch


def killed_at_marker(script_args: Sequence[str], marker: Path, deadline_s: float) -> int:
    """`python -c *script_args`, from the checkout, killed with SIGKILL the moment it has
    written `marker` (the instant the test wants it to die), in a TMPDIR of its own;
    returns its exit status once reaped. A script that ends or hangs before its marker
    fails the test with what it printed. `deadline_s` is a safety net only: the marker is
    the condition."""
    import signal
    import subprocess
    import sys
    import time

    with temp_of_its_own() as env:
        proc = subprocess.Popen([sys.executable, "-c", *script_args],
                                cwd=Path(__file__).resolve().parents[1],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + deadline_s
            while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if not marker.exists():
                proc.kill()
                raise AssertionError(proc.communicate()[0].decode())
            assert proc.poll() is None, "it ended at its marker"  # alive, where it paused
            proc.send_signal(signal.SIGKILL)
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(60)
            if proc.stdout is not None:
                proc.stdout.close()
    return proc.returncode


@contextmanager
def temp_of_its_own() -> Iterator[dict[str, str]]:
    """An environment for a process the test will kill with SIGKILL: its TMPDIR is a folder
    of its own, removed afterwards. A killed process cannot clean up its temporary files
    (multiprocessing's pymp-* folders, a forkserver's socket); they go with this folder
    rather than staying in the machine's /tmp. The folder's path is short: a Unix
    socket's path must fit in 107 bytes."""
    import os
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="tl-")
    try:
        yield {**os.environ, "TMPDIR": folder}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
