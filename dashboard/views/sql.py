"""SQL: a read-only console with the docs' example questions one click away."""

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboard import auth, data, ui

ui.page("SQL console")
st.caption("Read-only: one SELECT at a time; no files, no settings, no writes. Each query "
           "runs in a process of its own, stopped after 10 s or at 1 GiB of memory, and "
           "shows at most 5,000 rows (16 MB). Tables: see docs/schema.md.")


def render() -> None:
    # DuckDB has no per-table rights: a console reads the whole file, the audit log of who
    # uploaded from which address included, so beyond this machine it is for admins
    if auth.require_admin("The SQL console", " (it reads the whole database, the audit log "
                                             "of who uploaded from where included)") is None:
        return
    examples = data.example_queries()
    if "sql_text" not in st.session_state:
        st.session_state["sql_text"] = examples[0][1] if examples else "SELECT 1"
    if examples:
        st.markdown("**Examples**")
        cols = st.columns(3)
        for i, (question, sql) in enumerate(examples):
            if cols[i % 3].button(question, key=f"ex_{i}", width="stretch"):
                st.session_state["sql_text"] = sql
    sql = st.text_area("SQL", key="sql_text", height=180)
    try:
        res = data.console(sql)
    except data.SqlRefused as e:
        st.error(ui.md(e))  # DuckDB's messages quote the data they choked on
        return
    frame = res_frame(res)
    if res.truncated:
        st.warning(ui.md(f"The result was cut: {res.note or 'only the first rows are shown'}."))
    st.dataframe(frame, hide_index=True, width="stretch")
    st.download_button("Download CSV", frame.to_csv(index=False).encode(), "query.csv",
                       "text/csv", key="csv")
    numeric = [c for c in frame.columns[1:] if frame[c].dtype.kind in "iuf"]
    if len(frame.columns) >= 2 and numeric and not frame.empty:
        ui.chart(st, px.bar(frame.head(50), x=frame.columns[0], y=numeric[0],
                               title=f"{numeric[0]} by {frame.columns[0]}"),
                        width="stretch")


def res_frame(res: data.Result) -> pd.DataFrame:
    return pd.DataFrame(res.rows, columns=res.columns)


ui.guarded(render)
