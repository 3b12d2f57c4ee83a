"""Accounts beyond loopback (dashboard/accounts.py, dashboard/auth.py), attacked: the
lock-out against whatever a visitor can make the server forget or do at once, sessions
after a password change, and passwords too short to stand five guesses."""

from __future__ import annotations

import io
import os
import sys
import threading
import time
from pathlib import Path

import pytest
import streamlit as st
from helpers import console_workers

from trickledger import main
from trickledger.dashboard import accounts, auth

ROOT = Path(__file__).resolve().parents[2]


def test_a_lock_out_survives_every_cache_clear():
    """Any visitor may send Streamlit's "clear cache": it empties st.cache_data and
    st.cache_resource. The failed logins must not be kept there."""
    users = {"carl": auth.Account("carl", "member", auth.hash_password("right password"))}
    address = "203.0.113.77"
    try:
        for _ in range(accounts.Limiter().max_failures):
            assert auth.check_login(users, auth._limiter(), "carl", "guess", address)[0] is None
        st.cache_resource.clear()
        st.cache_data.clear()
        account, message = auth.check_login(users, auth._limiter(), "carl", "right password",
                                            address)
        assert account is None and message.startswith("Too many failed attempts")
    finally:
        auth._limiter().succeeded(["user:carl", f"address:{address}"])


def test_logins_sent_together_get_no_more_guesses_than_the_limit(monkeypatch):
    """20 logins at once: an attempt is counted before its password is checked, so at most
    the allowed number of passwords is ever checked."""
    users = {"dora": auth.Account("dora", "member", auth.hash_password("right password"))}
    limiter = accounts.Limiter(max_failures=5)
    checked: list[str] = []
    real = accounts.verify_password

    def counting(password: str, stored: str) -> bool:
        checked.append(password)
        return real(password, stored)

    monkeypatch.setattr(accounts, "verify_password", counting)
    start = threading.Barrier(20)
    answers: list[str] = []

    def guess(i: int) -> None:
        start.wait()
        answers.append(accounts.check_login(users, limiter, "dora", f"guess {i}", None)[1])

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(checked) <= 5, len(checked)
    assert sum(a.startswith("Too many failed attempts") for a in answers) >= 15


def test_a_password_change_ends_the_users_sessions(tmp_path, monkeypatch):
    users = tmp_path / "users.toml"
    auth.add_user(str(users), "Ann", "correct horse", "admin")
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    monkeypatch.setenv("TRICKLEDGER_USERS", str(users))
    logged_in = auth.check_login(auth.users(), accounts.Limiter(), "ann", "correct horse",
                                 None)[0]
    assert logged_in is not None
    state: dict[str, object] = {auth.SESSION_KEY: logged_in}
    monkeypatch.setattr(auth.st, "session_state", state)
    assert auth.visitor().is_admin
    auth.add_user(str(users), "Ann", "correct horse", "admin")  # the same again: no change
    os.utime(users, (time.time() + 5, time.time() + 5))
    assert auth.visitor().is_admin
    auth.add_user(str(users), "Ann", "a stolen one, changed", "admin")
    os.utime(users, (time.time() + 10, time.time() + 10))
    me = auth.visitor()
    assert me.name is None and me.role is None and auth.SESSION_KEY not in state


@pytest.mark.parametrize("password", ["", "x", "123456789", "ninechars", " " * 10,
                                      "\t" * 12, "abc  def  gh"])
def test_users_add_refuses_a_password_shorter_than_ten_characters(tmp_path, monkeypatch,
                                                                  capsys, password):
    users = tmp_path / "users.toml"
    monkeypatch.setattr(sys, "stdin", io.StringIO(password + "\n"))
    assert main(["users", "add", "ann", "--users", str(users), "--password-stdin"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at least 10 characters" in err and "Traceback" not in err
    assert not users.exists()
    monkeypatch.setattr(sys, "stdin", io.StringIO("0123456789\n"))
    assert main(["users", "add", "ann", "--users", str(users), "--password-stdin"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("correct horse\n"))  # spaces inside: fine
    assert main(["users", "add", "ben", "--users", str(users), "--password-stdin"]) == 0


def test_clearing_the_caches_leaves_the_consoles_workers_in_hand(tmp_path):
    """"Clear cache" must not drop the console with a spare worker still running."""
    import duckdb

    from trickledger.dashboard.data.console import server_console
    from trickledger.ingest.console import Target

    db = str(tmp_path / "c.duckdb")
    duckdb.connect(db).close()
    server_console.clear()
    console = server_console()
    try:
        assert console.run(Target(db=db), "SELECT 42 AS n").rows == [(42,)]  # starts a spare
        spares = [s.proc.pid for s in console.ready]
        assert spares and sorted(console_workers()) == sorted(spares)
        for _ in range(3):
            st.cache_resource.clear()
            st.cache_data.clear()
            assert server_console() is console
        assert sorted(console_workers()) == sorted(s.proc.pid for s in console.ready)
    finally:
        server_console.clear()
    assert console_workers() == []


def test_a_correct_login_does_not_reset_the_addresss_lock_out():
    """An attacker with an account of their own guesses 4 passwords per name and then logs
    into their own account: the address's count of failures must survive that."""
    limiter = accounts.Limiter(max_failures=5)
    users = {"mallory": auth.Account("mallory", "member", auth.hash_password("my own password")),
             "alice": auth.Account("alice", "member", auth.hash_password("alice password")),
             "bob": auth.Account("bob", "member", auth.hash_password("bob password 1"))}
    address = "198.51.100.9"
    for victim in ("alice", "bob"):
        for i in range(2):
            assert accounts.check_login(users, limiter, victim, f"guess {i}", address)[0] is None
        account, _ = accounts.check_login(users, limiter, "mallory", "my own password", address)
        assert account is not None  # the right password, while the address is not locked
    # four failures from this address so far: the fifth locks it, whatever the name
    assert accounts.check_login(users, limiter, "carol", "guess", address)[0] is None
    account, message = accounts.check_login(users, limiter, "mallory", "my own password",
                                            address)
    assert account is None and message.startswith("Too many failed attempts"), message
    # the correct logins themselves were not counted as failures of the name
    assert limiter.wait_s(["user:mallory"]) == 0
