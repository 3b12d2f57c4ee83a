"""`trickledger analyse --moves` and `move_quality` on real database files: the table and
its views, caching, --game/--limit, the same table whatever --jobs, bad options; and the
statistics of the judge on simulated games (its best move stays better than a random one on
fresh samples; greedy's moves beat random ones; two seeds agree within their errors)."""

from __future__ import annotations

import math
import random
import shutil
import statistics
from pathlib import Path

import pytest
from helpers import NAMES, header

from trickledger import main
from trickledger.ingest.db import reading
from trickledger.ingest.load import Source, ingest
from trickledger.replay.bots import GreedyBot
from trickledger.replay.judge import METHOD, better_sign, cost_of, decisions, evaluate
from trickledger.replay.simulate import SimOptions, play_game, simulate_one
from trickledger.replay.writer import dump_lines

COLUMNS = ("game_id, round, step, line, player, move, best_move, value, best_value, cost, "
           "cost_se, samples, alternatives, band, method, seed")


def _sim(game: str, n: int, seed: int, prefix: str, **kw) -> bytes:
    opts = SimOptions(game=game, games=1, players=(n, n), seed=seed,
                      bots=("greedy", "random"), id_prefix=prefix, **kw)
    return simulate_one(opts, 0)[1]


def rows(db: str, sql: str, params: list | None = None) -> list[tuple]:
    with reading(db) as con:
        return con.execute(sql, params or []).fetchall()


@pytest.fixture(scope="module")
def logs() -> dict[str, bytes]:
    return {"r1": _sim("rage", 3, 1, "r1", rounds=1),
            "u1": _sim("under_the_radar", 3, 2, "u1", rounds=1),
            "x1": _sim("rage", 3, 7, "x1", rounds=1, illegal=1.0)}


@pytest.fixture(scope="module")
def loaded(logs, tmp_path_factory) -> Path:
    """The logs ingested once for the module: each test judges (writes) a copy of its own."""
    db = tmp_path_factory.mktemp("loaded") / "loaded.duckdb"
    ingest([Source(f"{k}.jsonl", data=v) for k, v in logs.items()], str(db), jobs=1)
    assert not db.with_name(db.name + ".wal").exists()  # all in the file, closed
    return db


def load(tmp_path, loaded: Path, name: str) -> str:
    db = tmp_path / f"{name}.duckdb"
    shutil.copyfile(loaded, db)
    return str(db)


def test_analyse_moves_fills_caches_and_is_the_same_whatever_jobs(loaded, tmp_path, capsys):
    one, two = load(tmp_path, loaded, "one"), load(tmp_path, loaded, "two")
    args = ["analyse", "--moves", "--samples", "3", "--seed", "5"]
    assert main([*args, "--db", one, "--jobs", "1", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "move quality: 1 game judged" in out and "1 left" in out  # x1 is illegal: not judged
    assert main([*args, "--db", one, "--jobs", "1"]) == 0
    assert "1 game judged" in (out := capsys.readouterr().out) and "1 already cached" in out
    assert main([*args, "--db", one, "--jobs", "1"]) == 0
    assert "0 games judged" in capsys.readouterr().out  # all cached: nothing to do
    assert main([*args, "--db", two, "--jobs", "2"]) == 0
    capsys.readouterr()
    sql = f"SELECT {COLUMNS} FROM move_quality ORDER BY game_id, line"
    a, b = rows(one, sql), rows(two, sql)
    assert a == b and len(a) > 20
    assert {r[0] for r in a} == {"r1-s1-000000", "u1-s2-000000"}
    # samples are drawn directly: every decision gets the samples asked for
    assert all(r[11] == 3 and r[14] == METHOD and r[15] == 5 for r in a)
    # the views count per player, accuracy being the share of decisions in band 'best'
    got = rows(one, "SELECT player, decisions, accuracy, blunders FROM decision_quality "
                    "WHERE game = 'rage' ORDER BY player")
    by_hand = {}
    for r in a:
        if r[0].startswith("r1"):
            d = by_hand.setdefault(r[4], [0, 0, 0])
            d[0] += 1
            d[1] += r[13] == "best"
            d[2] += r[13] == "blunder"
    assert [(p, n, round(b / n, 3), bl) for p, (n, b, bl) in sorted(by_hand.items())] == \
        [(p, n, acc, bl) for p, n, acc, bl in got]
    per_game = rows(one, "SELECT count(*) FROM game_decisions WHERE game_id = 'r1-s1-000000'")
    assert per_game == [(3,)]


def test_analyse_moves_narrows_to_a_game_and_rejects_bad_options(loaded, tmp_path, capsys):
    db = load(tmp_path, loaded, "g")
    assert main(["analyse", "--moves", "--db", db, "--samples", "2", "--jobs", "1",
                 "--game", "u1-s2-000000"]) == 0
    assert rows(db, "SELECT DISTINCT game_id FROM move_quality") == [("u1-s2-000000",)]
    capsys.readouterr()
    assert main(["analyse", "--moves", "--db", db, "--samples", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--samples must be at least 2" in err[0]


def test_judgements_of_an_earlier_method_are_not_shown_beside_the_current_ones(loaded, tmp_path,
                                                                              capsys):
    """A database judged partly by an earlier method (a run stopped after a new version):
    the decision views show the current method's judgements only, and the next run judges
    the rest again."""
    import duckdb

    db = load(tmp_path, loaded, "methods")
    assert main(["analyse", "--moves", "--db", db, "--samples", "2", "--jobs", "1"]) == 0
    judged = "SELECT DISTINCT game_id FROM game_decisions ORDER BY game_id"
    assert rows(db, judged) == [("r1-s1-000000",), ("u1-s2-000000",)]
    # as an earlier version left one log: its rows and its marker under the older method
    with duckdb.connect(db) as con:
        sha = con.execute("SELECT sha256 FROM games WHERE game_id = 'u1-s2-000000'").fetchone()
        con.execute("UPDATE move_quality SET method = 'greedy-crn-v2' WHERE sha256 = ?", sha)
        con.execute("UPDATE analysis_runs SET detail = replace(detail, ?, 'greedy-crn-v2') "
                    "WHERE fingerprint = ?", [METHOD, sha[0]])
    assert rows(db, judged) == [("r1-s1-000000",)]
    assert rows(db, "SELECT count(*) FROM move_quality_of(['u1-s2-000000'])") == [(0,)]
    assert rows(db, "SELECT count(*) FROM move_quality WHERE method = 'greedy-crn-v2'")[0][0] > 0
    from helpers import dashboard_database
    from helpers import run_page as run

    with dashboard_database(db):
        # the viewer: that log is not judged by this method, as a log never judged (no
        # judge's table), not every choice "not judged" one by one (the earlier method's
        # marker was taken for this one's)
        at = run("viewer", game="u1-s2-000000", round="1")
        assert any("Round 1, trick 1" in m.value for m in at.markdown)
        assert not any("better move" in d.value.columns for d in at.dataframe)
    capsys.readouterr()
    assert main(["analyse", "--moves", "--db", db, "--samples", "2", "--jobs", "1"]) == 0
    assert "1 game judged" in capsys.readouterr().out  # the log left under v2, again
    assert rows(db, judged) == [("r1-s1-000000",), ("u1-s2-000000",)]
    assert rows(db, "SELECT DISTINCT method FROM move_quality") == [(METHOD,)]
    assert rows(db, "SELECT method FROM judge_method") == [(METHOD,)]  # installed again
    # a database an older version wrote has no judge_method until its next write: the
    # Decisions page counts the current method's judgements without it (it failed with
    # a CatalogException)
    from trickledger.dashboard.data.decisions import decisions_judged

    with duckdb.connect(db) as con:
        con.execute("DROP TABLE judge_method")
        n = con.execute("SELECT count(*) FROM move_quality").fetchone()[0]
    with dashboard_database(db):
        assert decisions_judged() == n > 0
    with duckdb.connect(db) as con:
        con.execute("UPDATE move_quality SET method = 'greedy-crn-v2'")
    with dashboard_database(db):
        assert decisions_judged() == 0


def test_the_pages_show_the_judgements(logs, loaded, tmp_path):
    """The Decisions page ranks the players (every band counted, "good" too), the viewer
    shows each move's verdict (a best move never beside a better one, forced moves as
    forced) and the game review, the Player page each judged game and the key moments,
    linked to the viewer at the decision."""
    from helpers import dashboard_database
    from helpers import run_page as run

    db = load(tmp_path, loaded, "pages")

    with dashboard_database(db):
        at = run("decisions")
        assert any("analyse --moves" in i.value for i in at.info)  # nothing judged yet
    assert main(["analyse", "--moves", "--db", db, "--samples", "2", "--jobs", "1"]) == 0
    (gid, rnd, player, line), = rows(db, "SELECT game_id, round, player, line FROM "
                                         "move_quality WHERE game_id LIKE 'r1%' AND band "
                                         "<> 'best' ORDER BY cost DESC, line LIMIT 1")
    with dashboard_database(db):
        at = run("decisions")  # one judged game each: no minimum to choose
        assert not at.slider
        assert [t.label for t in at.tabs] == ["Rage", "Under the Radar"]
        # a dozen decisions each: too few to name the most accurate player
        assert not at.metric
        assert any("too few to name the most accurate" in c.value for c in at.caption)
        board = at.dataframe[0].value
        # (tables.show labels "goods" as "good" on the page)
        assert {"accuracy", "best", "goods", "inaccuracies", "mistakes", "blunders"} <= \
            set(board.columns)
        assert (board["best"] + board["goods"] + board["inaccuracies"] + board["mistakes"]
                + board["blunders"] == board["decisions"]).all()
        at = run("viewer", game=gid, round=str(rnd), line=str(line))
        assert any("The judge on this trick" in m.value for m in at.markdown)
        # the judge's table on this step (after the game review's and the stacks' tables)
        shown = next(d.value for d in at.dataframe if "better move" in d.value.columns)
        assert {"verdict", "cost (points)", "better move", "as good"} <= set(shown.columns)
        best = shown[shown["verdict"] == "✓ best"]
        assert (best["better move"] == "").all() and (best["cost (points)"] == "0").all()
        # a best move names at most three moves as good as it, then how many more
        for text in best["as good"]:
            assert text == "the only best move" or text.startswith("as good: "), text
            assert len(text.split(" and ")[0].split(", ")) <= 3, text
        assert (shown["verdict"] != "✓ best").any()  # the costliest decision is shown
        assert any("Key moments" in m.value for m in at.markdown)
        # a trump turned inside the round (after a CHANGE card) is nobody's decision: no
        # row of its own, "forced" and nameless, in any trick's table
        assert b'"type":"trump"' in logs["r1"].split(b"\n", 3)[3]
        for trick in range(1, 11):
            at = run("viewer", game=gid, round=str(rnd), trick=str(trick))
            shown = next(d.value for d in at.dataframe if "better move" in d.value.columns)
            assert (shown["player"] != "").all() and not any(
                str(p).startswith("trump") for p in shown["played"]), (trick, shown)
        # rage's last trick at 3 players (the loop's last page, run once rather than twice):
        # one card each, every move forced, and written as the judge writes a move
        # ("play B7" beside "play B5", not a bare "B7")
        assert list(shown["verdict"]) == ["forced"] * 3, shown
        assert all(str(p).startswith("play ") for p in shown["played"]), shown
        at = run("player", player=player)
        assert "Decisions" in [h.value for h in at.subheader]
        assert any("Key moments" in m.value for m in at.markdown)
        moments = at.dataframe[-1].value
        assert any(f"line={line}" in str(u) for u in moments["open"])  # labelled "decision"


# ------------------------------------------------------------------ statistics


# (game, players, header keys, games, samples): small enough for a loaded machine
GAMES = [("plotters", 4, {"rounds": 1}, 1, 4), ("rage", 3, {"rounds": 1}, 3, 6),
         ("color_stacks", 2, {"suits": ["R", "Y", "G", "B"]}, 5, 4),
         ("under_the_radar", 3, {"rounds": 1}, 5, 6)]


def _paired(game, n, extra, games, samples, pick):
    """Over every decision of a few simulated games (greedy bots at the table): the cost,
    on fresh samples (seed 2), of a random legal move minus the cost of the move `pick`
    chooses, both valued on the same samples; the mean and its standard error."""
    h = header(game, n, **extra)
    sign = better_sign(game)
    diffs = []
    for seed in range(games):
        _, events = play_game(h, {p: GreedyBot() for p in NAMES[:n]}, random.Random(seed))
        for d in decisions(dump_lines(h, events)):
            if d.truth.to_move() != d.player:
                continue  # a hidden bid out of turn: the bot only moves in turn
            fresh = evaluate(d, samples, 2).values
            if not fresh:
                continue
            chosen = pick(d, samples, seed)
            if chosen is None:
                continue
            chance = random.Random(d.line).randrange(len(d.alternatives))
            diffs.append(cost_of(fresh, chance, sign)[1] - cost_of(fresh, chosen, sign)[1])
    return statistics.fmean(diffs), statistics.stdev(diffs) / math.sqrt(len(diffs))


def _judges_best(d, samples, seed):
    values = evaluate(d, samples, 1).values
    return cost_of(values, 0, better_sign(d.round.before_deal.info.name))[0] if values else None


@pytest.mark.parametrize("game,n,extra,games,samples", GAMES, ids=[g[0] for g in GAMES])
def test_the_judges_best_move_stays_better_on_fresh_samples(game, n, extra, games, samples):
    """The judge's values carry signal, not noise: the best move found with one seed's
    samples costs less than a random legal move when both are valued again on another
    seed's samples, by more than two standard errors of the paired differences."""
    mean, se = _paired(game, n, extra, games, samples, _judges_best)
    assert mean > 2 * se, (game, mean, se)


# (game, deals, samples a decision): each runs in about 20 s of one core here (interpreted
# engine); the tables are bench.quality's (docs/analytics.md has the figures at full size)
MARGINS = [("plotters", 8, 2), ("rage", 40, 4), ("color_stacks", 10, 4),
           ("under_the_radar", 10, 4)]


@pytest.mark.parametrize("game,deals,samples", MARGINS, ids=[g[0] for g in MARGINS])
def test_greedy_moves_beat_random_moves_on_the_same_deals(game, deals, samples):
    """At every decision of games played by greedy bots, the judge's value of greedy's
    move against the mean value of all the legal alternatives (what a random bot's move
    is worth on average), on the same samples: greedy's cost is lower by more than two
    standard errors of the per-decision margins, in every game."""
    from bench.quality import greedy_margins, margin_summary

    mean, se = margin_summary([m for _, m in greedy_margins(game, deals, samples)])
    assert mean > 2 * se, (game, mean, se)


def test_two_seeds_agree_within_their_errors():
    """The same decisions valued with two seeds: at least 95 % of the costs against the best
    mean (the estimate under the verdict: the verdict rounds a cost within the noise to a
    tie) lie within two combined standard errors of each other (where both errors are zero
    the costs must be equal: all samples agreed)."""
    h = header("rage", 3, rounds=1)
    close = total = 0
    for seed in range(2):
        _, events = play_game(h, {p: GreedyBot() for p in NAMES[:3]}, random.Random(seed))
        raw = dump_lines(h, events)
        for d in decisions(raw):
            _, cost_a, se_a = cost_of(evaluate(d, 12, 1).values, 0, 1)
            _, cost_b, se_b = cost_of(evaluate(d, 12, 2).values, 0, 1)
            bound = 2 * math.sqrt(se_a ** 2 + se_b ** 2)
            close += abs(cost_a - cost_b) <= bound + 1e-9
            total += 1
    assert total > 20 and close >= 0.95 * total, (close, total)
