"""What visitors' messages make the server hold: every session together, capped.

Streamlit keeps the value of every widget of a session (a log pasted into the Verify page,
or any value a hand-made client sends for any widget id) in the server's memory for as long
as the session lives, and keeps a session two minutes after its connection closes, for the
visitor to come back. So the server counts, per connection, the biggest message it has sent
(`server.MessageQuota` sees each one before Streamlit does): a message of more than
`FREE_BYTES` counts, and the counted messages of every connection together stay within
`limits.MAX_HELD_MESSAGES_MB`. A message that would pass the cap has its big widget values
taken out before Streamlit reads it (the page then says why: `cut`).

A session whose connection holds a counted message is not kept for reconnecting: when its
connection closes, Streamlit ends it at once and its memory goes. The server learns each
connection's session from the first message Streamlit sends on it (`session_of`, before
the visitor can read it), so the session is told so the moment a counted message arrives,
not at its next page run: a visitor who resumed the session on a new connection in
between would otherwise keep the memory with nothing counting it. A connection whose
session could not be told so is counted for Streamlit's two minutes more.
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
    session_id: str | None = None  # its Streamlit session, once known
    taken_over: bool = False  # its session was resumed on another connection


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
        connection is marked `cut` (its big values are to be taken out). A counted message
        makes the connection's session, when it is known, one that ends with it."""
        with self.lock:
            c = self.connections.get(token)
            if c is None:
                return False
            if c.taken_over and n_bytes > FREE_BYTES:
                c.cut = True  # its session is another connection's now
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
        self._end_with_connection(token)
        return True

    def _end_with_connection(self, token: str) -> None:
        """Tell Streamlit not to keep the session of a connection that holds a counted
        message once the connection closes."""
        with self.lock:
            c = self.connections.get(token)
            if c is None or c.held == 0 or c.ends_with_connection or c.session_id is None:
                return
            session_id = c.session_id
        if self.forget_on_close(session_id):
            with self.lock:
                c.ends_with_connection = True

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
        """The connection `token` serves the session `session_id` (learnt from what
        Streamlit sends on it, and said again by each page run): if the connection holds
        a counted message, its session is not kept for reconnecting."""
        if token is None:
            return
        with self.lock:
            c = self.connections.get(token)
            if c is None:
                return
            c.session_id = session_id
        self._end_with_connection(token)

    def resume(self, token: str, session_id: str) -> None:
        """The connection `token` asks to resume the session `session_id` (a browser whose
        connection dropped). Streamlit then moves the session to it, and goes on taking
        the old connection's messages into it: from now on the old connection's big
        messages have their big values taken out, so that nothing they send stays in a
        session that no longer ends with them. (Had the old connection held a counted
        message, the session would end with it and Streamlit would refuse the resume.)"""
        with self.lock:
            for t, c in self.connections.items():
                if t != token and c.session_id == session_id:
                    c.taken_over = True
            mine = self.connections.get(token)
            if mine is not None and mine.session_id is None:
                mine.session_id = session_id

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


SESSION_MESSAGE_BYTES = 1024 * 1024  # Streamlit's new_session message: a few KB


def resumed_session(protocols: str | None) -> str | None:
    """The session a WebSocket request asks to resume: the third entry of its
    Sec-WebSocket-Protocol header (Streamlit's first is its protocol, the second the XSRF
    token), None when it names none."""
    if not protocols:
        return None
    entries = [entry.strip() for entry in protocols.split(",")]
    return entries[2] if len(entries) >= 3 and entries[2] else None


def session_of(message: bytes) -> str | None:
    """The session id a message Streamlit sends names, when it starts a page run of a
    session (its `new_session`); None for any other message."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    msg = ForwardMsg()
    try:
        msg.ParseFromString(message)
    except Exception:
        return None
    if msg.WhichOneof("type") != "new_session":
        return None
    return msg.new_session.initialize.session_id or None


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
