"""Accounts for the dashboard, without Streamlit: password hashes, the users file, the
login limiter and what counts as a loopback address. The command line (`trickledger users
add`, `trickledger dashboard`) uses these without starting Streamlit's machinery;
dashboard.auth puts them to work in the app (its docstring says who may do what)."""


from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import os
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

USERS_ENV = "TRICKLEDGER_USERS"
LISTEN_ENV = "TRICKLEDGER_LISTEN"  # the address `trickledger dashboard` listens on
ROLES = ("member", "admin")
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MAX_PASSWORD_BYTES = 1024
MIN_PASSWORD_CHARS = 10  # for `users add`; an attacker gets 5 guesses per name per lock-out
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
    # spaces are easy to type and to guess: ten of them are no password
    if password is not None and len("".join(password.split())) < MIN_PASSWORD_CHARS:
        raise ValueError(f"a password needs at least {MIN_PASSWORD_CHARS} characters "
                         "other than spaces")
    entry = {"role": role}
    if password is not None:
        before = current.get(key, {}).get("password")
        # a new hash (a new salt) means a new password, which ends the account's sessions
        # (dashboard.auth.visitor): the same password given again keeps its hash
        same = isinstance(before, str) and verify_password(password, before)
        entry["password"] = before if same and isinstance(before, str) else \
            hash_password(password)
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
            return self._wait(keys, now)

    def _wait(self, keys: list[str], now: float) -> float:
        return max([self.locked_until.get(k, 0.0) - now for k in keys] + [0.0])

    def attempt(self, keys: list[str]) -> float:
        """Count a login attempt as failed BEFORE its password is checked, and return 0;
        or, while a key is locked out, count nothing and return the seconds to wait.
        Counting first means that many attempts at once (20 logins sent together) get
        no more checks than the limit allows; `succeeded` takes a right one back."""
        now = time.monotonic()
        with self.lock:
            wait = self._wait(keys, now)
            if wait > 0:
                return wait
            for k in keys:
                recent = [t for t in self.failures.get(k, []) if now - t < self.window_s]
                recent.append(now)
                self.failures[k] = recent
                if len(recent) >= self.max_failures:
                    s = self.strikes.get(k, 0)
                    self.locked_until[k] = now + min(self.base_lock_s * 2**s, 3600.0)
                    self.strikes[k] = s + 1
                    self.failures[k] = []
            return 0.0

    def succeeded(self, keys: list[str]) -> None:
        with self.lock:
            for k in keys:
                self.failures.pop(k, None)
                self.strikes.pop(k, None)
                self.locked_until.pop(k, None)

    def take_back(self, keys: list[str]) -> None:
        """Uncount the latest attempt of each key (a right password), keeping its earlier
        failures: an address's count must outlive one account's correct login, or an
        attacker with an account of their own guesses across every name without limit."""
        with self.lock:
            for k in keys:
                recent = self.failures.get(k)
                if recent:
                    recent.pop()


# The server's one limiter, outside Streamlit's caches: a visitor's "clear cache" must
# not wipe the record of failed logins.
LIMITER = Limiter()

_DUMMY_HASH: list[str] = []


def check_login(users: dict[str, Account], limiter: Limiter, name: str, password: str,
                address: str | None) -> tuple[Account | None, str]:
    """The account for a name and password, or None and why (never whether the name
    exists)."""
    key = name.strip().casefold()
    keys = [f"user:{key}"] + ([f"address:{address}"] if address else [])
    wait = limiter.attempt(keys)  # counted before the hash is checked
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
        limiter.succeeded(keys[:1])  # the name's record only: the address's count stays
        limiter.take_back(keys[1:])
        return account, "ok"
    return None, "Wrong name or password."


def is_loopback(address: str) -> bool:
    """Whether a listening address reaches this machine only."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


USUAL_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def loopback_warning(address: str) -> str | None:
    """What `trickledger dashboard` says at start-up when it listens on a loopback address
    other than the usual one (127.0.0.2, 127.1.2.3...): such an address is typically
    chosen to be forwarded to (a tunnel, a container's published port, a proxy that adds no
    header), and every visitor it lets in counts as this machine, which may do everything."""
    if not is_loopback(address) or address in USUAL_LOOPBACK:
        return None
    return (f"warning: the dashboard listens on {address}, a loopback address: every visitor "
            f"who reaches it counts as this machine and may do everything (upload, the SQL "
            f"console, the Admin page) without an account. Whatever forwards to {address} "
            f"(a tunnel, a container's port, a proxy that adds no forwarding header) makes "
            f"its visitors admins. Listen on 127.0.0.1 for yourself alone, or beyond this "
            f"machine with accounts (see docs/reliability.md, 'Hosting').")


class UploadRights:
    """The Streamlit sessions whose visitor may write, as their last page run found: the
    server's upload guard (dashboard/server.py) asks it before it reads a byte of an
    upload, because Streamlit takes any session's upload and keeps it in memory."""

    MAX_SESSIONS = 10_000  # the oldest are forgotten beyond this (they log in again)

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sessions: dict[str, float] = {}

    def allow(self, session_id: str) -> None:
        with self.lock:
            self.sessions.pop(session_id, None)
            self.sessions[session_id] = time.monotonic()
            while len(self.sessions) > self.MAX_SESSIONS:
                self.sessions.pop(next(iter(self.sessions)))

    def revoke(self, session_id: str) -> None:
        with self.lock:
            self.sessions.pop(session_id, None)

    def allowed(self, session_id: str) -> bool:
        with self.lock:
            return session_id in self.sessions


UPLOADERS = UploadRights()
