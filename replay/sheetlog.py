"""A move log's score sheet: the round-end facts of a replayed game, written as the sheet the
table would have kept (docs/format.md, "Score sheets").

Each finished round becomes one `sheet` line, built by the game's sheet from that round's
facts (`SheetState.line_of`); a claimed round score that follows its round is written into
that line's `scores`, and every other claim is copied as a `claim` line. The sheet keeps
the move log's header and game id (it is the same game: loading both, the second is an id
conflict, never a second game), and `meta.sheet_of` names the move log's SHA-256. So a
move log and its sheet must verify to the same scores, totals, winners and claims.
`trickledger simulate --sheets` writes one beside every simulated log; `trickledger
sheet-of LOG` writes the sheet of any move log.
"""

from __future__ import annotations

from typing import Any

from .engine import Replay
from .events import SHEET_EVENT
from .facts import ClaimChecked, Fact, RoundDealt, RoundScored
from .sheet import sheet_class
from .writer import dump_lines


class NoSheet(ValueError):
    """The log has no score sheet: unreadable, already a sheet, or a game without one."""


def sheet_lines(r: Replay) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header and the lines of the score sheet of the replayed move log `r`: one sheet
    line per finished round, with the log's claims (NoSheet when there is none)."""
    st, h = r.state, r.header
    if st is None or h is None:
        raise NoSheet(f"{r.file} is unreadable: {r.error.message if r.error else ''}")
    if st.is_sheet:
        raise NoSheet(f"{r.file} is a score sheet already")
    sheet = sheet_class(st.info)
    if sheet is None:
        raise NoSheet(f"{h.game} has no score sheet")
    players = st.players
    header = dict(h.raw)
    header["id"] = h.id
    header["meta"] = {**h.meta, "sheet_of": r.sha256}
    lines: list[dict[str, Any]] = []
    facts: list[Fact] = []
    last: dict[str, Any] | None = None  # the sheet line a round claim may still join
    claim: tuple[int, dict[str, Any]] | None = None  # the claim line being copied, by line
    for f in st.facts:
        if isinstance(f, RoundDealt):
            facts, last = [f], None
        elif isinstance(f, RoundScored):
            facts.append(f)
            last = {"type": SHEET_EVENT, "round": f.round, **sheet.line_of(facts, f, players)}
            lines.append(last)
            facts = []
        elif isinstance(f, ClaimChecked):
            name = players[f.player]
            if last is not None and f.round == last["round"] and \
                    name not in last.get("scores", {}):
                last.setdefault("scores", {})[name] = f.claimed
                continue
            last = None
            if claim is None or claim[0] != f.line:
                ev: dict[str, Any] = {"type": "claim"}
                if f.round is not None:
                    ev.update({"round": f.round, "scores": {}})
                else:
                    ev["totals"] = {}
                claim = (f.line, ev)
                lines.append(ev)
            claim[1]["scores" if f.round is not None else "totals"][name] = f.claimed
        else:
            facts.append(f)
    return header, lines


def sheet_of(r: Replay) -> bytes:
    """The score sheet of the replayed move log `r`, as a log's bytes (NoSheet)."""
    header, lines = sheet_lines(r)
    return dump_lines(header, lines)
