"""Verify: check one log (upload or paste) and settle the argument at the table."""

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboard import data, ui
from replay.engine import replay_bytes, verdict

ui.page("Verify a log")
st.caption("Upload or paste one log: the verdict names the first illegal move, or every "
           "score-sheet claim that does not match and how the score is really made up.")
MAX_BYTES = 10 * 1024 * 1024


def render() -> None:
    upload_tab, paste_tab = st.tabs(["Upload a file", "Paste the log"])
    with upload_tab:
        up = st.file_uploader("Log file (.jsonl or .jsonl.gz)", type=["jsonl", "gz"],
                              key="verify_file")
    with paste_tab:
        text = st.text_area("Log lines", height=200, key="verify_text",
                            placeholder='{"format": "trickledger/1", "game": "plotters", ...}')
    name: str = ""
    raw: bytes | None = None
    if up is not None:
        name, raw = up.name, up.getvalue()
    elif text.strip():
        name, raw = "pasted.jsonl", text.encode("utf-8")
    if raw is None:
        counts = data.query("SELECT status, count(*) AS logs FROM logs GROUP BY status "
                            "ORDER BY status")
        st.info("Give a log to check.")
        if not counts.empty:
            st.plotly_chart(px.bar(counts, x="status", y="logs",
                                   title="Verdicts of the logs in the database"),
                            width="stretch")
        return
    if len(raw) > MAX_BYTES:
        st.error(f"{name}: {len(raw):,} bytes; the limit here is {MAX_BYTES:,} bytes.")
        return
    r = replay_bytes(raw, name)
    v = verdict(r)
    status = v["status"]
    show = {"complete": st.success, "incomplete": st.info}.get(status, st.error)
    show(f"**{status}** — {v['game'] or 'unknown game'}, players "
         f"{ui.md(', '.join(v['players'])) or '-'} · sha256 `{v['sha256'][:16]}…`")
    if r.error is not None:
        where = f"line {r.error.line}" if r.error.line else "the file"
        st.error(f"{ui.md(name)}, {where}: {ui.md(r.error.message)}")
    if v["rounds"]:
        table = pd.DataFrame([{"round": x["round"], **x["scores"]} for x in v["rounds"]])
        st.subheader("Scores")
        st.dataframe(table, hide_index=True, width="stretch")
        long = table.melt(id_vars="round", var_name="player", value_name="score")
        st.plotly_chart(px.bar(long, x="round", y="score", color="player", barmode="group",
                               title="Scores by round"), width="stretch")
        st.markdown("**Totals:** " + ", ".join(f"{ui.md(p)} {t}" for p, t in v["totals"].items())
                    + (f" · **winners:** {ui.md(', '.join(v['winners']))}" if v["winners"]
                       else ""))
    if r.state is not None and r.state.claims:
        bad = [c for c in r.state.claims if not c.match]
        if bad:
            st.subheader(f"{len(bad)} claim(s) do not match")
            st.dataframe(pd.DataFrame([{
                "line": c.line, "round": c.round if c.round is not None else "totals",
                "player": r.state.players[c.player], "sheet says": c.claimed, "computed": c.computed,
                "how": c.derivation} for c in bad]), hide_index=True, width="stretch")
        else:
            st.success(f"All {len(r.state.claims)} claimed scores match.")
    if r.state is not None:
        with st.expander("The replay, trick by trick"):
            st.text("\n".join(r.render()))
    if status != "unreadable" and st.button("Save this log to the database", key="save"):
        s = data.load([(name, raw)])
        res = s.results[0] if s.results else None
        st.success(f"Saved: {res.status if res else 'nothing to do'}")


ui.guarded(render)
