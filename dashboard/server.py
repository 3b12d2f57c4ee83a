"""The dashboard as served: the Streamlit app (dashboard/app.py) behind three guards that
act before Streamlit reads a request.

- A Host allow-list on every route (not only the app's WebSocket), against DNS
  rebinding: the names come from `trickledger dashboard` (`TRICKLEDGER_ALLOWED_HOSTS`).
- Streamlit's internal endpoints that tell strangers about the server
  (`/_stcore/metrics`, the agent API) answer 404.
- Uploads only from sessions whose visitor may write (403 before the body is read), and
  upload quotas (dashboard/limits.py): files per session, bytes per session, bytes for
  the whole server in any ten minutes and held at once; refused with 429/413 while the
  body streams in.
- What visitors' messages on the app's WebSocket make the server hold, every session
  together (dashboard/held.py): a message over the cap has its big values taken out
  before Streamlit reads it.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import PlainTextResponse

from trickledger.dashboard import accounts, held, limits

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

BLOCKED = ("/_stcore/metrics", "/_stcore/agent")
MB = 1024 * 1024


class BlockInternals:
    """404 for Streamlit's endpoints that describe the server to anyone who asks."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(BLOCKED):
            await PlainTextResponse("not found", status_code=404)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class _OverQuota(Exception):
    pass


def held_bytes() -> int:
    """The bytes of uploaded files Streamlit holds now, every session together."""
    try:
        from streamlit.runtime import Runtime

        stats = Runtime.instance().uploaded_file_mgr.get_stats()
    except Exception:  # no runtime (yet): nothing held
        return 0
    return sum(int(getattr(stat, "byte_length", 0)) for group in stats.values() for stat in group)


class UploadQuota:
    """Lets an upload in only from a session whose visitor may write (before a byte of it
    is read), and counts uploaded files and bytes per session, for the whole server in
    any ten minutes, and held at once; refuses a file as soon as a limit is passed
    (before Streamlit keeps it in memory)."""

    def __init__(self, app: ASGIApp, held: Callable[[], int] = held_bytes) -> None:
        self.app = app
        self.held = held
        self.lock = threading.Lock()
        self.sessions: dict[str, list[int]] = {}  # session id -> [files, bytes]
        self.recent: deque[tuple[float, int]] = deque()  # (when, bytes) for the server cap
        self.arriving = 0  # bytes of uploads still streaming in (not yet held)

    def _server_bytes(self, now: float) -> int:
        while self.recent and now - self.recent[0][0] > 600:
            self.recent.popleft()
        return sum(n for _, n in self.recent)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if scope["type"] != "http" or scope.get("method") != "PUT" or \
                "/_stcore/upload_file/" not in path:
            await self.app(scope, receive, send)
            return
        session = path.split("/_stcore/upload_file/", 1)[1].split("/", 1)[0]
        if not accounts.UPLOADERS.allowed(session):
            # Streamlit would take any session's upload and keep it until the session ends
            await PlainTextResponse("uploading needs a member's account: log in first",
                                    status_code=403)(scope, receive, send)
            return
        with self.lock:
            used = self.sessions.setdefault(session, [0, 0])
            if used[0] >= limits.MAX_FILES:
                refuse: PlainTextResponse | None = PlainTextResponse(
                    f"at most {limits.MAX_FILES} files per visit", status_code=429)
            else:
                used[0] += 1
                refuse = None
        if refuse is not None:
            await refuse(scope, receive, send)
            return
        this_file = 0

        async def counting() -> MutableMapping[str, Any]:
            nonlocal this_file
            message = await receive()
            if message["type"] == "http.request":
                n = len(message.get("body", b""))
                this_file += n
                now = time.monotonic()
                held = self.held()
                with self.lock:
                    used[1] += n
                    self.recent.append((now, n))
                    self.arriving += n
                    over = (this_file > limits.MAX_FILE_MB * MB
                            or used[1] > limits.MAX_SESSION_MB * MB
                            or self._server_bytes(now) > limits.MAX_SERVER_MB_PER_10_MIN * MB
                            or held + self.arriving > limits.MAX_HELD_MB * MB)
                if over:
                    raise _OverQuota()
            return message

        try:
            await self.app(scope, counting, send)
        except _OverQuota:
            await PlainTextResponse("upload limit passed: " + limits.upload_rules(),
                                    status_code=413)(scope, receive, send)
        finally:
            with self.lock:  # arrived: held by Streamlit now, or refused and dropped
                self.arriving -= this_file


class MessageQuota:
    """Counts what each WebSocket connection of the app sends (`held.HELD`), gives the
    connection its token (the `held.CONNECTION_HEADER` request header, a visitor's own of
    that name dropped), and takes the big values out of a message that would make the
    server hold more than the cap, before Streamlit reads it."""

    def __init__(self, app: ASGIApp, ledger: held.HeldMessages | None = None) -> None:
        self.app = app
        self.ledger = ledger or held.HELD
        self.too_big = limits.MAX_WIDGET_STATE_MB * 1_000_000  # Streamlit closes on those

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "websocket" or not str(scope.get("path", "")).endswith(
                "/_stcore/stream"):
            await self.app(scope, receive, send)
            return
        token = self.ledger.open()
        name = held.CONNECTION_HEADER.encode()
        scope["headers"] = [(k, v) for k, v in scope.get("headers", []) if k.lower() != name]
        scope["headers"].append((name, token.encode()))

        async def counted() -> MutableMapping[str, Any]:
            while True:
                message = await receive()
                if message["type"] != "websocket.receive":
                    return message
                data = message.get("bytes")
                if data is None:
                    data = (message.get("text") or "").encode()
                if len(data) > self.too_big or self.ledger.admit(token, len(data)):
                    return message  # within the cap, or refused whole by Streamlit itself
                cut = held.cut_big_values(data)
                if cut is None:
                    continue  # not a page run: the browser sends nothing else this big
                return {"type": "websocket.receive", "bytes": cut}

        try:
            await self.app(scope, counted, send)
        finally:
            self.ledger.close(token)


def allowed_hosts() -> list[str]:
    """The Host names the server answers to (`TRICKLEDGER_ALLOWED_HOSTS`, comma-separated)."""
    names = os.environ.get("TRICKLEDGER_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
    return [n.strip() for n in names.split(",") if n.strip()]


app = st.App(Path(__file__).resolve().parent / "app.py", middleware=[
    Middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts()),
    Middleware(BlockInternals),
    Middleware(UploadQuota),
    Middleware(MessageQuota),
])
