"""Every dashboard page under streamlit's AppTest, on a real DuckDB file loaded from sample_logs."""

from __future__ import annotations

import gzip
from pathlib import Path

import orjson
import pytest
from helpers import DASHBOARD, page_file, rows, visible
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
PAGES = DASHBOARD / "views"
SAMPLES = ROOT / "sample_logs"


@pytest.fixture(scope="module")
def db(dashboard_db: str) -> str:
    return dashboard_db


def unescape(markdown: str) -> str:
    """What a reader sees of text escaped by dashboard.ui.md (backslashes, word joiners)."""
    import re

    return re.sub(r"\\(.)", r"\1", markdown.replace("\u2060", ""))


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(page_file(name)), default_timeout=90)
    return at


def ok(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    return {unescape(m.label): unescape(m.value) for m in at.metric}


def test_overview_counts_complete_games_and_every_disputed_game(db):
    at = ok(page("overview"))
    m = metrics(at)
    done = "WHERE status IN ('complete', 'sheet')"
    assert m["Games"] == f"{rows(db, f'SELECT count(*) FROM games {done}')[0][0]:,}"
    tricks = rows(db, f"SELECT count(*) FROM tricks JOIN games USING (game_id) {done}")[0][0]
    people = rows(db, f"SELECT count(DISTINCT player) FROM players JOIN games USING (game_id) "
                     f"{done}")[0][0]
    assert m["Tricks"] == f"{tricks:,}" and m["Players"] == f"{people:,}"
    disputed = rows(db, "SELECT count(*) FROM games WHERE claims_mismatched > 0")[0][0]
    assert disputed and m["Disputed games"] == f"{disputed:,}"
    assert any(f"{disputed} games have a claimed score that disagrees" in w.value
               for w in at.warning)
    listed = next(d.value for d in at.dataframe if "claims" in d.value.columns)
    assert len(listed) == disputed and (listed["claims"] > 0).all()
    assert listed["open"].str.startswith("viewer?game=").all()  # each opens in the viewer
    table = next(d.value for d in at.dataframe if "counted" in d.value.columns)
    status = {r["status"]: r["games"] for _, r in table.iterrows()}
    illegal = rows(db, "SELECT count(*) FROM games WHERE status = 'illegal'")[0][0]
    assert status["illegal"] == illegal and status["disputed"] == rows(
        db, "SELECT count(*) FROM games WHERE status IN ('complete', 'sheet') "
            "AND claims_mismatched > 0")[0][0]
    assert any("Counts complete games" in c.value for c in at.caption)


def test_the_status_filter_counts_the_chosen_games(db):
    at = app()
    at.multiselect(key="f_statuses").set_value(["complete", "disputed", "sheet", "illegal"]
                                                ).run()
    assert not at.exception
    assert metrics(at)["Games"] == f"{rows(db, 'SELECT count(*) FROM games')[0][0]:,}"
    at.multiselect(key="f_statuses").set_value(["complete", "disputed", "illegal"]).run()
    no_sheets = rows(db, "SELECT count(*) FROM games WHERE status <> 'sheet' "
                        "OR claims_mismatched > 0")[0][0]  # a disputed sheet counts as disputed
    assert metrics(at)["Games"] == f"{no_sheets:,}"
    at.multiselect(key="f_statuses").set_value(["illegal"]).run()
    illegal = rows(db, "SELECT count(*) FROM games WHERE status = 'illegal'")[0][0]
    assert metrics(at)["Games"] == f"{illegal:,}"


def app() -> AppTest:
    """The whole app (its frame draws the sidebar filter), on its default page."""
    return ok(AppTest.from_file(str(DASHBOARD / "app.py"), default_timeout=90))


def test_overview_honours_the_game_filter(db):
    at = app()
    at.multiselect(key="f_games").set_value(["rage"]).run()
    assert not at.exception
    rage = rows(db, "SELECT count(*) FROM games WHERE game = 'rage' "
                    "AND status IN ('complete', 'sheet')")[0][0]
    assert metrics(at)["Games"] == f"{rage:,}"


def test_the_filter_survives_a_change_of_page(db):
    at = app()
    at.multiselect(key="f_games").set_value(["rage"]).run()
    at.switch_page("views/results.py").run()
    assert not at.exception
    assert at.multiselect(key="f_games").value == ["rage"]
    assert not at.segmented_control  # results for rage only: no game to choose
    assert "Best against chance in Rage" in metrics(at)
    at.switch_page("views/overview.py").run()
    rage = rows(db, "SELECT count(*) FROM games WHERE game = 'rage' "
                    "AND status IN ('complete', 'sheet')")[0][0]
    assert metrics(at)["Games"] == f"{rage:,}"


def test_the_variant_filter(db):
    at = app()
    at.multiselect(key="f_variants").set_value(["hidden_bid"]).run()
    assert not at.exception
    want = rows(db, """SELECT count(*) FROM games WHERE status IN ('complete', 'sheet')
                      AND (game <> 'rage' OR list_contains(variants, 'hidden_bid'))""")[0][0]
    assert metrics(at)["Games"] == f"{want:,}"


def test_splits_names_who_is_stuck_with_the_rest_against_chance(db):
    at = ok(page("splits"))
    top = rows(db, "SELECT player FROM split_stats WHERE games >= 5 "
                  "ORDER BY second_halves / expected_second_halves DESC, player LIMIT 1")
    assert metrics(at)["Stuck with the rest most"] == top[0][0]
    firsts = rows(db, "SELECT count(*) FROM takes JOIN games USING (game_id) "
                     "WHERE role = 'first_pick' AND status = 'complete'")[0][0]
    assert metrics(at)["First picks"] == f"{firsts:,}"
    headers = list(at.dataframe[0].value.columns)
    assert "second_share" in headers  # the data keeps its name; the header shows words
    assert any("Kept cards are cards that end up scoring" in c.value for c in at.caption)


def test_early_ends_share_and_both_players_named(db):
    at = ok(page("early_ends"))
    early, total = rows(db, "SELECT count(*) FILTER (WHERE ended_early), count(*) FROM early_ends")[0]
    assert metrics(at)["Rounds ended early"] == f"{early:,} of {total:,}"
    latest = at.dataframe[-1].value
    assert {"could_not_play", "caused_by", "causing_card"} <= set(latest.columns)
    assert latest["could_not_play"].str.startswith("player?player=").all()


def test_bidding_leaderboard_min_rounds_and_rules(db):
    at = ok(page("bidding"))
    min_rounds = at.slider(key="min_rounds").value
    assert min_rounds == 5
    best = rows(db, "SELECT player FROM bid_accuracy WHERE rounds >= ? "
                   "ORDER BY exact_rate DESC, mean_abs_error, player LIMIT 1", [min_rounds])
    assert metrics(at)["Most accurate bidder"] == best[0][0]
    at.slider(key="min_rounds").set_value(100).run()
    best = rows(db, "SELECT player FROM bid_accuracy WHERE rounds >= 100 "
                   "ORDER BY exact_rate DESC, mean_abs_error, player LIMIT 1")
    assert metrics(at)["Most accurate bidder"] == best[0][0]
    at.radio(key="bid_rule").set_value("hidden").run()
    hidden = rows(db, "SELECT count(*) FROM bid_rounds WHERE bidding = 'hidden'")[0][0]
    assert metrics(at)["Rounds bid"] == f"{hidden:,}"
    assert any("trickledger analyse" in i.value for i in at.info)  # no estimate yet


def test_results_win_rates_against_chance_for_every_game(db):
    at = ok(page("results"))
    from trickledger.replay.registry import registry

    games = ("color_stacks", "plotters", "rage", "under_the_radar")
    # the buttons' titles are markdown, escaped (a plugin's title is data)
    assert [visible(o) for o in at.segmented_control(key="results_game").options] == [
        registry()[g].title for g in games]
    for game in games:  # one game at a time, as chosen: only its part is drawn
        at.segmented_control(key="results_game").set_value(game).run()
        top = rows(db, "SELECT player FROM player_results WHERE game = ? AND games >= 5 "
                      "ORDER BY vs_baseline DESC, games DESC, player LIMIT 1", [game])[0][0]
        assert metrics(at)[f"Best against chance in {registry()[game].title}"] == top


def test_ratings_page_refreshes_and_ranks(db):
    at = ok(page("ratings"))
    top = rows(db, "SELECT player FROM ratings WHERE game = 'color_stacks' AND games >= 5 "
                  "ORDER BY ordinal DESC, player LIMIT 1")[0][0]
    assert metrics(at)["Highest rating in Color Stacks"] == top
    assert rows(db, "SELECT count(DISTINCT game_id) FROM rating_history")[0][0] == rows(
        db, "SELECT count(*) FROM games WHERE status IN ('complete', 'sheet')")[0][0]


def test_head_to_head_page_for_a_player_from_the_url(db):
    at = page("head_to_head")
    at.query_params["player"] = "Ann"
    ok(at)
    assert at.selectbox(key="h2h_player").value == "Ann"
    table = at.dataframe[0].value
    game = at.selectbox(key="h2h_game").value
    want = rows(db, "SELECT count(*) FROM head_to_head WHERE game = ? AND player = 'Ann'", [game])
    assert len(table) == want[0][0]


def test_seat_effects_page(db):
    at = ok(page("seats"))
    options = at.segmented_control(key="seats_game").options
    assert [visible(o) for o in options][:2] == ["Color Stacks",
                                                 "Plotters, Inc. / Mit List und Tücke"]


def test_player_page_opened_by_url(db):
    player = rows(db, "SELECT player FROM claims WHERE NOT match ORDER BY player LIMIT 1")[0][0]
    at = page("player")
    at.query_params["player"] = player
    ok(at)
    assert at.selectbox(key="player_pick").value == player
    m = metrics(at)
    games = rows(db, "SELECT count(*) FROM players JOIN games USING (game_id) "
                    "WHERE player = ? AND status IN ('complete', 'sheet')", [player])[0][0]
    assert m["Games under this filter"] == f"{games:,}"
    headers = [h.value for h in at.subheader]
    assert {"Rating", "Form", "Head-to-head", "Disputes"} <= set(headers)
    assert any("disagree" in w.value for w in at.warning)
    # an unknown name says so
    at = page("player")
    at.query_params["player"] = "Nobody"
    ok(at)
    assert any("No player Nobody" in e.value for e in at.error)


def test_viewer_opens_a_trick_from_the_url_and_steps(db):
    gid, rnd, trick, first, second, leader = rows(db, """
        SELECT t.game_id, t.round, t.trick, t.first_winner, t.second_winner, t.leader
        FROM tricks t JOIN games g USING (game_id)
        WHERE t.first_winner IS NOT NULL AND t.trick = 2 AND t.second_winner IS NOT NULL
        ORDER BY t.game_id, t.round LIMIT 1""")[0]
    at = page("viewer")
    at.query_params["game"] = gid
    at.query_params["round"] = str(rnd)
    at.query_params["trick"] = str(trick)
    ok(at)
    text = " ".join(m.value for m in at.markdown)
    assert f"Round {rnd}, trick 2" in text
    engine = "\n".join(c.value for c in at.code)
    assert f"first winner {first} (" in engine and f"second winner {second} (" in engine
    # every player's hand before the trick is shown, the leader's with every card legal
    assert f"**{leader}**" in text and "Every card in this hand was legal to play at that moment." in \
        [c.value for c in at.caption]
    at.button(key=f"next_step_{gid}_{rnd}").click().run()
    assert f"Round {rnd}, trick 3" in " ".join(m.value for m in at.markdown)


def test_viewer_shows_the_illegal_line(db):
    gid, line = rows(db, "SELECT game_id, error_line FROM games WHERE status = 'illegal' "
                        "ORDER BY game_id LIMIT 1")[0]
    at = page("viewer")
    at.query_params["game"] = gid
    ok(at)
    assert any(f"line {line}" in e.value for e in at.error)


SAMPLE = SAMPLES / "plotters" / "plotters-5p-claims.jsonl"
SAMPLE_4P = SAMPLES / "plotters" / "plotters-4p-early-end.jsonl"


def test_verify_page_leads_with_the_dispute_then_illegal_and_unreadable(db):
    at = ok(page("verify"))
    at.file_uploader(key="verify_file").upload("claims.jsonl", SAMPLE.read_bytes()).run()
    assert not at.exception
    wrong = orjson.loads(SAMPLE.read_bytes().splitlines()[0])["meta"]["wrong_claims"][0]
    banner = at.warning[0].value
    assert banner.startswith("**Disputed: 1 claimed score on the score sheet does not match")
    assert f"{wrong['player']}, round {wrong['round']} (line {wrong['line']}): the sheet says" \
        in banner and "the replay computes" in banner and "open G×" in banner
    assert any("complete" in s.value for s in at.success)

    lines = SAMPLE.read_bytes().splitlines()
    bad = b"\n".join(lines[:3] + [b'{"type": "keep", "player": "nobody", "colors": ["R"]}'])
    at = ok(page("verify"))
    at.text_area(key="verify_text").set_value(bad.decode()).run()
    assert any("line 4" in e.value and "nobody" in e.value for e in at.error)

    at = ok(page("verify"))
    at.file_uploader(key="verify_file").upload("junk.jsonl", b"\x00\x01 not a log").run()
    assert any("unreadable" in e.value for e in at.error)


def test_verify_page_shows_what_the_player_of_an_illegal_move_held(db):
    lines = SAMPLE_4P.read_bytes().splitlines()
    first_play = next(i for i, ln in enumerate(lines) if b'"type":"play"' in ln)
    ev = orjson.loads(lines[first_play + 1])
    held = orjson.loads(lines[1])["hands"][ev["player"]]
    not_held = next(c for c in ("B1", "G1", "R1", "Y1", "B2") if c not in held)
    lines[first_play + 1] = orjson.dumps({**ev, "card": not_held})
    at = ok(page("verify"))
    at.text_area(key="verify_text").set_value(b"\n".join(lines).decode()).run()
    assert any(f"line {first_play + 2}" in e.value for e in at.error)
    text = " ".join(m.value for m in at.markdown)
    chips = " ".join(h.value for h in at.get("html"))
    assert f"tried {not_held}" in text and held[0] in chips  # the hand, as chips
    # no faded card to point at: the words say what broke the rule, not "(faded: ...)"
    assert "faded" not in text
    assert any(f"{not_held}: not in the hand." in c.value for c in at.caption)


def fresh_log(name: str) -> bytes:
    lines = SAMPLE.read_bytes().splitlines()
    head = orjson.loads(lines[0])
    head["id"] = name
    return b"\n".join([orjson.dumps(head)] + lines[1:]) + b"\n"


def test_upload_page_loads_good_illegal_and_unreadable_files(db):
    before = rows(db, "SELECT count(*) FROM logs")[0][0]
    good = fresh_log("uploaded-good")
    illegal = fresh_log("uploaded-illegal").replace(b'"type":"take"', b'"type":"tak"', 1)
    xss = fresh_log("uploaded-xss").replace(
        orjson.dumps(orjson.loads(SAMPLE.read_bytes().splitlines()[0])["players"][0]),
        b'"<script>alert(1)</script>"')
    at = ok(page("upload"))
    at.file_uploader(key="upload_files").set_value([
        ("good.jsonl", good, "application/octet-stream"),
        ("illegal.jsonl.gz", gzip.compress(illegal), "application/gzip"),
        ("empty.jsonl", b"", "application/octet-stream"),
        ("../../etc/evil.jsonl", xss, "application/octet-stream"),
    ]).run()
    at.button(key="load").click().run()
    assert not at.exception
    table = at.dataframe[0].value.set_index("file")
    assert table.at["good.jsonl", "result"] == "complete, disputed"  # the sample's claim
    assert table.at["illegal.jsonl.gz", "result"] == "illegal"
    assert "unknown event type 'tak'" in table.at["illegal.jsonl.gz", "what was wrong"]
    assert table.at["empty.jsonl", "result"] == "unreadable"
    assert table.at["evil.jsonl", "result"] == "complete, disputed"  # stored by name only
    assert rows(db, "SELECT count(*) FROM logs")[0][0] == before + 4
    assert all("/" not in r[0] for r in rows(db, "SELECT file_name FROM logs WHERE file_name "
                                                "IN ('good.jsonl', 'evil.jsonl')"))
    # disputes come first: the sample's wrong claim, in the two complete copies (the illegal
    # copy stops before the claim's line)
    assert at.warning[0].value.startswith("**Disputed: 2 files")
    assert any("`illegal.jsonl.gz`, line" in unescape(e.value) for e in at.error)
    # the player named like a script is shown as text in the viewer
    viewer = page("viewer")
    viewer.query_params["game"] = "uploaded-xss"
    ok(viewer)
    html = " ".join(h.value for h in viewer.get("html"))
    assert "&lt;script&gt;" in html and "&amp;lt;" not in html
    assert "<script>" not in html


def test_sql_page_runs_examples_and_refuses_writes(db):
    at = ok(page("sql"))
    assert len(at.dataframe) == 1 and len(at.dataframe[0].value) > 0
    at.button(key="ex_0").click().run()  # the score sheets that were wrong
    assert "FROM claims" in at.text_area(key="sql_text").value
    at.text_area(key="sql_text").set_value("DROP TABLE games").run()
    assert any("read-only" in unescape(e.value) for e in at.error)
    at.text_area(key="sql_text").set_value("SELECT * FROM read_csv('/etc/passwd')").run()
    assert any("no file or network access" in unescape(e.value) for e in at.error)
    assert rows(db, "SELECT count(*) FROM games")[0][0] > 0


def test_viewer_opens_a_game_by_the_sha256_of_its_file(db):
    gid, sha = rows(db, "SELECT game_id, sha256 FROM games WHERE game_id <> sha256 "
                       "ORDER BY game_id LIMIT 1")[0]
    at = page("viewer")
    at.query_params["game"] = sha
    ok(at)  # once, this listed the game twice and raised a TypeError
    assert at.selectbox(key="viewer_game").value == gid
    assert not at.error


def test_viewer_says_so_when_a_link_is_bad(db):
    gid = rows(db, "SELECT game_id FROM games WHERE status = 'complete' AND game = 'plotters' "
                  "ORDER BY game_id LIMIT 1")[0][0]
    at = page("viewer")
    at.query_params["game"] = "no-such-game"
    ok(at)
    assert any("No game no-such-game" in unescape(e.value) for e in at.error)
    at = page("viewer")
    at.query_params["game"] = gid
    at.query_params["round"] = "99"
    ok(at)
    assert any("has no round 99" in unescape(w.value) for w in at.warning)
    at = page("viewer")
    at.query_params["game"] = gid
    at.query_params["round"] = "1"
    at.query_params["trick"] = "x"
    ok(at)
    assert any("Round 1 has no trick x" in unescape(w.value) for w in at.warning)
    assert any("Round 1, trick 1" in m.value for m in at.markdown)


def test_a_trick_in_a_link_to_a_game_played_in_turns_is_named_not_ignored(db):
    gid = rows(db, "SELECT game_id FROM turns WHERE round = 1 AND game_id IN "
                  "(SELECT game_id FROM games WHERE status = 'complete') "
                  "GROUP BY game_id HAVING max(turn) >= 3 ORDER BY game_id LIMIT 1")[0][0]
    at = page("viewer")
    at.query_params["game"] = gid
    at.query_params["round"] = "1"
    at.query_params["trick"] = "3"
    ok(at)
    assert any("is played in turns: a link names a place with step=N, not trick=3"
               in unescape(w.value) for w in at.warning)
    assert "trick" not in at.query_params and at.query_params["step"] == "1"
    at = page("viewer")  # the link the page writes opens where it says
    at.query_params["game"] = gid
    at.query_params["round"] = "1"
    at.query_params["step"] = "3"
    ok(at)
    assert not at.warning
    assert any("(3 of " in m.value for m in at.markdown)


def test_an_illegal_games_link_opens_at_the_illegal_move(db):
    gid, line = rows(db, "SELECT game_id, error_line FROM games WHERE status = 'illegal' "
                        "AND game = 'plotters' ORDER BY game_id LIMIT 1")[0]
    at = page("viewer")
    at.query_params["game"] = gid
    ok(at)
    assert any(f"Line {line}:" in unescape(e.value) for e in at.error)


def test_an_apostrophe_is_an_apostrophe(db, tmp_path):
    head, *rest = SAMPLE_4P.read_bytes().splitlines()
    h = orjson.loads(head)
    old = h["players"][0]
    h["players"][0] = "O'Neil"
    h["id"] = "apostrophe"
    data = orjson.dumps(h) + b"\n" + b"\n".join(rest).replace(f'"{old}"'.encode(),
                                                              b'"O\'Neil"') + b"\n"
    at = ok(page("upload"))
    at.file_uploader(key="upload_files").set_value([("o.jsonl", data, "text/plain")]).run()
    at.button(key="load").click().run()
    viewer = page("viewer")
    viewer.query_params["game"] = "apostrophe"
    ok(viewer)
    shown = " ".join([unescape(m.value) for m in viewer.markdown]
                     + [h.value for h in viewer.get("html")])
    assert "O'Neil" in shown and "&#x27;" not in shown and "&amp;" not in shown


def test_a_bug_shows_one_line_and_no_traceback(db, monkeypatch):
    from trickledger.dashboard.data import access

    def broken(*args, **kwargs):
        raise ValueError("/srv/secret/path exploded")

    access.query.clear()  # every query of the page reads again, and fails
    monkeypatch.setattr(access, "read", broken)
    at = page("overview")
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "Something went wrong on this page (ValueError); it has been logged on the server. "
        "Reload, or try another page."]


def test_beyond_loopback_writing_needs_an_account(db, tmp_path, monkeypatch):
    from trickledger.dashboard.auth import add_user

    users = tmp_path / "users.toml"
    add_user(str(users), "Ann", "correct horse", "member")
    monkeypatch.setenv("TRICKLEDGER_LISTEN", "0.0.0.0")
    monkeypatch.setenv("TRICKLEDGER_USERS", str(users))
    for name, words in (("upload", "needs an account"), ("sql", "for the server's admins")):
        at = ok(page(name))
        assert any(words in visible(i.value) for i in at.info), name
        assert not at.file_uploader and not at.text_area
    at = app()
    at.switch_page("views/upload.py").run()
    name, password = at.text_input
    name.set_value("Ann")
    password.set_value("wrong")
    at.button(key="FormSubmitter:login-Log in").click().run()
    assert any("Wrong name or password." in visible(e.value) for e in at.error)
    assert not at.file_uploader
    name, password = at.text_input
    name.set_value("ANN ")
    password.set_value("correct horse")
    at.button(key="FormSubmitter:login-Log in").click().run()
    assert not at.exception
    assert at.file_uploader(key="upload_files") is not None
    assert any("Logged in as ann (member)" in c.value for c in at.caption)


def test_failed_logins_lock_the_name_out():
    from trickledger.dashboard.auth import Account, Limiter, check_login, hash_password

    users = {"ann": Account("ann", "member", hash_password("right"))}
    limiter = Limiter(max_failures=3)
    for _ in range(3):
        assert check_login(users, limiter, "ann", "wrong", "10.0.0.1") == \
            (None, "Wrong name or password.")
    account, message = check_login(users, limiter, "ann", "right", "10.0.0.2")
    assert account is None and message.startswith("Too many failed attempts")
    # an unknown name gets the very same answer as a wrong password
    assert check_login(users, Limiter(), "zed", "x", None) == (None, "Wrong name or password.")
    assert check_login(users, Limiter(), "Ann", "right", None)[0] == users["ann"]


def test_a_minimum_kept_from_a_wider_filter_is_lowered_to_fit(db):
    at = page("results")
    at.session_state["results_min_games"] = 10_000  # more games than anyone has here
    ok(at)
    slider = at.slider(key="results_min_games")
    assert slider.value == slider.max < 10_000
    assert not [e.value for e in at.error if "Something went wrong" in e.value]


def test_every_query_a_page_runs_can_be_observed(db):
    """The benchmark times the pages' queries through `access.observe_queries`, not by patching
    the data module: every query the Overview runs reaches the observer, with its values."""
    from trickledger.dashboard.data import access

    seen: list[tuple[str, tuple]] = []
    access.query.clear()
    with access.observe_queries(lambda sql, params: seen.append((sql, params))):
        at = AppTest.from_file(str(DASHBOARD / "views" / "overview.py"),
                               default_timeout=120)
        at.run()
    assert not at.exception
    assert any("FROM" in sql.upper() for sql, _ in seen)
    n = len(seen)
    access.query.clear()
    AppTest.from_file(str(DASHBOARD / "views" / "overview.py"),
                      default_timeout=120).run()
    assert len(seen) == n  # the observer is gone once its block ends
