"""Names are only text (dashboard/ui.py): every player is renamed to carry markdown, an
image, KaTeX and HTML, and every place the pages show a name is read back: metric values,
chart titles and legend titles, page-link labels, console errors that quote data."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from helpers import DASHBOARD, dashboard_database
from helpers import run_page as run
from streamlit.testing.v1 import AppTest

from trickledger.ingest.load import Source, expand, ingest

ROOT = Path(__file__).resolve().parents[2]
PAGES = DASHBOARD / "views"
SAMPLES = ROOT / "sample_logs"
EVIL = "![i](//e.x/i.png)$x^2$<b>"  # an image, KaTeX and HTML, before each name


def renamed(raw: bytes) -> bytes:
    """The log with each player's name given EVIL as a prefix (everywhere it appears)."""
    head = orjson.loads(raw.splitlines()[0])
    for name in head["players"]:
        raw = raw.replace(orjson.dumps(name), orjson.dumps(EVIL + name))
    return raw


@pytest.fixture(scope="module")
def evil_db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("evil-logs")
    for game in ("plotters", "rage"):
        for log in sorted((SAMPLES / game).glob("*.jsonl")):
            (folder / log.name).write_bytes(renamed(log.read_bytes()))
    path = str(tmp_path_factory.mktemp("evil") / "evil.duckdb")
    ingest(expand([str(folder)])[0], path, jobs=1)
    with dashboard_database(path):
        yield path


def seen(markdown: str) -> str:
    """What a reader sees of escaped markdown (backslashes and word joiners go)."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def live(markdown: str) -> bool:
    """Whether markdown text still holds markup that would render (a link or image, KaTeX,
    HTML) rather than show as typed."""
    return "](" in markdown or "![" in markdown or "$x^2$" in markdown or "<b>" in markdown


@pytest.mark.parametrize("name", ["ratings", "results", "bidding", "splits"])
def test_player_names_are_text_in_metric_values(evil_db, name):
    at = run(name)
    shown = [str(v) for m in at.metric for v in (m.label, m.value, m.proto.delta)]
    assert any(EVIL in seen(v) for v in shown), shown  # a player's name is among them
    assert not [v for v in shown if live(v)]


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def test_names_are_text_in_chart_titles_and_legend_titles(evil_db):
    player = next(p for p in orjson.loads((SAMPLES / "plotters" / "plotters-6p.jsonl")
                                          .read_bytes().splitlines()[0])["players"])
    at = run("head_to_head", player=EVIL + player)
    texts = [s for chart in at.get("plotly_chart")
             for s in _strings(json.loads(chart.proto.spec))]
    assert any("&lt;b&gt;" in t for t in texts), texts  # the name is there, as text
    assert not [t for t in texts if "<b>" in t]


def test_file_names_are_text_in_page_link_labels(evil_db):
    raw = (SAMPLES / "plotters" / "plotters-6p.jsonl").read_bytes()
    lines = raw.splitlines()
    head = orjson.loads(lines[0])
    head["id"] = "names-are-text-upload"
    illegal = b"\n".join([orjson.dumps(head)] + lines[1:]).replace(b'"type":"take"',
                                                                   b'"type":"tak"', 1)
    at = AppTest.from_file(str(DASHBOARD / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("views/upload.py").run()  # in the app: links are page links
    at.file_uploader(key="upload_files").set_value([
        ("[x](//e.x)$x^2$<b>.jsonl", illegal + b"\n", "application/octet-stream")]).run()
    at.button(key="load").click().run()
    assert not at.exception
    labels = [link.proto.label for link in at.get("page_link")]
    assert any("Open the illegal move of" in label for label in labels), labels
    assert not [label for label in labels if "](" in label or "$x^2$" in label or
                "<b>" in label]


def test_console_errors_quoting_data_are_text(evil_db):
    from trickledger.dashboard.data import console

    at = AppTest.from_file(str(PAGES / "sql.py"), default_timeout=120)
    at.session_state["sql_text"] = "SELECT CAST('![i](//e.x/i.png)$x^2$' AS INTEGER)"
    try:
        at.run()
        assert not at.exception
        errors = [e.value for e in at.error]
        assert any("![i](//e.x/i.png)$x^2$" in seen(e) for e in errors), errors  # DuckDB quotes the text
        assert not [e for e in errors if live(e)]
    finally:
        console.server_console.clear()


def _texts(at) -> list[str]:
    """Every text an AppTest run shows as markdown."""
    found = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title",
                 "header", "subheader"):
        found += [str(e.value) for e in getattr(at, kind)]
    return found + [str(v) for m in at.metric for v in (m.label, m.value, m.proto.delta)]


def test_the_decisions_pages_top_player_is_text(tmp_path):
    """Issue 35: the Decisions page gave its top player to st.metric as it was, so a
    player named with a markdown image showed another site's picture to every visitor."""
    from helpers import dashboard_database

    from trickledger import main
    from trickledger.ingest.load import Source
    from trickledger.replay.simulate import SimOptions, simulate_one

    opts = SimOptions(game="rage", games=1, players=(3, 3), seed=1, bots=("greedy", "greedy"),
                      id_prefix="evil", rounds=4)  # 4 rounds: 30+ decisions each
    db = str(tmp_path / "judged.duckdb")
    ingest([Source("evil.jsonl", data=renamed(simulate_one(opts, 0)[1]))], db, jobs=1)
    assert main(["analyse", "--moves", "--db", db, "--samples", "2", "--jobs", "1"]) == 0
    with dashboard_database(db):
        at = run("decisions")
    metrics = [str(v) for m in at.metric for v in (m.label, m.value)]
    assert any(EVIL in seen(v) for v in metrics), metrics  # the top player is there ...
    assert not [t for t in _texts(at) if live(t)]  # ... as text, as is everything else


def test_an_illegal_cards_name_is_text_on_the_verify_page():
    """Issue 35: the Verify page's illegal-move line put the card a pasted log played into a
    caption unescaped, so a card written as a markdown image showed another site's picture
    to an anonymous visitor."""
    raw = (SAMPLES / "plotters" / "plotters-4p-early-end.jsonl").read_bytes()
    lines = raw.splitlines()
    first_play = next(i for i, ln in enumerate(lines) if b'"type":"play"' in ln)
    event = orjson.loads(lines[first_play])
    lines[first_play] = orjson.dumps({**event, "card": "![c](//e.x/c.png)"})
    at = AppTest.from_file(str(PAGES / "verify.py"), default_timeout=120)
    at.run()
    at.text_area(key="verify_text").set_value(b"\n".join(lines).decode()).run()
    assert not at.exception
    texts = _texts(at)
    assert any("![c](//e.x/c.png)" in seen(t) and "not in the hand" in t for t in texts), texts
    assert not [t for t in texts if live(t)], [t for t in texts if live(t)]


def test_a_player_whose_name_looks_like_anothers_is_pointed_out(tmp_path):
    """`Ann` and `Аnn` (a Cyrillic А) in two games are two players to the database and one
    to the eye: the Player page of either says so, naming the letter."""
    from helpers import dashboard_database, visible

    raw = (SAMPLES / "rage" / "rage-5p-hidden-bid.jsonl").read_bytes()
    head = orjson.loads(raw.splitlines()[0])
    first, twin = "Ann", "\u0410nn"
    sample = raw.replace(orjson.dumps(head["players"][0]), orjson.dumps(first))
    other = sample.replace(orjson.dumps(first), orjson.dumps(twin)).replace(
        orjson.dumps(head["id"]), orjson.dumps(head["id"] + "-twin"))
    db = str(tmp_path / "twins.duckdb")
    ingest([Source("a.jsonl", data=sample), Source("b.jsonl", data=other)], db, jobs=1)
    with dashboard_database(db):
        at = run("player", player=first)
    warned = [visible(w.value) for w in at.warning]
    assert any(twin in w and "CYRILLIC CAPITAL LETTER A" in w for w in warned), warned
    with dashboard_database(db):
        at = run("player", player=head["players"][1])
    assert not any("looks like" in visible(w.value) for w in at.warning)
