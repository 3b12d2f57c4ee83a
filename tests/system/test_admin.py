"""Accounts for writes and a way back (issue 17): every write audited, a forged log
quarantined or deleted with its facts in one transaction, backups through the command
line, console limits that reject nonsense, and no process-wide lock in the dashboard."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest
from conftest import copy_of
from helpers import DASHBOARD, console_workers, dashboard_database, rows, visible
from streamlit.testing.v1 import AppTest

from trickledger import main
from trickledger.ingest import jobs
from trickledger.ingest.admin import Actor, AdminError, remove

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
APP = str(DASHBOARD / "app.py")
RAGE = SAMPLES / "rage" / "rage-5p-hidden-bid.jsonl"


def game_id_of(db: str, path: Path) -> str:
    return rows(db, "SELECT game_id FROM logs WHERE file_name LIKE ?", [f"%{path.name}"])[0][0]


@pytest.fixture(scope="module")
def rage_ingested(tmp_path_factory) -> Path:
    """The rage samples ingested by the command line, once for the module."""
    path = tmp_path_factory.mktemp("admin") / "t.duckdb"
    assert main(["ingest", "--db", str(path), str(SAMPLES / "rage")]) in (0, 1)
    return path


@pytest.fixture()
def db(rage_ingested, tmp_path, capsys) -> str:
    """A copy of `rage_ingested` of this test's own (tests quarantine, delete, import)."""
    capsys.readouterr()
    return copy_of(rage_ingested, tmp_path)


def test_an_ingest_run_is_audited_with_its_summary(db):
    (actor, via, action, result), = rows(db, "SELECT actor, via, action, result FROM audit_log")
    assert via == "command line" and action == "ingest" and result.startswith("loaded ")


def test_quarantine_takes_the_facts_out_keeps_the_text_and_refuses_the_bytes(db, tmp_path,
                                                                           capsys):
    gid = game_id_of(db, RAGE)
    # the real game's log came second: refused, its id held by the one loaded first
    real = tmp_path / "real.jsonl"
    real.write_bytes(RAGE.read_bytes().replace(b'"platform"', b'"note":"real","platform"', 1))
    assert main(["ingest", "--db", db, str(real)]) == 2
    conflict_status = rows(db, "SELECT status FROM logs WHERE file_name = ?", [str(real)])
    assert conflict_status == [("conflict",)]
    capsys.readouterr()
    facts = rows(db, "SELECT count(*) FROM round_scores WHERE game_id = ?", [gid])[0][0]
    assert facts > 0
    assert main(["quarantine", gid, "--reason", "forged", "--db", db]) == 0
    assert "quarantined" in capsys.readouterr().out
    for table in ("games", "players", "rounds", "round_scores", "bids", "claims"):
        assert rows(db, f"SELECT count(*) FROM {table} WHERE game_id = ?", [gid])[0][0] == 0
    status, text, message = rows(db, "SELECT status, raw_text, error_message FROM logs "
                                     "WHERE game_id = ?", [gid])[0]
    assert status == "quarantined" and text == RAGE.read_text() and "forged" in message
    # the same bytes again: reported as quarantined, not loaded, exit 2
    assert main(["ingest", "--db", db, str(RAGE)]) == 2
    out = capsys.readouterr()
    assert "quarantined" in out.err and "loaded 0" in out.out
    # the game id is free: the log refused before because this one held its id (the real
    # game's, the forged one loaded first) now loads, its earlier refusal forgotten
    assert main(["ingest", "--db", db, str(real)]) in (0, 1)
    assert rows(db, "SELECT file_name FROM games WHERE game_id = ?", [gid])[0][0] == str(real)
    assert rows(db, "SELECT count(*) FROM ingest_errors WHERE file_name = ?",
                [str(real)])[0][0] == 0
    actions = [r[0] for r in rows(db, "SELECT action FROM audit_log ORDER BY happened_at")]
    assert actions.count("quarantine") == 1


def test_delete_removes_the_log_and_its_bytes_load_again(db, capsys):
    gid = game_id_of(db, RAGE)
    sha = rows(db, "SELECT sha256 FROM logs WHERE game_id = ?", [gid])[0][0]
    assert main(["delete", sha[:10], "--db", db]) == 0  # a prefix of the SHA-256 will do
    assert rows(db, "SELECT count(*) FROM logs WHERE sha256 = ?", [sha])[0][0] == 0
    assert rows(db, "SELECT count(*) FROM plays WHERE game_id = ?", [gid])[0][0] == 0
    assert main(["ingest", "--db", db, str(RAGE)]) in (0, 1)
    assert "loaded 1" in capsys.readouterr().out
    (who, detail), = rows(db, "SELECT actor, result FROM audit_log WHERE action = 'delete'")
    assert detail.startswith("was ")


def test_a_failed_removal_changes_nothing(db, monkeypatch):
    """One transaction: when writing the audit row fails, the facts are all still there."""
    from trickledger.ingest import admin

    gid = game_id_of(db, RAGE)
    before = rows(db, "SELECT count(*) FROM plays WHERE game_id = ?", [gid])[0][0]

    def broken(*args, **kw):
        raise RuntimeError("disk full")

    monkeypatch.setattr(admin, "record", broken)
    with pytest.raises(RuntimeError):
        remove(db, gid, "delete", Actor("ann", "password"))
    assert rows(db, "SELECT count(*) FROM plays WHERE game_id = ?", [gid])[0][0] == before
    assert rows(db, "SELECT status FROM logs WHERE game_id = ?", [gid])[0][0] == "complete"


def test_removal_names_what_it_cannot_find(db, capsys):
    with pytest.raises(AdminError, match="no log has"):
        remove(db, "no-such-game", "quarantine", Actor("ann", "password"))
    assert main(["delete", "no-such-game", "--db", db]) == 2
    assert "no log has" in capsys.readouterr().err


def test_export_and_import_round_trip_through_the_command_line(db, tmp_path, capsys):
    out = tmp_path / "backup"
    assert main(["export", str(out), "--db", db]) == 0
    restored = str(tmp_path / "restored.duckdb")
    assert main(["import", str(out), "--db", restored]) == 0
    for table in ("logs", "games", "plays", "audit_log"):
        assert sorted(rows(db, f"SELECT * FROM {table}"), key=repr) == \
            sorted(rows(restored, f"SELECT * FROM {table}"), key=repr), table
    assert main(["import", str(out), "--db", restored]) == 2  # never over a database
    assert "exists" in capsys.readouterr().err
    (out / "plays.parquet").write_bytes(b"not parquet")
    assert main(["import", str(out), "--db", str(tmp_path / "other.duckdb")]) == 2
    assert not (tmp_path / "other.duckdb").exists() or \
        rows(str(tmp_path / "other.duckdb"), "SELECT count(*) FROM information_schema.tables "
                                            "WHERE table_name = 'logs'")[0][0] == 0


@pytest.mark.parametrize("option", [["--timeout", "0"], ["--timeout", "-1"],
                                    ["--timeout", "inf"], ["--max-rows", "0"],
                                    ["--timeout", "soon"]])
def test_console_limits_must_be_positive(db, option, capsys):
    assert main(["sql", "--db", db, *option, "SELECT 1"]) == 2  # a usage error
    assert option[0] in capsys.readouterr().err


@pytest.mark.parametrize("option", [["--jobs", "0"], ["--batch", "0"], ["--batch", "-5"]])
def test_ingest_sizes_must_be_positive(tmp_path, option, capsys):
    db = tmp_path / "t.duckdb"
    assert main(["ingest", "--db", str(db), *option, str(RAGE)]) == 2
    assert option[0] in capsys.readouterr().err and not db.exists()


def test_the_command_lines_console_stops_what_duckdb_cannot_interrupt(db, capsys):
    """Folded while planning: an interrupt never reaches it; the worker is stopped."""
    rc = main(["sql", "--db", db, "--timeout", "2",
               "SELECT levenshtein(repeat('a', 200000), repeat('b', 200000))"])
    assert rc == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("stopped" in err or "memory" in err.lower())


def test_an_upload_is_audited_with_who_and_what_became_of_it(db, tmp_path):
    forged = RAGE.read_bytes().replace(b'"platform"', b'"note":"x","platform"', 1)
    summary = jobs.upload([("forged.jsonl", forged), ("junk.jsonl", b"\x00\n")],
                          db, None, {"user": "ann", "via": "password", "address": "10.0.0.7"})
    assert [o.status for o in summary.results] == ["conflict", "unreadable"]
    audit = rows(db, "SELECT actor, via, address, action, file_name, result FROM audit_log "
                     "WHERE action = 'upload' ORDER BY file_name")
    assert audit == [("ann", "password", "10.0.0.7", "upload", "forged.jsonl", "conflict"),
                     ("ann", "password", "10.0.0.7", "upload", "junk.jsonl", "unreadable")]


# ------------------------------------------------------------------ the dashboard


@pytest.fixture()
def dashboard_db(db, monkeypatch):
    """`db`, the database the dashboard's pages read (AppTest runs in this process)."""
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "127.0.0.1")  # this machine: an admin
    with dashboard_database(db):
        yield db


def test_admin_page_quarantines_and_shows_the_audit(dashboard_db):
    db = dashboard_db
    gid = game_id_of(db, RAGE)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("views/admin.py").run()
    assert not at.exception
    at.text_input(key="admin_log").set_value(gid).run()
    at.radio(key="admin_action").set_value("quarantine").run()
    at.text_input(key="admin_reason").set_value("forged").run()
    assert at.button(key="admin_go").disabled  # not before the box is ticked
    at.checkbox[0].check().run()
    at.button(key="admin_go").click().run()
    assert not at.exception
    assert any("quarantined" in s.value for s in at.success)
    assert rows(db, "SELECT status FROM logs WHERE game_id = ?", [gid])[0][0] == "quarantined"
    audit = at.dataframe[-1].value
    assert "quarantine" in set(audit["action"])


# 9.2e18 rows with a filter DuckDB cannot fold: no machine answers it within any time limit.
NEVER_ENDS = "SELECT count(*) FROM range(9223372036854775807) WHERE random() < 0"


def test_a_slow_console_query_does_not_hold_up_other_pages(dashboard_db, monkeypatch):
    """No process-wide lock: while one visitor's query runs (in its worker), another
    visitor's page query answers."""
    from trickledger.dashboard.data import access, console
    from trickledger.ingest.console import Limits
    from trickledger.ingest.sql import SqlRefused

    # the page's 10 s would race a loaded machine: the test ends the slow query itself
    monkeypatch.setattr(console, "LIMITS", Limits(timeout_s=600, max_rows=5000))
    result: list[object] = []

    def slow() -> None:
        try:
            result.append(console.run(NEVER_ENDS))
        except SqlRefused as e:
            result.append(e)

    t = threading.Thread(target=slow)
    t.start()
    while not console_workers(min_cpu_ticks=51):  # the query is running in its worker
        assert t.is_alive(), result
        threading.Event().wait(0.05)
    n = access.query("SELECT count(*) AS n FROM games")
    assert int(n["n"].iloc[0]) > 0
    assert t.is_alive()  # the slow query is still running: the page did not wait for it
    for pid in console_workers():  # the query's worker and the spare
        os.killpg(pid, signal.SIGKILL)
    t.join()
    assert isinstance(result[0], SqlRefused) and "was stopped" in str(result[0])
    console.server_console().close()
    console.server_console.clear()


def test_a_visitor_beyond_loopback_without_an_account_may_not_administer(dashboard_db,
                                                                         monkeypatch):
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    at = AppTest.from_file(str(DASHBOARD / "views" / "admin.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert any("for the server's admins" in visible(i.value) for i in at.info)
    assert not at.text_input  # nothing to quarantine with


def teardown_module() -> None:
    shutil.rmtree(ROOT / "t.duckdb.ingest", ignore_errors=True)


# ------------------------------------------------------------------ found by an attack


def test_a_proxy_in_front_of_a_loopback_server_does_not_make_visitors_admins(monkeypatch):
    from types import SimpleNamespace

    from trickledger.dashboard import auth

    monkeypatch.setenv("TRICKLEDGER_LISTEN", "127.0.0.1")
    for headers, local in (({"Host": "localhost:8501"}, True),
                           ({"Host": "127.0.0.1:8501"}, True),
                           ({"Host": "club.example"}, False),
                           ({"Host": "localhost:8501", "X-Forwarded-For": "203.0.113.9"}, False),
                           ({"Host": "localhost", "Forwarded": "for=203.0.113.9"}, False)):
        monkeypatch.setattr(auth.st, "context", SimpleNamespace(headers=headers))
        assert auth.from_this_machine() is local, headers
        assert (auth.visitor().role == "admin") is local, headers


def test_a_removed_account_is_logged_out_and_a_changed_role_holds(tmp_path, monkeypatch):
    from trickledger.dashboard import auth

    users = tmp_path / "users.toml"
    auth.add_user(str(users), "Ann", "correct horse", "admin")
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    monkeypatch.setenv("TRICKLEDGER_USERS", str(users))
    state: dict[str, object] = {auth.SESSION_KEY: auth.users()["ann"]}
    monkeypatch.setattr(auth.st, "session_state", state)
    assert auth.visitor().is_admin
    auth.add_user(str(users), "Ann", "correct horse", "member")  # demoted
    os.utime(users, (time.time() + 5, time.time() + 5))  # a new mtime whatever the clock
    assert auth.visitor().role == "member"
    users.write_text("")  # removed
    os.utime(users, (time.time() + 10, time.time() + 10))
    assert auth.visitor().name is None and auth.SESSION_KEY not in state


def test_names_in_charts_are_literal():
    import pandas as pd
    import plotly.express as px

    from trickledger.dashboard import ui

    names = ["<b>Ann</b>", "<a href='x'>Ben</a>", "$x^2$"]
    fig = px.bar(pd.DataFrame({"player": names, "n": [1, 2, 3]}), x="player", y="n",
                 color="player", hover_data={"player": True})
    shown: list[object] = []

    class Where:
        def plotly_chart(self, fig: object, **kw: object) -> None:
            shown.append(fig)

    ui.chart(Where(), fig)
    texts = [str(v) for tr in shown[0].data for v in [tr.name, *tr.x]]
    assert not any("<" in t for t in texts), texts
    assert "&lt;b&gt;Ann&lt;/b&gt;" in texts


def test_command_line_output_cannot_rewrite_the_terminal(tmp_path, capsys):
    db = str(tmp_path / "t.duckdb")
    evil = "\x1b[2J\x1b]0;pwned\x07"
    assert main(["ingest", "--db", db, str(tmp_path / f"no{evil}.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b" in err
    assert main(["ingest", "--db", db, str(RAGE)]) in (0, 1)
    capsys.readouterr()
    for fmt in ("table", "csv"):
        assert main(["sql", "--db", db, "--format", fmt, f"SELECT '{evil}' AS x"]) == 0
        assert "\x1b" not in capsys.readouterr().out, fmt


def test_removal_commands_on_a_lake_say_so_in_one_line(tmp_path, capsys):
    lake = tmp_path / "lake"
    assert main(["ingest", "--lake", str(lake), str(RAGE)]) in (0, 1)
    capsys.readouterr()
    for cmd in (["quarantine", "x" * 12], ["delete", "x" * 12], ["audit"]):
        assert main([*cmd, "--db", str(lake)]) == 2, cmd
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, (cmd, err)


def test_a_line_break_in_a_file_name_cannot_forge_an_audit_line(tmp_path, capsys):
    """`quarantine` and `audit` print stored file names: one with a line break in it stays on
    its own line, escaped, and forges no 'delete by ann' line of its own."""
    folder = tmp_path / "q"
    folder.mkdir()
    forged = "2026-11-26 16:00:00  delete     ann (password, 10.0.0.9)  real.jsonl: deleted"
    sample = ROOT / "sample_logs" / "plotters" / "plotters-4p-early-end.jsonl"
    (folder / f"x\n{forged}.jsonl").write_bytes(sample.read_bytes())
    db = str(tmp_path / "q.duckdb")
    assert main(["ingest", str(folder), "--db", db]) in (0, 1)
    sha = rows(db, "SELECT sha256 FROM logs")[0][0]
    capsys.readouterr()
    assert main(["quarantine", sha, "--db", db]) == 0
    assert main(["audit", "--db", db]) == 0
    out = capsys.readouterr().out
    assert not any(line.startswith("2026-11-26 16:00:00") for line in out.splitlines()), out
    assert "x\\n2026-11-26 16:00:00  delete" in out
