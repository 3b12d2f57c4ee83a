"""Score sheet: a table types what lies on the table at the end of each round; the engine
scores it, explains every score and names what cannot be. Made for a phone at the table.

The page never computes a score: it builds the sheet log from what was typed (the game's
own form, `SheetState.form`, gives the numbers and their limits) and verifies it with the
engine, as `trickledger verify` would.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from typing import Any

import pandas as pd
import streamlit as st

from trickledger.dashboard import auth, data, ui
from trickledger.replay.engine import Replay, replay_bytes, verdict
from trickledger.replay.errors import UnreadableLog
from trickledger.replay.events import Header
from trickledger.replay.reader import parse_header
from trickledger.replay.registry import GameInfo, registry
from trickledger.replay.sheet import SheetForm, sheet_class, sheet_line
from trickledger.replay.writer import dump_lines

WROTE = "wrote"
PLAYER = "player"
NOBODY = "—"
ROW_HEIGHT = 40  # a row a finger can hit
PHONE_WIDTH = 356  # what a phone held upright (390 px) leaves for a table
PLAYER_WIDTH = 58


def widths(labels: list[str]) -> dict[str, int]:
    """Each number column as wide as its header needs (the grid draws an edit mark before
    it), squeezed so that the names and every number fit side by side on a phone."""
    want = {label: min(84, 36 + 8 * max(1, len(label))) for label in labels}
    room = PHONE_WIDTH - PLAYER_WIDTH
    short = sum(w for w in want.values() if w <= 44)  # a letter's column stays whole
    long = sum(w for w in want.values() if w > 44)
    scale = min(1.0, (room - short) / long) if long else 1.0
    return {label: w if w <= 44 else max(44, int(w * scale)) for label, w in want.items()}

# On a phone held upright the table matters more than the page's margins: less space above
# the title, a smaller title, and no table toolbar floating over the next field (this page
# only; its tables are for typing, not for searching or downloading).
st.html("""<style>
[data-testid="stElementToolbar"] { display: none; }
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding-top: 64px; }
  [data-testid="stHeading"] h1 { font-size: 2rem; padding-top: 0.25rem; }
}</style>""")
ui.page("Score sheet")
st.caption("At the table: type what you see when a round ends. The rules give every score "
           "with its arithmetic, and say at once what cannot be.")


def games() -> dict[str, GameInfo]:
    return {name: info for name, info in sorted(registry().items(), key=lambda kv: kv[1].title)
            if info.sheet_state is not None}


def render() -> None:
    setup = _setup()
    if setup is not None:
        _sheet(*setup)


@st.fragment
def _sheet(header: Header, raw_header: dict[str, Any], info: GameInfo) -> None:
    """The rounds: a fragment, so that typing reruns only this part of the page (fast on a
    phone, and the table is never redrawn under a finger by a slow rerun)."""
    ui.guarded(lambda: _rounds(header, raw_header, info))


def _rounds(header: Header, raw_header: dict[str, Any], info: GameInfo) -> None:
    sheet = sheet_class(info)
    assert sheet is not None
    players = header.players
    sig = _signature(header)
    store = _store(sig)
    rounds = list(range(1, header.rounds + 1))
    current: int = st.segmented_control(
        "Round", rounds, key=_key(sig, "round"), default=rounds[0],
        required=True, format_func=lambda r: f"R{r:d}" if len(rounds) > 6 else f"Round {r:d}")
    form = sheet.form(header, current)
    store[current] = _round_editor(form, players, current, store.get(current), sig)
    filled = [r for r in rounds if r in store and _filled(store[r])]
    missing = {r: _missing(sheet.form(header, r), players, store[r]) for r in filled}
    # the sheet holds the rounds typed in full, up to the first one still being typed
    entered = filled[:next((i for i, r in enumerate(filled) if missing[r]), len(filled))]
    lines = [_line(sheet.form(header, r), players, r, store[r]) for r in entered]
    log = dump_lines(raw_header, lines)
    result = replay_bytes(log, "sheet.jsonl")
    if missing.get(current):
        st.info(ui.md(f"Round {current}: still to type — {missing[current]}."))
    elif current in filled and current not in entered:
        first = next(r for r in filled if missing[r])
        st.info(f"Round {first:d} is not typed in full yet: finish it to score round {current:d}.")
    else:
        _round_result(result, players, current, entered)
    _totals(result, current)
    _keep(result, log, info.name, entered)


# ----------------------------------------------------------------- the table


def _setup() -> tuple[Header, dict[str, Any], GameInfo] | None:
    """The game, its players and options, checked by the engine's own header rules."""
    known = games()
    with st.expander("Game and players", expanded=True, key="sheet_setup", on_change="rerun"):
        name = st.selectbox("Game", list(known), key="sheet_game",
                            format_func=lambda g: known[g].title)
        info = known[name]
        text = st.text_input("Players, clockwise, separated by commas", key="sheet_players",
                             placeholder="Ann, Ben, Cat, Dan", max_chars=400)
        players = [p.strip() for p in text.split(",") if p.strip()]
        if len(players) < info.min_players:
            st.session_state["sheet_ready"] = False
            st.info(f"{ui.md(info.title)} is for {info.min_players:d} to {info.max_players:d} players: "
                    f"name them in seating order.")
            return None
        dealer = st.selectbox("First dealer", players, index=len(players) - 1,
                              key=f"sheet_dealer_{len(players)}")
        raw: dict[str, Any] = {"format": "trickledger/1", "game": name, "players": players,
                               "dealer": dealer}
        if info.variants:
            variants = st.multiselect("Variants", list(info.variants), key=f"sheet_v_{name}")
            if variants:
                raw["variants"] = variants
        defaults = info.state_class.random_setup(random.Random(0), len(players)) \
            if info.min_players <= len(players) <= info.max_players else {}
        if "suits" in defaults:
            letters = list(dict.fromkeys(c.color for c in info.cards if c.color))
            k = len(defaults["suits"])
            raw["suits"] = st.multiselect(f"Suits in play ({k:d})", letters, default=letters[:k],
                                          key=f"sheet_suits_{name}_{k}")
        try:
            standard = parse_header("the sheet", 1, _json(raw), "sheet")
        except UnreadableLog as e:
            st.session_state["sheet_ready"] = False
            st.error(ui.md(e.message))
            return None
        total = st.number_input("Rounds", min_value=1, max_value=99, step=1,
                                value=standard.rounds, key=f"sheet_rounds_{name}")
        if total != standard.rounds:
            raw["rounds"] = int(total)
        raw["meta"] = {"date": dt.date.today().isoformat(),
                       "platform": "trickledger dashboard: score sheet"}
        try:
            header = parse_header("the sheet", 1, _json(raw), "sheet")
        except UnreadableLog as e:
            st.session_state["sheet_ready"] = False
            st.error(ui.md(e.message))
            return None
        started = st.session_state.get("sheet_started", False)
        st.button("Start the sheet" if not started else "Fold this away", key="sheet_start",
                  type="primary" if not started else "secondary", width="stretch",
                  on_click=_start)
    st.session_state["sheet_ready"] = True
    if not st.session_state.get("sheet_started"):
        return None
    st.caption(ui.md(f"{info.title} · {', '.join(header.players)} · first dealer "
                     f"{header.dealer} · {ui.count(header.rounds, 'round')}"
                     + (f" · {', '.join(sorted(header.variants))}" if header.variants else "")))
    return header, raw, info


def _start() -> None:
    """The setup is done: fold it away (a tap opens it again) and show the rounds."""
    st.session_state["sheet_started"] = True
    st.session_state["sheet_setup"] = False


def _json(obj: dict[str, Any]) -> bytes:
    import orjson

    return orjson.dumps(obj)


def _signature(header: Header) -> str:
    """What the tables are made of: the game, the players, the suits. When it changes, what
    was typed belongs to another table and is started afresh."""
    return hashlib.sha256(repr((header.game, header.players, header.suits)).encode()
                          ).hexdigest()[:8]


def _store(sig: str) -> dict[int, dict[str, pd.DataFrame]]:
    """What was typed, by round."""
    if st.session_state.get("sheet_sig") != sig:
        st.session_state["sheet_sig"] = sig
        st.session_state["sheet_store"] = {}
    store: dict[int, dict[str, pd.DataFrame]] = st.session_state["sheet_store"]
    return store


def _key(sig: str, what: str) -> str:
    return f"sheet_{sig}_{what}"


def _blank(columns: list[str], rows: int) -> pd.DataFrame:
    return pd.DataFrame({c: pd.array([None] * rows, dtype="Int64") for c in columns})


def _round_editor(form: SheetForm, players: tuple[str, ...], r: int,
                  typed: dict[str, Any] | None, sig: str) -> dict[str, Any]:
    """The round's table: a row per player (numbers only, within the game's limits), the
    round's own numbers and the player it names; returns what is typed."""
    typed = dict(typed or {})
    number = st.column_config.NumberColumn
    if form.round:
        st.markdown(f"**{ui.md(form.round_about or 'The round')}**")
        cols = [f.label for f in form.round]
        base = typed.get("round")
        if base is None:
            base = _blank(cols, 1)
        typed["round"] = _editor(
            base, key=_key(sig, f"round_r{r}"), num_rows="fixed", hide_index=True,
            width="stretch", placeholder="", row_height=ROW_HEIGHT,
            column_config={f.label: number(f.label, help=f.help, min_value=f.lo,
                                           max_value=f.hi, step=1, format="%d",
                                           width=widths(cols)[f.label])
                           for f in form.round})
    for key, label in form.pick:
        options = [NOBODY, *players]
        chosen = typed.get(key)
        typed[key] = st.selectbox(f"Who {ui.md(label)}", options, key=_key(sig, f"{key}_r{r}"),
                                  index=options.index(chosen) if chosen in options else 0)
    cols = [f.label for f in form.players]
    sizes = widths([*cols, WROTE])
    if form.about:
        st.markdown(f"**{ui.md(form.about)}**")
    base = typed.get("players")
    if base is None:
        base = _blank([*cols, WROTE], len(players))
        base.index = pd.Index(list(players), name=PLAYER)
    config: dict[str, Any] = {"_index": st.column_config.TextColumn(" ", width=PLAYER_WIDTH,
                                                                    disabled=True)}
    for f in form.players:
        config[f.label] = number(f.label, help=f.help + (" (required)" if f.required else ""),
                                 min_value=f.lo, max_value=f.hi, step=1, format="%d",
                                 width=sizes[f.label])
    config[WROTE] = number(WROTE, help="the score written on your paper sheet, if you keep "
                                       "one: a different one is a dispute", step=1, format="%d",
                           width=sizes[WROTE])
    typed["players"] = _editor(base, key=_key(sig, f"players_r{r}"),
                                      num_rows="fixed", hide_index=False, width="stretch",
                                      placeholder="", row_height=ROW_HEIGHT, column_config=config)
    st.caption("“wrote”: a score written on your paper sheet, if you keep one — the rules "
               "check it.")
    return typed


def _editor(typed: pd.DataFrame, key: str, **options: Any) -> pd.DataFrame:
    """A table editor that starts from what was typed and then keeps that start while it
    lives: its edits accumulate on it (a start that changed under it at every keystroke
    would make the browser drop what is typed while the page reruns). Switching rounds
    ends it; coming back starts it again from what was typed."""
    starts: dict[str, pd.DataFrame] = st.session_state.setdefault("sheet_starts", {})
    if key not in st.session_state or key not in starts:
        starts[key] = typed
    edited: pd.DataFrame = st.data_editor(starts[key], key=key, **options)
    return edited


def _filled(typed: dict[str, Any]) -> bool:
    """Whether anything of a round was typed (a round left blank is not on the sheet)."""
    frames = [typed[k] for k in ("players", "round") if k in typed]
    numbers = [f.drop(columns=[WROTE], errors="ignore") for f in frames]
    picked = any(v not in (None, NOBODY) for k, v in typed.items() if k not in ("players", "round"))
    return picked or any(bool(f.notna().to_numpy().any()) for f in numbers)


def _value(v: Any) -> int | None:
    return None if v is None or pd.isna(v) else int(v)


def _line(form: SheetForm, players: tuple[str, ...], r: int, typed: dict[str, Any]
          ) -> dict[str, Any]:
    table = typed["players"]
    values = {p: [_value(table.iloc[i][f.label]) for f in form.players]
              for i, p in enumerate(players)}
    written = {p: _value(table.iloc[i][WROTE]) for i, p in enumerate(players)}
    round_values: list[int | None] = []
    if "round" in typed:
        row = typed["round"].iloc[0]
        round_values = [_value(row[f.label]) for f in form.round]
    picks = {key: (None if typed.get(key) in (None, NOBODY) else typed[key])
             for key, _ in form.pick}
    return sheet_line(form, r, players, values, round_values, picks, written)


def _missing(form: SheetForm, players: tuple[str, ...], typed: dict[str, Any]) -> str:
    """The required numbers of a round not typed yet, in words ("" when none)."""
    table = typed["players"]
    out = []
    for i, p in enumerate(players):
        blank = [f.label for f in form.players
                 if f.required and _value(table.iloc[i][f.label]) is None]
        if blank:
            out.append(f"{p}'s {' and '.join(blank)}")
    return "; ".join(out)


# ----------------------------------------------------------------- what the rules say


def _round_of_line(result: Replay, line: int | None, entered: list[int]) -> int | None:
    """The round whose sheet line is `line` (the header is line 1, one line per round)."""
    if line is None or not 2 <= line < 2 + len(entered):
        return None
    return entered[line - 2]


def _round_result(result: Replay, players: tuple[str, ...], r: int, entered: list[int]) -> None:
    st_ = result.state
    err = result.error
    bad = _round_of_line(result, err.line, entered) if err is not None else None
    if err is not None and bad is None:
        st.error(ui.md(err.message))
        return
    if bad == r:
        st.error(ui.md(f"Round {r} cannot be: {err.message if err else ''}"))
        return
    if r not in entered:
        st.info(f"Type round {r:d} when it ends: each player's numbers in their row.")
        return
    if bad is not None and bad < r:
        st.warning(f"Round {bad:d} holds an entry that cannot be: fix it to score round {r:d}.")
        return
    assert st_ is not None
    scored = next(x for x in st_.rounds if x.round == r)
    disputes = {c.player: c for c in st_.claims if c.round == r and not c.match}
    if disputes:
        st.warning("\n".join(
            [f"**{ui.count(len(disputes), 'written score')} of round {r:d} "
             f"{'differs' if len(disputes) == 1 else 'differ'} from the rules:**"]
            + [f"- {ui.md(players[s])}: you wrote **{c.claimed:d}**, the rules give "
               f"**{c.computed:d}** — {ui.md(c.derivation)}" for s, c in disputes.items()]))
    st.markdown("\n".join(f"- **{ui.md(p)} {scored.scores[s]:d}** · {ui.md(scored.derivations[s])}"
                          for s, p in enumerate(players)))


def _claim_round(round_: int | None) -> str:
    return "the totals" if round_ is None else f"round {round_}"


def _totals(result: Replay, shown: int) -> None:
    v = verdict(result)
    if not v["rounds"]:
        return
    st.subheader("Running total")
    table = pd.DataFrame({f"R{x['round']}": pd.Series(x["scores"]) for x in v["rounds"]})
    table["total"] = pd.Series(v["totals"])
    table.index.name = PLAYER
    st.dataframe(table.reset_index(), hide_index=True, width="stretch")
    if v["winners"]:
        st.success(ui.md(("Winners: " if len(v["winners"]) > 1 else "Winner: ")
                         + ", ".join(v["winners"])))
    elsewhere = [c for c in v["claims"] if not c["match"] and c["round"] != shown]
    if elsewhere:  # the round shown lists its own above
        st.warning("\n".join(
            ["**Written scores that differ from the rules in other rounds:**"]
            + [f"- {ui.md(_claim_round(c['round']))}, {ui.md(c['player'])}: you wrote "
               f"**{ui.md(c['claimed'])}**, the rules give **{ui.md(c['computed'])}**"
               for c in elsewhere]))


def _keep(result: Replay, log: bytes, game: str, entered: list[int]) -> None:
    if not entered:
        return
    name = f"sheet-{game}-{dt.date.today().isoformat()}-{hashlib.sha256(log).hexdigest()[:8]}.jsonl"
    left, right = st.columns(2)
    left.download_button("Download the sheet", log, file_name=name,
                         mime="application/jsonl", key="sheet_download", width="stretch",
                         help="The sheet as a log: `trickledger verify` checks it anywhere.")
    me = auth.visitor()
    if not me.may_write:
        right.caption("Saving to the database needs an account on this server.")
        return
    illegal = result.status == "illegal"
    if right.button("Save to the database", key="sheet_save", width="stretch",
                    disabled=illegal,
                    help="Fix the entry that cannot be first." if illegal else
                    "Stores the sheet as it stands now; save again after the last round."):
        summary = data.load([(name, log)], auth.describe(me), action="save")
        res = summary.results[0] if summary.results else None
        st.success(ui.md(f"Saved as {res.status if res else 'loaded'}: {name}"))


ui.guarded(render)
