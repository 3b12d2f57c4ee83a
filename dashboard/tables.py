"""Tables and links a person reads: headers in words, no `None`, names that open pages.

Every analytics page shows its tables through `show()`: it keeps and orders the columns
it is given, labels them in words, shows a missing value as a dash, and turns player
names into links to the player page (`/player?player=<name>`), so a name on any page
opens that player's page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import pandas as pd
import streamlit as st

PLAYER_PAGE = "views/player.py"
MISSING = "—"
DECIMALS = 2  # a column of fractions without digits of its own


def player_url(name: str) -> str:
    """A link to a player's page; the text after `#` is what the table shows."""
    return f"player?player={quote(str(name), safe='')}#{name}"


def viewer_url(game_id: str, round_no: int | None = None, trick: int | None = None,
               text: str | None = None) -> str:
    """A link to the game viewer at a game (and round, trick); `text` is what a table shows."""
    url = f"viewer?game={quote(str(game_id), safe='')}"
    if round_no is not None:
        url += f"&round={int(round_no)}"
    if trick is not None:
        url += f"&trick={int(trick)}"
    return f"{url}#{text or game_id}"


def show(df: pd.DataFrame, columns: Mapping[str, str], *, players: tuple[str, ...] = (),
         percent: tuple[str, ...] = (), decimals: Mapping[str, int] | None = None,
         games: tuple[str, ...] = (), links: tuple[str, ...] = (),
         dates: tuple[str, ...] = ("played_on", "last_played"), height: int | None = None,
         key: str | None = None) -> None:
    """`df` as a table of `columns` (column -> header in words, in this order). Columns in
    `players` link to the player page, in `games` to the game viewer, and `links` hold
    ready links (`viewer_url`); `percent` columns
    hold shares (0-1) shown as percentages; `decimals` fixes the digits shown (other
    fractions get DECIMALS, the same in every row; counts get thousands separators);
    `dates` show a missing date as "undated" (a game's date is never the day it was
    loaded)."""
    frame = df[[c for c in columns if c in df.columns]].copy()
    config: dict[str, Any] = {}
    for c in frame.columns:
        label = columns[c]
        if c in players:
            frame[c] = [player_url(v) if isinstance(v, str) else None for v in frame[c]]
            config[c] = st.column_config.LinkColumn(label, display_text=r"#(.*)$")
        elif c in games:
            frame[c] = [viewer_url(v) if isinstance(v, str) else None for v in frame[c]]
            config[c] = st.column_config.LinkColumn(label, display_text=r"#(.*)$")
        elif c in links:  # already `viewer_url`s
            config[c] = st.column_config.LinkColumn(label, display_text=r"#(.*)$")
        elif c in dates:
            frame[c] = [str(v)[:10] if v is not None and not pd.isna(v) else "undated"
                        for v in frame[c]]
            config[c] = st.column_config.Column(label)
        elif c in percent:
            frame[c] = frame[c] * 100
            config[c] = st.column_config.NumberColumn(label, format="%.1f%%")
        elif decimals and c in decimals:
            # rounded first, and + 0.0 turns -0.0 into 0.0: no "-0.00" for a tiny negative
            frame[c] = pd.to_numeric(frame[c], errors="coerce").round(decimals[c]) + 0.0
            config[c] = st.column_config.NumberColumn(label, format=f"%,.{decimals[c]}f")
        elif pd.api.types.is_integer_dtype(frame[c].dtype):
            config[c] = st.column_config.NumberColumn(label, format="%,d")  # 35,409
        elif pd.api.types.is_float_dtype(frame[c].dtype):
            # one number of decimals per column (no 1.2 beside 1.57): whole numbers as such,
            # the rest with DECIMALS
            values = pd.to_numeric(frame[c], errors="coerce")
            whole = bool((values.dropna() % 1 == 0).all())
            places = 0 if whole else DECIMALS
            frame[c] = values.round(places) + 0.0
            config[c] = st.column_config.NumberColumn(
                label, format="%,d" if whole else f"%,.{places}f")
        else:
            config[c] = st.column_config.Column(label)
    kwargs: dict[str, Any] = {}
    if height is not None:
        kwargs["height"] = height
    st.dataframe(frame, hide_index=True, width="stretch", column_config=config,
                 placeholder=MISSING, key=key, **kwargs)


def player_link(name: str, label: str | None = None) -> None:
    """A link to a player's page (in this tab: the sidebar filter is kept)."""
    from streamlit.errors import StreamlitPageNotFoundError

    from .ui import md

    try:
        st.page_link(PLAYER_PAGE, label=md(label or name), icon=":material/person:",
                     query_params={"player": str(name)})
    except StreamlitPageNotFoundError:  # a page run on its own (no navigation): a plain link
        st.markdown(f"[{md(label or name)}](player?player={quote(str(name), safe='')})")


def words(column: str) -> str:
    """A column name as words, for charts' axes: `second_share` -> 'second share'."""
    return column.replace("_", " ")
