"""Upload: load many logs at once; disputes and illegal moves are named first."""

import pandas as pd
import streamlit as st

from trickledger.dashboard import auth, data, limits, ui
from trickledger.replay.engine import replay_bytes

ui.page("Upload logs")
st.caption(ui.md(limits.upload_rules()) + " Files already loaded are recognised by their bytes.")
CHUNK = 20


def render() -> None:
    me = auth.require_writer("Uploading logs")
    if me is None:
        return
    files = st.file_uploader("Logs", type=["jsonl", "gz"], accept_multiple_files=True,
                             key="upload_files", max_upload_size=limits.MAX_FILE_MB)
    if files and st.button(f"Load {ui.count(len(files), 'file')}", key="load"):
        _load(files, me)
    rows = st.session_state.get("upload_result")
    if rows:
        _result(rows)


def _which(round_: object) -> str:
    """A claim's round, or 'the totals' for a claim of the totals."""
    return f"round {int(round_)}" if pd.notna(round_) else "the totals"  # type: ignore[call-overload]


def _load(files: list, me: auth.Visitor) -> None:
    if len(files) > limits.MAX_FILES:
        st.error(f"{len(files)} files: at most {limits.MAX_FILES} per visit.")
        return
    rows: list[dict[str, object]] = []
    items = []
    total = 0
    for fobj in files:
        name = ui.file_name(fobj.name)
        total += fobj.size
        if fobj.size > limits.MAX_FILE_MB * 1024 * 1024 or total > limits.MAX_SESSION_MB * 1024 * 1024:
            rows.append({"file": name, "result": "refused", "line": None, "game_id": None,
                         "message": f"{fobj.size:,} bytes: over the upload limit"})
        else:
            items.append((name, fobj.getvalue()))
    bar = st.progress(0.0, text="loading…")
    for i in range(0, len(items), CHUNK):
        chunk = items[i:i + CHUNK]
        summary = data.load(chunk, auth.describe(me))
        sent = dict(chunk)
        for p in summary.results:
            rows.append({"file": p.name, "result": p.status, "line": p.line,
                         "game_id": p.game_id, "message": p.message or "",
                         "disputed": p.disputed,
                         "verdict": _verdict(p.name, sent[p.name]) if p.status in NOT_SAVED
                         and p.name in sent else ""})
        done = min(i + CHUNK, len(items))
        bar.progress(done / max(len(items), 1), text=f"{done:,} of {len(items):,}")
    bar.empty()
    st.session_state["upload_result"] = rows


NOT_SAVED = ("conflict", "quarantined")


def _verdict(name: str, raw: bytes) -> str:
    """The verdict of a log that was not saved (an id conflict: an edited copy of a loaded
    log, say), in one line for the page: the engine's, as the Verify page gives it."""
    r = replay_bytes(raw, name)
    if r.error is not None and r.status == "unreadable":
        return f"unreadable: {r.error.message}"
    words: str = r.status
    if r.status == "illegal" and r.error is not None:
        words += f" at line {r.error.line}: {r.error.message}"
    wrong = r.mismatched_claims()
    if wrong:
        players = r.state.players if r.state is not None else ()
        said = "; ".join(
            f"{players[c.player] if c.player < len(players) else c.player} "
            f"{'round ' + str(c.round) if c.round is not None else 'totals'}: the sheet says "
            f"{c.claimed}, the replay computes {c.computed}" for c in wrong[:3])
        more = f" and {len(wrong) - 3} more" if len(wrong) > 3 else ""
        words += (f", disputed: {ui.count(len(wrong), 'claimed score')} "
                  f"{'does' if len(wrong) == 1 else 'do'} not match ({said}{more})")
    elif r.state is not None and r.state.claims:
        words += f", all {ui.count(len(r.state.claims), 'claimed score')} match"
    return words


def _result(rows: list[dict[str, object]]) -> None:
    table = pd.DataFrame(rows)
    if "disputed" not in table:
        table["disputed"] = 0
    disputed = table[table["disputed"].fillna(0).astype(int) > 0]
    illegal = table[table["result"] == "illegal"]
    if len(disputed):
        claims = data.claims_not_matching(tuple(str(g) for g in disputed["game_id"]))
        st.warning("\n".join(
            [f"**Disputed: {ui.count(len(disputed), 'file')} with claimed scores that do "
             f"not match the replay.**"]
            + [f"- {ui.code(c['file'])}: {ui.md(c['player'])}, "
               f"{ui.md(_which(c['round']))} (line {int(c['line'])}): the sheet says "
               f"**{ui.md(c['sheet says'])}**, the replay computes "
               f"**{ui.md(c['replay computes'])}** — {ui.md(c['how'])}"
               for _, c in claims.iterrows()]))
        for _, c in claims.drop_duplicates("game_id").iterrows():
            params = {"game": str(c["game_id"])}
            if pd.notna(c["round"]):
                params["round"] = str(int(c["round"]))
            ui.viewer_link(params, f"Open the disputed round of {c['file']}")
    if len(illegal):
        st.error("\n".join([f"**{ui.count(len(illegal), 'file')} with an illegal move:**"]
                           + [f"- {ui.code(r['file'])}, line {int(r['line'])}: "
                              f"{ui.md(r['message'])}" for _, r in illegal.iterrows()
                              if pd.notna(r["line"])]))
        for _, r in illegal.iterrows():
            if r["game_id"]:
                ui.viewer_link({"game": str(r["game_id"])},
                               f"Open the illegal move of {r['file']}")
    refused = table[table["result"].isin(["conflict", "quarantined", "refused"])]
    if len(refused):
        # in full: a table cell would cut the reason, and the reason says what to do
        # with each one's verdict: an edited copy of a loaded log is judged all the same
        st.error("\n".join([f"**Not loaded: {ui.count(len(refused), 'file')}.**"]
                           + [f"- {ui.code(r['file'])}: {ui.md(r['message'])}"
                              + (f" **Its verdict:** {ui.md(r['verdict'])}."
                                 if r.get("verdict") else "")
                              for _, r in refused.iterrows()]))
    counts = table["result"].value_counts()
    # every file lands in exactly one tile: the tiles add up to the files given
    kinds = [("complete", "Complete"), ("incomplete", "Incomplete"), ("illegal", "Illegal"),
             ("unreadable", "Unreadable"), ("already loaded", "Already loaded")]
    if counts.get("sheet", 0):
        kinds.insert(1, ("sheet", "Score sheets"))
    not_loaded = int(sum(counts.get(k, 0) for k in ("conflict", "quarantined", "refused")))
    cols = st.columns(len(kinds) + 1)
    for col, (key, label) in zip(cols, kinds):
        ui.metric(col, label, int(counts.get(key, 0)))
    ui.metric(cols[-1], "Refused", not_loaded,
                    help="An id conflict (another log holds the game id), bytes an admin "
                         "quarantined, or a file over the upload limit: not loaded.")
    st.caption(f"{ui.count(len(table), 'file')} in all; {len(disputed):,} of the loaded "
               f"ones disputed (a disputed game is also counted by its status).")
    st.subheader("Every file")
    shown = table.copy()
    shown["result"] = [f"{r}, disputed" if d and r != "already loaded" else r
                       for r, d in zip(shown["result"], shown["disputed"].fillna(0))]
    shown = shown.drop(columns=[c for c in ("game_id", "disputed", "verdict") if c in shown])
    shown["line"] = shown["line"].map(lambda x: "" if pd.isna(x) else str(int(x)))
    st.dataframe(shown.rename(columns={"file": "file", "result": "result", "line": "line",
                                       "message": "what was wrong"}),
                 hide_index=True, width="stretch",
                 column_config={"what was wrong": st.column_config.TextColumn(width="large")})


ui.guarded(render)
