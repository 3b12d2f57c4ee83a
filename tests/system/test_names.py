"""Names are only text (dashboard/ui.py): every player is renamed to carry markdown, an
image, KaTeX and HTML, and every place the pages show a name is read back: metric values,
chart titles and legend titles, page-link labels, console errors that quote data."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from helpers import dashboard_database
from helpers import run_page as run
from streamlit.testing.v1 import AppTest

from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "dashboard" / "views"
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
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
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
    from trickledger.dashboard import data

    at = AppTest.from_file(str(PAGES / "sql.py"), default_timeout=120)
    at.session_state["sql_text"] = "SELECT CAST('![i](//e.x/i.png)$x^2$' AS INTEGER)"
    try:
        at.run()
        assert not at.exception
        errors = [e.value for e in at.error]
        assert any("![i](//e.x/i.png)$x^2$" in seen(e) for e in errors), errors  # DuckDB quotes the text
        assert not [e for e in errors if live(e)]
    finally:
        data._console.clear()
