"""The docs say what the product does: their worked examples verify, their SQL is the
console's, and every file they point at is in the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from trickledger.replay.engine import exit_status, replay_bytes, verdict

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = (ROOT / "docs" / "examples.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"## (\w+) .*?\n\n```jsonl\n(.*?)```", EXAMPLES, re.S)


def test_there_is_one_worked_example_per_game():
    from trickledger.replay.registry import registry

    games = {g for g in registry() if not g.startswith("toy")}
    assert {game for game, _ in BLOCKS} == games


@pytest.mark.parametrize("game,text", BLOCKS, ids=[g for g, _ in BLOCKS])
def test_each_worked_example_is_a_complete_game_whose_claims_match(game, text):
    r = replay_bytes(text.encode(), f"{game}.jsonl")
    v = verdict(r)
    assert v["status"] == "complete" and v["game"] == game, v["error"]
    assert v["claims"] and all(c["match"] for c in v["claims"])
    assert exit_status(r) == 0
    # the comments are the engine's own words for the line above them
    rendered = "\n".join(r.render())
    for comment in re.findall(r"^#   (.+)$", text, re.M):
        assert comment.strip() in rendered, comment


def test_docs_sql_shows_exactly_the_consoles_examples():
    from trickledger.ingest.examples import examples
    from trickledger.replay.registry import registry, shipped

    doc = (ROOT / "docs" / "sql.md").read_text(encoding="utf-8")
    shown = [(q.strip(), sql.strip()) for q, sql in
             re.findall(r"### \d+\. (.*?)\n\n```sql\n(.*?)```", doc, re.S)]
    # trickledger's own games' (a plugin's questions are in its own docs)
    own = examples([g for g in registry().values() if shipped(g)])
    assert shown == [(q, sql.strip()) for q, sql in own]


def test_every_file_the_docs_point_at_exists():
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                ROOT / "sample_logs" / "README.md"]:
        text = doc.read_text(encoding="utf-8")
        prose = re.sub(r"`[^`\n]*`", "", text)  # a link inside code is not a link
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (doc.parent / target).exists(), f"{doc.name} points at {target}"
        for path in re.findall(r"`((?:docs|tests|replay|ingest|dashboard|bench|sample_logs)"
                               r"/[\w./-]+\.\w+)`", text):
            assert (ROOT / path).exists(), f"{doc.name} names {path}"
