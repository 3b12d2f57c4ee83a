"""SQL: a read-only console with the docs' example questions one click away."""

import pandas as pd
import plotly.express as px
import streamlit as st

from trickledger.dashboard import auth, data, tables, ui

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
            if cols[i % 3].button(ui.md(question), key=f"ex_{i}", width="stretch"):
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
    st.dataframe(frame, hide_index=True, width="stretch", placeholder=tables.MISSING)
    csv = frame.map(lambda v: ("true" if v else "false") if isinstance(v, bool) else v)
    st.download_button("Download CSV", csv.to_csv(index=False, lineterminator="\n").encode(),
                       "query.csv", "text/csv", key="csv")
    _chart(frame)


def _chart(frame: pd.DataFrame) -> None:
    """A bar chart of the columns the reader picks: which column is a label and which a
    measure depends on the question, so nothing is plotted until chosen."""
    numeric = [c for c in frame.columns if frame[c].dtype.kind in "iuf"]
    if frame.empty or not numeric or len(frame.columns) < 2:
        return
    left, right = st.columns(2)
    y = left.selectbox("Chart", ["no chart", *numeric], key="sql_chart_y",
                       help="Plot a numeric column as bars, one per row (the first 50 rows).")
    if y == "no chart":
        return
    x = right.selectbox("against", [c for c in frame.columns if c != y], key="sql_chart_x")
    top = frame.head(50).copy()
    top[x] = top[x].astype(str)  # a number as a label: one bar each, not a numeric axis
    ui.chart(st, px.bar(top, x=x, y=y, title=f"{y} by {x}"), width="stretch")


def res_frame(res: data.Result) -> pd.DataFrame:
    return pd.DataFrame(res.rows, columns=res.columns)


ui.guarded(render)
