"""Verify: check one log (upload or paste) and settle the argument at the table."""

from typing import Any

import pandas as pd
import streamlit as st

from trickledger.dashboard import auth, data, game_parts, limits, pastes, ui
from trickledger.replay.engine import Replay, replay_bytes, verdict
from trickledger.replay.facts import ClaimChecked

ui.page("Verify a log")
st.caption("Upload or paste one log: a disputed score is named first, with how the replay "
           "computes it; an illegal move is named by its line, with what the player held.")


def render() -> None:
    upload_tab, paste_tab = st.tabs(["Upload a file", "Paste the log"])
    up = None
    with upload_tab:
        if auth.visitor().may_write:  # the server takes uploads from writers only
            up = st.file_uploader("Log file (.jsonl or .jsonl.gz)", type=["jsonl", "gz"],
                                  key="verify_file", max_upload_size=limits.MAX_FILE_MB)
            st.caption(f"One file of at most {limits.MAX_FILE_MB} MB (a log may unpack to "
                       f"{limits.MAX_LOG_MB} MB).")
        else:
            st.info("Uploading a file needs a member's account on this server: log in from "
                    "the sidebar, or paste the log instead.")
    with paste_tab:
        text = pastes.paste_area("Log lines", height=200, key="verify_text",
                                 placeholder='{"format": "trickledger/1", "game": "'
                                             + game_parts.games()[0].name + '", ...}')
    name = ""
    raw: bytes | None = None
    if up is not None:
        if up.size > limits.MAX_FILE_MB * 1024 * 1024:
            st.error(f"{ui.code(up.name)}: {up.size:,} bytes, more than "
                     f"{limits.MAX_FILE_MB} MB.")
            return
        name, raw = ui.file_name(up.name), up.getvalue()
    elif text.strip():
        name, raw = "pasted.jsonl", text.encode("utf-8")
    if raw is None:
        st.info("Give a log to check: its verdict shows here, disputes first.")
        return
    r = replay_bytes(raw, name)
    _verdict(r, raw, name)


def _verdict(r: Replay, raw: bytes, name: str) -> None:
    v = verdict(r)
    status = v["status"]
    if status == "unreadable":
        st.error(f"{ui.code(name)} is unreadable: "
                 f"{ui.md(r.error.message if r.error else '')}")
        return
    assert r.state is not None
    players = r.state.players
    mismatched = r.mismatched_claims()
    if mismatched:
        st.warning("\n".join(
            [f"**Disputed: {ui.count(len(mismatched), 'claimed score')} on the score "
             f"sheet {'does' if len(mismatched) == 1 else 'do'} not match the replay.**"]
            + [f"- {ui.md(players[c.player])}, "
               f"{ui.md(f'round {c.round}' if c.round is not None else 'the totals')} (line "
               f"{c.line:d}): the sheet says **{c.claimed:d}**, the replay computes "
               f"**{c.computed:d}** — {ui.md(c.derivation)}" for c in mismatched]))
    if status == "illegal" and r.error is not None:
        st.error(ui.md(f"Illegal move at line {r.error.line}: {r.error.message}"))
        _illegal_move(raw, name)
    elif status == "complete":
        what = ("a score sheet whose every round can be" if r.state.is_sheet
                else "every move is legal")
        st.success(ui.md(f"complete: {what} · {v['game']}, "
                         f"{ui.count(len(players), 'player')}, "
                         f"{ui.count(len(v['rounds']), 'round')}"))
    else:
        what = ("a score sheet, every round so far can be" if r.state.is_sheet
                else "every move so far is legal")
        st.info(ui.md(f"incomplete: {what}, the game is not finished · "
                      f"{v['game']}, {ui.count(len(v['rounds']), 'round')} of "
                      f"{r.state.rounds_total} finished"))
    if r.state.claims and not mismatched:
        st.success(f"All {ui.count(len(r.state.claims), 'claimed score')} match the replay.")
    if v["rounds"]:
        table = pd.DataFrame([{"round": x["round"], **x["scores"]} for x in v["rounds"]])
        totals = {"round": "total", **v["totals"]}
        table = pd.concat([table.astype({"round": str}), pd.DataFrame([totals])],
                          ignore_index=True)
        st.subheader("Scores by round")
        st.dataframe(table, hide_index=True, width="stretch")
        if v["winners"]:
            st.markdown("**Winner" + ("s" if len(v["winners"]) > 1 else "") + ":** "
                        + ", ".join(ui.md(w) for w in v["winners"]))
    link = _viewer_link(r, mismatched)
    if link:
        ui.viewer_link(link[0], link[1])
    st.caption(f"{ui.code(name)} · SHA-256 {ui.code(v['sha256'])}")
    with st.expander("The score sheet, round by round" if r.state.is_sheet
                     else "The replay, trick by trick"):
        st.code("\n".join(r.render()), language=None)
    me = auth.visitor()
    if r.sha256 is not None and data.has_log(r.sha256):
        st.caption("This log is in the database already.")
    elif me.may_write and st.button("Save this log to the database", key="save"):
        summary = data.load([(name, raw)], auth.describe(me), action="save")
        _saved(summary.results[0] if summary.results else None, name)
    elif not me.may_write:
        st.caption("Saving to the database needs an account on this server.")


def _saved(res: Any, name: str) -> None:
    """What saving did, in the words of `trickledger ingest`: only a loaded log is 'saved';
    a log refused says why and what to do."""
    status = res.status if res is not None else "loaded"
    if status in ("complete", "incomplete", "illegal", "sheet", "loaded"):
        st.success(f"Saved {ui.code(name)} to the database ({ui.md(status)}). The Overview and the "
                   f"Game viewer show it now.")
    elif status == "already loaded":
        st.info("Not saved again: the database holds these very bytes already.")
    elif status == "conflict":
        st.error(ui.md(f"Not saved: {res.message}"))
    elif status == "quarantined":
        st.error(ui.md(f"Not saved: an admin took these bytes out of the database "
                       f"(quarantined); ask them why. {res.message or ''}"))
    else:
        st.error(ui.md(f"Not saved: {status}: {res.message or ''}"))


def _illegal_move(raw: bytes, name: str) -> None:
    tl = data.timeline_of_bytes(raw, name)
    step = None if tl is None else next((s for s in tl.steps if s.error is not None), None)
    if step is None or step.illegal is None:
        return
    m = step.illegal
    st.markdown(f"{ui.md(m.player)} tried {ui.md(' '.join(m.cards))} in round "
                f"{ui.md(step.round)}, "
                f"{ui.md(step.label.lower())}. What {ui.md(m.player)} held:")
    ui.hand_row(tl.replay.header.game, m.hand_before, m.legal, played=m.cards)


def _viewer_link(r: Replay, mismatched: list[ClaimChecked]) -> tuple[dict[str, str], str] | None:
    """Where to open this game in the viewer, if the database holds these bytes."""
    if r.sha256 is None or not data.has_log(r.sha256):
        return None
    params = {"game": r.sha256}
    if r.status == "illegal" and r.error is not None:
        return params, "Open the illegal move in the game viewer"
    rounds = [c.round for c in mismatched if c.round is not None]
    if rounds:
        return {**params, "round": str(rounds[0])}, f"Open round {rounds[0]} in the game viewer"
    return params, "Open this game in the game viewer"


ui.guarded(render)
