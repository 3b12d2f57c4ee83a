"""Shared page furniture: the sidebar filter, card chips, tables, busy handling."""

from __future__ import annotations

import html
import logging
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from trickledger.replay.errors import FormatError
from trickledger.replay.registry import lookup_game

from .data.access import Busy, WriteFailed
from .data.analyses import ensure_summaries
from .data.filters import DEFAULT_STATUSES, NO_VARIANT, STATUS_LABELS, STATUSES, Filters, options

if TYPE_CHECKING:
    from trickledger.replay.registry import GameInfo

_log = logging.getLogger("trickledger.dashboard")

# A chip's background is the game's paint for the card's colour as its card table gives it
# (`Card.color`, painted by `GameInfo.colors`).
NO_COLOR_CSS = "#555555"  # a card without a colour (action cards, shapes) or not of the game


def _title_of(name: str) -> str:
    """A game's title from the registry (its name when the registry does not know it)."""
    info = lookup_game(name)
    return info.title if info is not None else name


def page(title: str) -> None:
    # icons belong to the navigation (st.Page); titles stay plain text
    st.title(md(title))


@st.cache_resource
def engine() -> str:
    """Which replay engine this server runs, e.g. 'compiled with mypyc'; said once in the
    server's log with where it was imported from (a checkout's replay/ shadowing the
    installed package shows there)."""
    import sys
    from importlib.metadata import PackageNotFoundError, version

    from trickledger import replay

    build = replay.engine_build()
    words = {"compiled": "compiled with mypyc"}.get(build, build)
    try:
        v = version("trickledger")
    except PackageNotFoundError:
        v = "unknown"
    print(f"trickledger {v} dashboard: engine {words} (replay imported from "
          f"{Path(replay.__file__).parent})", file=sys.stderr, flush=True)
    return words


FILTERS_KEY = "filters"
BOUNDS_KEY = "filter_date_bounds"  # the first and last date played, as the filter offered


# The sidebar filter in the URL, so a reload or a shared link shows the same games:
# widget key -> query parameter (named apart from the pages' own: game, player, round...)
URL_PARAMS = {"f_statuses": "counted", "f_games": "games", "f_counts": "table",
              "f_variants": "variants", "f_editions": "editions", "f_players": "players"}


def _from_url(key: str, allowed: list[Any], default: list[Any]) -> None:
    """Start the widget `key` at the URL's choice (values it does not know are dropped),
    else at `default`; once per session: afterwards the widget holds the choice."""
    if key in st.session_state:
        return
    by_text = {str(v): v for v in allowed}
    given = [by_text[v] for v in st.query_params.get_all(URL_PARAMS[key]) if v in by_text]
    st.session_state[key] = given if URL_PARAMS[key] in st.query_params else list(default)


def _dates_from_url(lo: Any, hi: Any) -> None:
    if "f_dates" in st.session_state:
        return
    import datetime as dt

    picked = [lo, hi]
    for i, param in enumerate(("from", "to")):
        try:
            day = dt.date.fromisoformat(st.query_params.get(param, ""))
        except ValueError:
            continue
        picked[i] = min(max(day, lo), hi)
    st.session_state["f_dates"] = (picked[0], min(max(picked[1], picked[0]), hi))


def _to_url(chosen: Filters, lo: Any, hi: Any) -> None:
    """Write the choice into the URL, leaving out what is the default."""
    values: dict[str, list[str]] = {
        "counted": [] if set(chosen.statuses) == set(DEFAULT_STATUSES)
        else list(chosen.statuses) or [""],
        "games": list(chosen.games), "table": [str(c) for c in chosen.player_counts],
        "variants": list(chosen.variants), "editions": list(chosen.editions),
        "players": list(chosen.players),
        "from": [chosen.date_from.isoformat()] if chosen.date_from and chosen.date_from != lo
        else [],
        "to": [chosen.date_to.isoformat()] if chosen.date_to and chosen.date_to != hi else [],
        "undated": [] if chosen.undated else ["no"]}
    for param, wanted in values.items():
        if st.query_params.get_all(param) != wanted:
            if wanted:
                st.query_params[param] = wanted
            elif param in st.query_params:
                del st.query_params[param]


def sidebar_filters() -> Filters:
    """The filter every page honours: which games count (status), game, table size,
    variants, edition, players, date. Drawn once by the app frame (dashboard/app.py);
    the choice is kept in session state for the pages and in the URL (a reload or a shared
    link keeps it)."""
    try:
        opts = options()
    except Busy as e:
        busy(e)
        return filters()
    sb = st.sidebar
    sb.header("Filter")
    _from_url("f_statuses", list(STATUSES), list(DEFAULT_STATUSES))
    statuses = sb.multiselect(
        "Games counted", list(STATUSES),
        format_func=lambda s: STATUS_LABELS[s], key="f_statuses",
        help="Each game is exactly one of these. Complete: every round played, every move "
             "legal. Disputed: complete, but the score sheet disagrees with the replay (the "
             "replay's scores are the ones counted). Incomplete: the log stops before the "
             "end. Illegal: a move breaks a rule (its facts up to that move). Statistics "
             "count complete and disputed games unless you choose otherwise.")
    _from_url("f_games", opts["games"], [])
    games = sb.multiselect("Game", opts["games"], key="f_games", format_func=_game_title)
    _from_url("f_counts", opts["counts"], [])
    counts = sb.multiselect("Players at the table", opts["counts"], key="f_counts")
    variants: list[str] = []
    if opts["variants"]:
        _from_url("f_variants", [*opts["variants"], NO_VARIANT], [])
        variants = sb.multiselect(
            "Variants", [*opts["variants"], NO_VARIANT], key="f_variants",
            format_func=lambda v: v.replace("_", " ") if v else "no variant",
            help="Keeps the games played with any of the chosen variants, among the games "
                 "those variants belong to; other games are not affected. 'no variant' keeps "
                 "the games played without any.")
    editions: list[str] = []
    if opts["editions"]:
        _from_url("f_editions", opts["editions"], [])
        editions = sb.multiselect("Edition", opts["editions"], key="f_editions",
                                  format_func=lambda e: e.replace("-", " "))
    _from_url("f_players", opts["players"], [])
    players = sb.multiselect("Players", opts["players"], key="f_players")
    lo, hi = opts["lo"], opts["hi"]
    date_from = date_to = None
    if lo is not None and hi is not None:
        _dates_from_url(lo, hi)
        picked = sb.date_input("Played between", min_value=lo, max_value=hi, key="f_dates")
        if isinstance(picked, tuple) and len(picked) == 2:
            date_from, date_to = picked
    undated = True
    if opts["undated"]:
        if "f_undated" not in st.session_state:
            st.session_state["f_undated"] = st.query_params.get("undated") != "no"
        undated = sb.checkbox(f"Include {count(opts['undated'], 'undated game')}",
                              key="f_undated",
                              help="Games whose log gives no date are shown as undated; "
                                   "the dates above do not apply to them.")
    chosen = Filters(tuple(games), tuple(int(c) for c in counts), tuple(players),
                          date_from, date_to, tuple(statuses), tuple(variants),
                          tuple(editions), bool(undated), tuple(opts["known_variants"]))
    st.session_state[FILTERS_KEY] = chosen
    st.session_state[BOUNDS_KEY] = (lo, hi)
    _to_url(chosen, lo, hi)
    return chosen


FILTER_WIDGETS = (*URL_PARAMS, "f_dates", "f_undated")


def keep_filters() -> None:
    """On a page that uses no filter (Verify, Upload, Score sheet, SQL, Admin): no sidebar
    filter is drawn, and the choice made on the other pages is kept for them — Streamlit
    forgets a widget's value on a run that does not draw it unless it is set again, and the
    address keeps the choice, so a reload or the next page shows the same games."""
    for key in FILTER_WIDGETS:
        if key in st.session_state:
            st.session_state[key] = st.session_state[key]
    chosen = st.session_state.get(FILTERS_KEY)
    if isinstance(chosen, Filters):
        lo, hi = st.session_state.get(BOUNDS_KEY, (None, None))
        _to_url(chosen, lo, hi)


def _game_title(name: str) -> str:
    info = lookup_game(name)
    return f"{info.title} ({name})" if info is not None else name


def filters() -> Filters:
    """The sidebar's current choice (no filter when a page runs on its own). Every page
    that counts games asks for it first: the per-game summaries its figures read are made
    here for games that lack them (a killed ingest's), or the page says which are not in."""
    try:
        note = ensure_summaries()
    except WriteFailed as e:
        note = f"Some games are not in these figures yet ({e})."
    if note:
        st.info(md(note))
    chosen = st.session_state.get(FILTERS_KEY)
    return chosen if isinstance(chosen, Filters) else Filters()


def busy(e: Exception) -> None:
    st.warning(f"The database is busy — another process is loading logs into it. "
               f"Retrying shortly; reload the page in a moment. ({md(e)})")


def guarded(render: Callable[[], Any]) -> None:
    """Run a page body: a locked database becomes a clear message, and a bug of ours one
    line on the page (its details go to the server's log, never to the visitor)."""
    from streamlit.runtime.scriptrunner import RerunException, StopException

    try:
        render()
    except Busy as e:
        busy(e)
    except WriteFailed as e:
        st.error(md(f"That could not be done: {e}"))
    except (RerunException, StopException):
        raise  # Streamlit's own control flow
    except Exception as e:
        _log.exception("page failed")
        st.error(f"Something went wrong on this page ({md(type(e).__name__)}); it has been logged "
                 f"on the server. Reload, or try another page.")


# Every ASCII punctuation character may be backslash-escaped in CommonMark; escaping all of
# them defuses markdown, raw HTML, KaTeX ($...$), Streamlit's :color[...] and :material/...:.
_MD_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")
# Autolinks (www.x.y, http://x, mailto:x, a@b.c) are linked even when escaped: an invisible
# word joiner (U+2060) where one would start stops them — before the . of www., the : of
# a scheme (://, mailto:, xmpp:) and every @ — and nowhere else, so that an ordinary name
# or message ("pasted.jsonl", "line 3: ...") is copied without a hidden character. A file
# name is better shown with `code`, which inserts nothing at all.
_AUTOLINK_BREAK = re.compile(r"(?i)(?<=www)(\\\.)|(\\:)(?=\\/\\/)|(?<=mailto)(\\:)"
                             r"|(?<=xmpp)(\\:)|(\\@)")


def md(text: object) -> str:
    """A name, file name or message made literal for any Streamlit text that renders
    markdown (st.markdown, st.error, st.caption, metric labels and values, tab and button
    labels...): punctuation is backslash-escaped once, line breaks become spaces. Use it
    there and only there: widgets' options and dataframe cells show text as it is, and
    HTML we build (st.html) uses `text_html`."""
    flat = " ".join(str(text).split())
    return _AUTOLINK_BREAK.sub(lambda m: "\u2060" + m.group(0), _MD_PUNCT.sub(r"\\\1", flat))


def code(text: object) -> str:
    """A file name (or other name a visitor may copy) for any Streamlit text that renders
    markdown, as an inline code span: shown exactly as it is, in a code font, never a link
    (autolinks skip code), with nothing inserted, so that a copied name is the name (`md`
    breaks autolinks with an invisible character). Line breaks become spaces."""
    flat = " ".join(str(text).split())
    ticks = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (ticks + 1)
    # a span that starts or ends with a backtick (or is blank) is padded with one space on
    # each side, which CommonMark takes off again
    pad = " " if not flat.strip() or flat[:1] == "`" or flat[-1:] == "`" else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def plot_text(text: object) -> str:
    """Text made literal for plotly (trace names, tick labels, hover): plotly reads a subset
    of HTML, so <, > and & are escaped."""
    return html.escape(str(text), quote=False)


_LITERAL = ("x", "y", "z", "text", "hovertext", "labels", "customdata", "ids", "name",
            "legendgroup")


def _literal(value: Any) -> Any:
    if isinstance(value, str):
        return plot_text(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_literal(v) for v in value)
    if hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "OUS":  # numpy
        return [_literal(v) for v in value.tolist()]
    return value


# plotly's own markup in the hover templates plotly express writes: kept, the rest escaped
_TEMPLATE_MARKUP = re.compile(r"(<br>|<extra>|</extra>|%\{[^}]*\})")


def _literal_template(template: str) -> str:
    return "".join(part if _TEMPLATE_MARKUP.fullmatch(part) else plot_text(part)
                   for part in _TEMPLATE_MARKUP.split(template))


def _literal_titles(fig: Any) -> None:
    """The figure's titles made literal: the chart's, the legend's (plotly express names
    it after a label, which may hold a player's name), the axes', the colour bar's and
    every annotation (facet titles carry values)."""
    def title(obj: Any) -> None:
        text = getattr(getattr(obj, "title", None), "text", None)
        if isinstance(text, str):
            obj.title.text = plot_text(text)

    title(fig.layout)
    title(fig.layout.legend)
    fig.for_each_xaxis(title)
    fig.for_each_yaxis(title)
    coloraxis = getattr(fig.layout, "coloraxis", None)
    if coloraxis is not None and coloraxis.colorbar is not None:
        title(coloraxis.colorbar)
    for note in fig.layout.annotations or ():
        if isinstance(note.text, str):
            note.text = plot_text(note.text)


def chart(where: Any, fig: Any, **kw: Any) -> Any:
    """`where.plotly_chart(fig)`, with every text the figure carries (categories, names,
    hover values and templates, titles and legend titles) made literal: a player's name is
    never read as plotly's HTML."""
    for trace in fig.data:
        # `in` first: reading a property a trace type lacks raises an error that plotly
        # words with a "did you mean" search over every property name, several
        # milliseconds each
        for attr in _LITERAL:
            if attr not in trace:
                continue
            value = trace[attr]
            if value is None:
                continue
            made = _literal(value)
            if made is not value:  # numbers stay: setting them again re-validates them
                trace[attr] = made
        for attr in ("hovertemplate", "texttemplate"):
            if attr not in trace:
                continue
            template = trace[attr]
            if isinstance(template, str):
                trace[attr] = _literal_template(template)
    # the chart's title as the page's own words above it: plotly cuts a title that is
    # wider than the chart (a phone), and draws it over a legend placed above the plot
    title = fig.layout.title.text
    if isinstance(title, str) and title:
        where.markdown(f"**{md(title)}**")
        fig.update_layout(title_text=None, margin={"t": 30})
    _literal_titles(fig)
    _integer_axes(fig)
    _every_category(fig)
    # a reference line's words stay readable where they cross a bar
    fig.update_annotations(bgcolor="rgba(255,255,255,0.85)")
    # the legend above the plot, across: beside it, it takes half a phone's width
    fig.update_layout(legend={"orientation": "h", "yanchor": "bottom", "y": 1.02,
                              "xanchor": "left", "x": 0})
    return where.plotly_chart(fig, **kw)


MANY_CATEGORIES = 8  # more names than this along an axis are written upright, every one


def _every_category(fig: Any) -> None:
    """An axis of names (players, opponents) names every one: plotly leaves out every other
    name when they do not fit side by side (30 players on a phone), so beyond a few they
    are written upright, small, each under its bar."""
    names: dict[str, None] = {}
    for trace in fig.data:
        if trace.type not in ("bar", "scatter", "box", "histogram"):
            return
        got = getattr(trace, "x", None)
        if got is None or getattr(trace, "orientation", None) == "h":
            continue
        values = got.tolist() if hasattr(got, "tolist") else list(got)
        if not values or not all(isinstance(v, str) for v in values):
            return  # numbers and dates place their own ticks
        names.update(dict.fromkeys(values))
    if len(names) > MANY_CATEGORIES:
        fig.update_xaxes(tickmode="linear", dtick=1, tickangle=-90, tickfont={"size": 10},
                         automargin=True)


def _whole(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and float(value).is_integer())


def _integer_axes(fig: Any) -> None:
    """An axis whose every value is a whole number (a round, a trick, a count) gets whole
    ticks only: no 'round 0.5' or 'trick 13.6'."""
    for axis in ("x", "y"):
        values: list[Any] = []
        for trace in fig.data:
            if trace.type not in ("bar", "scatter", "histogram"):
                return  # heatmaps place their own ticks
            if trace.type == "histogram" and getattr(trace, axis) is None:
                continue  # the counted axis of a histogram: counts are whole
            got = getattr(trace, axis)
            if got is not None:
                values.extend(got.tolist() if hasattr(got, "tolist") else list(got))
        if not values or not all(_whole(v) for v in values):
            continue
        span = max(values) - min(values)
        update = fig.update_xaxes if axis == "x" else fig.update_yaxes
        update(tickformat=",d", **({"dtick": 1} if span <= 20 else {}))


def game_choice(games: list[str], key: str) -> str:
    """Which game a per-game page shows: a row of buttons that wraps on a phone (tabs cut
    long titles off there: "Plotters, Inc. / Mit List und Tücke", "U..."), and only the
    chosen game's part of the page is drawn."""
    if len(games) == 1:
        return games[0]
    if st.session_state.get(key) not in games:
        st.session_state[key] = games[0]
    # a title is markdown on the button (a plugin's title is data): literal, as in tabs
    chosen = st.segmented_control("Game", games, format_func=lambda g: md(_title_of(g)),
                                  required=True, key=key, wrap=True)
    return str(chosen if chosen in games else games[0])


def metric(where: Any, label: object, value: object, delta: object = None,
           **kw: Any) -> Any:
    """`where.metric(...)` with its label, value and delta made literal (Streamlit renders
    all three as markdown, and a value is often a player's name)."""
    return where.metric(md(label), md(value), None if delta is None else md(delta), **kw)


def minimum(label: str, most: int, key: str, default: int = 5, where: Any = None) -> int:
    """A leaderboard's minimum-count control: 1 to `most`, `default` (5, the docs' rule) at
    first. Any filter works: with nobody above one (zero or one game) there is nothing to
    choose, so no slider (Streamlit refuses one whose ends meet), and a minimum kept from a
    wider filter is lowered to fit the narrower one."""
    where = st if where is None else where
    if most <= 1:
        where.caption(f"{md(label)}: 1 (nobody has more than one under this filter)")
        return 1
    if key in st.session_state:
        # set before the slider is drawn: Streamlit refuses a kept value beyond the new end
        st.session_state[key] = max(1, min(int(st.session_state[key]), most))
        return int(where.slider(md(label), 1, most, key=key))
    return int(where.slider(md(label), 1, most, min(default, most), key=key))


plain = md


def count(n: int, noun: str, plural: str | None = None) -> str:
    """'1 claim', '2 claims'."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def text_html(text: object) -> str:
    """Text for the inside of an HTML element we build (st.html: no markdown there)."""
    return html.escape(str(text), quote=False)


def chip_color(game: str, card: str) -> str:
    """The CSS colour of the chip of the card written `card` in `game`: the game's paint for
    the card's colour (`GameInfo.colors`), else grey."""
    info = lookup_game(game)
    paint = info.colors.get(card_color(game, card)) if info is not None else None
    return paint or NO_COLOR_CSS


def paint_card_buttons(game: str, prefix: str = "card") -> None:
    """Paint each button keyed `{prefix}-{colour}-...` in the game's paint for that card
    colour (`GameInfo.colors`), and `{prefix}-none-...` (a card without a colour) grey, with
    white text; hover and focus keep the colour: on a phone the button under the finger after
    a tap would otherwise look pale, like one that cannot be tapped."""
    info = lookup_game(game)
    paints = {**(info.colors if info is not None else {}), "none": NO_COLOR_CSS}
    rules = []
    for color, css in paints.items():
        at = f'[class*="st-key-{prefix}-{color}-"] button'
        rules.append(f"{at}, {at}:hover, {at}:focus:not(:active) {{ background: {css}; "
                     f"color: #fff; border-color: {css}; }}")
    st.html("<style>" + "\n".join(rules) + "</style>")


def card_color(game: str, card: str) -> str:
    """The colour of the card written `card` in `game`, asked of the game's card table; ""
    for a card without one, and for a name the game lacks (an illegal move may write any)."""
    info = lookup_game(game)
    if info is None:
        return ""
    try:
        return str(info.cards.parse(card).color)
    except FormatError:
        return ""


def chip(game: str, card: str, note: str = "") -> str:
    """A card of `game` as a chip in its colour (HTML; every text escaped)."""
    color = chip_color(game, card)
    label = text_html(card) + (f" <small>{text_html(note)}</small>" if note else "")
    return (f'<span style="display:inline-block;padding:2px 8px;margin:2px;border-radius:6px;'
            f'background:{color};color:white;font-weight:600">{label}</span>')


def viewer_link(params: dict[str, str], label: str) -> None:
    """A link that opens the game viewer at a game (and round, trick) in this session."""
    from streamlit.errors import StreamlitPageNotFoundError

    try:
        st.page_link("views/viewer.py", label=md(label), icon=":material/search:",
                     query_params=params)
    except StreamlitPageNotFoundError:  # the page runs on its own (tests): a plain link
        st.markdown(f"[{md(label)}](viewer?{urlencode(params)})")


def file_name(name: str) -> str:
    """A file as the dashboard shows it: its name, never a server's folders."""
    return Path(name.replace("\\", "/")).name or name


def hand_row(game: str, hand: tuple[str, ...], legal: tuple[str, ...] | None = None,
             played: tuple[str, ...] = ()) -> None:
    """A hand of `game` as chips; with `legal`, the cards that could not legally be played are faded
    and the played card is outlined."""
    if not hand:
        st.caption("no cards")
        return
    parts = []
    to_outline = list(played)  # one chip per card played: a hand may hold copies (CHANGE x3)
    any_faded = False
    for c in hand:
        faded = legal is not None and c not in legal
        any_faded = any_faded or faded
        chip_html = chip(game, c)
        style = "opacity:0.35;" if faded else ""
        if c in to_outline:
            to_outline.remove(c)
            style += "outline:3px solid #111;outline-offset:1px;border-radius:6px;"
        parts.append(f'<span style="display:inline-block;{style}">{chip_html}</span>')
    st.html("<div>" + "".join(parts) + "</div>")
    if legal is not None:
        # played, yet not in the hand: that was the broken rule (a card's name is the
        # log's text: an illegal move may write anything)
        st.caption(("Faded: not legal to play at that moment." if any_faded
                    else "Every card in this hand was legal to play at that moment.")
                   + (f" {md(' '.join(to_outline))}: not in the hand." if to_outline else ""))


def chips_row(game: str, items: list[tuple[str, str]]) -> None:
    """Player: card pairs of `game` as a row of chips."""
    parts = [f'<div style="display:inline-block;margin-right:10px;text-align:center">'
             f'<div style="font-size:0.8em">{text_html(p)}</div>{chip(game, c)}</div>'
             for p, c in items]
    if parts:
        st.html("<div>" + "".join(parts) + "</div>")


def empty(df: pd.DataFrame, what: str) -> bool:
    if df.empty:
        st.info(f"No {md(what)} for this filter yet.")
        return True
    return False


def suits_in_play(info: GameInfo, players: int, key: str) -> list[str] | None:
    """The suits a game that names them in its header (`suits`: color_stacks) plays with at
    this many players, picked on a setup form (the deck's first ones by default); None for
    a game that names none, or a table size it does not allow."""
    import random

    if not info.min_players <= players <= info.max_players:
        return None
    setup = info.state_class.random_setup(random.Random(0), players)
    if "suits" not in setup:
        return None
    letters = list(dict.fromkeys(c.color for c in info.cards if c.color))
    k = len(setup["suits"])
    return list(st.multiselect(f"Suits in play ({k:d})", letters, default=letters[:k],
                               key=f"{key}_{k}"))


def thinned_note(history: pd.DataFrame) -> None:
    """Under a rating history thinned by `data.standings.thinned` (its `of` column: each
    line's games), say what its lines show when one was thinned."""
    from .data.standings import HISTORY_POINTS

    longest = int(history["of"].max()) if len(history) else 0
    if longest <= HISTORY_POINTS:
        return
    step = -(-longest // HISTORY_POINTS)
    st.caption(md(f"A line of more than {HISTORY_POINTS:,} games shows the rating after "
                  f"every k-th game and after the last one: every {ordinal(step)} for the "
                  f"longest here ({longest:,} games)."))


def ordinal(k: int) -> str:
    """2 -> "2nd", 11 -> "11th", 23 -> "23rd"."""
    tail = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k:,}{tail}"


def counted_histogram(frame: pd.DataFrame, x: str, counts: str, **kw: Any) -> Any:
    """`px.histogram` of `x` drawn from how often each value came (`counts`), not from one
    row per occurrence: the same bars from a few hundred numbers where a club's history
    has 100,000. Its axis and hover say the count's label (`labels[counts]`), not "sum of"."""
    import plotly.express as px

    fig = px.histogram(frame, x=x, y=counts, histfunc="sum", **kw)
    word = kw.get("labels", {}).get(counts, counts)
    for trace in fig.data:
        if isinstance(trace.hovertemplate, str):
            trace.hovertemplate = trace.hovertemplate.replace(f"sum of {word}", word)
    fig.update_layout(yaxis_title=word)
    return fig
