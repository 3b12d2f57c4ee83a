"""Who may write: accounts for the dashboard when it is reachable beyond this machine.

Reading stays open. Writing (Upload, Save on Verify), the SQL console and the admin page
need an account when the server listens beyond loopback; on loopback the one local user
may do everything. Two ways to log in, both documented in docs/reliability.md:

- an identity provider, with Streamlit's own `st.login()` (OpenID Connect, configured in
  `.streamlit/secrets.toml` under `[auth]`); the users file then only gives roles to the
  provider's e-mail addresses;
- a users file for a club without one (`trickledger users add NAME --users FILE`): scrypt
  password hashes with a random salt, compared in constant time; failed attempts are
  counted per name and per address for the whole server, and lock out with a growing
  wait; an unknown name costs the same work and gets the same answer as a wrong password.

Roles: `member` may upload and save; `admin` may also use the SQL console (it reads the
whole file, the audit log included), see the audit log and quarantine or delete logs.

"This machine" is decided per request: the server listens on loopback only, the request
names a loopback host, and it carries no forwarding header. A reverse proxy on the same
machine in front of a loopback-only server therefore does not make its visitors admins.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import streamlit as st

USERS_ENV = "TRICKLEDGER_USERS"
LISTEN_ENV = "TRICKLEDGER_LISTEN"  # the address `trickledger dashboard` listens on
ROLES = ("member", "admin")
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MAX_PASSWORD_BYTES = 1024
_MAXMEM = 64 * 1024 * 1024


# ----------------------------------------------------------------- passwords


def hash_password(password: str) -> str:
    """A users-file entry for `password`: scrypt with its parameters and a random salt."""
    pw = password.encode()
    if not pw or len(pw) > MAX_PASSWORD_BYTES:
        raise ValueError(f"a password has 1 to {MAX_PASSWORD_BYTES} bytes")
    salt = os.urandom(16)
    dk = hashlib.scrypt(pw, salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, maxmem=_MAXMEM,
                        dklen=32)
    return (f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${base64.b64encode(salt).decode()}"
            f"${base64.b64encode(dk).decode()}")


def verify_password(password: str, stored: str) -> bool:
    try:
        algo, n, r, p, salt_b64, dk_b64 = stored.split("$")
        salt, dk = base64.b64decode(salt_b64), base64.b64decode(dk_b64)
        if algo != "scrypt":
            return False
        pw = password.encode()[:MAX_PASSWORD_BYTES + 1]
        candidate = hashlib.scrypt(pw, salt=salt, n=int(n), r=int(r), p=int(p),
                                   maxmem=_MAXMEM, dklen=len(dk))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(candidate, dk) and len(pw) <= MAX_PASSWORD_BYTES


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    password: str | None  # None: an identity-provider account (roles only)


def load_users(path: str) -> dict[str, Account]:
    """The users file: `[users.NAME]` tables with `role` and (club accounts) `password`."""
    with open(path, "rb") as f:
        data = tomllib.load(f)
    out: dict[str, Account] = {}
    for name, entry in data.get("users", {}).items():
        if not isinstance(entry, dict):
            continue
        role = entry.get("role", "member")
        if role not in ROLES:
            continue
        key = name.strip().casefold()
        password = entry.get("password")
        out[key] = Account(key, role, password if isinstance(password, str) else None)
    return out


def add_user(path: str, name: str, password: str | None, role: str) -> None:
    """Add or replace one account in the users file (created with mode 0600)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}")
    key = name.strip().casefold()
    if not key or any(c in key for c in "\"\\\n\r") or len(key) > 128:
        raise ValueError("a user name is 1-128 characters, without quotes or line breaks")
    p = Path(path)
    current: dict[str, dict[str, str]] = {}
    if p.exists():
        with open(p, "rb") as f:
            current = {k: dict(v) for k, v in tomllib.load(f).get("users", {}).items()
                       if isinstance(v, dict)}
    entry = {"role": role}
    if password is not None:
        entry["password"] = hash_password(password)
    current[key] = entry
    lines = ["# trickledger dashboard accounts (trickledger users add NAME --users FILE)", ""]
    for user, values in sorted(current.items()):
        lines.append(f'[users."{user}"]')
        lines.extend(f'{k} = "{v}"' for k, v in values.items())
        lines.append("")
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines))


@dataclass
class Limiter:
    """Failed logins per key (a name, an address), shared by every session of the server,
    with a lock-out that doubles on each repeat (at most an hour)."""

    max_failures: int = 5
    window_s: float = 900.0
    base_lock_s: float = 30.0
    failures: dict[str, list[float]] = field(default_factory=dict)
    locked_until: dict[str, float] = field(default_factory=dict)
    strikes: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    hashing: threading.BoundedSemaphore = field(
        default_factory=lambda: threading.BoundedSemaphore(2))  # scrypt is costly by design

    def wait_s(self, keys: list[str]) -> float:
        now = time.monotonic()
        with self.lock:
            return max([self.locked_until.get(k, 0.0) - now for k in keys] + [0.0])

    def failed(self, keys: list[str]) -> None:
        now = time.monotonic()
        with self.lock:
            for k in keys:
                recent = [t for t in self.failures.get(k, []) if now - t < self.window_s]
                recent.append(now)
                self.failures[k] = recent
                if len(recent) >= self.max_failures:
                    s = self.strikes.get(k, 0)
                    self.locked_until[k] = now + min(self.base_lock_s * 2**s, 3600.0)
                    self.strikes[k] = s + 1
                    self.failures[k] = []

    def succeeded(self, keys: list[str]) -> None:
        with self.lock:
            for k in keys:
                self.failures.pop(k, None)
                self.strikes.pop(k, None)
                self.locked_until.pop(k, None)


_DUMMY_HASH: list[str] = []


def check_login(users: dict[str, Account], limiter: Limiter, name: str, password: str,
                address: str | None) -> tuple[Account | None, str]:
    """The account for a name and password, or None and why (never whether the name
    exists)."""
    key = name.strip().casefold()
    keys = [f"user:{key}"] + ([f"address:{address}"] if address else [])
    wait = limiter.wait_s(keys)
    if wait > 0:
        return None, f"Too many failed attempts. Try again in {int(wait) + 1} s."
    if not _DUMMY_HASH:
        _DUMMY_HASH.append(hash_password(os.urandom(16).hex()))
    account = users.get(key)
    stored = account.password if account is not None and account.password else _DUMMY_HASH[0]
    with limiter.hashing:
        ok = verify_password(password, stored) and account is not None and \
            account.password is not None
    if ok and account is not None:
        limiter.succeeded(keys)
        return account, "ok"
    limiter.failed(keys)
    return None, "Wrong name or password."


# ----------------------------------------------------------------- in the app


@dataclass(frozen=True)
class Visitor:
    """Who is looking: a name (or None), a role (None: may only read), how they came in."""

    name: str | None
    role: str | None
    via: str  # "this machine", "password", "identity provider", "anonymous"

    @property
    def may_write(self) -> bool:
        return self.role in ROLES

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def local_only() -> bool:
    """Whether the server listens on loopback only (then its one user may do anything)."""
    address = os.environ.get(LISTEN_ENV) or st.get_option("server.address")
    return bool(address) and is_loopback(address)  # unset: Streamlit listens everywhere


def is_loopback(address: str) -> bool:
    """Whether a listening address reaches this machine only."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def oidc_configured() -> bool:
    """Whether `[auth]` is set up in Streamlit's secrets (st.user then knows is_logged_in)."""
    try:
        return st.user.get("is_logged_in") is not None
    except Exception:
        return False


@st.cache_resource
def _limiter() -> Limiter:
    return Limiter()


@st.cache_data(ttl=30, show_spinner=False)
def _users(path: str, mtime: float) -> dict[str, Account]:
    return load_users(path)


def users() -> dict[str, Account]:
    path = os.environ.get(USERS_ENV)
    if not path or not os.path.exists(path):
        return {}
    return _users(path, os.path.getmtime(path))


SESSION_KEY = "trickledger_account"


_FORWARDED = ("x-forwarded-for", "forwarded", "x-real-ip", "x-forwarded-host")


def from_this_machine() -> bool:
    """Whether this request comes from this machine directly: the server listens on
    loopback only, the Host is a loopback name, and no proxy forwarded it."""
    if not local_only():
        return False
    try:
        headers = {k.lower(): v for k, v in st.context.headers.items()}
    except Exception:  # no request (a test's script run): the listening address decides
        return True
    if any(h in headers for h in _FORWARDED):
        return False
    host = headers.get("host", "localhost").rsplit(":", 1)[0].strip("[]")
    return host == "localhost" or is_loopback(host)


def visitor() -> Visitor:
    """The current visitor and what they may do."""
    if from_this_machine():
        return Visitor(None, "admin", "this machine")
    if oidc_configured() and st.user.get("is_logged_in"):
        email = str(st.user.get("email") or st.user.get("sub") or "").casefold()
        account = users().get(email)
        return Visitor(email, account.role if account else None, "identity provider")
    account = st.session_state.get(SESSION_KEY)
    if isinstance(account, Account):
        # the users file as it is now: a removed account is logged out, a changed role holds
        current = users().get(account.name)
        if current is None:
            st.session_state.pop(SESSION_KEY, None)
            return Visitor(None, None, "anonymous")
        return Visitor(current.name, current.role, "password")
    return Visitor(None, None, "anonymous")


def login_panel() -> None:
    """The sidebar's login box, shown when writing needs an account."""
    if from_this_machine():
        return
    sb = st.sidebar
    me = visitor()
    if me.name is not None:
        sb.caption(f"Logged in as {me.name} ({me.role or 'reader'}).")
        if sb.button("Log out", key="logout"):
            if me.via == "identity provider":
                st.logout()
            st.session_state.pop(SESSION_KEY, None)
            st.rerun()
        return
    with sb.expander("Log in to upload or query"):
        if oidc_configured():
            if st.button("Log in with your club's account", key="oidc_login"):
                st.login()
        if users():
            with st.form("login", clear_on_submit=True):
                name = st.text_input("Name", max_chars=128)
                password = st.text_input("Password", type="password", max_chars=256)
                if st.form_submit_button("Log in"):
                    account, message = check_login(users(), _limiter(), name, password,
                                                   _address())
                    if account is None:
                        st.error(message)
                    else:
                        st.session_state[SESSION_KEY] = account
                        st.rerun()
        if not oidc_configured() and not users():
            st.caption("No accounts are set up on this server: it can be read, not written.")


def _address() -> str | None:
    try:
        value = st.context.ip_address
    except Exception:
        return None
    return str(value) if value else None


def require_writer(what: str) -> Visitor | None:
    """The visitor if they may write; otherwise say why on the page and return None."""
    return _require(lambda me: me.may_write, f"{what} needs a member's account",
                    f"{what} needs an account on this server")


def require_admin(what: str, why: str = "") -> Visitor | None:
    """The visitor if they are an admin; otherwise say why on the page and return None."""
    return _require(lambda me: me.is_admin, f"{what} is for admins{why}",
                    f"{what} is for the server's admins{why}")


def _require(allowed: Callable[[Visitor], bool], to_member: str,
             to_stranger: str) -> Visitor | None:
    me = visitor()
    if allowed(me):
        return me
    if me.name is not None:
        st.warning(f"{to_member}; {me.name} is a {me.role or 'reader'}.")
    else:
        st.info(f"{to_stranger}: log in from the sidebar.")
    return None


def describe(me: Visitor) -> dict[str, Any]:
    """Who did something, for the audit log."""
    return {"user": me.name or ("local" if me.via == "this machine" else None), "via": me.via,
            "address": _address()}
