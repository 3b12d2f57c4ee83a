"""The example plugin game (examples/toy_high_card, imported here from the checkout and
registered for each test as its entry point registers it) is simulated, verified and
checked from its score sheet without touching any file of trickledger. Loading it, its
table, the viewer and the benchmark are tests/system/test_toy_game_stored.py's; the system
test tests/system/test_plugin_game.py installs it as a user would."""

from __future__ import annotations

import orjson
import pytest
import toy_high_card
from helpers import toy_games

from trickledger import main

pytestmark = pytest.mark.usefixtures("toy_game")  # registered for each test (conftest.py)


def test_simulated_and_verified(tmp_path, capsys):
    games = toy_games(6)
    paths = []
    for name, data in games:
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    code = main(["verify", "--json", *paths])
    verdicts = orjson.loads(capsys.readouterr().out)
    assert [v["status"] for v in verdicts] == ["complete"] * 6
    assert all(v["game"] == toy_high_card.NAME and v["winners"] for v in verdicts)
    wrong = [c for v in verdicts for c in v["claims"] if not c["match"]]
    assert wrong and code == 1  # the injected wrong claims are caught


def test_its_own_event_and_score_sheet():
    """The toy adds the `boast` event and a score sheet from its one module: simulated,
    replayed and checked from its sheet (tests/system/test_toy_game_stored.py stores its
    `toy_boasts`)."""
    from trickledger.replay.engine import replay_bytes, verdict
    from trickledger.replay.sheetlog import sheet_of

    games = toy_games(12)
    boasts = [(name, i) for name, data in games
              for i, line in enumerate(data.splitlines(), 1) if b'"boast"' in line]
    assert boasts, "no simulated game boasted"
    for name, data in games:
        r = replay_bytes(data, name)
        assert r.status == "complete", r.error
        sheet = replay_bytes(sheet_of(r), name + ".sheet")
        assert sheet.status == "complete", sheet.error
        assert verdict(sheet)["totals"] == verdict(r)["totals"]
        assert sheet.render()[0].startswith("== Round 1 (score sheet, line 2)")


def test_its_card_class_subclasses_the_engines_card():
    from trickledger.replay.cards import Card

    card = toy_high_card.CARDS["A1"]
    assert type(card) is toy_high_card.ToyCard and isinstance(card, Card)


