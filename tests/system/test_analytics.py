"""The analytics views against counts made by hand, on a small crafted corpus.

The corpus is simulated (seeded bots, a few short games of every game) and then bent on
purpose: one game undated, one with an illegal move, one cut short, one with a wrong
score sheet. Every expected figure below is counted in Python from the engine's replay
of the logs (facts and verdicts), never from the views under test.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from pathlib import Path

import orjson
import pytest

from trickledger.ingest import ratings
from trickledger.ingest.db import reading, writing
from trickledger.ingest.load import Source, ingest
from trickledger.replay.engine import replay_bytes, verdict
from trickledger.replay.games.plotters import RoundEnded, TrickFinished
from trickledger.replay.registry import registry
from trickledger.replay.simulate import SimOptions, simulate_one


def _sim(game: str, n: int, seed: int, prefix: str, **kw) -> bytes:
    opts = SimOptions(game=game, games=1, players=(n, n), seed=seed, bots=("greedy", "random"),
                      id_prefix=prefix, **kw)
    return simulate_one(opts, 0)[1]


def _edit(data: bytes, new_id: str, drop_date: bool = False, keep_lines: int | None = None
          ) -> bytes:
    lines = data.splitlines()
    head = orjson.loads(lines[0])
    head["id"] = new_id
    if drop_date:
        head["meta"].pop("date", None)
    body = lines[1:] if keep_lines is None else lines[1:keep_lines]
    return b"\n".join([orjson.dumps(head), *body]) + b"\n"


def _tie_game() -> bytes:
    """An under_the_radar game whose lowest total is shared (a tied win)."""
    for seed in range(1, 200):
        data = _sim("under_the_radar", 3, seed, f"utr-tie{seed}")
        totals = list(verdict(replay_bytes(data, "x"))["totals"].values())
        if totals.count(min(totals)) > 1:
            return data
    raise AssertionError("no tied game found")


def crafted() -> dict[str, bytes]:
    logs = {
        "p1": _sim("plotters", 4, 2, "p1", rounds=2),
        "p2": _sim("plotters", 5, 3, "p2", rounds=2, edition="plotters-inc"),
        "p3": _sim("plotters", 6, 1, "p3", rounds=2),
        "r1": _sim("rage", 3, 1, "r1", rounds=3, variants=("hidden_bid",)),
        "r2": _sim("rage", 4, 2, "r2", rounds=3, variants=("plus_minus_one",)),
        "r3": _sim("rage", 3, 4, "r3", rounds=2, claims=True, wrong_claims=0.5),
        "u1": _sim("under_the_radar", 4, 1, "u1", rounds=2),
        "u2": _tie_game(),
        "c1": _sim("color_stacks", 2, 1, "c1"),
        "c2": _sim("color_stacks", 3, 2, "c2"),
        "x1": _sim("rage", 3, 7, "x1", rounds=2, illegal=1.0),
    }
    logs["undated"] = _edit(logs["p1"], "p1-undated", drop_date=True)
    logs["cut"] = _edit(logs["p3"], "p3-cut", keep_lines=150)
    return logs


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    logs = crafted()
    db = str(tmp_path_factory.mktemp("analytics") / "a.duckdb")
    sources = [Source(f"{k}.jsonl", data=v) for k, v in logs.items()]
    summary = ingest(sources, db, jobs=1)
    assert summary.loaded == len(logs)
    with writing(db) as con:
        ratings.refresh(con)
    replays = {k: replay_bytes(v, f"{k}.jsonl") for k, v in logs.items()}
    return db, logs, replays


def rows(db: str, sql: str, params: list | None = None) -> list[tuple]:
    with reading(db) as con:
        return con.execute(sql, params or []).fetchall()


def counted(replays) -> dict:
    """The default policy by hand: the games whose replay is complete."""
    return {k: r for k, r in replays.items() if r.status == "complete"}


def test_the_corpus_has_every_kind_of_game(corpus):
    db, _, replays = corpus
    status = {r.header.id: r.status for r in replays.values()}
    assert sorted(Counter(status.values()).items()) == [("complete", 11), ("illegal", 1),
                                                        ("incomplete", 1)]
    got = dict(rows(db, "SELECT game_id, counted_as FROM game_counting"))
    for r in replays.values():
        disputed = any(not c.match for c in r.state.claims)
        want = r.status if r.status != "complete" else ("disputed" if disputed else "complete")
        assert got[r.header.id] == want
    assert "disputed" in got.values()
    assert rows(db, "SELECT played_on FROM games WHERE game_id = 'p1-undated'") == [(None,)]


def test_split_stats_count_tricks_splits_and_unfinished_by_hand(corpus):
    db, _, replays = corpus
    played, firsts, splits, seconds, unfinished = (Counter() for _ in range(5))
    expected_second = defaultdict(float)
    for r in counted(replays).values():
        if r.header.game != "plotters":
            continue
        players = r.state.players
        for f in r.facts:
            if isinstance(f, TrickFinished):
                for s, _ in f.cards:
                    played[players[s]] += 1
                    if f.second_winner is not None:
                        splits[players[s]] += 1
                        expected_second[players[s]] += 1 / len(players)
                firsts[players[f.first_winner]] += 1
                if f.second_winner is not None:
                    seconds[players[f.second_winner]] += 1
            elif isinstance(f, RoundEnded):
                for s, _ in f.unfinished:
                    unfinished[players[s]] += 1
    got = {r[0]: r[1:] for r in rows(db, """
        SELECT player, tricks_played, first_picks, splits_played, second_halves,
               unfinished_tricks, expected_second_halves FROM split_stats""")}
    assert set(got) == set(played)
    for p in played:
        assert got[p][:5] == (played[p], firsts[p], splits[p], seconds[p], unfinished[p]), p
        assert got[p][5] == pytest.approx(expected_second[p], abs=0.01)
    assert sum(unfinished.values()) > 0  # the corpus has early ends


def test_kept_cards_are_the_cards_of_the_two_stacks_that_score(corpus):
    """Per player and round, the kept (scoring) cards of their takes add up to the two
    stacks the engine multiplied (its derivation names them: 'open G5 R6, ...')."""
    db, _, _ = corpus
    check = rows(db, """
        WITH kept AS (SELECT game_id, round, player, sum(kept_cards) AS kept
                      FROM split_takes GROUP BY ALL)
        SELECT s.derivation, coalesce(k.kept, 0) FROM round_scores s
        JOIN games g USING (game_id) LEFT JOIN kept k USING (game_id, round, player)
        WHERE g.game = 'plotters'""")
    assert len(check) > 20
    for derivation, kept in check:
        words = derivation.replace(",", " ").split()
        if "fewer than two colours" in derivation:
            assert kept == 0
        else:
            # "open G×5 R×6, other 3 -> ...": the two stacks that score
            assert kept == int(words[1].split("×")[1]) + int(words[2].split("×")[1]), derivation
    # cards turned face down by the keep they triggered were placed open, but are not kept
    assert rows(db, "SELECT count(*) FROM split_takes WHERE kept_cards < placed_open")[0][0] > 0


def test_early_ends_name_who_could_not_play_and_who_caused_it(corpus):
    db, _, replays = corpus
    want = set()
    for r in counted(replays).values():
        for f in r.facts:
            if isinstance(f, RoundEnded) and f.early_end_player is not None:
                s, card = f.unfinished[-1]
                want.add((r.header.id, f.round, r.state.players[f.early_end_player],
                          r.state.players[s], card.name))
    got = set(rows(db, "SELECT game_id, round, could_not_play, caused_by, causing_card "
                       "FROM early_ends WHERE ended_early"))
    assert got == want and want


def test_results_share_tied_wins_and_count_chance_per_table(corpus):
    db, _, replays = corpus
    share, chance, games = defaultdict(float), defaultdict(float), Counter()
    for r in counted(replays).values():
        v = verdict(r)
        for p in v["players"]:
            key = (v["game"], p)
            games[key] += 1
            chance[key] += 1 / len(v["players"])
            if p in v["winners"]:
                share[key] += 1 / len(v["winners"])
    got = {(g, p): (n, ws, ew) for g, p, n, ws, ew in rows(
        db, "SELECT game, player, games, win_share, expected_wins FROM player_results")}
    assert set(got) == set(games)
    for key in games:
        assert got[key][0] == games[key]
        assert got[key][1] == pytest.approx(share[key], abs=1e-3)
        assert got[key][2] == pytest.approx(chance[key], abs=1e-3)
    assert any(abs(v - round(v)) > 0.1 for v in share.values())  # a shared win is in


def _ahead(v: dict, lowest_wins: bool) -> dict[tuple[str, str], int]:
    t = v["totals"]
    sign = -1 if lowest_wins else 1
    return {(a, b): (sign * t[a] > sign * t[b]) - (sign * t[a] < sign * t[b])
            for a in t for b in t if a != b}


def test_head_to_head_by_hand_and_symmetric(corpus):
    db, _, replays = corpus
    want: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for r in counted(replays).values():
        v = verdict(r)
        for (a, b), sign in _ahead(v, registry()[v["game"]].lowest_wins).items():
            w = want[(v["game"], a, b)]
            w[0] += 1
            w[{1: 1, -1: 2, 0: 3}[sign]] += 1
    got = {(g, p, o): [n, a, b, t] for g, p, o, n, a, b, t in rows(db, "SELECT * FROM head_to_head")}
    assert got == dict(want)
    for (g, p, o), (n, a, b, t) in got.items():
        assert got[(g, o, p)] == [n, b, a, t]
    assert any(t for _, _, _, t in got.values())  # a tie is in


def test_finishing_direction_from_the_facts_agrees_with_the_registry(corpus):
    db, _, _ = corpus
    for game, direction in rows(db, """
            SELECT game, min(direction) FROM (
                SELECT game, game_id, CASE WHEN bool_or(is_winner AND standing <> total)
                                           THEN -1 ELSE 1 END AS direction
                FROM finishes GROUP BY ALL) GROUP BY game"""):
        assert (direction == -1) == registry()[game].lowest_wins, game


def test_bid_positions_and_bidding_rules_by_hand(corpus):
    db, _, replays = corpus
    want = set()
    for r in counted(replays).values():
        if r.header.game != "rage":
            continue
        players = r.state.players
        variants = r.header.variants
        rule = "secret" if "secret_bid" in variants else "hidden" if "hidden_bid" in variants \
            else "open"
        for rs in r.state.rounds:
            for k in range(len(players)):
                seat = (rs.dealer + 1 + k) % len(players)
                want.add((r.header.id, rs.round, players[seat], k + 1, rule,
                          "plus_minus_one" in variants))
    got = set(rows(db, "SELECT game_id, round, player, bid_position, bidding, plus_minus_one "
                       "FROM bid_rounds"))
    assert got == want


def test_seat_effects_by_hand(corpus):
    db, _, replays = corpus
    above: dict[tuple[str, int], list[float]] = defaultdict(list)
    for r in counted(replays).values():
        n = len(r.state.players)
        for rs in r.state.rounds:
            mean = sum(rs.scores) / n
            for s, score in enumerate(rs.scores):
                above[(r.header.game, (s - rs.dealer) % n)].append(score - mean)
    got = {(g, k): (n, m) for g, k, n, m, _ in rows(db, "SELECT * FROM seat_effects")}
    assert set(got) == set(above)
    for key, values in above.items():
        assert got[key][0] == len(values)
        assert got[key][1] == pytest.approx(sum(values) / len(values), abs=1e-3)


def test_ratings_follow_played_order_and_reproduce(corpus, tmp_path):
    db, logs, replays = corpus
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    games = []
    for r in counted(replays).values():
        v = verdict(r)
        games.append((v["game"], r.header.meta.get("date") is None, r.header.meta.get("date"),
                      r.header.id, v))
    games.sort(key=lambda g: (g[0], g[1], g[2] or "", g[3]))
    current: dict[tuple[str, str], object] = {}
    order: dict[str, list[str]] = defaultdict(list)
    for game, _, _, gid, v in games:
        order[game].append(gid)
        sign = -1 if registry()[game].lowest_wins else 1
        t = v["totals"]
        ranks = [1 + sum(sign * t[o] > sign * t[p] for o in t) for p in t]
        before = [current.get((game, p)) or model.rating(name=p) for p in t]
        after = model.rate([[b] for b in before], ranks=ranks)
        for p, a in zip(t, after):
            current[(game, p)] = a[0]
    got = {(g, p): (mu, sigma) for g, p, mu, sigma in rows(
        db, "SELECT game, player, mu, sigma FROM ratings")}
    assert set(got) == set(current)
    for key, rating in current.items():
        assert got[key][0] == pytest.approx(rating.mu, abs=1e-3)
        assert got[key][1] == pytest.approx(rating.sigma, abs=1e-3)
    # undated games come last in their game
    seq = dict(rows(db, "SELECT game_id, min(seq) FROM rating_history GROUP BY game_id"))
    assert [g for g in sorted(order["plotters"], key=seq.get)][-1] == "p1-undated"
    # the same corpus loaded in another order gives the same ratings
    other = str(tmp_path / "other.duckdb")
    items = list(logs.items())
    random.Random(5).shuffle(items)
    ingest([Source(f"{k}.jsonl", data=v) for k, v in items], other, jobs=1)
    with writing(other) as con:
        ratings.refresh(con)
    query = "SELECT * EXCLUDE (seq) FROM rating_history ORDER BY game, game_id, player"
    assert rows(other, query) == rows(db, query)


def test_ratings_are_refreshed_only_when_the_games_change(corpus, tmp_path):
    _, logs, _ = corpus
    db = str(tmp_path / "r.duckdb")
    ingest([Source("c1.jsonl", data=logs["c1"])], db, jobs=1)
    with writing(db) as con:
        assert ratings.refresh(con).recomputed
        assert not ratings.refresh(con).recomputed
    ingest([Source("c2.jsonl", data=logs["c2"])], db, jobs=1)
    with writing(db) as con:
        assert not ratings.is_fresh(con)
        run = ratings.refresh(con)
        assert run.recomputed and run.games == 2


def test_views_count_complete_games_only(corpus):
    db, _, _ = corpus
    for view, column in (("split_stats", None), ("early_ends", "game_id"),
                         ("bid_rounds", "game_id"), ("finishes", "game_id"),
                         ("bid_vs_hand", "game_id")):
        if column is None:
            continue
        bad = rows(db, f"SELECT count(*) FROM {view} v JOIN games g ON g.game_id = v.{column} "
                       f"WHERE g.status <> 'complete'")
        assert bad == [(0,)], view
    # the macros take any list of games: the illegal game's bids are there when asked for
    assert rows(db, "SELECT count(*) FROM bid_rounds_of(['x1-s7-000000'])")[0][0] > 0
    assert rows(db, "SELECT count(*) FROM bid_rounds WHERE game_id = 'x1-s7-000000'") == [(0,)]


def test_wilson_interval():
    import duckdb

    from trickledger.ingest.analytics import statements

    con = duckdb.connect()
    for sql in statements():
        if "MACRO wilson" in sql:
            con.execute(sql)
    lo, hi = con.execute("SELECT wilson_low(3, 10), wilson_high(3, 10)").fetchone()
    # the textbook value for 3 of 10 at 95 %: 0.108 to 0.603
    assert (round(lo, 3), round(hi, 3)) == (0.108, 0.603)
    assert con.execute("SELECT wilson_low(0, 0)").fetchone() == (None,)
    assert math.isclose(con.execute("SELECT wilson_high(10, 10)").fetchone()[0], 1.0)


def test_analyse_command_estimates_caches_and_reports(corpus, tmp_path, capsys):
    from trickledger import main

    _, logs, _ = corpus
    db = str(tmp_path / "h.duckdb")
    ingest([Source("r1.jsonl", data=logs["r1"])], db, jobs=1)
    args = ["analyse", "--db", db, "--playouts", "6", "--jobs", "1"]
    assert main([*args, "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert "hand estimates: 3 estimated, 0 already cached, 6 left" in out
    assert main(args) == 0
    assert "hand estimates: 6 estimated, 3 already cached, 0 left" in capsys.readouterr().out
    got = rows(db, "SELECT round, player, playouts, expected_tricks, expected_sd, tricks_seen, "
                   "bidding_error, play_error, bid, won FROM bid_vs_hand ORDER BY round, player")
    assert len(got) == 9
    for rnd, _, playouts, mean, sd, seen, bidding, play, bid, won in got:
        assert playouts == 6 and sum(seen) == 6 and len(seen) == 11 - rnd + 1
        spread = sum(c * (k - mean) ** 2 for k, c in enumerate(seen)) / 5
        assert sd == pytest.approx(math.sqrt(spread), abs=1e-2)
        assert mean == pytest.approx(sum(k * c for k, c in enumerate(seen)) / 6, abs=1e-3)
        assert bidding == pytest.approx(bid - mean, abs=1e-3)
        assert play == pytest.approx(won - mean, abs=1e-3)
    assert main(["analyse", "--db", str(tmp_path / "none.duckdb")]) == 2


def test_hand_estimates_are_reproducible_and_seeded(corpus):
    from trickledger.ingest.hands import estimate_round

    _, logs, _ = corpus
    a = estimate_round(logs["r2"], 2, None, playouts=5, seed=1, sha256="x")
    b = estimate_round(logs["r2"], 2, None, playouts=5, seed=1, sha256="x")
    c = estimate_round(logs["r2"], 2, None, playouts=5, seed=2, sha256="x")
    assert [e.tricks_seen for e in a] == [e.tricks_seen for e in b]
    assert [e.tricks_seen for e in a] != [e.tricks_seen for e in c]


def test_hand_estimates_are_calibrated_on_simulated_games(tmp_path):
    """The estimate's mean over many hands is within its stated error of the tricks the
    bots actually took: greedy rage games, every hand played out 200 times."""
    from trickledger.ingest.calibration import simulate_and_measure

    cal, _ = simulate_and_measure(games=6, players=3, playouts=200, seed=7, jobs=2, rounds=1,
                                  folder=Path(tmp_path))
    assert cal.hands == 18
    # the stated error: the standard error of the mean difference, and the Monte-Carlo
    # error of the expectations themselves
    stated = 3 * math.sqrt(cal.difference_se ** 2 + cal.mean_mc_se ** 2 / cal.hands)
    assert abs(cal.mean_won - cal.mean_expected) <= stated, cal.lines()


def test_the_sidebar_filter_keeps_undated_games_apart_from_dates(corpus):
    import datetime as dt

    from trickledger.dashboard.data.filters import Filters

    db, _, _ = corpus

    def ids(f: Filters) -> set[str]:
        sql, params = f.game_ids()
        return {r[0] for r in rows(db, sql, params)}

    every = ids(Filters())
    assert "p1-undated" in every and "x1-s7-000000" not in every and "p3-cut" not in every
    later = Filters(date_from=dt.date(2030, 1, 1), date_to=dt.date(2030, 12, 31))
    assert ids(later) == {"p1-undated"}  # an undated game is not dated by its load day
    assert ids(Filters(date_from=dt.date(2030, 1, 1), undated=False)) == set()
    assert ids(Filters(statuses=("illegal",))) == {"x1-s7-000000"}
    assert ids(Filters(statuses=("incomplete",))) == {"p3-cut"}
    known = tuple((g, v) for g, info in registry().items() for v in info.variants)
    hidden = ids(Filters(variants=("hidden_bid",), known_variants=known))
    assert "r1-s1-000000" in hidden and "r2-s2-000000" not in hidden
    assert "p1-s2-000000" in hidden and "c1-s1-000000" in hidden  # other games stay
    plain = ids(Filters(variants=("",), known_variants=known))
    assert "r1-s1-000000" not in plain and "c1-s1-000000" in plain
    inc = ids(Filters(editions=("plotters-inc",)))
    assert "p2-s3-000000" in inc and "p1-s2-000000" not in inc and "r1-s1-000000" in inc


def test_a_changed_analytics_layer_is_installed_on_the_next_write(tmp_path):
    db = str(tmp_path / "old.duckdb")
    with writing(db) as con:
        con.execute("DROP VIEW head_to_head")
        con.execute("UPDATE analytics_version SET digest = 'an older definition'")
    with writing(db) as con:  # the loader's next batch, a ratings refresh...
        assert con.execute("SELECT count(*) FROM head_to_head").fetchone() == (0,)


def test_leader_effects_by_hand(corpus):
    db, _, replays = corpus
    above: dict[tuple[str, bool, bool], list[float]] = defaultdict(list)
    for r in counted(replays).values():
        n = len(r.state.players)
        leaders = {f.round: f.leader for f in r.facts if type(f).__name__ == "RoundDealt"}
        for rs in r.state.rounds:
            lead = leaders[rs.round]
            mean = sum(rs.scores) / n
            above[(r.header.game, rs.round == 1, (lead - rs.dealer) % n == 1)].append(
                rs.scores[lead] - mean)
    got = {(g, first, left): (k, m) for g, first, left, k, m, _ in rows(
        db, "SELECT * FROM leader_effects")}
    assert set(got) == set(above)
    for key, values in above.items():
        assert got[key][0] == len(values)
        assert got[key][1] == pytest.approx(sum(values) / len(values), abs=1e-3)
    assert any(not left for _, _, left in got)  # an elected or trailing leader is in
