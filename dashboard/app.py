"""trickledger's dashboard: `trickledger dashboard` runs this with Streamlit."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="trickledger", page_icon="🃏", layout="wide")

PAGES = [
    st.Page("views/overview.py", title="Overview", icon="🃏", url_path="overview", default=True),
    st.Page("views/splits.py", title="Splits", icon="✂️", url_path="splits"),
    st.Page("views/early_ends.py", title="Early ends", icon="⏹️", url_path="early_ends"),
    st.Page("views/bidding.py", title="Bidding", icon="🎯", url_path="bidding"),
    st.Page("views/results.py", title="Results", icon="🏆", url_path="results"),
    st.Page("views/viewer.py", title="Game viewer", icon="🔎", url_path="viewer"),
    st.Page("views/verify.py", title="Verify", icon="⚖️", url_path="verify"),
    st.Page("views/upload.py", title="Upload", icon="📤", url_path="upload"),
    st.Page("views/sql.py", title="SQL", icon="🧮", url_path="sql"),
]
st.navigation(PAGES).run()
