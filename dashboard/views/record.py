"""Record: a game at the table, entered card by card on a phone as it is played.

Nobody knows the hands until they are played, so the page writes a plays-only log
(docs/format.md, "Plays-only rounds") and the engine does the rest: whose turn it is, the
cards a player could still hold, a card that breaks a rule seen at once (refused, with the
reason), the trick winners and the scores, and a revoke as soon as a card proves it. Every
tap is stored on the server as it happens (ingest.recordings), so a reload, a closed tab or
a second phone on the same recording (`?rec=ID`) goes on where it was; a wrong tap is
undone by a tap. The page never works out a rule: it asks the engine's state.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import orjson
import streamlit as st

from trickledger.dashboard import auth, game_parts, ui
from trickledger.dashboard.data import recordings, uploads
from trickledger.ingest.recordings import (
    EVENT,
    LOADED,
    UNDO,
    Recording,
    RecordingError,
    TapConflict,
    new_id,
)
from trickledger.replay.cards import Card
from trickledger.replay.engine import Replay, new_state, replay_bytes, verdict
from trickledger.replay.errors import FormatError, RuleError, UnreadableLog
from trickledger.replay.events import Event
from trickledger.replay.reader import parse_header
from trickledger.replay.registry import GameInfo, lookup_game, registry
from trickledger.replay.render import render as render_facts
from trickledger.replay.state import GameState

PLATFORM = "trickledger dashboard: record"
MESSAGE = "record_message"  # what the last tap did, said on the next run
SELECTED = "record_selected"  # the cards (or colours) picked so far for a move of several
SHOWING = "record_showing"  # the player whose hand is being shown
NAMING = "record_naming"  # a card picked whose play names a value (`as`: GameState.names_for)

# Phone first: big targets, little margin; each card button is painted in its card's colour
# by the game's declaration once the game is known (ui.paint_card_buttons)
CSS = """<style>
[class*="st-key-card-"] button, [class*="st-key-big-"] button,
.st-key-record-bar [data-testid="stPopoverButton"] {
  min-height: 52px; font-size: 1.05rem; font-weight: 700; padding: 4px 6px; width: 100%; }
[class*="st-key-card-"].picked button { outline: 4px solid #111; }
[class*="st-key-card-"] button p, [class*="st-key-chosen-"] button p { font-size: 1.05rem;
  line-height: 1.15; white-space: normal; overflow: visible; text-overflow: clip; }
[class*="st-key-chosen-"] button { outline: 4px solid #111; outline-offset: -4px;
  box-shadow: inset 0 0 0 3px #fff; }
.st-key-record-turn h3 { margin: 0; padding: 0; }
/* a touch screen keeps :hover on the button last tapped: the next player's bid or card at
   that place would look chosen already */
@media (hover: none) {
  [class*="st-key-big-"] button[data-testid="stBaseButton-secondary"]:hover,
  [class*="st-key-big-"] button[data-testid="stBaseButton-secondary"]:focus:not(:active) {
    background-color: transparent; border-color: rgba(49, 51, 63, 0.2); color: inherit; }
}
[data-testid="stElementToolbar"] { display: none; }
@media (max-width: 640px) {
  [data-testid="stMainBlockContainer"] { padding-top: 56px; padding-left: 10px;
    padding-right: 10px; }
  [data-testid="stHeading"] h1 { font-size: 1.6rem; padding-top: 0.2rem; }
}
</style>"""


def _token(color: str) -> str:
    return color or "none"


def _colour_name(info: GameInfo, color: str) -> str:
    """A card colour's name in words (the game's `color_names`), "Others" for no colour."""
    return info.color_names.get(color, color).capitalize() if color else "Others"


st.html(CSS)
ui.page("Record a game")


def render() -> None:
    me = auth.require_writer("Recording a game")
    if me is None:
        return
    if recordings.recording_db() is None:
        st.info("Recording a game needs the database file: this dashboard reads a lake "
                "(append-only Parquet). Start `trickledger dashboard --db FILE` to record.")
        return
    rid = st.query_params.get("rec")
    if rid:
        _recording(str(rid), me)
    else:
        _home(me)


# ----------------------------------------------------------------- a new game, or one to go on


def _home(me: auth.Visitor) -> None:
    st.caption("Enter each card as it is played: the rules give whose turn it is, who wins "
               "each trick and the scores, and name a revoke the moment a card proves it. "
               "Every tap is kept on the server.")
    going = [r for r in recordings.recordings_list() if r.status != LOADED]
    if going:
        st.subheader("Go on with a game")
        for r in going[:8]:
            when = f"{r.updated_at:%d %b %H:%M}"
            label = (f"{game_parts.game_title(r.game)} · {', '.join(r.players)} · {r.taps} taps · "
                     f"{when} UTC")
            if st.button(ui.md(label), key=f"resume-{r.recording_id}", width="stretch",
                         icon=":material/play_arrow:"):
                _open(r.recording_id)
    with st.container(border=True):
        st.subheader("New game")
        _setup(me)


def _open(rid: str) -> None:
    for key in (MESSAGE, SELECTED, SHOWING, NAMING):
        st.session_state.pop(key, None)
    st.query_params["rec"] = rid
    st.rerun()


def _setup(me: auth.Visitor) -> None:
    known = {name: info for name, info in sorted(registry().items(),
                                                 key=lambda kv: kv[1].title)}
    name = st.selectbox("Game", list(known), key="rec_game",
                        format_func=lambda g: known[g].title)
    info = known[name]
    text = st.text_input("Players in seat order, clockwise", key="rec_players",
                         placeholder="Ann, Ben, Cat, Dan", max_chars=400,
                         help="Separated by commas; the first dealer is picked below.")
    players = [p.strip() for p in text.split(",") if p.strip()]
    if not players:
        st.caption(f"{ui.md(info.title)}: {info.min_players:d} to {info.max_players:d} players.")
        return
    if not info.min_players <= len(players) <= info.max_players:
        st.warning(ui.md(f"{info.title} is for {info.min_players} to {info.max_players} "
                         f"players; you named {len(players)}."))
        return
    dealer = st.selectbox("First dealer", players, index=len(players) - 1,
                          key=f"rec_dealer_{len(players)}")
    raw: dict[str, Any] = {"format": "trickledger/1", "game": name, "players": players,
                           "dealer": dealer}
    if info.editions:
        raw["edition"] = st.selectbox("Edition", list(info.editions), key=f"rec_ed_{name}",
                                      format_func=lambda e: e.replace("-", " "))
    if info.variants:
        variants = st.multiselect("Variants", list(info.variants), key=f"rec_v_{name}",
                                  format_func=lambda v: v.replace("_", " "))
        if variants:
            raw["variants"] = variants
    suits = ui.suits_in_play(info, len(players), f"rec_suits_{name}")
    if suits is not None:
        raw["suits"] = suits
    try:
        standard = parse_header("the game", 1, orjson.dumps(raw), "record")
    except UnreadableLog as e:
        st.error(ui.md(e.message))
        return
    most = info.state_class.most_rounds()
    rounds = st.number_input("Rounds", min_value=1, max_value=99 if most is None else most,
                             step=1, value=standard.rounds, key=f"rec_rounds_{name}",
                             help="Fewer rounds make a shorter game.")
    if rounds != standard.rounds:
        raw["rounds"] = int(rounds)
    if st.button("Start recording", key="rec_start", type="primary", width="stretch",
                 icon=":material/fiber_manual_record:"):
        rid = new_id()
        raw["id"] = f"rec-{rid}"
        raw["meta"] = {"date": dt.date.today().isoformat(), "platform": PLATFORM,
                       "recording": rid}
        try:
            parse_header("the game", 1, orjson.dumps(raw), "record")
        except UnreadableLog as e:
            st.error(ui.md(e.message))
            return
        recordings.record_start(raw, auth.describe(me), rid)
        _open(rid)


# ----------------------------------------------------------------- the recording


def _fold(header: dict[str, Any], events: list[dict[str, Any]]
          ) -> tuple[GameState, str | None]:
    """The state after the recording's events, going on past a rule that needed the hands
    (the cards were played at the table: the verdict names the error, the table goes on).
    A line that no longer applies (it should not happen) is said, with its number."""
    h = parse_header("the recording", 1, orjson.dumps(header), "record")
    state = new_state(h)
    state.keep_going = True
    for line, ev in enumerate(events, start=2):
        try:
            state.apply(Event(line, ev["type"], ev))
        except (RuleError, FormatError) as e:
            return state, f"line {line}: {e} — undo it to go on"
    return state, None


def _recording(rid: str, me: auth.Visitor) -> None:
    try:
        rec = recordings.recording(rid)
    except RecordingError as e:
        st.error(ui.md(f"{e}. The link may be wrong, or the recording is in another "
                       f"database."))
        if st.button("All recordings", key="rec_home"):
            _leave()
        return
    info = lookup_game(str(rec.header.get("game")))
    assert info is not None
    ui.paint_card_buttons(info.name)
    events = rec.events()
    state, broken = _fold(rec.header, events)
    log = rec.log()
    name = f"{rec.header.get('id', 'recording')}.jsonl"
    result = replay_bytes(log, name)
    _watch(rid, rec.seq)
    _top(rec, info, state, result)
    said = st.session_state.pop(MESSAGE, None)
    if said is not None:
        kind, text = said
        text = text[:1].upper() + text[1:]  # "the pile shows ...": a sentence
        {"error": st.error, "warning": st.warning, "success": st.success}.get(
            kind, st.info)(ui.md(text))
    if broken is not None:
        st.error(ui.md(broken))
    _violations(state, result)
    is_loaded = rec.status == LOADED
    if is_loaded:
        st.success(ui.md(f"This game was loaded into the database as {rec.game_id}: the "
                         f"recording is closed."))
        ui.viewer_link({"game": str(rec.game_id)}, "Open it in the game viewer")
    else:
        step = _step(state, info, events)
        step(_Ctx(rid, rec, state, info, events, me, result))
    finished = result.status == "complete" or (
        result.status == "illegal" and state.is_over() and not (
            state.live is not None and state.why_unsettled() is not None))
    if finished:  # what is left to do, under the thumb: load it (or download it)
        _bottom(rec, log, name, me, is_loaded, finished)
    _round_result(result, state, info)
    if not finished:
        _bottom(rec, log, name, me, is_loaded, finished)


def _leave() -> None:
    for key in (MESSAGE, SELECTED, SHOWING, NAMING):
        st.session_state.pop(key, None)
    st.query_params.pop("rec", None)
    st.rerun()


@st.fragment(run_every=3)
def _watch(rid: str, seq: int) -> None:
    """Another phone's tap shows here within seconds: the page is drawn again when the
    recording has moved on from what it shows."""
    now = recordings.recording_taps(rid)
    if now is not None and now != seq:
        st.rerun(scope="app")


def _violations(state: GameState, result: Replay) -> None:
    """Every rule the hands show broken: in the rounds settled (the table went on), and in
    the round being played as far as its cards show; the first makes the log illegal."""
    found = list(state.violations)
    now = _revoke_now(state)
    if now is not None:
        found.append(now)
    lines = {v.line for v in found}
    for v in found:
        st.error(ui.md(f"Line {v.line}: {v}"))
    err = result.error
    if err is not None and err.line not in lines:
        st.error(ui.md(f"Line {err.line}: {err.message}"))
    if found or err is not None:
        st.caption("The log is illegal from the first of these lines: trickledger scores "
                   "nothing after it. Undo a wrong entry, or go on entering what the table "
                   "plays: every card is kept.")


def _revoke_now(state: GameState) -> Any:
    """A rule that the cards played so far in the round being played show broken."""
    if state.live is None:
        return None
    probe = state.clone()
    probe.keep_going = False
    try:
        return probe.earlier_violation(None)
    except (RuleError, FormatError):
        return None


class _Ctx:
    """What a step needs: the recording, its state and who is tapping."""

    def __init__(self, rid: str, rec: Recording, state: GameState, info: GameInfo,
                 events: list[dict[str, Any]], me: auth.Visitor, result: Replay) -> None:
        self.rid = rid
        self.result = result  # the recording's log replayed (verdict, scores)
        self.rec = rec
        self.state = state
        self.info = info
        self.events = events
        self.me = me

    @property
    def seq(self) -> int:
        return self.rec.seq

    @property
    def line(self) -> int:
        """The line the next event gets (the header is line 1)."""
        return len(self.events) + 2


def _top(rec: Recording, info: GameInfo, state: GameState, result: Replay) -> None:
    players = ", ".join(str(p) for p in rec.header.get("players", []))
    where = ""
    if state.round_no:
        where = f" · round {state.round_no} of {state.rounds_total}"
    st.caption(ui.md(f"{info.title} · {players}{where} · recording {rec.recording_id} · "
                     f"{ui.count(rec.seq, 'entry', 'entries')}"))
    bar = st.container(horizontal=True, gap="small", key="record-bar")
    left = mid = right = bar
    events = rec.events()
    last = _said(events[-1]) if events else ""
    if left.button("Undo", key="big-undo", icon=":material/undo:", width="stretch",
                   disabled=not events or rec.status == LOADED,
                   help=ui.md(f"Take back the last entry: {last}") if last
                   else "Nothing to undo"):
        _store(rec.recording_id, rec.seq, UNDO, None, f"Undone: {last}")
        st.rerun()  # the page drawn so far shows the entry taken back
    with mid.popover("Scores", icon=":material/table_chart:", width="stretch"):
        _sheet(result)
    if right.button("Games", key="big-home", icon=":material/list:", width="stretch",
                    help="All recordings, and a new game"):
        _leave()


def _said(ev: dict[str, Any]) -> str:
    t = ev.get("type")
    who = ev.get("player", "")
    if t == "play":
        return f"{who} played {ev.get('card')}" + (f" as {ev['as']}" if ev.get("as") else "")
    if t in ("take", "place", "draw", "shown"):
        verb = {"take": "takes", "place": "places", "draw": "draws", "shown": "shows"}[t]
        who = who or f"the {ev.get('from', '')}"
        return f"{who} {verb} {' '.join(map(str, ev.get('cards', [])))}"
    if t == "keep":
        return f"{who} keeps {' '.join(ev.get('colors', []))}"
    if t == "bid":
        return f"{who} bid {ev.get('bid')}"
    if "card" in ev and not who:  # a chance card, turned up for everybody
        return f"turned up {ev.get('card')}"
    if t == "deal":
        return "the cards are dealt"
    return str(t)


def _sheet(result: Replay) -> None:
    """The running score sheet: every finished round, the totals, the winners."""
    v = verdict(result)
    if not v["rounds"]:
        st.caption("No round finished yet.")
        return
    # the total first, so that a phone shows it however many rounds follow; a markdown table
    # sizes to its figures (a data grid in the narrow popover cut the total off at 390 px)
    done = v["rounds"]
    st.markdown("\n".join(
        ["| player | total | " + "".join(f"R{int(x['round']):d} | " for x in done),
         "|:--|--:|" + "".join("--:|" for _ in done)]
        + [f"| {ui.md(p)} | **{int(total):d}** | "
           + "".join(f"{int(x['scores'][p]):d} | " for x in done)
           for p, total in v["totals"].items()]))
    if v["winners"]:
        st.success(ui.md(("Winners: " if len(v["winners"]) > 1 else "Winner: ")
                         + ", ".join(v["winners"])))
    if v["error"]:
        st.caption(ui.md(f"Scored up to line {v['error']['line']}: {v['error']['message']}"))


# ----------------------------------------------------------------- taps


def _store(rid: str, seq: int, kind: str, event: dict[str, Any] | None, said: str) -> None:
    """Store one tap on the server, then say what it did (or why it was not taken)."""
    me = auth.visitor()
    if not me.may_write:
        st.session_state[MESSAGE] = ("error", "Recording needs a member's account.")
        return
    try:
        recordings.record_tap(rid, seq, kind, event, auth.describe(me))
    except TapConflict:
        st.session_state[MESSAGE] = ("warning", "The recording moved on meanwhile (another "
                                                "phone, or a second tap): here it is as it "
                                                "stands; enter the card again if it is not "
                                                "there.")
        return
    except RecordingError as e:
        st.session_state[MESSAGE] = ("error", str(e))
        return
    st.session_state.pop(SELECTED, None)
    st.session_state.pop(NAMING, None)
    if kind == UNDO or (event is not None and event.get("type") == "shown"):
        st.session_state.pop(SHOWING, None)
    st.session_state[MESSAGE] = ("info", said)


def _tap(ctx: _Ctx, event: dict[str, Any]) -> None:
    """A move tapped: tried on a copy of the state first; a rule it breaks that the table
    can see refuses it, with the reason. Taken, it is stored; a revoke it proves is said."""
    trial = ctx.state.clone()
    try:
        trial.apply(Event(ctx.line, event["type"], event))
    except (RuleError, FormatError) as e:
        st.session_state[MESSAGE] = ("error", f"Not taken: {e}")
        return
    said = _said(event)
    found = _revoke_now(trial)
    _store(ctx.rid, ctx.seq, EVENT, event, said)
    if found is not None and st.session_state.get(MESSAGE, ("",))[0] == "info":
        st.session_state[MESSAGE] = ("error", f"{said}: taken, and it proves a revoke — "
                                              f"line {found.line}: {found}")


# ----------------------------------------------------------------- what comes next


def _step(state: GameState, info: GameInfo, events: list[dict[str, Any]]
          ) -> Callable[[_Ctx], None]:
    live = state.live
    if live is not None and live.over:
        return _show_step
    if state.is_over():
        return _over_step
    chance = state.next_chance()
    if chance == "deal":
        return _deal_step
    if chance is not None:
        return _chance_step
    if st.session_state.get(SHOWING) is not None:
        return _early_end_step
    who = state.to_move()
    types = {m["type"] for m in state.legal_moves() if m.get("player") == who}
    if "bid" in types:
        return _bid_step
    for t in ("take", "keep", "place", "draw"):
        if t in types:
            return _several_step
    return _play_step


def _deal_step(ctx: _Ctx) -> None:
    st_ = ctx.state
    r = st_.round_no + 1
    dealer = st_.players[st_.dealer if st_.round_no == 0 else st_.left_of(st_.dealer)]
    _turn(f"Round {r}: {dealer} deals")
    event: dict[str, Any] = {"type": "deal"}
    if st_.leader_elected():
        left = st_.players[st_.left_of(st_.dealer)]
        leader = st.selectbox("Who leads the first trick? (the table elects one)",
                              st_.players, index=st_.players.index(left),
                              key=f"rec_leader_{ctx.rid}")
        if leader != left:
            event["leader"] = leader
    st.caption("Deal the cards as usual; nobody enters a hand. Tap when everybody has theirs.")
    if st.button("The cards are dealt", key="big-deal", type="primary", width="stretch",
                 icon=":material/playing_cards:"):
        _tap(ctx, event)
        st.rerun()


def _chance_step(ctx: _Ctx) -> None:
    """A card turned up from the pile (a game's chance event, such as a trump turned)."""
    chance = ctx.state.next_chance() or ""
    _turn(f"Turn up the {chance}: which card is it?")
    _card_picker(ctx, ctx.state.could_hold(), lambda c: {"type": chance, "card": c.name},
                 default=None)


def _turn(text: str, note: str = "") -> None:
    with st.container(key="record-turn"):
        st.subheader(ui.md(text), anchor=False)
        if note:
            st.caption(ui.md(note))


def _current_trick(ctx: _Ctx) -> list[dict[str, Any]]:
    """The plays of the trick being played: those after the round's last finished step."""
    st_ = ctx.state
    info = ctx.info
    last_line = 0
    for f in st_.facts:
        if type(f) in info.step_facts or type(f).__name__ == "RoundDealt":
            last_line = max(last_line, int(getattr(f, "line", 0)))
    return [ev for line, ev in enumerate(ctx.events, start=2)
            if line > last_line and ev.get("type") == "play"]


def _play_step(ctx: _Ctx) -> None:
    st_ = ctx.state
    who = st_.to_move()
    if who is None:
        st.info("Waiting for the next entry.")
        return
    trick = _current_trick(ctx)
    if trick:
        ui.chips_row(ctx.info.name, [(str(ev["player"]), str(ev["card"])) for ev in trick])
    _turn(f"{who} to play")
    pending = st.session_state.get(NAMING)
    if pending is not None:
        _naming(ctx, who, pending)
        return
    led = _led(ctx, trick)
    offered = st_.could_hold() if st_.live is not None else st_.hand(st_.seat[who])

    def event(c: Card) -> dict[str, Any] | None:
        if st_.names_for(c):  # the play names a value too: asked next
            st.session_state[NAMING] = c.name
            return None
        return {"type": "play", "player": who, "card": c.name}

    _card_picker(ctx, offered, event, default=led)
    why = st_.ends_if_shown()
    if why is not None:
        if st.button(ui.md(f"{who} cannot play"), key="big-early", width="stretch",
                     icon=":material/block:", help=ui.md(why)):
            st.session_state[SHOWING] = who
            st.rerun()
        st.caption(ui.md(f"If {why}: tap “{who} cannot play” and enter the cards {who} "
                         f"shows."))


def _led(ctx: _Ctx, trick: list[dict[str, Any]]) -> str | None:
    for ev in trick:
        try:
            c = ctx.info.cards.parse(str(ev["card"]))
        except FormatError:
            continue
        if c.color:
            return str(c.color)
    return None


def _naming(ctx: _Ctx, who: str, card: str) -> None:
    """A card whose play names a value (a colour it stands for): one button each."""
    st.markdown(f"**{ui.md(f'{who} plays the {card}: as which colour?')}**")
    values = ctx.state.names_for(ctx.info.cards.parse(card))
    cols = st.grid(3, min_column_width=90, key="naming-grid")
    for value in values:
        cols.button(ui.md(_colour_name(ctx.info, value)),
                    key=f"card-{_token(value)}-as-{value}-{ctx.seq}",
                    width="stretch", on_click=_tap,
                    args=(ctx, {"type": "play", "player": who, "card": card, "as": value}))
    if st.button(ui.md(f"Not the {card}"), key="big-nonaming"):
        st.session_state.pop(NAMING, None)
        st.rerun()


def _groups(cards: list[Card]) -> dict[str, list[Card]]:
    out: dict[str, list[Card]] = {}
    for c in cards:
        out.setdefault(str(c.color), []).append(c)
    return out


def _card_picker(ctx: _Ctx, cards: list[Card],
                 event: Callable[[Card], dict[str, Any] | None] | Callable[[Card], None],
                 default: str | None,
                 chosen: list[str] | None = None) -> None:
    """The cards to pick from, one colour at a time (the led colour first): a big button
    each, in its colour. A tap calls `event(card)` and stores the move it gives."""
    groups = _groups(cards)
    if not groups:
        st.caption("No card is left that could be played.")
        return
    names = list(groups)
    key = f"rec_group_{ctx.rid}_{ctx.seq}"
    start = default if default in groups else names[0]
    group = st.segmented_control(
        "Colour", names, default=start, key=key, required=True,
        format_func=lambda g: f"{ui.md(_colour_name(ctx.info, g))} ({len(groups[g])})")
    if group is None:
        group = start
    # long names (a card named by its features) get three columns and wrap at their words
    wide = any(len(_label(c)) > 4 for c in groups[group])
    grid = st.grid(3 if wide else 5, min_column_width=60, gap="small", key=f"grid-{ctx.seq}")
    for c in groups[group]:
        picked = chosen is not None and c.name in chosen
        grid.button(ui.md(_label(c)), key=f"{'chosen' if picked else 'card'}-{_token(str(c.color))}-"
                                   f"{c.index}-{ctx.seq}",
                    width="stretch", on_click=_picked, args=(ctx, event, c))


def _label(c: Card) -> str:
    """A card's name on its button (a name of words joined by hyphens wraps at them)."""
    return c.name.replace("-", " ") if c.name[:1].isalpha() else c.name


def _picked(ctx: _Ctx, event: Callable[[Card], Any], c: Card) -> None:
    ev = event(c)
    if isinstance(ev, dict):
        _tap(ctx, ev)


def _bid_step(ctx: _Ctx) -> None:
    st_ = ctx.state
    who = st_.to_move()
    assert who is not None
    live = st_.live
    most = live.dealt[st_.seat[who]] if live is not None else max(
        int(m["bid"]) for m in st_.legal_moves() if m["type"] == "bid")
    _turn(f"{who} bids")
    grid = st.grid(6, min_column_width=52, gap="small", key=f"bids-{ctx.seq}")
    for b in range(most + 1):
        grid.button(f"{b:d}", key=f"big-bid-{b}-{ctx.seq}", width="stretch", on_click=_tap,
                    args=(ctx, {"type": "bid", "player": who, "bid": b}))


def _several_step(ctx: _Ctx) -> None:
    """A move of several cards or colours: plotters' take and keep, color_stacks' place
    and draw. Each tap picks one; the move is stored when it has as many as it needs."""
    st_ = ctx.state
    who = st_.to_move()
    moves = [m for m in st_.legal_moves() if m.get("player") == who or m["type"] == "draw"]
    kind = moves[0]["type"]
    field = "colors" if kind == "keep" else "cards"
    need = len(moves[0][field])
    chosen: list[str] = list(st.session_state.get(SELECTED, {}).get(ctx.seq, []))
    words = {"take": f"{who} takes {need} cards of the trick",
             "keep": f"{who} keeps {need} colours",
             "place": f"{who} places {need} cards",
             "draw": f"Turn up the pile's top {need} cards (top first)"}[kind]
    trick = _current_trick(ctx)
    if trick and kind == "take":
        ui.chips_row(ctx.info.name, [(str(ev["player"]), str(ev["card"])) for ev in trick])
    _turn(words, f"{len(chosen)} of {need} picked" + (f": {' '.join(chosen)}" if chosen else ""))

    def pick(item: str) -> None:
        now = [*chosen, item] if item not in chosen else [x for x in chosen if x != item]
        if len(now) == need:
            event = {"type": kind, "player": who, field: now}
            _tap(ctx, event)
            return
        st.session_state[SELECTED] = {ctx.seq: now}

    def pick_card(c: Card) -> None:
        pick(c.name)

    if kind == "keep":
        colours = sorted({c for m in moves for c in m["colors"]})
        grid = st.grid(4, min_column_width=70, key=f"keep-{ctx.seq}")
        for col in colours:
            grid.button(ui.md(_colour_name(ctx.info, col)),
                        key=f"{'chosen' if col in chosen else 'card'}-{_token(col)}-keep-{col}-"
                            f"{ctx.seq}",
                        width="stretch", on_click=pick, args=(col,))
        return
    if kind == "take":
        offered = [ctx.info.cards.parse(c) for c in dict.fromkeys(
            c for m in moves for c in m["cards"])]
    else:
        offered = st_.could_hold() if st_.live is not None else [
            ctx.info.cards.parse(c) for c in dict.fromkeys(c for m in moves for c in m["cards"])]
    _card_picker(ctx, offered, pick_card, default=None, chosen=chosen)


PART = "from:"  # SHOWING holds a player's name, or this and a part of the deal (the pile)


def _early_end_step(ctx: _Ctx) -> None:
    who = str(st.session_state.get(SHOWING))
    _hand_picker(ctx, who, f"{who} cannot play: the cards {who} shows")
    if st.button(ui.md(f"{who} can play after all"), key="big-noearly"):
        st.session_state.pop(SHOWING, None)
        st.rerun()


def _hand_picker(ctx: _Ctx, who: str, title: str) -> None:
    """The cards a player (or a part of the deal, `from:pile`) shows, all of them: picked
    one by one, stored with the last."""
    st_ = ctx.state
    part = who[len(PART):] if who.startswith(PART) else None
    if part is not None:
        need = st_.parts_to_show().get(part, 0)
        event: dict[str, Any] = {"type": "shown", "from": part}
    else:
        need = st_.cards_left(st_.seat[who])
        event = {"type": "shown", "player": who}
    chosen: list[str] = list(st.session_state.get(SELECTED, {}).get(ctx.seq, []))
    _turn(title, f"{len(chosen)} of {need} picked" + (f": {' '.join(chosen)}" if chosen else
                                                       " (the last one stores them)"))

    def pick(c: Card) -> dict[str, Any] | None:
        # the last card stores them all, as a move of several cards does: no button to
        # confirm that turns tappable only once the page has drawn the last pick (a tap on
        # it while the page still drew was lost); a wrong one is undone
        now = [*chosen, c.name] if c.name not in chosen else [x for x in chosen if x != c.name]
        if len(now) == need:
            return {**event, "cards": now}
        st.session_state[SELECTED] = {ctx.seq: now}
        return None

    _card_picker(ctx, st_.could_hold(), pick, default=None, chosen=chosen)


def _show_step(ctx: _Ctx) -> None:
    """The round's last move is in: the cards still held may be shown (color_stacks: must,
    they score the round), then the next round is dealt."""
    st_ = ctx.state
    live = st_.live
    assert live is not None
    holding = [p for s, p in enumerate(st_.players)
               if st_.cards_left(s) and live.shown[s] is None]
    parts = st_.parts_to_show()
    needed = st_.why_unsettled()
    showing = st.session_state.get(SHOWING)
    if not holding and not parts and needed is None and st_.round_no >= st_.rounds_total:
        _over_step(ctx)  # the last round, every card known: nothing is left to enter
        return
    if showing in holding or str(showing).removeprefix(PART) in parts:
        title = (f"The cards {showing} holds" if showing in holding else
                 f"The cards of the {str(showing).removeprefix(PART)}")
        _hand_picker(ctx, str(showing), title)
        if st.button("Back", key="big-back"):
            st.session_state.pop(SHOWING, None)
            st.rerun()
        return
    _turn(f"Round {live.round} is over",
          "Each hand left must be shown: the cards left score the round." if needed else
          "Cards still held may be shown: the rules that need them are then checked too."
          if holding or parts else "Every card of the round is known.")
    grid = st.grid(2, min_column_width=150, key=f"show-{ctx.seq}")
    for p in holding:
        left = st_.cards_left(st_.seat[p])
        if grid.button(ui.md(f"Show {p}'s {left} cards"), key=f"big-show-{p}-{ctx.seq}",
                       width="stretch", icon=":material/visibility:"):
            st.session_state[SHOWING] = p
            st.rerun()
    for part, k in parts.items():
        if grid.button(ui.md(f"Show the {part}'s {k} card{'s' if k != 1 else ''}"),
                       key=f"big-part-{part}-{ctx.seq}", width="stretch",
                       icon=":material/visibility:"):
            st.session_state[SHOWING] = PART + part
            st.rerun()
    if needed:
        return
    if st_.round_no >= st_.rounds_total:
        st.caption("That was the last round: load the game below" + (
            " when the cards are shown." if holding or parts else "."))
        return
    if st.button(f"Next round ({st_.round_no + 1:d})", key="big-next", type="primary",
                 width="stretch", icon=":material/skip_next:"):
        _tap(ctx, {"type": "deal"})
        st.rerun()


def _over_step(ctx: _Ctx) -> None:
    _turn("The game is over", "Load it into the database so that it counts everywhere, or "
                              "download its log.")
    _sheet(ctx.result)


# ----------------------------------------------------------------- the round's verdict


def _round_so_far(state: GameState, info: GameInfo) -> None:
    """The round being played in the engine's words (the trump turned, the bids, each trick
    with its winners), newest first."""
    facts = state.facts
    start = max((i for i, f in enumerate(facts) if type(f).__name__ == "RoundDealt"),
                default=None)
    if start is None or state.live is None:
        return
    lines = render_facts(info, facts[start + 1:], state.players)
    if lines:
        with st.expander(f"Round {state.round_no:d} so far"):
            st.code("\n".join(lines), language=None, wrap_lines=True)


def _round_result(result: Replay, state: GameState, info: GameInfo) -> None:
    """The latest finished round as the engine scored it."""
    _round_so_far(state, info)
    v = verdict(result)
    if not v["rounds"]:
        return
    last = v["rounds"][-1]
    st_ = result.state
    assert st_ is not None
    scored = st_.rounds[-1]
    with st.expander(f"Round {int(last['round']):d}: scores", expanded=state.live is not None
                     and state.live.over or state.next_chance() == "deal" or state.is_over()):
        st.markdown("\n".join(f"- **{ui.md(p)} {scored.scores[s]:d}** · "
                              f"{ui.md(scored.derivations[s])}"
                              for s, p in enumerate(st_.players)))
        if "unknown" in last:
            st.caption(ui.md("Not known: " + "; ".join(last["unknown"])))


def _bottom(rec: Recording, log: bytes, name: str, me: auth.Visitor, is_loaded: bool,
            finished: bool) -> None:
    """Download and Load: right under the step once the game is over, else at the foot."""
    if not finished:
        st.divider()
    left, right = st.columns(2)
    left.download_button("Download the log", log, file_name=name, mime="application/jsonl",
                         key="rec_download", width="stretch", icon=":material/download:",
                         help="The plays-only log: `trickledger verify` checks it anywhere.")
    if is_loaded:
        return
    if right.button("Load into the database", key="rec_load", width="stretch",
                    type="primary" if finished else "secondary",
                    icon=":material/cloud_upload:",
                    disabled=not finished,
                    help="Loads the game like an upload (audited; once), so that it counts "
                         "everywhere; the recording is then closed." if finished else
                         "Once the game is over. Until then it stays here: open it again "
                         "from the list to go on."):
        summary = uploads.load([(name, log)], auth.describe(me), action="record")
        res = summary.results[0] if summary.results else None
        if res is None or res.sha256 is None:
            st.error("Not loaded: the database gave no answer for this log.")
            return
        if res.status in ("conflict", "quarantined", "refused", "unreadable"):
            st.error(ui.md(f"Not loaded ({res.status}): {res.message or ''}"))
            return
        recordings.record_loaded(rec.recording_id, rec.seq, res.sha256, res.game_id)
        st.session_state[MESSAGE] = ("success", f"Loaded as {res.status}: {name}")
        st.rerun()
    st.caption(ui.md(f"Another phone opens this game at ?rec={rec.recording_id} (this page's "
                     f"address): both enter, and see, the same game."))


ui.guarded(render)
