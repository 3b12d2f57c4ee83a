"""The Record page on a phone, in headless Chromium against `trickledger dashboard` for real:
simulated games entered tap by tap as a table would (one whole game of each game), and
what a table does wrong — a reload in the middle of a trick, an undo across a trick's end,
two phones on one recording, a card that cannot be there, a player count the game does
not allow, a recording left half-way — each ending in the log that was entered.

Every wait is for what the page says (the number of entries it shows, a message), never a
sleep. The games are short (one round; rage one round of ten cards) so that the file stays
within a few minutes."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import POLL_MS, dashboard_server

from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.playsonly import plays_only
from trickledger.replay.registry import registry
from trickledger.replay.simulate import SimOptions, simulate_one

PATIENCE = 300_000
SHOTS = os.environ.get("TRICKLEDGER_SHOTS")  # a folder: screenshots of each game kept there
GROUP = {"B": "Blue", "G": "Green", "R": "Red", "Y": "Yellow", "P": "Purple", "O": "Orange",
         "K": "Black", "W": "White", "red": "Red", "green": "Green", "blue": "Blue",
         "": "Others"}


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, str]]:
    folder = tmp_path_factory.mktemp("record")
    db = str(folder / "record.duckdb")
    with dashboard_server(db, str(folder / "server.log"), no_samples=True) as url:
        yield url, db


class Phone:
    """One phone held upright at the table, on the Record page."""

    def __init__(self, browser: Any, url: str, width: int = 390) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": 844},
                                           is_mobile=width < 500, has_touch=width < 500)
        self.page = self.context.new_page()
        self.url = url

    def close(self) -> None:
        self.context.close()

    def says(self, words: str) -> None:
        """Wait until the page's main part says `words`."""
        from playwright.sync_api import TimeoutError as Timeout

        try:
            self.page.wait_for_function(
                "(w) => { const m = document.querySelector(\"[data-testid='stMain']\");"
                " return m !== null && m.innerText.replaceAll('\\u2060', '').includes(w); }",
                arg=words,
                timeout=PATIENCE, polling=POLL_MS)
        except Timeout:
            text = self.text()
            raise AssertionError(f"the page never said {words!r}; it says:\n{text}") from None

    def settled(self) -> None:
        """Wait until the page's script has finished its run (a tap made while it still
        draws could land on a widget of the run before)."""
        self.page.wait_for_function(
            "() => { const a = document.querySelector(\"[data-testid='stApp']\");"
            " return a !== null && a.getAttribute('data-test-script-state') === 'notRunning'; }",
            timeout=PATIENCE, polling=POLL_MS)

    def text(self) -> str:
        """The page's main part as it reads: without the invisible word joiners that ui.md
        puts before a '.' or ':' of a text from data (so that it is never made a link)."""
        return str(self.page.locator("[data-testid='stMain']").inner_text()).replace("\u2060", "")

    def entries(self) -> int:
        m = re.search(r"· (\d+) entr(?:y|ies)", self.text())
        assert m, self.text()
        return int(m.group(1))

    def button(self, name: str) -> Any:
        return self.page.get_by_role("button", name=name, exact=True)

    def tap(self, name: str) -> None:
        self.settled()  # a tap while the page still draws may land on a button being redrawn
        self.button(name).first.click(timeout=PATIENCE)

    def open(self, path: str) -> None:
        self.page.goto(f"{self.url}/{path}", wait_until="domcontentloaded")
        self.says("Record a game")

    def start(self, game: str, players: list[str], dealer: str | None = None,
              variants: tuple[str, ...] = (), rounds: int | None = None,
              suits: list[str] | None = None, edition: str | None = None) -> str:
        """Set up a new game on the page; the recording's id."""
        page = self.page
        main = page.get_by_test_id("stMain")
        self.open("record")
        self.says("New game")
        main.get_by_test_id("stSelectbox").first.click()
        page.get_by_role("option", name=registry()[game].title, exact=True).click()
        self.says(f"{registry()[game].title}: ")
        field = page.get_by_role("textbox", name="Players in seat order, clockwise")
        field.fill(", ".join(players))
        field.press("Enter")
        self.says("First dealer")
        if dealer is not None and dealer != players[-1]:
            main.get_by_test_id("stSelectbox").nth(1).click()
            page.get_by_role("option", name=dealer, exact=True).click()
        for v in variants:
            main.get_by_role("combobox", name="Variants").click()
            page.get_by_role("option", name=v.replace("_", " "), exact=True).click()
            page.keyboard.press("Escape")
            self.says(v.replace("_", " "))
        if edition is not None:
            main.get_by_test_id("stSelectbox").nth(2).click()
            page.get_by_role("option", name=edition.replace("-", " "), exact=True).click()
        if suits is not None:
            # the defaults cleared at once, then each suit picked once the page has drawn
            # the change (a chip's Remove tapped one by one opened the list instead, and the
            # suits asked for were added to the defaults)
            self.settled()
            box = main.get_by_test_id("stMultiSelect").last
            box.locator("[aria-label='Clear all']").click()
            for s in suits:
                self.settled()
                box.locator("input").first.click()
                page.get_by_role("option", name=s, exact=True).click()
            page.keyboard.press("Escape")
            self.settled()
        if rounds is not None:
            box = page.get_by_role("spinbutton", name="Rounds")
            box.fill(str(rounds))
            box.press("Enter")
        self.says("Start recording")
        self.tap("Start recording")
        self.says("· 0 entries")
        m = re.search(r"rec=([0-9a-f]+)", page.url)
        assert m, page.url
        return m.group(1)

    def pick(self, card: str, info: Any) -> None:
        """Tap a card: its colour first when another colour is showing."""
        self.settled()  # a card tapped while the page still draws may land on an old button
        label = card.replace("-", " ") if card[:1].isalpha() else card
        button = self.page.get_by_role("button", name=label, exact=True)
        if not button.first.is_visible():
            colour = GROUP[str(info.cards.parse(card).color)]
            self.page.get_by_role("radio", name=re.compile(rf"^{colour} \(\d+\)$")).click()
            button.first.wait_for(state="visible", timeout=PATIENCE)
            self.settled()
        button.first.click(timeout=PATIENCE)

    def enter(self, ev: dict[str, Any], info: Any) -> None:
        """Enter one event of a plays-only log as a table would, and wait until it is in."""
        self.settled()
        before = self.entries()
        t = ev["type"]
        if t == "deal":
            self.tap("The cards are dealt")
        elif t in ("trump", "play"):
            self.pick(ev["card"], info)
            if "as" in ev:
                self.says("as which colour?")
                self.tap(GROUP[ev["as"]])
        elif t == "bid":
            self.tap(str(ev["bid"]))
        elif t in ("take", "place", "draw"):
            for k, c in enumerate(ev["cards"]):
                self.pick(c, info)
                if k + 1 < len(ev["cards"]):
                    self.says(f"{k + 1} of {len(ev['cards'])} picked")
        elif t == "keep":
            self.tap(GROUP[ev["colors"][0]])
            self.says("1 of 2 picked")
            self.tap(GROUP[ev["colors"][1]])
        elif t == "shown":
            n = len(ev["cards"])
            whose = f"{ev['player']}'s" if "player" in ev else f"the {ev['from']}'s"
            label = f"Show {whose} {n} card{'s' if n != 1 else ''}"
            if "player" in ev and self.button(f"{ev['player']} cannot play").count():
                self.tap(f"{ev['player']} cannot play")
            else:
                self.tap(label)
            self.says(f"0 of {n} picked")
            for k, c in enumerate(ev["cards"]):
                self.pick(c, info)
                if k + 1 < n:  # the last card stores them all
                    self.says(f"{k + 1} of {n} picked")
        else:
            raise AssertionError(f"the page does not enter {t} events")
        self.says(f"· {before + 1} entr")

    def shot(self, name: str) -> None:
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            self.page.wait_for_function(
                "() => document.querySelector(\"[data-testid='stApp']\")"
                ".getAttribute('data-test-script-state') === 'notRunning'", timeout=PATIENCE, polling=POLL_MS)
            self.page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def _events(data: bytes) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = [orjson.loads(x) for x in data.splitlines()]
    return lines[0], lines[1:]


def _short_game(game: str, players: int, rounds: int, seeds: int = 12, **extra: Any
                ) -> tuple[bytes, dict[str, Any], list[dict[str, Any]]]:
    """The simulated game with the fewest events among a few seeds, and its plays-only
    log's header and events (the cards never played shown after each round)."""
    best = None
    for i in range(seeds):
        opts = SimOptions(game=game, games=seeds, players=(players, players), seed=34,
                          rounds=rounds, bots=("greedy", "random"), **extra)
        data = simulate_one(opts, i)[1]
        head, events = _events(plays_only(data))
        if best is None or len(events) < len(best[2]):
            best = (data, head, events)
    assert best is not None
    return best


def _recorded(db: str, rid: str) -> bytes:
    from trickledger.ingest.recordings import read_recording

    return read_recording(db, rid).log()


def _same_verdict(entered: bytes, simulated: bytes) -> None:
    keys = ("status", "error", "rounds", "totals", "winners")
    a, b = verdict(replay_bytes(entered, "entered")), verdict(replay_bytes(simulated, "sim"))
    assert {k: a[k] for k in keys} == {k: b[k] for k in keys}


@pytest.mark.parametrize("game,players,rounds,extra", [
    pytest.param("color_stacks", 2, 1, {}, marks=pytest.mark.long(1.5)),
    pytest.param("rage", 3, 1, {"variants": ("marching_through",)}, marks=pytest.mark.long(1.5)),
    pytest.param("under_the_radar", 3, 1, {}, marks=pytest.mark.long(2.5)),
    pytest.param("plotters", 4, 1, {}, marks=pytest.mark.long(3)),
])
def test_a_whole_game_entered_on_a_phone(server, browser, game, players, rounds, extra) -> None:
    url, db = server
    info = registry()[game]
    full, head, events = _short_game(game, players, rounds, **extra)
    phone = Phone(browser, url)
    try:
        rid = phone.start(game, head["players"], dealer=head.get("dealer"),
                          variants=tuple(head.get("variants", ())), rounds=rounds,
                          suits=head.get("suits"))
        for i, ev in enumerate(events):
            phone.enter(ev, info)
            if i == 3:
                phone.shot(f"{game}-early")
        phone.shot(f"{game}-end")
        # the game's end says so, with the standings (before: color_stacks said "Round 1 is
        # over", and no game showed its winner but in the Scores popover)
        phone.says("The game is over")
        won = verdict(replay_bytes(full, "sim"))["winners"]
        phone.says(("Winners: " if len(won) > 1 else "Winner: ") + ", ".join(won))
        # the log as the page's download gives it is the one stored, and the one entered
        with phone.page.expect_download(timeout=PATIENCE) as got:
            phone.tap("Download the log")
        entered = Path(got.value.path()).read_bytes()
        assert entered == _recorded(db, rid)
        assert _events(entered)[1] == events
        _same_verdict(entered, full)
        _same_verdict(entered, plays_only(full))
        assert verdict(replay_bytes(entered, "e"))["status"] == "complete"
        phone.says("Load into the database")
        phone.tap("Load into the database")
        phone.says("the recording is closed")
        from helpers import rows

        assert rows(db, "SELECT status FROM games WHERE game_id = ?", [f"rec-{rid}"]) == [
            ("complete",)]
        assert rows(db, "SELECT count(*) FROM audit_log WHERE action = 'record' AND "
                        "game_id = ?", [f"rec-{rid}"]) == [(1,)]
    finally:
        phone.close()


@pytest.mark.long(0.75)
def test_a_reload_mid_trick_and_a_second_phone_continue_the_same_recording(server, browser
                                                                          ) -> None:
    """A reload in the middle of a trick, a second phone joining at ?rec=ID, an undo
    across a trick's end: the log stored is the one entered, tap for tap."""
    url, db = server
    info = registry()["rage"]
    _full, head, events = _short_game("rage", 3, 1)
    one = Phone(browser, url)
    two = Phone(browser, url)
    try:
        rid = one.start("rage", head["players"], dealer=head.get("dealer"), rounds=1)
        plays = [i for i, ev in enumerate(events) if ev["type"] == "play"]
        mid = plays[1]  # the second card of the first trick
        for ev in events[:mid + 1]:
            one.enter(ev, info)
        one.page.reload(wait_until="domcontentloaded")
        one.says(f"· {mid + 1} entr")
        two.page.goto(f"{url}/record?rec={rid}", wait_until="domcontentloaded")
        two.says(f"· {mid + 1} entr")
        end = plays[3]  # the first card of the second trick, entered on phone two
        for ev in events[mid + 1:end + 1]:
            two.enter(ev, info)
        one.says(f"· {end + 1} entr")  # phone one shows phone two's taps by itself
        one.tap("Undo")  # takes back the second trick's first card, across the trick's end
        one.says(f"· {end + 2} entr")
        one.tap("Undo")
        one.says(f"· {end + 3} entr")
        for ev in events[end - 1:end + 3]:
            one.enter(ev, info)
        assert _events(_recorded(db, rid))[1] == events[:end + 3]
    finally:
        one.close()
        two.close()
