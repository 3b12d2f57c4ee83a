"""Admin: who wrote what (the audit log), and taking a log back out."""

import streamlit as st

from trickledger.dashboard import auth, data, tables, ui

ui.page("Admin")
st.caption("For the server's admins: every upload, save, ingest, quarantine and delete, "
           "with who did it, from where and what became of it; and taking a log out.")


def render() -> None:
    me = auth.require_admin("This page")
    if me is None:
        return
    st.subheader("Take a log out")
    if data.database().kind == "lake":
        st.info("This dashboard reads a lake, which is append-only: quarantine and delete "
                "work on a database file (docs/reliability.md).")
    else:
        _remove(me)
    st.subheader("Audit log")
    rows = data.audit_rows()
    if rows.empty:
        st.info("Nothing has been written yet.")
        return
    tables.show(rows, {"happened_at": "when (UTC)", "actor": "who", "via": "how", "address": "from",
                       "action": "did", "file_name": "file", "result": "result",
                       "detail": "detail", "game_id": "game", "sha256": "SHA-256"},
                games=("game_id",), key="audit")


def _remove(me: auth.Visitor) -> None:
    st.caption("Quarantine keeps the log's text, takes its facts out of every statistic and "
               "refuses the same bytes if they are uploaded again; its game id is free for "
               "the real game's log. Delete takes the log out altogether. Each is one "
               "transaction, recorded in the audit log.")
    wanted = st.text_input("SHA-256 (or its first 8 characters) or game id", key="admin_log",
                           max_chars=80)
    if not wanted.strip():
        return
    found = data.find_logs(wanted)
    if found.empty:
        st.warning(ui.md(f"No log has the SHA-256 or game id {wanted.strip()}."))
        return
    tables.show(found, {"sha256": "SHA-256", "file_name": "file", "status": "status",
                        "game_id": "game", "game": "game type", "n_players": "players",
                        "ingested_at": "loaded"}, games=("game_id",), key="admin_found")
    if len(found) > 1:
        st.info("That names more than one log: give its SHA-256.")
        return
    log = found.iloc[0]
    action = st.radio("What to do", ["quarantine", "delete"], horizontal=True,
                      key="admin_action")
    reason = st.text_input("Why (kept in the audit log)", key="admin_reason", max_chars=500)
    # keyed by log and action: a tick given for one never carries over to another
    sure = st.checkbox(ui.md(f"Yes, {action} {log['file_name']}"),
                       key=f"admin_sure_{log['sha256']}_{action}")
    if st.button(ui.md(action.capitalize()), key="admin_go", disabled=not sure, type="primary"):
        line = data.remove_log(str(log["sha256"]), action, auth.describe(me), reason)
        st.success(ui.md(line))


ui.guarded(render)
