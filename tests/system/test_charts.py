"""Charts a player reads: whole-number axes get whole ticks (issue 27)."""

from __future__ import annotations

import pandas as pd
import plotly.express as px

from trickledger.dashboard.ui import _integer_axes


def test_an_axis_of_whole_numbers_gets_whole_ticks_only():
    fig = px.bar(pd.DataFrame({"round": [1, 2, 3], "games": [1, 3, 2]}), x="round", y="games")
    _integer_axes(fig)
    assert fig.layout.xaxis.dtick == 1 and fig.layout.xaxis.tickformat == ",d"
    assert fig.layout.yaxis.dtick == 1


def test_an_axis_of_shares_keeps_its_fractions():
    fig = px.bar(pd.DataFrame({"seat": ["1", "2"], "share": [0.25, 0.5]}), x="seat", y="share")
    _integer_axes(fig)
    assert fig.layout.yaxis.dtick is None and fig.layout.yaxis.tickformat is None
    assert fig.layout.xaxis.dtick is None  # categories: plotly's own ticks
