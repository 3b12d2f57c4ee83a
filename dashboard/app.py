"""trickledger's dashboard: `trickledger dashboard` runs this with Streamlit.

This is the app frame: the page list and the sidebar filter, declared once here and
kept in session state, so every page reads the same filter and it survives a change of
page. The pages about one game come from its declaration (`GameInfo.pages`), after the
Overview. Icons are Streamlit's bundled Material icons (no emoji font needed).
"""

from __future__ import annotations

import streamlit as st

from trickledger.dashboard import auth, game_parts, heap, ui

st.set_page_config(page_title="trickledger", page_icon=":material/playing_cards:",
                   layout="wide")

HOME = st.Page("views/overview.py", title="Overview", icon=":material/dashboard:",
               url_path="home", default=True)
CORE = [
    st.Page("views/results.py", title="Results", icon=":material/emoji_events:",
            url_path="results"),
    st.Page("views/ratings.py", title="Ratings", icon=":material/leaderboard:",
            url_path="ratings"),
    st.Page("views/head_to_head.py", title="Head-to-head", icon=":material/swords:",
            url_path="head_to_head"),
    st.Page("views/seats.py", title="Seat effects", icon=":material/event_seat:",
            url_path="seats"),
    st.Page("views/decisions.py", title="Decisions", icon=":material/rule:",
            url_path="decisions"),
    st.Page("views/player.py", title="Player", icon=":material/person:", url_path="player"),
    st.Page("views/viewer.py", title="Game viewer", icon=":material/search:", url_path="viewer"),
    st.Page("views/verify.py", title="Verify", icon=":material/gavel:", url_path="verify"),
    st.Page("views/upload.py", title="Upload", icon=":material/upload:", url_path="upload"),
    st.Page("views/sheet.py", title="Score sheet", icon=":material/edit_note:",
            url_path="sheet"),
    st.Page("views/record.py", title="Record a game", icon=":material/stylus_note:",
            url_path="record"),
    st.Page("views/sql.py", title="SQL", icon=":material/terminal:", url_path="sql"),
]
ADMIN = st.Page("views/admin.py", title="Admin", icon=":material/admin_panel_settings:",
                url_path="admin")
ui.engine()  # said once in the server's log
# the default page lives at /; /overview (a link written by hand, an old bookmark) opens
# it too instead of "Page not found"
OVERVIEW_ALIAS = st.Page("views/overview.py", title="Overview", icon=":material/dashboard:",
                         url_path="overview", visibility="hidden")
CORE_PATHS = {"home", "overview", "admin", *(p.url_path for p in CORE)}
PAGES = [HOME, *game_parts.pages(CORE_PATHS), *CORE]
page = st.navigation(PAGES + [OVERVIEW_ALIAS] + ([ADMIN] if auth.visitor().is_admin else []))
# the pages that count games draw the sidebar filter; the others keep it for them
UNFILTERED = {"verify", "upload", "sheet", "sql", "admin", "record"}
if page.url_path in UNFILTERED:
    ui.keep_filters()
else:
    ui.sidebar_filters()
    st.sidebar.caption("Games entered as a score sheet count in totals and results; the "
                       "figures of tricks, and each game's own, come from move logs only.")
auth.login_panel()
page.run()
heap.freeze_after_first_run(page.url_path)
