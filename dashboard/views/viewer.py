"""Game viewer: step through a game trick by trick (or turn by turn)."""

import json

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboard import data, ui

ui.page("Game viewer", "🔎")
f = ui.sidebar_filters()


def _int_param(name: str, default: int) -> int:
    try:
        return int(st.query_params.get(name, default))
    except (TypeError, ValueError):
        return default


def render() -> None:
    games = data.filtered("""
        SELECT game_id, game, n_players, status, error_line, error_message, file_name,
               coalesce(played_on, CAST(ingested_at AS DATE)) AS played
        FROM games WHERE game_id IN ({games})
        ORDER BY played DESC, game_id LIMIT 2000""", f)
    wanted = st.query_params.get("game")
    if wanted and wanted not in set(games["game_id"]):
        extra = data.query("""
            SELECT game_id, game, n_players, status, error_line, error_message, file_name,
                   coalesce(played_on, CAST(ingested_at AS DATE)) AS played
            FROM games WHERE game_id = ? OR sha256 = ?""", (wanted, wanted))
        games = pd.concat([extra, games], ignore_index=True)
    if ui.empty(games, "games"):
        return
    ids = games["game_id"].tolist()
    start = ids.index(wanted) if wanted in ids else 0
    gid = st.selectbox("Game", ids, index=start, key="viewer_game",
                       format_func=lambda g: f"{g} ({games.set_index('game_id').at[g, 'game']})")
    g = games.set_index("game_id").loc[gid]
    st.query_params["game"] = gid
    st.caption(f"{g['game']} · {int(g['n_players'])} players · {g['status']} · {g['file_name']}")
    if g["status"] == "illegal":
        st.error(f"Illegal move at line {int(g['error_line'])}: {ui.esc(g['error_message'])}")

    kind = "turns" if g["game"] == "color_stacks" else "tricks"
    steps = data.query("""
        SELECT round, trick AS step, count(*) AS cards FROM plays WHERE game_id = ?
        GROUP BY round, trick ORDER BY round, trick""", (gid,))
    if ui.empty(steps, "plays in this game"):
        return
    rounds = sorted(steps["round"].unique().tolist())
    rnd = _int_param("round", rounds[0])
    rnd = rnd if rnd in rounds else rounds[0]
    rnd = st.selectbox("Round", rounds, index=rounds.index(rnd), key=f"round_{gid}")
    in_round = steps[steps["round"] == rnd]["step"].tolist()
    step = _int_param("trick", in_round[0])
    step = step if step in in_round else in_round[0]
    key = f"step_{gid}_{rnd}"
    if key not in st.session_state:
        st.session_state[key] = in_round.index(step)
    prev, label, nxt = st.columns([1, 3, 1])
    if prev.button("◀ previous", key=f"prev_{key}", disabled=st.session_state[key] == 0):
        st.session_state[key] -= 1
    if nxt.button("next ▶", key=f"next_{key}",
                  disabled=st.session_state[key] >= len(in_round) - 1):
        st.session_state[key] += 1
    step = in_round[min(st.session_state[key], len(in_round) - 1)]
    label.markdown(f"**Round {rnd}, {kind[:-1]} {step}** of {len(in_round)}")
    st.query_params["round"] = str(rnd)
    st.query_params["trick"] = str(step)

    rinfo = data.query("SELECT * FROM rounds WHERE game_id = ? AND round = ?", (gid, rnd))
    if not rinfo.empty:
        r = rinfo.iloc[0]
        facts = [f"dealer **{ui.esc(r['dealer'])}**", f"leader **{ui.esc(r['leader'])}**"]
        if pd.notna(r["trump"]):
            facts.append(f"first trump **{r['trump']}**")
        if r["ended_early"] is True:
            facts.append(f"ended early in trick {int(r['early_end_trick'])}: "
                         f"**{ui.esc(r['early_end_player'])}** could not play")
        if pd.notna(r["ender"]):
            facts.append(f"**{ui.esc(r['ender'])}** ended the game")
        st.markdown(" · ".join(facts))

    plays = data.query("""
        SELECT seq, player, card, joker_as, kind FROM plays
        WHERE game_id = ? AND round = ? AND trick = ? ORDER BY seq""", (gid, rnd, step))
    ui.chips_row([(p, c + (f" as {j}" if isinstance(j, str) else ""))
                  for p, c, j in zip(plays["player"], plays["card"], plays["joker_as"])])

    if kind == "tricks":
        trick = data.query("SELECT * FROM tricks WHERE game_id = ? AND round = ? AND trick = ?",
                           (gid, rnd, step))
        if trick.empty:
            st.info("This trick was not finished (the round ended early, the log stopped, or "
                    "the next move was illegal).")
        else:
            _show_trick(g["game"], trick.iloc[0], gid, rnd, step)
    else:
        turn = data.query("SELECT * FROM turns WHERE game_id = ? AND round = ? AND seq = ?",
                          (gid, rnd, step))
        if not turn.empty:
            t = turn.iloc[0]
            stacks = json.loads(t["stacks"])
            st.markdown(f"**{ui.esc(t['player'])}** {t['kind']}s — line {int(t['line'])}"
                        + (" — **a stack reached six: the game ends**" if t["ended"] else ""))
            frame = pd.DataFrame({"suit": list(stacks), "cards": list(stacks.values())})
            st.plotly_chart(px.bar(frame, x="suit", y="cards", range_y=[0, 8],
                                   title="Stacks after this turn"), width="stretch")
    if g["game"] == "rage":
        bids = data.query("""SELECT player, bid, won, bid_error, score FROM bids
                             WHERE game_id = ? AND round = ?""", (gid, rnd))
        if not bids.empty:
            st.subheader("Bids against tricks")
            st.dataframe(bids, hide_index=True, width="stretch")
    scores = data.query("""
        SELECT round, player, score, running_total, derivation FROM round_scores
        WHERE game_id = ? ORDER BY round, player""", (gid,))
    st.subheader("Running scores")
    if scores.empty:
        st.info("No round has finished yet.")
    else:
        st.plotly_chart(px.line(scores, x="round", y="running_total", color="player",
                                markers=True, title="Running totals"), width="stretch")
        st.dataframe(scores[scores["round"] == rnd], hide_index=True, width="stretch")


def _show_trick(game: str, t: pd.Series, gid: str, rnd: int, step: int) -> None:
    if game == "plotters":
        takes = data.query("""SELECT player, role, cards, kept_cards FROM takes
                              WHERE game_id = ? AND round = ? AND trick = ?""", (gid, rnd, step))
        first = takes[takes["role"] == "first_pick"]
        pick = ", ".join(first["cards"].iloc[0]) if len(first) else "-"
        st.markdown(f"Led colour **{t['led_color']}** · first winner "
                    f"**{ui.esc(t['first_winner'])}** ({t['first_card']}) picks {pick}")
        if isinstance(t["second_winner"], str):
            second = takes[takes["role"] == "second"]
            st.markdown(f"Second winner **{ui.esc(t['second_winner'])}** ({t['second_card']}) "
                        f"gets {', '.join(second['cards'].iloc[0])} and leads next")
        else:
            st.markdown(f"All cards of the led colour: the rest is discarded; "
                        f"**{ui.esc(t['next_leader'])}** leads next")
        stacks = json.loads(t["stacks"])
        st.dataframe(pd.DataFrame(stacks).T, width="stretch")
    elif game == "rage":
        trump = "none (NOTRUMP)" if t["notrump"] else t["trump"]
        extra = " · CHANGE fired" if t["change"] else ""
        st.markdown(f"Led colour **{t['led_color'] or '-'}** · trump **{trump}**{extra} · "
                    f"**{ui.esc(t['winner'])}** wins with {t['winning_card']}")
    else:
        closed = ", ".join(t["closed"]) if len(t["closed"]) else "none"
        if isinstance(t["winner"], str):
            st.markdown(f"**{ui.esc(t['winner'])}** could not play an acceptable card and takes the "
                        f"trick with {t['winning_card']} · {int(t['length'])} cards, "
                        f"{int(t['laps'])} lap(s) · closed: {closed}")
        else:
            st.markdown(f"Nobody had cards left: the trick is discarded · closed: {closed}")
    st.caption(f"line {int(t['line'])}")


ui.guarded(render)
