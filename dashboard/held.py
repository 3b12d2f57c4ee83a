"""What visitors' messages make the server hold: every session together, capped.

Streamlit keeps the value of every widget of a session (a log pasted into the Verify page,
or any value a hand-made client sends for any widget id) in the server's memory for as long
as the session lives, and keeps a session two minutes after its connection closes, for the
visitor to come back. So the server counts, per connection, the biggest message it has sent
(`server.MessageQuota` sees each one before Streamlit does): a message of more than
`FREE_BYTES` counts, and the counted messages of every connection together stay within
`limits.MAX_HELD_MESSAGES_MB`. A message that would pass the cap has its big widget values
taken out before Streamlit reads it (the page then says why: `cut`).

A session whose connection holds a counted message is not kept for reconnecting (`bind`):
when its connection closes, Streamlit ends it at once and its memory goes. A connection
whose session could not be told so is counted for Streamlit's two minutes more.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from trickledger.dashboard import limits

MIB = 1024 * 1024
# The request header the server gives each of its WebSocket connections (a visitor's own
# header of that name is dropped first), so that a page run knows its connection.
CONNECTION_HEADER = "trickledger-connection"
FREE_BYTES = 64 * 1024  # a page's ordinary widget values: not counted
BIG_VALUE_BYTES = 16 * 1024  # a widget value taken out of a message over the cap


def _linger_s() -> float:
    """How long Streamlit keeps a session after its connection closes (and a margin)."""
    try:
        from streamlit import config

        return float(config.get_option("server.disconnectedSessionTTL")) + 5.0
    except Exception:
        return 125.0


def _forget_on_close(session_id: str) -> bool:
    """Ask Streamlit to end the session when its connection closes instead of keeping it
    for a reconnection; whether it could be asked."""
    try:
        from streamlit.runtime import Runtime

        if not Runtime.exists():
            return False
        Runtime.instance().mark_session_nonresumable(session_id)
        return True
    except Exception:
        return False


@dataclass
class _Connection:
    held: int = 0  # its biggest counted message
    closed_at: float | None = None
    ends_with_connection: bool = False  # its session ends when the connection closes
    cut: bool = False  # its last message had values taken out: over the cap


@dataclass
class HeldMessages:
    """The counted messages of every connection of the server, within `cap_bytes`."""

    cap_bytes: int
    linger_s: Callable[[], float] = _linger_s
    forget_on_close: Callable[[str], bool] = _forget_on_close
    connections: dict[str, _Connection] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def open(self) -> str:
        token = uuid.uuid4().hex
        with self.lock:
            self.connections[token] = _Connection()
        return token

    def _prune(self, now: float) -> None:
        linger = self.linger_s()
        for token in [t for t, c in self.connections.items()
                      if c.closed_at is not None and now - c.closed_at > linger]:
            del self.connections[token]

    def held(self) -> int:
        with self.lock:
            self._prune(time.monotonic())
            return sum(c.held for c in self.connections.values())

    def admit(self, token: str, n_bytes: int) -> bool:
        """Whether a message of `n_bytes` from this connection fits; if it does not, the
        connection is marked `cut` (its big values are to be taken out)."""
        with self.lock:
            c = self.connections.get(token)
            if c is None:
                return False
            if n_bytes <= FREE_BYTES or n_bytes <= c.held:
                c.cut = False
                return True
            self._prune(time.monotonic())
            others = sum(o.held for t, o in self.connections.items() if t != token)
            if others + n_bytes > self.cap_bytes:
                c.cut = True
                return False
            c.held, c.cut = n_bytes, False
            return True

    def close(self, token: str) -> None:
        """The connection closed: what it held goes now if its session ends with it, else
        when Streamlit lets the session go."""
        with self.lock:
            c = self.connections.get(token)
            if c is None:
                return
            if c.ends_with_connection or c.held == 0:
                del self.connections[token]
            else:
                c.closed_at = time.monotonic()

    def bind(self, token: str | None, session_id: str) -> None:
        """A page run of `session_id` on this connection: if the connection holds a counted
        message, its session is not kept for reconnecting."""
        if token is None:
            return
        with self.lock:
            c = self.connections.get(token)
            if c is None or c.held == 0 or c.ends_with_connection:
                return
        if self.forget_on_close(session_id):
            with self.lock:
                c.ends_with_connection = True

    def was_cut(self, token: str | None) -> bool:
        with self.lock:
            c = self.connections.get(token or "")
            return c is not None and c.cut


def connection_token() -> str | None:
    """The server's token of this page run's WebSocket connection (server.MessageQuota)."""
    try:
        import streamlit as st

        return st.context.headers.get(CONNECTION_HEADER)
    except Exception:  # no request (a page run in a test)
        return None


HELD = HeldMessages(limits.MAX_HELD_MESSAGES_MB * MIB)  # the server's, every connection


def cut_big_values(message: bytes) -> bytes | None:
    """A visitor's message (Streamlit's BackMsg) with its big widget values taken out, so
    that Streamlit holds none of them; None when it is not a page run (then it is not
    passed on at all: the browser sends nothing else of any size)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    msg = BackMsg()
    try:
        msg.ParseFromString(message)
    except Exception:
        return None
    if msg.WhichOneof("type") != "rerun_script":
        return None
    widgets = msg.rerun_script.widget_states.widgets
    keep = [w for w in widgets if w.ByteSize() <= BIG_VALUE_BYTES]
    del widgets[:]
    widgets.extend(keep)
    if msg.ByteSize() > FREE_BYTES:  # many values of middling size: none of them
        del widgets[:]
    if msg.ByteSize() > FREE_BYTES:  # big elsewhere (its query string, its page's name)
        return None
    return msg.SerializeToString()
