"""The example plugin game (examples/toy_high_card, imported here from the checkout and
registered for each test as its entry point registers it; the system test
tests/system/test_plugin_game.py installs it as a user would) is verified, simulated,
ingested, shown in the viewer and benchmarked without touching any file of trickledger."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import toy_high_card
from helpers import dashboard_database
from streamlit.testing.v1 import AppTest

from trickledger import main
from trickledger.ingest.db import reading
from trickledger.ingest.load import Source, ingest
from trickledger.replay.simulate import SimOptions, simulate_one

VIEWER = Path(__file__).resolve().parents[2] / "dashboard" / "views" / "viewer.py"


@pytest.fixture(autouse=True)
def _registered(toy_game):
    return toy_game


def simulated(k: int) -> list[tuple[str, bytes]]:
    opts = SimOptions(game=toy_high_card.NAME, games=k, players=(2, 4), bots=("greedy", "random"),
                      claims=True, wrong_claims=0.2, seed=4)
    return [simulate_one(opts, i)[:2] for i in range(k)]


def test_simulated_and_verified(tmp_path, capsys):
    games = simulated(6)
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


def test_ingested_and_shown_in_the_viewer(tmp_path):
    db = str(tmp_path / "toy.duckdb")
    games = simulated(3)
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


def test_its_own_event_table_and_score_sheet(tmp_path):
    """The toy adds the `boast` event, the `toy_boasts` table and a score sheet from its
    one module: simulated, replayed, stored and checked from its sheet."""
    from trickledger.replay.engine import replay_bytes, verdict
    from trickledger.replay.sheetlog import sheet_of

    games = simulated(12)
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
    db = str(tmp_path / "toy.duckdb")
    summary = ingest([Source(name, data=data) for name, data in games], db, jobs=1)
    assert summary.loaded == len(games)
    with reading(db) as con:
        stored = con.execute("SELECT g.file_name, b.line FROM toy_boasts b "
                             "JOIN games g USING (game_id) ORDER BY 1, 2").fetchall()
    assert stored == sorted(boasts)


def test_its_card_class_subclasses_the_engines_card():
    from trickledger.replay.cards import Card

    card = toy_high_card.CARDS["A1"]
    assert type(card) is toy_high_card.ToyCard and isinstance(card, Card)


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
