"""The dashboard paints a card by its colour as the game's card table says it."""

from __future__ import annotations

import pytest

from trickledger.dashboard import ui
from trickledger.replay.registry import registry


@pytest.mark.parametrize("game", sorted(registry()))
def test_every_card_is_painted_as_its_game_declares_its_colour(game: str) -> None:
    # a colour the game declares no paint for is grey, as no colour is
    info = registry()[game]
    painted = 0
    for card in info.cards:
        want = info.colors.get(card.color, ui.NO_COLOR_CSS)
        painted += want != ui.NO_COLOR_CSS
        assert f"background:{want};" in ui.chip(game, card.name), (game, card.name)
    assert painted, f"{game} paints none of its cards"


def test_a_card_written_in_another_case_keeps_its_colour() -> None:
    # logs may spell cards in any case: the table's lookup is case-insensitive
    assert "background:#d63a3a;" in ui.chip("color_stacks", "r5")
    assert "background:#2e9d4a;" in ui.chip("under_the_radar", "FILLED-GREEN-SQUARE")


def test_a_name_the_game_lacks_is_grey_not_an_error() -> None:
    # an illegal move may name a card of another game: it is shown, in no colour
    assert ui.card_color("plotters", "JOKER") == ""
    assert ui.card_color("no_such_game", "R1") == ""
    assert f"background:{ui.NO_COLOR_CSS};" in ui.chip("plotters", "JOKER")
