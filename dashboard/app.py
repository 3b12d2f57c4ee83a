"""trickledger's dashboard: `trickledger dashboard` runs this with Streamlit."""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script by streamlit

st.set_page_config(page_title="trickledger", page_icon="🃏", layout="wide")

PAGES = [
    st.Page("pages/overview.py", title="Overview", url_path="overview", default=True),
    st.Page("pages/splits.py", title="Splits", url_path="splits"),
    st.Page("pages/early_ends.py", title="Early ends", url_path="early_ends"),
    st.Page("pages/bidding.py", title="Bidding", url_path="bidding"),
    st.Page("pages/results.py", title="Results", url_path="results"),
    st.Page("pages/viewer.py", title="Game viewer", url_path="viewer"),
    st.Page("pages/verify.py", title="Verify", url_path="verify"),
    st.Page("pages/upload.py", title="Upload", url_path="upload"),
    st.Page("pages/sql.py", title="SQL", url_path="sql"),
]
st.navigation(PAGES).run()
