"""The rendering (replay/render.py, compiled): each fact through its game's renderer or the
core's, in the facts' order; a claim's line says what the sheet said and what the replay
computed. Imported here by name, so the compiled run (tests/build/test_engines.py) collects
a test of the module itself."""

from __future__ import annotations

from trickledger.replay.engine import replay_path
from trickledger.replay.facts import ClaimChecked
from trickledger.replay.render import claim_text, render
from trickledger.sample_logs import SAMPLES


def test_a_log_renders_fact_by_fact_in_order() -> None:
    path = sorted(SAMPLES.glob("rage/*.jsonl"))[0]
    r = replay_path(str(path))
    st = r.state
    assert st is not None and st.facts
    whole = render(st.info, st.facts, st.players)
    # fact by fact, the pieces make the whole, in order
    pieces = [line for f in st.facts for line in render(st.info, [f], st.players)]
    assert whole == pieces and whole == r.render()
    assert any(str(st.rounds[0].round) in line for line in whole)


def test_a_claims_line_names_the_player_and_both_numbers() -> None:
    for path in sorted(SAMPLES.rglob("*.jsonl")):
        r = replay_path(str(path))
        bad = r.mismatched_claims()
        if r.state is None or not bad:
            continue
        c = bad[0]
        assert isinstance(c, ClaimChecked)
        text = claim_text(c, r.state.players)
        assert r.state.players[c.player] in text and str(c.claimed) in text, text
        return
    raise AssertionError("no sample has a claim that does not match")
