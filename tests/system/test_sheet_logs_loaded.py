"""Score sheets loaded into the database (docs/format.md, "Score sheets"): results without
tricks, and the sheet of a loaded move log refused as the same game. The sheets' rules are
tests/format/test_sheets.py's."""

from __future__ import annotations

import copy
from pathlib import Path

from helpers import RADAR_SHEET, RAGE_SHEET, log_bytes

from trickledger.ingest.db import reading
from trickledger.ingest.load import Source, ingest
from trickledger.replay.engine import replay_bytes
from trickledger.replay.sheetlog import sheet_of

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


def test_ingest_loads_sheets_as_results_not_as_tricks(tmp_path):
    db = str(tmp_path / "sheets.duckdb")
    move = (SAMPLES / "plotters" / "plotters-6p.jsonl").read_bytes()
    sheet = sheet_of(replay_bytes(move, "plotters-6p.jsonl"))
    own = log_bytes(*RAGE_SHEET)
    head, lines = copy.deepcopy(RADAR_SHEET)
    partial = log_bytes(head, lines[:1])
    summary = ingest([Source("rage-sheet.jsonl", data=own),
                      Source("utr-partial.jsonl", data=partial),
                      Source("plotters-6p.jsonl", data=move)], db, jobs=1)
    assert (summary.sheet, summary.incomplete, summary.complete) == (1, 1, 1)
    assert "1 score sheet" in summary.line()
    # the sheet of a loaded log is the same game: refused as an id conflict, never counted twice
    again = ingest([Source("plotters-6p.sheet.jsonl", data=sheet)], db, jobs=1)
    assert again.conflicts == 1 and again.loaded == 0
    with reading(db) as con:
        gid, status, winners = con.execute(
            "SELECT game_id, status, winners FROM games WHERE file_name = 'rage-sheet.jsonl'"
        ).fetchone()
        assert status == "sheet" and winners == ["Ann"]
        assert con.execute("SELECT status FROM logs WHERE game_id = ?", [gid]).fetchone() == \
            ("sheet",)
        counts = {t: con.execute(f"SELECT count(*) FROM {t} WHERE game_id = ?",
                                 [gid]).fetchone()[0]
                  for t in ("players", "rounds", "round_scores", "claims", "tricks", "plays",
                            "takes", "bids", "trumps")}
        assert counts == {"players": 3, "rounds": 2, "round_scores": 6, "claims": 0,
                          "tricks": 0, "plays": 0, "takes": 0, "bids": 0, "trumps": 0}
        assert con.execute("SELECT DISTINCT end_reason, hand_size FROM rounds WHERE game_id = ? "
                           "ORDER BY 2", [gid]).fetchall() == [("score sheet", 9),
                                                               ("score sheet", 10)]
        assert con.execute("SELECT derivation FROM round_scores WHERE game_id = ? AND round = 1 "
                           "AND player = 'Ann'", [gid]).fetchone() == \
            ("4 tricks, bid 4 -> 4 + 10 = 14, +5 card -> 19",)
        # results count the complete sheet; the incomplete one counts nowhere
        assert con.execute("SELECT games, wins FROM player_results WHERE game = 'rage' AND "
                           "player = 'Ann'").fetchone() == (1, 1)
        assert con.execute("SELECT count(*) FROM player_results WHERE game = "
                           "'under_the_radar'").fetchone() == (0,)
        # a plotters sheet's rounds do not count in the early-ends view
        early = con.execute("SELECT count(*) FROM early_ends").fetchone()[0]
        assert early == con.execute("SELECT count(*) FROM rounds r JOIN games g USING (game_id) "
                                    "WHERE g.game = 'plotters' AND g.status <> 'sheet'"
                                    ).fetchone()[0]
