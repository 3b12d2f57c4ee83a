"""The per-game summaries the statistics read (ingest.summaries, docs/schema.md "Per-game
summaries") stay in step with the facts: after a load, after a run killed before it made
them (the dashboard makes them), after a quarantine, after an import. A real database of
the sample logs throughout."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from conftest import copy_of
from helpers import DASHBOARD, dashboard_database
from streamlit.testing.v1 import AppTest

from trickledger.ingest import summaries
from trickledger.ingest.admin import Actor, remove
from trickledger.ingest.analytics import SUMMARISED
from trickledger.ingest.analytics import summaries as summary_names
from trickledger.ingest.load import expand, ingest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"
GAME = "plotters-4p-early-end-s2-000000"


def stale_rows(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, int, int]]:
    """Per summary whose stored rows differ from its macro over every game now: (rows
    stored, rows only stored, rows only computed)."""
    out = {}
    for name in summary_names():
        stored = con.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
        only_stored, only_computed = (con.execute(
            f"SELECT count(*) FROM (SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b})"
        ).fetchone()[0] for a, b in ((name, f"{name}_by_game(all_ids())"),
                                      (f"{name}_by_game(all_ids())", name)))
        if only_stored or only_computed:
            out[name] = (stored, only_stored, only_computed)
    return out


@pytest.fixture(scope="module")
def game_samples_built(tmp_path_factory) -> Path:
    """The hand-written samples of the four games (sample_logs/GAME) ingested once for the
    module."""
    path = tmp_path_factory.mktemp("summaries") / "s.duckdb"
    sources, _ = expand([str(SAMPLES / g) for g in ("plotters", "rage", "color_stacks",
                                                    "under_the_radar")])
    ingest(sources, str(path), jobs=1)
    return path


@pytest.fixture()
def game_samples_db(game_samples_built, tmp_path) -> str:
    """A copy of `game_samples_built` of this test's own (tests delete summaries, quarantine,
    import)."""
    return copy_of(game_samples_built, tmp_path)


def test_a_load_leaves_every_summary_equal_to_its_facts(game_samples_db):
    with duckdb.connect(game_samples_db, read_only=True) as con:
        assert summaries.behind(con) == 0
        assert stale_rows(con) == {}
        for name in summary_names():  # not equal because empty
            assert con.execute(f"SELECT count(*) FROM {name}").fetchone()[0] > 0, name
        n = con.execute("SELECT count(*) FROM games").fetchone()[0]
        assert con.execute(f"SELECT count(*) FROM {SUMMARISED}").fetchone()[0] == n


def test_a_page_makes_the_summaries_a_killed_run_left_behind(game_samples_db):
    """A run killed between its last batch and its summaries leaves games without them:
    the next statistics page makes them (a write job) and its figures count every game."""
    with duckdb.connect(game_samples_db) as con:
        for name in (*summary_names(), SUMMARISED):
            con.execute(f"DELETE FROM {name} WHERE game_id = ?", [GAME])
        assert summaries.behind(con) == 1
        assert stale_rows(con)  # the early-end and split rows of the game are missing
    with dashboard_database(game_samples_db):
        at = AppTest.from_file(str(DASHBOARD / "games" / "plotters_early_ends.py"),
                               default_timeout=120)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    with duckdb.connect(game_samples_db, read_only=True) as con:
        assert summaries.behind(con) == 0
        assert stale_rows(con) == {}


def test_a_quarantined_game_leaves_every_summary(game_samples_db):
    with duckdb.connect(game_samples_db, read_only=True) as con:
        before = {n: con.execute(f"SELECT count(*) FROM {n} WHERE game_id = ?",
                                 [GAME]).fetchone()[0] for n in (*summary_names(), SUMMARISED)}
    assert before[SUMMARISED] == 1 and before["early_end_rounds"] > 0
    remove(game_samples_db, GAME, "quarantine", Actor("test", "command line"), "a test")
    with duckdb.connect(game_samples_db, read_only=True) as con:
        for name in (*summary_names(), SUMMARISED):
            assert con.execute(f"SELECT count(*) FROM {name} WHERE game_id = ?",
                               [GAME]).fetchone()[0] == 0, name
        assert summaries.behind(con) == 0
        assert stale_rows(con) == {}


def test_an_import_makes_the_summaries_again_from_the_facts(game_samples_db, tmp_path):
    """An export leaves the summaries out (they are derived); the imported file has them."""
    from trickledger.ingest.backup import export, import_

    export(game_samples_db, str(tmp_path / "out"))
    assert not any(p.name.startswith(tuple(summary_names())) for p in (tmp_path / "out").iterdir())
    restored = str(tmp_path / "restored.duckdb")
    import_(str(tmp_path / "out"), restored)
    with duckdb.connect(restored, read_only=True) as con:
        assert summaries.behind(con) == 0
        assert stale_rows(con) == {}
        assert con.execute("SELECT count(*) FROM split_games").fetchone()[0] > 0


def test_a_games_declared_summary_is_made_and_kept_like_the_shipped_ones(tmp_path,
                                                                         register_game):
    """Summaries are found through the games' declarations (GameInfo.analytics, kind
    "summary"), not by name: the shipped games' own are theirs, and a plugin game that
    declares one gets it made by ingest, equal to its macro, and taken out with a game."""
    import dataclasses

    import toy_high_card

    from trickledger.ingest.load import Source
    from trickledger.replay.registry import register, registered, registry
    from trickledger.replay.simulate import SimOptions, simulate_one

    shipped = {n for g in registry().values() for k, n, _ in g.analytics if k == "summary"}
    assert {"split_games", "split_take_sums", "early_end_rounds", "early_end_player_games",
            "bid_round_rows"} <= shipped and shipped <= set(summary_names())
    tricks_won = ("summary", "toy_tricks_won", """
        SELECT game_id, winner AS player, count(*) AS tricks FROM tricks
        WHERE game_id IN (SELECT unnest(ids)) GROUP BY game_id, winner""")
    register_game(dataclasses.replace(toy_high_card.INFO,
                                      analytics=(*toy_high_card.INFO.analytics, tricks_won)))
    assert "toy_tricks_won" in summary_names()
    opts = SimOptions(game=toy_high_card.NAME, games=4, players=(2, 4),
                      bots=("greedy", "random"), seed=5)
    games = [simulate_one(opts, i)[:2] for i in range(4)]
    db = str(tmp_path / "toy.duckdb")
    assert ingest([Source(name, data=data) for name, data in games], db, jobs=1).loaded == 4
    with duckdb.connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM toy_tricks_won").fetchone()[0] > 0
        assert summaries.behind(con) == 0 and stale_rows(con) == {}
        gid = con.execute("SELECT min(game_id) FROM toy_tricks_won").fetchone()[0]
    remove(db, gid, "delete", Actor("test", "command line"), "a test")
    with duckdb.connect(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM toy_tricks_won WHERE game_id = ?",
                           [gid]).fetchone()[0] == 0
        assert stale_rows(con) == {}
    # a summary is a query of `ids`: a parameter list of its own is refused at registration
    with pytest.raises(TypeError, match="an analytics object is a 'view', a 'macro' or a "
                                        "'summary'"), registered():
        register(dataclasses.replace(toy_high_card.INFO, name="toy_params", tables={},
                                     sheet_state=None, analytics=(
                                         ("summary", "toy_sums(ids)", "SELECT 1"),)))
