"""What a visitor may send the dashboard, stated once: the server's middleware enforces
it before a byte is held in memory, the upload widgets and their captions say it."""

from __future__ import annotations

from trickledger.replay.reader import MAX_LOG_BYTES

MAX_FILE_MB = 10  # one uploaded file (Streamlit sends each file as one request)
MAX_FILES = 200  # files per visitor session
MAX_SESSION_MB = 200  # bytes per visitor session, all files together
MAX_SERVER_MB_PER_10_MIN = 1024  # every visitor together, in any ten minutes
MAX_HELD_MB = 1024  # uploaded files the server holds at once (Streamlit keeps each in
# memory until its session ends or its widget lets it go), every session together
MAX_LOG_MB = MAX_LOG_BYTES // (1024 * 1024)  # a log after gunzip, as everywhere
# Text pasted into the Verify page, and any value a visitor sends for a widget: Streamlit
# keeps it in the server's memory for as long as the session lives (dashboard/held.py).
MAX_PASTE_MB = 4  # one pasted log (MiB of UTF-8 text; the biggest sample is 32 KB)
# Streamlit's own cap on one message of a visitor (every widget's value together, in MB of
# 10^6 bytes): a paste and the rest of the page's widgets. A bigger message is refused
# before Streamlit parses it (the WebSocket is closed, code 1009).
MAX_WIDGET_STATE_MB = MAX_PASTE_MB * 1024 * 1024 // 1_000_000 + 2
# The messages of more than 64 KB (pastes) every session together may make the server hold
MAX_HELD_MESSAGES_MB = 32
# The biggest WebSocket message the server reads at all (uvicorn holds a whole one before
# Streamlit looks at it), and the biggest it sends (a page's table or chart: the SQL
# page's results stop at 16 MB)
MAX_MESSAGE_MB = 32


def upload_rules() -> str:
    """The limits in one sentence, for the upload widgets' captions."""
    return (f"Up to {MAX_FILES} files per visit, {MAX_FILE_MB} MB each and {MAX_SESSION_MB} MB "
            f"in all (.jsonl or .jsonl.gz; a log may unpack to at most {MAX_LOG_MB} MB).")
