import gc
import os
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
# the example plugin game (examples/toy_high_card): the fast tests import it from the
# checkout; tests/system/test_plugin_game.py installs it as a user would
sys.path.insert(0, str(ROOT / "examples" / "toy_high_card"))

# After an editable install (the engine interpreted), tests/build/test_engines.py runs the tests
# of the compiled modules once more in a subprocess, against the compiled engine installed
# into a folder of its own: that folder goes first, and the run refuses to start unless the
# engine imported from it really is compiled.
ENGINE_PATH = os.environ.get("TRICKLEDGER_ENGINE_PATH")
if ENGINE_PATH:
    sys.path.insert(0, ENGINE_PATH)


# The suite in two speeds. Each folder holds one kind of test and carries its marker:
#   fast      rules/, format/, units/: the games' rules, conformance, the format, score
#             sheets, units (`python -m pytest -m fast`, well under a minute)
#   system    system/: real DuckDB files, processes, the Streamlit app (AppTest)
#   browser   browser/: the real dashboard server in headless Chromium
#   compiled  build/: builds the wheel with mypyc and tests what it installs
# `cluster` marks the system tests that start a Dask cluster. The README's command runs all.
FOLDER_MARKERS = {"rules": "fast", "format": "fast", "units": "fast", "system": "system",
                  "browser": "browser", "build": "compiled"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        folder = Path(str(item.fspath)).parent.name
        marker = FOLDER_MARKERS.get(folder)
        if marker is None:
            raise pytest.UsageError(f"{item.nodeid}: a test belongs in one of the folders "
                                    f"{', '.join(FOLDER_MARKERS)} (tests/conftest.py)")
        item.add_marker(getattr(pytest.mark, marker))
        if {"cluster", "clustered"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.cluster)
    schedule(items, grouped=config.pluginmanager.hasplugin("xdist"))


# a test's typical seconds in a parallel run here, by folder: what orders the modules
WEIGHTS = {"fast": 0.1, "system": 2.0, "browser": 20.0, "compiled": 10.0}


def schedule(items: list[pytest.Item], grouped: bool) -> None:
    """The order in which pytest-xdist hands out the tests (pyproject.toml: `--dist loadgroup
    --no-loadscope-reorder`). The tests of one module go to one process together, in their
    order, so that the module's fixtures (a corpus loaded three ways, a Dask cluster, a
    server) are built once, not once per process; a test marked `long(minutes)` goes alone.
    The long tests go first, the longest first, then the modules, the heaviest first (by
    their tests' typical weight, WEIGHTS): every process starts on a long one, and the run
    ends on small modules instead of waiting for one process to finish a large one. (Handed
    out one by one, the tests of test_scale.py built its three loads and its cluster in
    every process: two minutes of the run's CPU.)"""
    minutes = {item: minutes_of(item) for item in items}
    module = {item: item.nodeid.split("::")[0] for item in items}
    tests_in: dict[str, float] = {}
    for item in items:
        if minutes[item] == 0:
            weight = WEIGHTS[FOLDER_MARKERS[Path(module[item]).parent.name]]
            tests_in[module[item]] = tests_in.get(module[item], 0) + weight
            if grouped:  # the group's name is the module's (test file names are unique)
                item.add_marker(pytest.mark.xdist_group(Path(module[item]).stem))
    # sorted() is stable: a module's tests keep their order
    items.sort(key=lambda item: (-minutes[item], -tests_in.get(module[item], 0), module[item]))


class _GroupsNamed:
    """pytest-xdist's loadgroup names a test's group by appending it to the test's id
    (`item._nodeid`), which pytest 9.2 no longer reads (the id is `item._id`): the groups
    came to nothing and every test was handed out alone. This plugin, called after
    pytest-xdist's hook, appends the name where this pytest reads it; where neither works the
    run goes on ungrouped (slower, the same tests) and says so."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        if not getattr(config.option, "loadgroup", False):  # a process of an xdist run
            return
        lost = 0
        for item in items:
            names = sorted({str(m.args[0]) for m in item.iter_markers("xdist_group")})
            suffix = "@" + "_".join(names)
            if not names or item.nodeid.endswith(suffix):
                continue
            ident = getattr(item, "_id", None)
            if ident is not None and hasattr(type(ident), "parse"):
                item._id = type(ident).parse(item.nodeid + suffix)
            lost += not item.nodeid.endswith(suffix)
        if lost:
            warnings.warn(f"{lost} tests are handed out one by one: pytest-xdist's groups are "
                          f"not named in this pytest's test ids (tests/conftest.py)",
                          stacklevel=1)


def minutes_of(item: pytest.Item) -> float:
    """A long test's minutes (the `long` marker's argument, 1 by default); 0 for the rest."""
    marker = item.get_closest_marker("long")
    if marker is None:
        return 0.0
    return float(marker.args[0]) if marker.args else 1.0


# The game registry is the process's: a test that registers a game (the example plugin game,
# a variant of it) does so through `toy_game` or `register_game`, and the game is taken out
# again when the test ends (replay.registry.registered), so that no other test sees it (a
# `toy_boasts` table in the golden snapshot's database, a fifth game in a list of games).
# `_registry_restored` checks it after every test: a game a test left registered fails that
# test, named, and is taken out.


@pytest.fixture
def register_game():
    """`register_game(info)` registers a game for this test only; returns the info."""
    from contextlib import ExitStack

    from trickledger.replay.registry import registered

    with ExitStack() as stack:
        def register(info):
            stack.enter_context(registered(info))
            return info

        yield register


@pytest.fixture
def toy_game(register_game):
    """The example plugin game (examples/toy_high_card) registered for this test only, as
    its `trickledger.games` entry point registers it; yields its module."""
    import toy_high_card

    register_game(toy_high_card.INFO)
    return toy_high_card


@pytest.fixture(autouse=True)
def _main_module_restored():
    """Streamlit's AppTest runs a page as the module `__main__` and leaves it there: a
    process started by spawn or forkserver afterwards (Dask's workers, a process pool) runs
    the page's temporary script again and dies (`Nanny failed to start`, for the cluster
    tests after a test of a page made from a function)."""
    main = sys.modules.get("__main__")
    yield
    if main is not None and sys.modules.get("__main__") is not main:
        sys.modules["__main__"] = main


@pytest.fixture(autouse=True)
def _registry_restored(request):
    from trickledger.replay import registry

    before = dict(registry.registry())
    yield
    left = sorted(n for n, i in registry._REGISTRY.items() if before.get(n) is not i)
    if left:
        registry._restore(before)
        pytest.fail(f"{request.node.nodeid} left the game(s) {', '.join(left)} registered: "
                    f"register a game in a test through the toy_game or register_game "
                    f"fixture (tests/conftest.py)", pytrace=False)


# Every process this run starts must end with it (issue 27: killed ingests left their
# forkservers, resource trackers and workers running). A process is known as the run's by a
# token in its environment, which every process started from the run inherits however it
# is orphaned later; its parent may be long gone. At the end of the session each one left
# fails the run, named, and is killed.
SESSION_TOKEN = "TRICKLEDGER_TEST_SESSION"
# a safety net for processes that are ending; the check is a condition (the test of the
# check itself shortens it: its leftover never ends)
LEFTOVER_GRACE_S = float(os.environ.get("TRICKLEDGER_LEFTOVER_GRACE_S", "120"))


def _run_processes(token: str) -> dict[int, str]:
    """pid -> command line of every live process that carries this run's token."""
    me = os.getpid()
    wanted = f"{SESSION_TOKEN}={token}".encode()
    found: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if wanted not in f.read().split(b"\0"):
                    continue
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        fields = stat[stat.rindex(b")") + 2:].split()
        state, ppid = fields[0], int(fields[1])
        if state in (b"Z", b"X"):  # already ended, waiting to be reaped
            continue
        # this process's own multiprocessing helpers end with it (their pipes close)
        if ppid == me and ("multiprocessing.forkserver import main" in cmd
                           or "multiprocessing.resource_tracker import main" in cmd):
            continue
        found[pid] = cmd
    return found


def _release_cached_consoles() -> None:
    """The dashboard's console, made in this process by the AppTest runs, keeps a spare
    worker until it is cleared (as a server clears it when it stops): cleared here, before
    the processes are counted, not at this process's exit."""
    import gc

    console = sys.modules.get("trickledger.dashboard.data.console")
    clear = getattr(getattr(console, "server_console", None), "clear", None)
    if callable(clear):
        clear()
    recordings = sys.modules.get("trickledger.dashboard.data.recordings")
    recorder = getattr(recordings, "_recorder", None)  # the Record page's writer worker
    if recorder is not None:
        recorder.clear()
    if "streamlit" in sys.modules:
        import streamlit as st

        st.cache_resource.clear()
    gc.collect()


def _xdist_worker(config) -> bool:
    """A worker of a parallel run (pytest-xdist): its processes are counted by the run that
    started it, whose token it keeps."""
    return hasattr(config, "workerinput")


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session):
    # Streamlit collects garbage after every run of a page, AppTest's too: a full collection
    # walked the few hundred thousand objects that the libraries and test modules made at
    # import (about 0.1 s a run). Frozen once collected, they are out of its sight; what the
    # tests make is collected as before.
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _ctrl_c_heard()
    if "streamlit" in sys.modules:  # imported by the first test that runs a page
        _pages_run_as_served()
        _scan_components_once()


def _ctrl_c_heard() -> None:
    """Each test starts with Ctrl-C's default action in this process. A process inherits an
    ignored SIGINT, and a test process that had come to ignore it (in a parallel run) made
    the commands the Ctrl-C tests start deaf to it: an `analyse --moves` ran to its end, an
    ingest held in a query waited for the test's time limit. The warning appears at the
    first test that finds it so: an earlier test of this process left it."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        warnings.warn("SIGINT was ignored in this test process (an earlier test left it so); "
                      "restored to its default action", stacklevel=1)
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _pages_run_as_served() -> None:
    """AppTest runs the pages with the options the server is started with."""
    from streamlit import config

    from trickledger.dashboard.commands import SCRIPT_OPTIONS

    for name, value in SCRIPT_OPTIONS.items():
        if config.get_option(name) != value:
            config.set_option(name, value)


def _scan_components_once() -> None:
    """Every new AppTest scans the metadata of every installed distribution for Streamlit
    components (streamlit.components.v2.manifest_scanner: about 0.14 s here, a sixth of the
    CPU of a module of page tests). What is installed does not change while a process runs
    its tests, so one scan per process and sys.path serves them all. Done once Streamlit is
    imported (by the first test that runs a page), so that processes without pages do not
    import it for this."""
    scanner = sys.modules.get("streamlit.components.v2.manifest_scanner")
    if scanner is None:
        try:
            import streamlit.components.v2.manifest_scanner as scanner
        except ImportError:  # a Streamlit without v2 components: nothing to spare
            return
    scan = scanner.scan_component_manifests
    if getattr(scan, "_once", False):
        return
    found: dict[tuple[str, ...], Any] = {}

    def once(max_workers: int | None = None) -> Any:
        key = tuple(sys.path)
        if key not in found:
            found[key] = scan(max_workers)
        return list(found[key])

    once._once = True  # type: ignore[attr-defined]
    scanner.scan_component_manifests = once


def pytest_sessionfinish(session, exitstatus):
    if _xdist_worker(session.config):
        _release_cached_consoles()
        return
    token = os.environ.get(SESSION_TOKEN)
    if not token or not sys.platform.startswith("linux") or \
            session.config.getoption("collectonly"):
        return
    _release_cached_consoles()
    import signal
    import time

    deadline = time.monotonic() + LEFTOVER_GRACE_S
    left = _run_processes(token)
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = _run_processes(token)
    if not left:
        return
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    report = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"{len(left)} process(es) started by this test run outlived it (killed now):"]
    lines += [f"  {pid}: {cmd[:200]}" for pid, cmd in sorted(left.items())]
    if report is not None:
        report.write_line("\n".join(lines), red=True)
    else:
        print("\n".join(lines), file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_configure(config):
    config.pluginmanager.register(_GroupsNamed(), "trickledger-groups-named")
    # a run of its own (not a pytest run started by a test, which inherits the outer one);
    # the workers of a parallel run keep their run's token, so that the run counts every
    # process any of its tests started once they have all ended
    import uuid

    if not (_xdist_worker(config) and os.environ.get(SESSION_TOKEN)):
        os.environ[SESSION_TOKEN] = f"{os.getpid()}-{uuid.uuid4().hex}"
    want = os.environ.get("TRICKLEDGER_EXPECT_ENGINE")
    if want:
        from trickledger import replay

        got = replay.engine_build()
        if got != want:
            raise RuntimeError(f"expected the {want} engine, imported the {got} one from "
                               f"{replay.__file__}")
    _shipped_games_only()


def pytest_report_header(config):
    import trickledger

    return f"{trickledger.version_text()}, from {Path(trickledger.__file__).parent}"


def _shipped_games_only() -> None:
    """The suite runs with the games trickledger ships, whatever plugin games the
    environment has installed (the example's, say, after `pip install
    ./examples/toy_high_card`): a test that wants one registers it for itself (`toy_game`),
    and tests/system/test_plugin_game.py installs the example into processes of its own."""
    from trickledger.replay import registry

    games = registry.registry()
    shipped = {n: i for n, i in games.items() if registry.shipped(i)}
    if len(shipped) != len(games):
        registry._restore(shipped)


NOT_SOURCE = {".git", ".venv", "build", "__pycache__", ".pytest_cache", ".ruff_cache",
              ".mypy_cache", ".hypothesis"}


def skip(folder: str, names: list[str]) -> set[str]:
    """What the copy of the source leaves out: caches, builds, the bench's corpus."""
    out = {n for n in names if n in NOT_SOURCE or n.endswith((".so", ".egg-info", ".duckdb"))}
    if Path(folder) == ROOT / "bench":
        out.add("corpus")
    return out


def pip(*args: str, env: dict[str, str] | None = None) -> None:
    r = subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True,
                       env=env)
    if r.returncode:
        raise AssertionError(f"pip {' '.join(args)} failed:\n{r.stdout[-4000:]}\n{r.stderr[-4000:]}")


@contextmanager
def once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str
                 ) -> Iterator[tuple[Path, bool]]:
    """A folder made once for the whole run, however many parallel workers ask for it:
    yields the folder and whether to make it now. The first to come makes it (a failure
    leaves it unmade, and the next one tries again); the others wait for it. Each worker
    has a temporary folder of its own beside the others (popen-gwN), so the run's is their
    parent."""
    import fcntl

    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    made = shared / f"{name}.made"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        folder = shared / name
        if made.exists():
            yield folder, False
            return
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        yield folder, True
        made.touch()


def installed_compiled() -> Path | None:
    """Where this run's own trickledger is installed when it is the compiled one, as `pip
    install .` installs it (the README's test command): the folder holding the package, for
    example the virtual environment's site-packages. None when the engine runs interpreted
    (an editable install: `pip install -e .`, or a build without a C compiler)."""
    import trickledger
    from trickledger import replay

    if replay.engine_build() != "compiled":
        return None
    return Path(trickledger.__file__).parent.parent


@pytest.fixture(scope="session")
def compiled_engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package as `pip install .` installs it, with the engine compiled: this run's own
    installation when it is one (the README's test command installs the project so, and the
    whole run then tests the compiled engine); otherwise the project built as a wheel (a
    fallback to the interpreted engine is an error here) and installed into a folder of its
    own, once per run."""
    installed = installed_compiled()
    if installed is not None:
        return installed
    with once_per_run(tmp_path_factory, "compiled") as (folder, first):
        if first:
            _build_and_install(folder)
    return folder / "site"


def _build_and_install(tmp: Path) -> None:
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=skip)
    env = {**os.environ, "TRICKLEDGER_REQUIRE_COMPILED": "1",
           # a lower C optimisation level builds about twice as fast; the code is the same
           "TRICKLEDGER_MYPYC_OPT": os.environ.get("TRICKLEDGER_MYPYC_OPT", "1")}
    pip("wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp / "dist"), str(src),
        env=env)
    wheels = list((tmp / "dist").glob("trickledger-*.whl"))
    assert len(wheels) == 1 and "-any.whl" not in wheels[0].name, wheels  # a platform wheel
    pip("install", "--no-deps", "-q", "--target", str(tmp / "site"), str(wheels[0]))



@pytest.fixture(scope="session")
def no_compiler_install(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The project built as a wheel on a machine without a C or a C++ compiler (both are a
    script that fails, as a missing compiler does), installed into a folder of its own, once
    per run: the folder, and what the build said. The install succeeds, with the engine
    interpreted and no native analysis engine."""
    with once_per_run(tmp_path_factory, "no-compiler") as (folder, first):
        said = folder / "build-output.txt"
        if first:
            fake = folder / "bin" / "cc"
            fake.parent.mkdir()
            fake.write_text("#!/bin/sh\necho 'cc: this machine has no C compiler' >&2\nexit 1\n")
            fake.chmod(0o755)
            src = folder / "src"
            shutil.copytree(ROOT, src, ignore=skip)
            env = {**os.environ, "CC": str(fake), "CXX": str(fake), "LDSHARED": str(fake),
                   "LDCXXSHARED": str(fake)}
            env.pop("TRICKLEDGER_REQUIRE_COMPILED", None)
            r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                                "--no-build-isolation", "-v", "-w", str(folder / "dist"),
                                str(src)], capture_output=True, text=True, env=env)
            assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
            said.write_text(r.stdout + r.stderr)
            wheels = list((folder / "dist").glob("trickledger-*.whl"))
            assert len(wheels) == 1, wheels
            pip("install", "--no-deps", "-q", "--target", str(folder / "site"), str(wheels[0]))
    return folder / "site", said.read_text()


@pytest.fixture(scope="session")
def installed_wheel(compiled_engine: Path) -> Path:
    """The package as `pip install .` installs it (the same build as `compiled_engine`):
    put it first on PYTHONPATH and run from outside the checkout to use it."""
    return compiled_engine


# ------------------------------------------------------------ installed once per session


@pytest.fixture(scope="session")
def oldest_duckdb(tmp_path_factory) -> Path:
    """The oldest DuckDB Python package our file promises to open in (one per session)."""
    from helpers import pip_target

    from trickledger.ingest.db import OLDEST_READER

    with once_per_run(tmp_path_factory, "oldest-duckdb") as (folder, first):
        if first:
            pip_target(folder, f"duckdb=={OLDEST_READER}")
    return folder


# ------------------------------------------------------------ a real browser


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """Headless Chromium (Debian's, through playwright), one per module: each test opens
    pages in a context of its own and closes it."""
    from helpers import CHROMIUM_ARGS
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    assert os.path.exists(chromium), "Debian's chromium is needed (.ci/run installs it)"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


# ------------------------------------------------------------ a database made once, copied


def copy_of(made: Path, folder: Path, name: str | None = None) -> str:
    """A copy of the closed database file `made` in `folder`, for a test that writes to it:
    the file is made once (a module's or the run's fixture) instead of by every test."""
    assert not made.with_name(made.name + ".wal").exists(), made  # all in the file, closed
    db = folder / (name or made.name)
    shutil.copyfile(made, db)
    return str(db)


# ------------------------------------------------------------ a database file another holds


class Held(NamedTuple):
    path: str  # the database file, in a folder whose name no page may show
    pid: int  # the process that holds it


# A process that holds the database file read-write until it is killed (another writer: an
# ingest between two of its batches' commits holds it the same way).
HOLD = ("import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); "
        "print('held', flush=True); time.sleep(300)")


@pytest.fixture()
def held(tmp_path) -> Iterator[Held]:
    """A database file (the schema, no log yet) held read-write by another process."""
    from trickledger.ingest.db import writing

    db = str(tmp_path / "club-secret-folder" / "held.duckdb")
    Path(db).parent.mkdir()
    with writing(db):
        pass
    proc = subprocess.Popen([sys.executable, "-c", HOLD, db], stdout=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield Held(db, proc.pid)
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------ databases of the sample logs

# Several test files read the same database: sample logs ingested into a file. Each is built
# once per run (`once_per_run`, whichever parallel worker comes first) and never opened
# there; every test or module that asks for it gets a copy of its own in a folder of its
# own, so that its writes (ratings, a second ingest, flags beside the file) are its own and
# no two processes open one file.


class BuiltDatabase(NamedTuple):
    path: Path  # the run's one file: copy it (`copy_to`), never open it
    summary: dict[str, int]  # the counts the ingest that built it reported (load.Summary)

    def copy_to(self, folder: Path) -> str:
        """A copy of the file in `folder` (the file alone: the ingest that built it ended,
        so it holds every commit)."""
        folder.mkdir(parents=True, exist_ok=True)
        return copy_of(self.path, folder)


SUMMARY_COUNTS = ("loaded", "already", "complete", "incomplete", "illegal", "sheet",
                  "unreadable", "conflicts", "disputed", "events", "batches")


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               sources: Callable[[], list[Any]], jobs: int = 1,
               batch_size: int | None = None) -> BuiltDatabase:
    """The database `name` built once for the run: `sources()` (ingest.load.Source) ingested
    into a new file by whichever parallel worker comes first."""
    import json

    from trickledger.ingest.load import ingest

    with once_per_run(tmp_path_factory, name) as (folder, first):
        db = folder / f"{name}.duckdb"
        if first:
            extra = {} if batch_size is None else {"batch_size": batch_size}
            summary = ingest(sources(), str(db), jobs=jobs, **extra)
            counts = {k: getattr(summary, k) for k in SUMMARY_COUNTS}
            (folder / "summary.json").write_text(json.dumps(counts))
        return BuiltDatabase(db, json.loads((folder / "summary.json").read_text()))


def logs_in(folder: Path) -> Callable[[], list[Any]]:
    """The logs in `folder` and its subfolders (ingest.load.expand), each one found."""
    def found() -> list[Any]:
        from trickledger.ingest.load import expand

        logs, missing = expand([str(folder)])
        assert logs and not missing, (folder, missing)
        return logs

    return found


@pytest.fixture(scope="session")
def built_database(tmp_path_factory: pytest.TempPathFactory
                   ) -> Callable[..., BuiltDatabase]:
    """`built_database(name, sources, jobs=1, batch_size=None)`: a test file's own database
    built once for the run (`built_once`); give each test a copy (`BuiltDatabase.copy_to`)."""
    from functools import partial

    return partial(built_once, tmp_path_factory)


@pytest.fixture(scope="session")
def sample_logs_built(tmp_path_factory: pytest.TempPathFactory) -> BuiltDatabase:
    """Every log of sample_logs/ (337: the hand-written samples, the score sheets and the
    simulated corpus) ingested once for the run, in one process, batches of 50 (the way
    tests/system/test_lake_sql.py fills its lake: docs/sql.md's question 6 lists the
    errors newest first, and the time an error is recorded at goes by its batch)."""
    return built_once(tmp_path_factory, "sample-logs", logs_in(ROOT / "sample_logs"),
                      batch_size=50)


@pytest.fixture()
def sample_logs_db(sample_logs_built: BuiltDatabase, tmp_path_factory) -> str:
    """A database file holding every sample log, this test's own, in a folder of its own
    (the test's tmp_path stays empty)."""
    return sample_logs_built.copy_to(tmp_path_factory.mktemp("sample-logs"))


@pytest.fixture(scope="module")
def module_sample_logs_db(sample_logs_built: BuiltDatabase, tmp_path_factory) -> str:
    """A database file holding every sample log, shared by the tests of one module (which
    may add to it in their order: ratings, hand estimates)."""
    return sample_logs_built.copy_to(tmp_path_factory.mktemp("sample-logs"))


@pytest.fixture(scope="module")
def dashboard_db(module_sample_logs_db: str) -> Iterator[str]:
    """The module's sample-logs database, opened by the dashboard's pages that this process
    runs under AppTest (its caches emptied before and after the module)."""
    from helpers import dashboard_database

    with dashboard_database(module_sample_logs_db):
        yield module_sample_logs_db


@pytest.fixture()
def empty_dashboard_db(tmp_path: Path) -> Iterator[str]:
    """A database file of this test's own, empty until the pages it runs under AppTest write
    to it (a score sheet, a recording); the recordings' writer worker a page started is
    ended with the test."""
    from helpers import dashboard_database

    from trickledger.dashboard.data import recordings

    with dashboard_database(str(tmp_path / "pages.duckdb")) as path:
        try:
            yield path
        finally:
            recordings._recorder.clear()


@pytest.fixture(scope="session")
def rage_built(tmp_path_factory: pytest.TempPathFactory) -> BuiltDatabase:
    """The rage sample logs (sample_logs/rage, three games) ingested once for the run."""
    return built_once(tmp_path_factory, "rage", logs_in(ROOT / "sample_logs" / "rage"))


@pytest.fixture()
def rage_db(rage_built: BuiltDatabase, tmp_path_factory) -> str:
    """A database file holding the rage sample logs (sample_logs/rage), this test's own, in
    a folder of its own (the test's tmp_path stays empty)."""
    return rage_built.copy_to(tmp_path_factory.mktemp("rage"))
