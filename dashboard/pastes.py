"""Pasting a log into a page: within what one paste may hold, and what every session
together may make the server hold (dashboard/held.py)."""

from __future__ import annotations

import streamlit as st

from trickledger.dashboard import held, limits, ui

MIB = 1024 * 1024


def paste_area(label: str, key: str, height: int, placeholder: str) -> str:
    """A text area for pasting a log; returns its text, "" when it was refused (the reason
    is shown, and the session holds none of it)."""
    refused = None
    pasted = st.session_state.get(key)
    if held.HELD.was_cut(held.connection_token()):
        refused = (f"The server holds as much pasted text as it may right now "
                   f"({limits.MAX_HELD_MESSAGES_MB} MB, every visitor together): try again "
                   f"in a few minutes, or upload the file.")
    elif isinstance(pasted, str) and len(pasted) > limits.MAX_PASTE_MB * MIB // 4 and \
            len(pasted.encode("utf-8", "surrogatepass")) > limits.MAX_PASTE_MB * MIB:
        refused = (f"That paste is more than {limits.MAX_PASTE_MB} MB: upload the file, or "
                   f"check it with `trickledger verify`.")
        st.session_state[key] = ""  # before the widget is drawn: the session keeps none of it
    text = st.text_area(ui.md(label), key=key, max_chars=limits.MAX_PASTE_MB * MIB, height=height,
                        placeholder=placeholder)
    if refused is not None:
        st.error(ui.md(refused))
        return ""
    return text or ""
