"""Game viewer: step through a game trick by trick (or turn by turn), as the engine saw it."""

from collections.abc import Iterable
from urllib.parse import quote

import pandas as pd
import plotly.express as px
import streamlit as st

from trickledger.dashboard import game_parts, tables, ui
from trickledger.dashboard.data import viewer
from trickledger.replay.info import GameInfo
from trickledger.replay.judge import move_label
from trickledger.replay.timeline import Step, Timeline

ui.page("Game viewer")
f = ui.filters()


def _int_param(name: str) -> tuple[int | None, str | None]:
    """A URL parameter as a number: (value, None), (None, None) when absent, or
    (None, raw text) when it is not a number."""
    raw = st.query_params.get(name)
    if raw is None:
        return None, None
    try:
        return int(raw), None
    except ValueError:
        return None, raw


def render() -> None:
    games = viewer.viewer_games(f)
    wanted = st.query_params.get("game")
    if wanted:
        found = viewer.find_game(wanted)
        if found is None:
            st.error(f"No game {ui.plain(wanted)} is in the database (a game is named by its "
                     f"id or by the SHA-256 of its file). Pick one below.")
            wanted = None
        else:
            wanted = found["game_id"]
            if wanted not in set(games["game_id"]):
                games = pd.concat([pd.DataFrame([found]), games], ignore_index=True)
    if ui.empty(games, "games"):
        return
    ids = games["game_id"].tolist()
    labels = dict(zip(ids, games["label"]))
    start = ids.index(wanted) if wanted in ids else 0
    gid = st.selectbox("Game", ids, index=start, key="viewer_game",
                       format_func=lambda g: labels.get(g, g))
    g = games.set_index("game_id").loc[gid]
    if gid != st.query_params.get("game"):
        st.query_params["game"] = gid
    info = game_parts.game_declaration(g["game"])
    step_word = info.step if info else "trick"
    status = str(g["status"]) + (", disputed" if int(g["claims_mismatched"] or 0) else "")
    st.caption(ui.plain(f"{info.title if info else g['game']} · {int(g['n_players'])} players · "
                        f"{status} · {g['file_name']} · id {gid}"))
    tl = viewer.timeline(str(g["sha256"]))
    if tl is None:
        st.error("This game's log could not be read again.")
        return
    if g["status"] == "illegal":
        st.error(ui.plain(f"Illegal move at line {int(g['error_line'])}: {g['error_message']}"))
    disputed = int(g["claims_mismatched"] or 0)
    if disputed:
        st.warning(f"Disputed: {ui.count(disputed, 'claimed score')} on the score sheet "
                   f"{'does' if disputed == 1 else 'do'} not match the replay (see Running "
                   f"scores below).")

    rounds = tl.rounds()
    if not rounds:
        st.info("No round was dealt in this log.")
        return
    _review(gid, tl, step_word, expanded=st.query_params.get("round") is None)
    asked_round, bad_round = _int_param("round")
    # tricks are addressed by their number; turns by their place in the round (a draw is a
    # step too, but not a turn), so the link names a step
    param = "trick" if step_word == "trick" else "step"
    other = "step" if param == "trick" else "trick"
    if other in st.query_params:
        # a link written for another game's way of counting: say so rather than ignore it
        st.warning(ui.plain(f"{info.title if info else g['game']} is played in "
                            f"{step_word}s: a link names a place with {param}=N, not "
                            f"{other}={st.query_params.get(other)}."))
        del st.query_params[other]
    asked_step, bad_step = _int_param(param)
    asked_line, _ = _int_param("line")  # a decision's line: the review's links
    if asked_line is not None:
        at_line = tl.step_of_line(asked_line)
        if at_line is not None:
            asked_round, asked_step, bad_round, bad_step = (at_line.round, at_line.number,
                                                            None, None)
        del st.query_params["line"]  # the round and step below name the place from now on
    if bad_round is not None or (asked_round is not None and asked_round not in rounds):
        which = (f"round {rounds[0]} only" if len(rounds) == 1
                 else f"rounds {rounds[0]}-{rounds[-1]}")
        st.warning(ui.plain(f"This game has no round {bad_round or asked_round} ({which}); "
                            f"showing round {rounds[0]}."))
        asked_round = None
    if asked_round is None and g["status"] == "illegal":
        bad = tl.step_of_line(int(g["error_line"]))
        if bad is not None:
            asked_round, asked_step = bad.round, bad.number
    rnd_key = f"round_{gid}"
    if asked_round is not None and st.session_state.get(f"{rnd_key}_from_url") != asked_round:
        st.session_state[rnd_key] = asked_round
        st.session_state[f"{rnd_key}_from_url"] = asked_round
    rnd = st.selectbox("Round", rounds, key=rnd_key)
    steps = tl.in_round(rnd)
    sheet = tl.replay.state is not None and tl.replay.state.is_sheet
    if sheet:
        st.info(f"Entered as a score sheet: what lay on the table at the end of each round, "
                f"with no {ui.md(step_word)}s to step through. Results and totals count "
                f"it; {ui.md(step_word)}-level figures cannot.")
        st.code("\n".join(tl.round_lines.get(rnd, [])), language=None, wrap_lines=True)
        _scores(gid, rnd, info)
        return
    _round_notes(tl, rnd)
    if not steps:
        st.info(f"No {ui.md(step_word)} was played in round {ui.md(rnd)}.")
        _scores(gid, rnd, info)
        return
    numbers = [s.number for s in steps]
    key = f"step_{gid}_{rnd}"
    if asked_step is not None or bad_step is not None:
        if bad_step is not None or asked_step not in numbers:
            which = (f"{param} 1 only" if numbers[-1] == 1 else f"{param}s 1-{numbers[-1]}")
            st.warning(ui.plain(f"Round {rnd} has no {param} {bad_step or asked_step} "
                                f"({which}); showing the first."))
            asked_step = None
        marker = f"{key}_from_url"
        if asked_step is not None and st.session_state.get(marker) != asked_step:
            st.session_state[key] = numbers.index(asked_step)
            st.session_state[marker] = asked_step
    if key not in st.session_state:
        st.session_state[key] = 0
    prev, label, nxt = st.columns([1, 3, 1])
    at = st.session_state[key]
    prev.button("◀ previous", key=f"prev_{key}", on_click=_move, args=(tl, gid, rnd, -1, param),
                disabled=at == 0 and rnd == rounds[0])
    nxt.button("next ▶", key=f"next_{key}", on_click=_move, args=(tl, gid, rnd, 1, param),
               disabled=at >= len(steps) - 1 and rnd == rounds[-1])
    step = steps[min(st.session_state[key], len(steps) - 1)]
    label.markdown(f"**Round {ui.md(rnd)}, {ui.md(step.label[:1].lower() + step.label[1:])}** "
                   f"({ui.md(step.number)} of {len(steps)})")
    st.query_params["round"] = str(rnd)
    st.query_params[param] = str(step.number)
    _show_step(step, g, gid, step_word)
    _judged(gid, rnd, step, step_word)
    _scores(gid, rnd, info)


def _move(tl: Timeline, gid: str, rnd: int, delta: int, param: str) -> None:
    """One step on or back; past a round's last step into the next round's first, before its
    first into the previous round's last. A button's callback: it runs before the page is
    drawn again, so it may change the round chosen in the selectbox."""
    key = f"step_{gid}_{rnd}"
    at = st.session_state.get(key, 0) + delta
    here = tl.in_round(rnd)
    if 0 <= at < len(here):
        st.session_state[key] = at
        # the URL names the new step at once, so the link read on the next run agrees
        st.session_state[f"{key}_from_url"] = here[at].number
        st.query_params[param] = str(here[at].number)
        return
    rounds = tl.rounds()
    to = rounds.index(rnd) + (1 if delta > 0 else -1)
    if not 0 <= to < len(rounds):
        return
    new = rounds[to]
    steps = tl.in_round(new)
    index = 0 if delta > 0 else max(len(steps) - 1, 0)
    rnd_key = f"round_{gid}"
    st.session_state[rnd_key] = new
    st.session_state[f"step_{gid}_{new}"] = index
    # the URL then names the new place, so the link read on the next run does not undo it
    st.session_state[f"{rnd_key}_from_url"] = new
    st.query_params["round"] = str(new)
    if steps:
        st.session_state[f"step_{gid}_{new}_from_url"] = steps[index].number
        st.query_params[param] = str(steps[index].number)


def _round_notes(tl: Timeline, rnd: int) -> None:
    lines = tl.round_lines.get(rnd)
    if lines:
        with st.expander(f"Round {ui.md(rnd)}: the deal, what was declared and the scores, "
                         f"as the engine replayed them"):
            st.code("\n".join(lines), language=None, wrap_lines=True)


def _show_step(step: Step, g: pd.Series, gid: str, step_word: str) -> None:
    played = [m for m in step.moves if m.from_hand] or step.moves  # a draw: cards off the pile
    ui.chips_row(g["game"], [(m.player, c) for m in played for c in m.cards])
    if step.error is not None:
        st.error(ui.plain(f"Line {step.error_line}: {step.error}"))
        if step.illegal is not None:
            m = step.illegal
            st.markdown(f"{ui.md(m.player)} tried {ui.md(' '.join(m.cards))}. Held:")
            ui.hand_row(g["game"], m.hand_before, m.legal)
            legal = ", ".join(m.legal) or "none"
            st.caption(ui.plain(f"Legal at that moment: {legal}."))
    if step.lines:  # wrapped: a phone shows the whole trick, not its first half
        st.code("\n".join(step.lines), language=None, wrap_lines=True)
    elif not step.finished and step.error is None:
        st.info(f"This {ui.md(step_word)} was not finished (the round ended early or the log "
                f"stops here).")
    movers = {m.player: m for m in step.moves if m.from_hand}
    with st.expander(f"Hands before this {ui.md(step_word)}, and what was legal to play",
                     expanded=True):
        for player, hand in step.hands_before.items():
            mover = movers.get(player)
            st.markdown(f"**{ui.md(player)}**" + (" — played " + ui.md(" ".join(mover.cards))
                                                  if mover else ""))
            ui.hand_row(g["game"], hand, mover.legal if mover else None,
                        played=mover.cards if mover else ())
    stacks = viewer.step_stacks(str(g["game"]), gid, step.round, step.number)
    if stacks is not None and len(stacks):
        frame = pd.DataFrame(list(stacks))
        if frame["player"].isna().all():
            ui.chart(st, px.bar(frame, x="stack", y="cards", range_y=[0, 8],
                                   labels={"stack": "stack", "cards": "cards"},
                                   title=f"Stacks after this {step_word}"), width="stretch")
        else:
            table = frame.pivot_table(index="player", columns="stack", values="cards",
                                      aggfunc="sum", sort=False).reset_index()
            st.markdown(f"**Stacks after this {ui.md(step_word)}** (open colours and "
                        f"face-down cards)")
            st.dataframe(table, hide_index=True, width="stretch")


BAND_ICONS = {"best": "✓ best", "good": "good", "inaccuracy": "?! inaccuracy",
              "mistake": "? mistake", "blunder": "?? blunder"}


def _num(x: float) -> str:
    """A figure for people: one decimal, two below 1 (under_the_radar's tricks), no -0."""
    if x != x:
        return "—"
    places = 2 if abs(x) < 1 else 1
    text = f"{x:.{places}f}"
    return "0" if float(text) == 0 else text


def _cost(c: float, se: float, band: str) -> str:
    if band == "best":
        return "0"
    return f"{_num(c)} ± {_num(se)}" if se == se else _num(c)


def _verdicts(judged: pd.DataFrame) -> pd.DataFrame:
    """The judge's rows in words: a best move never shows a better one beside it; moves
    as good as the best say so."""
    out = judged.copy()
    out["verdict"] = [BAND_ICONS.get(b, b) for b in out["band"]]
    out["cost"] = [_cost(c, e, b) for c, e, b in zip(out["cost"], out["cost_se"], out["band"])]
    out["better"] = ["" if b == "best" else m for m, b in zip(out["best_move"], out["band"])]
    out["as good"] = [_as_good(b, m, eq) for b, m, eq in
                      zip(out["band"], out["move"], out["equal_moves"])]
    out["expected"] = [_num(v) for v in out["value"]]
    out["best expected"] = [_num(v) for v in out["best_value"]]
    return out


AS_GOOD_SHOWN = 3  # moves named in a best move's "as good" before "and N more"


def _as_good(band: str, move: str, equal: object) -> str:
    others = [str(e) for e in equal] if isinstance(equal, Iterable) and not isinstance(
        equal, str) else []
    if band == "best":
        # a best move's "as good" may have scored a little more, within the noise; early in
        # a round that can be most of the hand, so a long list is cut short
        if not others:
            return "the only best move"
        if len(others) > AS_GOOD_SHOWN:
            return (f"as good: {', '.join(others[:AS_GOOD_SHOWN])} and "
                    f"{len(others) - AS_GOOD_SHOWN} more within the noise")
        return "as good: " + ", ".join(others)
    return ("equal to it: " + ", ".join(others)) if others else ""


# the long "as good" last: the expected scores stay in view beside the verdict
JUDGE_COLUMNS = {"player": "player", "move": "played", "verdict": "verdict",
                 "cost": "cost (points)", "better": "better move",
                 "expected": "expected score", "best expected": "best's expected",
                 "as good": "as good"}


def _judged(gid: str, rnd: int, step: Step, step_word: str) -> None:
    """The judge's verdict on this step's moves (forced moves said so), and on every
    decision of the round (bids and trump choices come before the first trick)."""
    judged = viewer.judged_moves(gid, rnd)
    rounds = viewer.judged_rounds(gid)
    if judged.empty and (rounds is not None and rnd not in rounds):
        if rounds is not None and rounds:
            st.caption(f"The judge has not judged round {ui.md(rnd)} of this game (`trickledger "
                       f"analyse --moves` judges a long log's rounds up to a bound).")
        return
    shown = _verdicts(judged)
    by_line = {int(r["line"]): r for _, r in shown.iterrows()}
    rows = []
    for m in step.moves:
        if not m.player:
            continue  # a card turned from the pile (rage's new trump): nobody's decision
        row = by_line.get(m.line)
        if row is not None:
            rows.append({c: row[c] for c in JUDGE_COLUMNS})
        elif len(set(m.legal)) > 1:  # a choice of cards the judge could not judge
            rows.append({"player": m.player, "move": move_label(m.event),
                         "verdict": "not judged", "cost": "", "better": "",
                         "as good": "no deal fits what the player saw",
                         "expected": "", "best expected": ""})
        else:  # no verdict in a judged round, and no choice: the one legal move
            # written as the judge writes a move (`play B7`), not as bare cards beside it
            rows.append({"player": m.player, "move": move_label(m.event), "verdict": "forced",
                         "cost": "", "better": "", "as good": "the only legal move",
                         "expected": "", "best expected": ""})
    if rows:
        st.markdown(f"**The judge on this {ui.md(step_word)}** (cost: the round points the move "
                    f"gave away against the best alternative, ± one standard error, with "
                    f"the hidden cards dealt again many times; a best move's \"best's "
                    f"expected\" above its own is a lead the samples cannot tell from "
                    f"noise: the first move it names as good scored that)")
        frame = pd.DataFrame(rows)
        st.dataframe(frame[list(JUDGE_COLUMNS)].rename(columns=JUDGE_COLUMNS),
                     hide_index=True, width="stretch")
    if not shown.empty:
        with st.expander(f"Every judged decision of round {ui.md(rnd)} ({len(shown)})"):
            st.dataframe(shown[list(JUDGE_COLUMNS)].rename(columns=JUDGE_COLUMNS),
                         hide_index=True, width="stretch")


def _decision_url(gid: str, rnd: int, line: int, text: str) -> str:
    return f"viewer?game={quote(gid, safe='')}&round={int(rnd)}&line={int(line)}#{text}"


def _review(gid: str, tl: Timeline, step_word: str, expanded: bool) -> None:
    """The game review: each player's accuracy and average cost in this game, and its key
    moments (its costliest decisions), each a link to the viewer at that decision."""
    review = viewer.game_review(gid)
    if review.empty:
        return
    with st.expander("Game review: how well each player decided, and the key moments",
                     expanded=expanded):
        tables.show(review, {"player": "player", "accuracy": "accuracy",
                             "avg_cost": "average cost (points)", "decisions": "decisions",
                             "best": "best", "good": "good", "inaccuracies": "inaccuracies",
                             "mistakes": "mistakes", "blunders": "blunders"},
                    players=("player",), percent=("accuracy",), decimals={"avg_cost": 2},
                    key=f"review_{gid}")
        st.caption("Accuracy: the share of a player's decisions where no alternative was "
                   "surely better; average cost: the points a decision gave away on average "
                   "(see the Decisions page).")
        moments = viewer.game_key_moments(gid)
        if moments.empty:
            st.caption("Key moments: none — every judged decision was a best move.")
            return
        where = {}
        for line in moments["line"]:
            at = tl.step_of_line(int(line))
            where[int(line)] = (f"{at.label[:1].lower() + at.label[1:]}" if at is not None
                                else "before the first " + step_word)
        moments["open"] = [_decision_url(gid, int(r), int(ln),
                                         f"round {int(r)}, {where[int(ln)]}")
                           for r, ln in zip(moments["round"], moments["line"])]
        moments["verdict"] = [BAND_ICONS.get(b, b) for b in moments["band"]]
        moments["cost"] = [_cost(c, e, b) for c, e, b in
                           zip(moments["cost"], moments["cost_se"], moments["band"])]
        st.markdown("**Key moments** — the game's costliest decisions")
        tables.show(moments, {"open": "where", "player": "player", "move": "played",
                              "best_move": "better move", "cost": "cost (points)",
                              "verdict": "verdict"},
                    players=("player",), links=("open",), key=f"moments_{gid}")


def _scores(gid: str, rnd: int, info: GameInfo | None) -> None:
    own = game_parts.round_section(info)  # the game's own part (rage: bids against tricks)
    if own is not None:
        own(gid, rnd)
    scores = viewer.running_scores(gid)
    claims = viewer.disputed_claims(gid)
    wide = {"derivation": st.column_config.TextColumn("derivation", width="large")}
    st.subheader("Running scores")
    if not claims.empty:
        st.warning(f"{ui.count(len(claims), 'claimed score')} on the score sheet "
                   f"{'does' if len(claims) == 1 else 'do'} not match:")
        st.dataframe(claims, hide_index=True, width="stretch", column_config=wide)
    if scores.empty:
        st.info("No round has finished yet.")
    elif scores["round"].nunique() == 1:  # one round: its totals as bars, not lone dots
        ui.chart(st, px.bar(scores, x="player", y="running total",
                            labels={"running total": "points"},
                            title=f"Scores of round {int(scores['round'].iloc[0])}, the only "
                                  f"round played"), width="stretch")
    else:
        ui.chart(st, px.line(scores, x="round", y="running total", color="player",
                                markers=True, title="Running totals"), width="stretch")
        st.dataframe(scores[scores["round"] == rnd], hide_index=True, width="stretch",
                     column_config=wide)


ui.guarded(render)
