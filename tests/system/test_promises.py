"""The promises of docs/reliability.md that no other test attacked, each attacked here.

Small and fast: no browser, no Dask, no real server. Where a promise needs another
process (a writer holding the database file, a console worker, a dashboard job), the test
starts it and stops it itself.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import DASHBOARD, rows

from trickledger import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
RAGE = SAMPLES / "rage"
PLOTTERS = SAMPLES / "plotters" / "plotters-4p-early-end.jsonl"
MB = 1024 * 1024

# ------------------------------------------------------------ every input gets a verdict


def test_a_bug_of_ours_while_replaying_is_an_illegal_verdict_not_a_traceback(register_game):
    # a game whose handler has a bug (an interpreted game on the engine as installed: a
    # compiled engine cannot be patched from here, and its catch is what is tested)
    import dataclasses

    import toy_high_card

    from trickledger.replay.engine import replay_bytes, verdict
    from trickledger.replay.events import Event

    class Buggy(toy_high_card.ToyState):
        def on_play(self, ev: Event) -> None:
            if self.plays_seen == 2:
                raise ZeroDivisionError("a bug of ours")
            self.plays_seen += 1
            super().on_play(ev)

        plays_seen = 0

    register_game(dataclasses.replace(toy_high_card.INFO, name="toy_buggy", state_class=Buggy,
                                      sheet_state=None, tables={}))
    v = verdict(replay_bytes(BUGGY_LOG, "bug.jsonl"))
    assert v["status"] == "illegal"
    assert v["error"]["line"] == 5
    assert "internal error" in v["error"]["message"]
    assert "please report it" in v["error"]["message"]


BUGGY_LOG = (b'{"format":"trickledger/1","game":"toy_buggy","players":["Ann","Bob"]}\n'
             b'{"type":"deal","hands":{"Ann":["A1","A2","A3"],"Bob":["B1","B2","B3"]}}\n'
             b'{"type":"play","player":"Ann","card":"A1"}\n'
             b'{"type":"play","player":"Bob","card":"B1"}\n'
             b'{"type":"play","player":"Ann","card":"A2"}\n')


def test_a_pipe_that_sends_nothing_is_given_up(tmp_path):
    """A pipe with a writer that never writes: the reader waits READ_IDLE_S (10 s; shortened
    here through the reader's argument, which the compiled engine honours as the
    interpreted one does), then the log is unreadable, in words."""
    from trickledger.replay.errors import UnreadableLog
    from trickledger.replay.reader import READ_IDLE_S, read_file

    assert READ_IDLE_S == 10.0
    fifo = tmp_path / "silent.jsonl"
    os.mkfifo(fifo)
    writer = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer that sends nothing
    try:
        with pytest.raises(UnreadableLog, match=r"nothing arrived for 0.5 s; gave up reading"):
            read_file(str(fifo), idle_s=0.5)
    finally:
        os.close(writer)


def _bytes_read() -> int:
    """The bytes this process has read so far (Linux's /proc/self/io `rchar`)."""
    with open("/proc/self/io") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("rchar:"))


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path):
    """64 MiB and one byte on disk (a sparse file): refused by its size, not read."""
    from trickledger.replay.engine import replay_bytes, replay_path
    from trickledger.replay.reader import MAX_LOG_BYTES

    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(MAX_LOG_BYTES + 1)
    before = _bytes_read()
    r = replay_path(str(big))
    assert r.status == "unreadable" and "more than 64 MiB" in r.error.message
    assert _bytes_read() - before < 1024 * 1024  # refused by its size: not read
    r = replay_bytes(b"x" * (MAX_LOG_BYTES + 1), "bytes.jsonl")  # an upload, as bytes
    assert r.status == "unreadable" and "larger than 64 MiB" in r.error.message


def test_control_characters_in_a_file_name_never_reach_the_terminal(tmp_path, capsys):
    for name in ("clear\x1b[2J.jsonl", "evil\u202egnp.jsonl"):
        bad = tmp_path / name
        bad.write_bytes(b"not a log\n")
        assert main(["verify", str(bad)]) == 2
        err = capsys.readouterr().err
        assert "\x1b" not in err and "\u202e" not in err
        assert "\\x1b" in err or "\\u202e" in err


# ------------------------------------------------------------ loading


def test_the_logs_table_holds_the_sha256_of_the_exact_bytes(tmp_path, capsys):
    """Tamper evidence: the hash is of the bytes as given (gzip included), the same that
    `verify --json` prints."""
    import orjson

    from trickledger.ingest.load import expand, ingest

    packed = tmp_path / "game.jsonl.gz"
    packed.write_bytes(gzip.compress(PLOTTERS.read_bytes()))
    db = str(tmp_path / "t.duckdb")
    ingest(expand([str(packed)])[0], db, jobs=1)
    want = hashlib.sha256(packed.read_bytes()).hexdigest()
    assert rows(db, "SELECT sha256 FROM logs") == [(want,)]
    main(["verify", "--json", str(packed)])
    assert orjson.loads(capsys.readouterr().out)["sha256"] == want


def test_a_failed_batch_leaves_no_audit_row(tmp_path, monkeypatch):
    """An upload's audit rows are written inside its batch's transaction: a batch that
    fails leaves neither facts nor audit rows."""
    from trickledger.ingest.admin import Actor
    from trickledger.ingest.load import DatabaseWriter, Source, ingest

    db = str(tmp_path / "t.duckdb")
    files = sorted(RAGE.glob("*.jsonl"))
    sources = [Source(p.name, data=p.read_bytes()) for p in files]
    who = (Actor("ann", "password", "10.0.0.7"), "upload")
    real = DatabaseWriter.insert

    def crash(self, con, table, parts):
        real(self, con, table, parts)
        if table == "plays":
            raise RuntimeError("disk full")

    monkeypatch.setattr(DatabaseWriter, "insert", crash)
    with pytest.raises(RuntimeError, match="disk full"):
        ingest(sources, db, jobs=1, audit_as=who)
    monkeypatch.setattr(DatabaseWriter, "insert", real)
    assert rows(db, "SELECT count(*) FROM audit_log") == [(0,)]
    assert rows(db, "SELECT count(*) FROM logs") == [(0,)]
    ingest(sources, db, jobs=1, audit_as=who)
    assert rows(db, "SELECT count(*) FROM audit_log WHERE actor = 'ann'") == [(len(files),)]


def test_one_committer_per_lake(tmp_path):
    from trickledger.ingest.lake import LakeError, LakeWriter

    first = LakeWriter(str(tmp_path / "lake"))
    try:
        with pytest.raises(LakeError, match="busy"):
            LakeWriter(str(tmp_path / "lake"))
    finally:
        first.close()
    LakeWriter(str(tmp_path / "lake")).close()  # free again once the first has gone


# ------------------------------------------------------------ running alongside each other


def test_a_waiting_writer_raises_a_flag_that_readers_yield_to(held):
    from trickledger.ingest.db import WRITER_WAITING, DatabaseBusy, open_db, writer_waiting

    assert not writer_waiting(held.path)

    class Seen(Exception):
        pass

    seen: list[bool] = []

    def while_waiting(left_s: float) -> None:
        # called while the writer waits for the held file: what a reader sees then
        seen.append(writer_waiting(held.path))
        raise Seen  # enough waiting: the writer stops as if it had given up

    with pytest.raises(Seen):
        open_db(held.path, read_only=False, wait_s=3600, on_busy=while_waiting)
    assert seen == [True], "readers were never told a writer is waiting"
    assert not writer_waiting(held.path)  # the flag goes with the writer
    with pytest.raises(DatabaseBusy, match="busy"):  # a writer that gives up says so
        open_db(held.path, read_only=False, wait_s=0)
    assert not writer_waiting(held.path)
    # a flag left by a writer that was killed while it waited is stale, and cleared
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = Path(held.path + WRITER_WAITING + dead)
    stale.touch()
    assert not writer_waiting(held.path) and not stale.exists()


def test_a_dashboard_job_is_stopped_at_its_deadline(held):
    """A write job (here the ratings, waiting for a file another process holds) that has
    not answered by its deadline is killed, and says so."""
    from trickledger.ingest import jobs

    with pytest.raises(jobs.JobFailed, match="stopped after 2 s"):
        jobs.run("ratings", {"db": held.path}, deadline_s=2)


def test_a_page_on_a_held_file_says_busy_instead_of_hanging(held, monkeypatch):
    from helpers import dashboard_database
    from streamlit.testing.v1 import AppTest

    from trickledger.dashboard.data import access

    monkeypatch.setattr(access, "LOCK_WAIT_S", 1.0)  # the pages wait 15 s for the file
    with dashboard_database(held.path):
        at = AppTest.from_file(str(DASHBOARD / "views" / "overview.py"),
                               default_timeout=60)
        at.run()
    assert not at.exception
    assert any("The database is busy" in w.value for w in at.warning)


# ------------------------------------------------------------ the SQL console


def test_the_console_refuses_before_a_worker_starts(rage_db):
    from trickledger.ingest.console import Console, ConsoleError, Limits, Target

    c = Console(spares=0)

    def start():
        raise AssertionError("a worker was started for a query that is refused")

    c._start = start  # type: ignore[method-assign]
    try:
        for bad in ({"timeout_s": 0}, {"timeout_s": float("inf")},
                    {"timeout_s": float("nan")}, {"max_rows": -1}, {"max_bytes": 0}):
            with pytest.raises(ConsoleError, match="finite number above 0"):
                c.run(Target(db=rage_db), "SELECT 1", Limits(**bad))
        for sql, words in [
            ("EXPLAIN ANALYZE COPY (SELECT 1) TO 'x.csv'", "EXPLAIN is allowed only"),
            ("EXPLAIN ANALYZE INSERT INTO games (game_id) VALUES ('x')",
             "EXPLAIN is allowed only"),
            ("INSTALL httpfs", "INSTALL and LOAD are refused"),
            ("SET memory_limit = '64GB'", "SET is refused"),
            ("SELECT 1; DROP TABLE games", "one statement"),
        ]:
            with pytest.raises(ConsoleError, match=words):
                c.run(Target(db=rage_db), sql)
    finally:
        c.close()


def test_a_query_that_spills_is_held_to_its_quota_and_its_folder_goes(rage_db, tmp_path):
    from trickledger.ingest.console import Console, ConsoleError, Limits, Target

    c = Console(spares=0, temp_root=str(tmp_path))
    try:
        with pytest.raises(ConsoleError, match="offload|temp"):
            # 40 million rows sorted: more than DuckDB's 256 MB, so it spills, and the
            # spill passes its 64 MB quota
            c.run(Target(db=rage_db), "SELECT count(*) FROM (SELECT x FROM range(40000000) "
                                       "t(x) ORDER BY hash(x))", Limits(timeout_s=60))
        assert os.listdir(tmp_path) == []  # the query's spill folder is removed
        with pytest.raises(ConsoleError, match="longer than 1 s"):
            c.run(Target(db=rage_db), "SELECT count(*) FROM range(9223372036854775807) WHERE random() < 0",
                  Limits(timeout_s=1))
        assert os.listdir(tmp_path) == []  # also after a worker was killed
    finally:
        c.close()


def test_sql_on_a_folder_that_is_not_a_lake_says_so(tmp_path, capsys):
    folder = tmp_path / "not-a-lake"
    folder.mkdir()
    assert main(["sql", "--lake", str(folder), "SELECT 1"]) == 2
    assert "not a trickledger lake" in capsys.readouterr().err
    assert list(folder.iterdir()) == []  # nothing made there


# ------------------------------------------------------------ names are only text


def test_names_are_made_literal_for_markdown_katex_and_html():
    from trickledger.dashboard.ui import md, text_html

    name = "$x^2$ **b** <img src=x onerror=alert(1)> :red[x] [a](http://e.vil) www.e.vil\nok"
    out = md(name)
    # every ASCII punctuation character is backslash-escaped (CommonMark: shown literally)
    assert not re.search(r"[!-/:-@\[-`{-~]", re.sub(r"\\[!-/:-@\[-`{-~]", "", out))
    assert "\\$x^2" not in out and "\\$x\\^2\\$" in out  # no KaTeX
    assert "\n" not in out  # a name is one line
    assert "www\u2060\\.e\\.vil" in out and "http\u2060\\:" in out  # no autolinks
    # and nothing inserted where no link could start: a copied name is the name
    assert md("pasted.jsonl line 3: ok") == "pasted\\.jsonl line 3\\: ok"
    assert text_html("<script>alert('x')</script> & co") == \
        "&lt;script&gt;alert('x')&lt;/script&gt; &amp; co"


# ------------------------------------------------------------ hosting: accounts


def test_users_add_writes_a_private_file_of_salted_scrypt_hashes(tmp_path, monkeypatch,
                                                                  capsys):
    from trickledger.dashboard.auth import Limiter, check_login, load_users

    users = tmp_path / "users.toml"
    for name in ("Ann", "Ben"):
        monkeypatch.setattr(sys, "stdin", io.StringIO("same password\n"))
        assert main(["users", "add", name, "--users", str(users), "--password-stdin"]) == 0
    assert "member account saved" in capsys.readouterr().out
    assert stat.S_IMODE(users.stat().st_mode) == 0o600
    text = users.read_text()
    assert "same password" not in text and text.count("password = \"scrypt$16384$8$1$") == 2
    accounts = load_users(str(users))
    assert accounts["ann"].password != accounts["ben"].password  # a salt of its own
    assert check_login(accounts, Limiter(), " ANN", "same password", None)[0] is not None
    assert check_login(accounts, Limiter(), "ann", "other", None)[0] is None
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\n"))
    assert main(["users", "add", 'a"b', "--users", str(users), "--password-stdin"]) == 2


def test_failed_logins_from_one_address_lock_it_out_whatever_the_name():
    from trickledger.dashboard.auth import Account, Limiter, check_login, hash_password

    users = {"ann": Account("ann", "member", hash_password("right"))}
    limiter = Limiter(max_failures=3)
    for name in ("bob", "cy", "dee"):  # guessing names from one address
        assert check_login(users, limiter, name, "guess", "203.0.113.9")[0] is None
    account, message = check_login(users, limiter, "ann", "right", "203.0.113.9")
    assert account is None and message.startswith("Too many failed attempts")
    assert check_login(users, limiter, "ann", "right", "198.51.100.1")[0] == users["ann"]


def test_loopback_is_this_machine_and_nothing_else():
    from trickledger.dashboard.auth import is_loopback

    assert all(is_loopback(a) for a in ("127.0.0.1", "127.0.0.2", "::1", "localhost"))
    assert not any(is_loopback(a) for a in ("0.0.0.0", "::", "192.168.1.5", "10.0.0.7",
                                            "stats.club.example", ""))


def test_beyond_loopback_a_member_may_write_but_only_an_admin_queries_or_administers(
        rage_db, monkeypatch, tmp_path):
    from helpers import dashboard_database
    from streamlit.testing.v1 import AppTest

    from trickledger.dashboard.auth import SESSION_KEY, Account, add_user
    from trickledger.dashboard.data import console

    views = DASHBOARD / "views"
    users = tmp_path / "users.toml"  # a session is checked against the file on every page
    add_user(str(users), "ann", "correct horse", "member")
    add_user(str(users), "root", "battery staple", "admin")
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    monkeypatch.setenv("TRICKLEDGER_USERS", str(users))

    def run(page: str, account: Account | None) -> AppTest:
        at = AppTest.from_file(str(views / f"{page}.py"), default_timeout=60)
        if account is not None:
            at.session_state[SESSION_KEY] = account
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        return at

    member = Account("ann", "member", None)
    admin = Account("root", "admin", None)
    with dashboard_database(rage_db):
        for page in ("upload", "sql", "admin"):  # a visitor without an account reads only
            at = run(page, None)
            assert not at.file_uploader and not at.text_area and not at.text_input, page
            assert any("log in from the sidebar" in i.value for i in at.info), page
        assert run("upload", member).file_uploader  # a member may upload
        for page in ("sql", "admin"):  # the console reads the audit log: admins only
            at = run(page, member)
            assert not at.text_area and not at.text_input, page
            assert any("for admins" in w.value for w in at.warning), page
        assert run("admin", admin).text_input(key="admin_log") is not None
        try:
            assert run("sql", admin).text_area(key="sql_text") is not None
        finally:  # the console keeps a worker started: stop it
            console.server_console().close()
            console.server_console.clear()


# ------------------------------------------------------------ hosting: the server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Exec(Exception):
    pass


def _dashboard(args: list[str], monkeypatch) -> tuple[int, list[str], dict[str, str]]:
    """Run `trickledger dashboard ARGS` up to the moment it becomes the server."""
    seen: dict[str, object] = {}

    def execve(path, argv, env):
        seen.update(argv=list(argv), env=dict(env))
        raise _Exec

    monkeypatch.setattr(os, "execve", execve)
    try:
        rc = main(["dashboard", *args])
    except _Exec:
        rc = 0
    return rc, seen.get("argv", []), seen.get("env", {})  # type: ignore[return-value]


def test_the_dashboard_warns_beyond_loopback_and_answers_to_the_proxys_name(
        tmp_path, monkeypatch, capsys):
    from trickledger.dashboard.limits import MAX_FILE_MB

    db = str(tmp_path / "d.duckdb")
    users = tmp_path / "users.toml"
    rc, argv, env = _dashboard(["--db", db, "--no-samples", "--port", str(_free_port()),
                                "--address", "0.0.0.0", "--allowed-host",
                                "stats.club.example", "--users", str(users)], monkeypatch)
    err = capsys.readouterr().err
    assert rc == 0
    assert "warning: the dashboard listens on 0.0.0.0, beyond this machine" in err
    assert "TLS reverse proxy" in err and "'Hosting'" in err
    assert env["TRICKLEDGER_LISTEN"] == "0.0.0.0"
    assert env["TRICKLEDGER_USERS"] == str(users)
    hosts = env["TRICKLEDGER_ALLOWED_HOSTS"].split(",")
    assert "stats.club.example" in hosts and "evil.example" not in hosts

    def flag(name: str) -> str:
        return argv[argv.index(name) + 1]

    assert flag("--server.address") == "0.0.0.0"
    assert flag("--server.enableXsrfProtection") == "true"
    assert flag("--server.maxUploadSize") == str(MAX_FILE_MB)
    assert flag("--client.showErrorDetails") == "none"
    rc, argv, env = _dashboard(["--db", db, "--no-samples", "--port", str(_free_port())],
                               monkeypatch)
    assert rc == 0 and "warning" not in capsys.readouterr().err
    assert argv[argv.index("--server.address") + 1] == "127.0.0.1"
    assert env["TRICKLEDGER_LISTEN"] == "127.0.0.1"


def test_the_host_allow_list_lets_the_proxys_name_in_and_nothing_else():
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    from trickledger.dashboard.commands import allowed_hosts

    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    guard = TrustedHostMiddleware(app, allowed_hosts=allowed_hosts("0.0.0.0",
                                                                   ["stats.club.example"]))

    def status(host: str) -> int:
        got: list[int] = []

        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                got.append(message["status"])

        scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"",
                 "headers": [(b"host", host.encode())]}
        asyncio.run(guard(scope, receive, send))
        return got[0]

    assert status("stats.club.example") == 204
    assert status("localhost:8501") == 204 and status("127.0.0.1:8501") == 204
    assert status("evil.example") == 400  # DNS rebinding
    assert status("stats.club.example.evil.example") == 400


def test_a_port_in_use_is_refused_before_anything_loads(tmp_path, monkeypatch, capsys):
    db = tmp_path / "d.duckdb"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        rc, argv, _ = _dashboard(["--db", str(db), "--port", str(port)], monkeypatch)
    assert rc == 2 and not argv
    assert f"port {port} on 127.0.0.1 is already in use" in capsys.readouterr().err
    assert not db.exists()


# ------------------------------------------------------------ backups


def test_an_export_whose_rows_differ_from_its_manifest_writes_nothing(rage_db, tmp_path):
    from trickledger.ingest.backup import BackupError, export, import_
    from trickledger.ingest.load import expand, ingest

    other = str(tmp_path / "other.duckdb")
    ingest(expand([str(PLOTTERS)])[0], other, jobs=1)
    export(rage_db, str(tmp_path / "a"))
    export(other, str(tmp_path / "b"))
    # a readable Parquet file, but not the one the manifest vouches for
    (tmp_path / "a" / "games.parquet").write_bytes((tmp_path / "b" / "games.parquet")
                                                  .read_bytes())
    target = tmp_path / "restored.duckdb"
    with pytest.raises(BackupError, match="differ from the manifest"):
        import_(str(tmp_path / "a"), str(target))
    assert not target.exists() and not Path(str(target) + ".wal").exists()
    assert main(["import", str(tmp_path / "a"), "--db", str(target)]) == 2
    assert not target.exists()
