"""The example plugin game (examples/toy_high_card, imported from the checkout and registered
for each test as its entry point registers it) loaded into a database: its games and its
own table stored, shown in the game viewer, and benchmarked, without touching any file of
trickledger. Its rules and score sheet are tests/rules/test_toy_game.py's."""

from __future__ import annotations

import pytest
import toy_high_card
from helpers import DASHBOARD, dashboard_database, toy_games
from streamlit.testing.v1 import AppTest

from trickledger.ingest.db import reading
from trickledger.ingest.load import Source, ingest

VIEWER = DASHBOARD / "views" / "viewer.py"

pytestmark = pytest.mark.usefixtures("toy_game")  # registered for each test (conftest.py)


def test_ingested_and_shown_in_the_viewer(tmp_path):
    db = str(tmp_path / "toy.duckdb")
    games = toy_games(3)
    summary = ingest([Source(name, data=data) for name, data in games], db, jobs=1)
    assert summary.loaded == 3 and summary.complete == 3
    with reading(db) as con:
        counts = con.execute("""SELECT count(DISTINCT g.game_id), count(t.trick)
                                FROM games g JOIN tricks t USING (game_id)
                                WHERE g.game = ?""", [toy_high_card.NAME]).fetchone()
        gid, winner = con.execute("""SELECT game_id, winner FROM tricks
                                     WHERE round = 1 AND trick = 1 ORDER BY game_id
                                     LIMIT 1""").fetchone()
    assert counts[0] == 3 and counts[1] >= 3 * 2 * 3
    with dashboard_database(db):
        at = AppTest.from_file(str(VIEWER), default_timeout=60)
        at.query_params["game"] = gid
        at.run()
        assert not at.exception, at.exception
        assert any("Round 1, trick 1" in m.value for m in at.markdown)
        engine = "\n".join(c.value for c in at.code)
        assert "Trick 1 (line" in engine and f"; {winner} wins" in engine
        assert any("Toy high card" in c.value for c in at.caption)


def test_benchmarked(tmp_path):
    from bench.run import build_corpus, floor_and_replay, games

    assert toy_high_card.NAME in games()
    corpus = build_corpus(tmp_path, per_game=2)
    result = floor_and_replay({toy_high_card.NAME: corpus[toy_high_card.NAME]})
    toy = result[toy_high_card.NAME]
    assert toy["games"] == 2 and toy["events"] > 0 and toy["replay_events_per_s"] > 0


def test_its_boasts_are_stored_in_its_own_table(tmp_path):
    """The `boast` events of simulated games land in the toy's `toy_boasts` table, line by
    line."""
    games = toy_games(12)
    boasts = [(name, i) for name, data in games
              for i, line in enumerate(data.splitlines(), 1) if b'"boast"' in line]
    assert boasts, "no simulated game boasted"
    db = str(tmp_path / "toy.duckdb")
    summary = ingest([Source(name, data=data) for name, data in games], db, jobs=1)
    assert summary.loaded == len(games)
    with reading(db) as con:
        stored = con.execute("SELECT g.file_name, b.line FROM toy_boasts b "
                             "JOIN games g USING (game_id) ORDER BY 1, 2").fetchall()
    assert stored == sorted(boasts)


def test_its_table_is_added_to_an_existing_database(tmp_path):
    import duckdb

    from trickledger.ingest import schema

    db = str(tmp_path / "old.duckdb")
    con = duckdb.connect(db)
    try:
        schema.create(con)
        con.execute("DROP TABLE toy_boasts")  # as a database made before the toy existed
        schema.create(con)
        cols = con.execute("SELECT column_name FROM information_schema.columns "
                           "WHERE table_name = 'toy_boasts' ORDER BY ordinal_position").fetchall()
    finally:
        con.close()
    assert [c for (c,) in cols] == ["game_id", "round", "player", "line"]
