"""Upload: load many logs at once and see what became of each."""

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Upload logs")
MAX_FILES = 200
MAX_BYTES = 10 * 1024 * 1024
CHUNK = 20
st.caption(f"Up to {MAX_FILES} files per upload, {MAX_BYTES // (1024 * 1024)} MiB each "
           f"(.jsonl or .jsonl.gz). Files already loaded are recognised by their bytes.")


def render() -> None:
    files = st.file_uploader("Logs", type=["jsonl", "gz"], accept_multiple_files=True,
                             key="upload_files")
    if files and st.button(f"Load {len(files)} file(s)", key="load"):
        if len(files) > MAX_FILES:
            st.error(f"{len(files)} files: at most {MAX_FILES} per upload.")
            return
        rows = []
        items = []
        for fobj in files:
            raw = fobj.getvalue()
            if len(raw) > MAX_BYTES:
                rows.append({"file": fobj.name, "result": "refused", "line": None,
                             "message": f"{len(raw):,} bytes; limit {MAX_BYTES:,}"})
            else:
                items.append((fobj.name, raw))
        bar = st.progress(0.0, text="loading…")
        for i in range(0, len(items), CHUNK):
            summary = data.load(items[i:i + CHUNK])
            for p in summary.results:
                rows.append({"file": p.name, "result": p.status, "line": p.line,
                             "message": p.message})
            bar.progress(min(1.0, (i + CHUNK) / max(len(items), 1)),
                         text=f"{min(i + CHUNK, len(items))} of {len(items)}")
        bar.empty()
        st.session_state["upload_result"] = rows
    result: list[dict[str, object]] | None = st.session_state.get("upload_result")
    if result:
        rows = result
        table = pd.DataFrame(rows)
        st.subheader("Result")
        st.dataframe(table, hide_index=True, width="stretch")
        counts = table.groupby("result").size().reset_index(name="files")
        st.plotly_chart(px.bar(counts, x="result", y="files", title="This upload"),
                        width="stretch")
    else:
        recent = data.query("""SELECT status, count(*) AS logs FROM logs
                               WHERE ingested_at > now() - INTERVAL 30 DAY
                               GROUP BY status ORDER BY status""")
        if not recent.empty:
            st.plotly_chart(px.bar(recent, x="status", y="logs",
                                   title="Logs loaded in the last 30 days"),
                            width="stretch")


ui.guarded(render)
