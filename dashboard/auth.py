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

"This machine" is decided per request, from what a proxy on the way cannot hide: the server
listens on loopback only, the connection comes from a loopback address, the request names
a loopback host (and so does its Origin, the page a browser opened), and it carries no
header but those a browser sends by itself (`browser_header`). A reverse proxy on the same
machine in front of a loopback-only server therefore does not make its visitors admins,
whatever headers it adds.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from trickledger.dashboard import held
from trickledger.dashboard.accounts import (  # noqa: F401  (re-exported: the app's one auth module)
    LIMITER,
    LISTEN_ENV,
    ROLES,
    UPLOADERS,
    USERS_ENV,
    Account,
    Limiter,
    add_user,
    check_login,
    hash_password,
    is_loopback,
    load_users,
    verify_password,
)

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


def oidc_configured() -> bool:
    """Whether `[auth]` is set up in Streamlit's secrets (st.user then knows is_logged_in)."""
    try:
        return st.user.get("is_logged_in") is not None
    except Exception:
        return False


def _limiter() -> Limiter:
    return LIMITER  # process-wide, not a Streamlit cache: "clear cache" cannot reset it


@st.cache_data(ttl=30, show_spinner=False)
def _users(path: str, mtime: float) -> dict[str, Account]:
    return load_users(path)


def users() -> dict[str, Account]:
    path = os.environ.get(USERS_ENV)
    if not path or not os.path.exists(path):
        return {}
    return _users(path, os.path.getmtime(path))


SESSION_KEY = "trickledger_account"


# The request headers a browser sends by itself when it opens the app (the page, its
# WebSocket): nothing else. A proxy, a load balancer, a CDN or an authentication proxy adds
# headers of its own (Forwarded, Via, X-Forwarded-*, X-Real-IP, CF-*, X-Amzn-Trace-Id,
# X-Amzn-Oidc-*, X-Pomerium-*, X-Goog-Iap-*, Remote-User, Authorization, ...), named as it
# likes: so "this machine" is decided by the headers a browser sends, never by a list of
# the names proxies use, which would always miss one. Browsers reserve the Sec- prefix.
_BROWSER_HEADERS = frozenset({
    "host", "connection", "upgrade", "pragma", "cache-control", "user-agent", "origin",
    "accept", "accept-encoding", "accept-language", "cookie", "referer", "dnt",
    "upgrade-insecure-requests", "priority", "if-none-match", "if-modified-since",
    "content-type", "content-length", "save-data",
    # given by this server's own MessageQuota to each connection (a visitor's is dropped)
    held.CONNECTION_HEADER})


def browser_header(name: str) -> bool:
    """Whether a request header is one a browser sends by itself, and no proxy adds."""
    n = name.strip().lower()
    return n in _BROWSER_HEADERS or (n.startswith("sec-") and "_" not in n)


def from_this_machine() -> bool:
    """Whether this request comes from this machine directly, decided by what a proxy on
    the way cannot hide: the server listens on loopback only, the connection's peer is a
    loopback address, the Host (and the Origin, when there is one) is a loopback name, and
    every header is one a browser sends by itself (anything a proxy added makes the visitor a stranger)."""
    if not local_only():
        return False
    try:
        headers = list(st.context.headers.items())
    except Exception:
        headers = []
    if not headers:  # no request (a test's script run): the listening address decides
        return True  # (a real request always names its Host: the server refuses it else)
    try:
        peer = st.context.ip_address  # None for 127.0.0.1 and ::1, as Streamlit reports them
    except Exception:
        peer = None
    if peer is not None and not is_loopback(str(peer)):
        return False
    if not all(browser_header(name) for name, _ in headers):
        return False
    hosts = [_host_name(v) for k, v in headers if k.lower() == "host"]
    # the page a browser came from: a proxy that adds no header of its own (nginx's
    # defaults) still passes on the Origin of its visitors' pages, under the proxy's name
    origins = [_origin_host(v) for k, v in headers if k.strip().lower() == "origin"]
    return len(hosts) == 1 and all(_loopback_name(h) for h in hosts + origins)


def _loopback_name(name: str | None) -> bool:
    return name is not None and (name == "localhost" or is_loopback(name))


def _origin_host(value: str) -> str | None:
    """The host an Origin header names (`http://[::1]:8501` is `::1`); None for `null` and
    anything that is not an origin."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value.strip())
        return parts.hostname if parts.scheme in ("http", "https") else None
    except ValueError:
        return None


def _host_name(value: str) -> str:
    """The name in a Host header, without its port: `[::1]:8501` is `::1`."""
    v = value.strip().lower()
    if v.startswith("["):
        return v[1:].split("]", 1)[0]
    return v.rsplit(":", 1)[0] if v.count(":") == 1 else v


def visitor() -> Visitor:
    """The current visitor and what they may do (the upload guard is told too: it lets
    this session's uploads in only while its visitor may write)."""
    me = _visitor()
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
    except Exception:
        ctx = None
    if ctx is not None:
        if me.may_write:
            UPLOADERS.allow(ctx.session_id)
        else:
            UPLOADERS.revoke(ctx.session_id)
        # a session that holds a big message is not kept after its connection closes
        held.HELD.bind(held.connection_token(), ctx.session_id)
    return me


def _visitor() -> Visitor:
    if from_this_machine():
        return Visitor(None, "admin", "this machine")
    if oidc_configured() and st.user.get("is_logged_in"):
        email = str(st.user.get("email") or st.user.get("sub") or "").casefold()
        account = users().get(email)
        return Visitor(email, account.role if account else None, "identity provider")
    account = st.session_state.get(SESSION_KEY)
    if isinstance(account, Account):
        # the users file as it is now: a removed account or a changed password logs the
        # session out, a changed role holds at once
        current = users().get(account.name)
        if current is None or (account.password is not None and
                               current.password != account.password):
            st.session_state.pop(SESSION_KEY, None)
            return Visitor(None, None, "anonymous")
        return Visitor(current.name, current.role, "password")
    return Visitor(None, None, "anonymous")


def login_panel() -> None:
    """The sidebar's login box, shown when writing needs an account."""
    from trickledger.dashboard.ui import md  # an account name is text (an identity provider's e-mail)

    if from_this_machine():
        return
    sb = st.sidebar
    me = visitor()
    if me.name is not None:
        sb.caption(f"Logged in as {md(me.name)} ({md(me.role or 'reader')}).")
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
                        st.error(md(message))
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
    from trickledger.dashboard.ui import md

    me = visitor()
    if allowed(me):
        return me
    if me.name is not None:
        st.warning(f"{md(to_member)}; {md(me.name)} is a {md(me.role or 'reader')}.")
    else:
        st.info(f"{md(to_stranger)}: log in from the sidebar.")
    return None


def describe(me: Visitor) -> dict[str, Any]:
    """Who did something, for the audit log."""
    return {"user": me.name or ("local" if me.via == "this machine" else None), "via": me.via,
            "address": _address()}
