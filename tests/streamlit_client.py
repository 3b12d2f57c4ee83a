"""A visitor of the real dashboard server without a browser: one Streamlit session over a raw
WebSocket, as an attacker who reads the code would drive it (any headers, any widget value,
any page), speaking Streamlit's own protocol (its protobuf messages)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from websockets.sync.client import ClientConnection, connect


@dataclass
class PageRun:
    """What one script run sent: every element (its kind and its texts) and how it ended."""

    elements: list[tuple[str, Any]] = field(default_factory=list)
    finished: str | None = None
    page_not_found: bool = False

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.elements]

    def texts(self) -> list[str]:
        """Every string the run's elements carry (bodies, labels, values)."""
        out: list[str] = []
        for _, element in self.elements:
            out.extend(_strings(element))
        return out

    def text(self) -> str:
        return "\n".join(self.texts())

    def widget(self, kind: str, label: str) -> Any:
        """The element of `kind` (text_area, button...) whose label is `label`."""
        for k, element in self.elements:
            if k == kind and getattr(element, "label", None) == label:
                return element
        raise AssertionError(f"no {kind} labelled {label!r} in {self.kinds()}")


def _strings(message: Any) -> Iterator[str]:
    for descriptor, value in message.ListFields():
        if descriptor.type == descriptor.TYPE_STRING:
            if descriptor.is_repeated:
                yield from value
            else:
                yield value
        elif descriptor.type == descriptor.TYPE_MESSAGE:
            items = value if descriptor.is_repeated else [value]
            for item in items:
                if hasattr(item, "ListFields"):
                    yield from _strings(item)


class Session:
    """One session of the dashboard at `url` (http://host:port), with these request headers
    on its WebSocket's handshake (a Host, proxy headers, ...)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None,
                 max_size: int = 64 * 1024 * 1024) -> None:
        import socket

        where = url.removeprefix("http://")
        address, port = where.rsplit(":", 1)
        extra = dict(headers or {})
        host = extra.pop("Host", where)  # the Host the request names; it goes to `url`
        sock = socket.create_connection((address, int(port)), timeout=60)
        self._connecting = connect(
            f"ws://{host}/_stcore/stream", sock=sock, subprotocols=["streamlit"],  # type: ignore[list-item]
            additional_headers=extra, user_agent_header=None, proxy=None,
            compression=None, max_size=max_size, open_timeout=60, ping_interval=None)
        self.ws: ClientConnection = self._connecting.__enter__()
        self.session_id: str | None = None

    def run(self, page: str = "", widgets: list[Any] | None = None,
            query: str = "", limit_s: float = 300) -> PageRun:
        """Run `page` (its url path: "verify", "sql"; "" the default page) with these widget
        states (streamlit.proto WidgetState), and collect what it sends until it finishes.
        `limit_s` only turns a hang into a failure: a run that finishes ends the wait."""
        msg = BackMsg()
        msg.rerun_script.query_string = query
        msg.rerun_script.page_name = page
        if widgets:
            msg.rerun_script.widget_states.widgets.extend(widgets)
        self.ws.send(msg.SerializeToString())
        run = PageRun()
        deadline = time.monotonic() + limit_s
        while run.finished is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"the page {page or '(default)'} did not finish within "
                                   f"{limit_s:.0f} s; it sent {run.kinds()}")
            try:
                data = self.ws.recv(timeout=left)
            except TimeoutError:
                continue
            fwd = ForwardMsg()
            fwd.ParseFromString(data if isinstance(data, bytes) else data.encode())
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                self.session_id = fwd.new_session.initialize.session_id or self.session_id
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                element = fwd.delta.new_element
                which = element.WhichOneof("type")
                if which:
                    run.elements.append((which, getattr(element, which)))
            elif kind == "page_not_found":
                run.page_not_found = True
            elif kind == "script_finished":
                status = ForwardMsg.ScriptFinishedStatus.Name(fwd.script_finished)
                if status != "FINISHED_EARLY_FOR_RERUN":
                    run.finished = status
        return run

    def close(self) -> None:
        self._connecting.__exit__(None, None, None)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def text_value(widget_id: str, value: str) -> Any:
    """A text widget's state as the browser sends it."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    return WidgetState(id=widget_id, string_value=value)
