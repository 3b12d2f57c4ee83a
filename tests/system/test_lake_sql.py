"""Figures do not depend on the reader or on row order: every docs/sql.md answer is the
same from the database file and from a lake of the same logs, and a share that is an
exact tie (73 of 160 = 0.45625) reads 0.4563 in this DuckDB and in the oldest supported
one, which round a double's tie differently."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from trickledger.ingest import lake as lakes
from trickledger.ingest.db import reading, writing
from trickledger.ingest.load import expand, ingest
from trickledger.ingest.summaries import refresh

ROOT = Path(__file__).resolve().parents[2]
DOC_QUERIES = re.findall(r"```sql\n(.*?)```", (ROOT / "docs" / "sql.md").read_text(), re.S)


@pytest.fixture(scope="module")
def file_and_lake(tmp_path_factory, module_sample_logs_db) -> tuple[str, str]:
    """Every sample log in a database file (the run's one ingest of them) and in a lake."""
    found, missing = expand([str(ROOT / "sample_logs")])
    assert found and not missing
    lake = str(tmp_path_factory.mktemp("same") / "lake")
    ingest(found, lake=lake, jobs=1, batch_size=50)  # in the batches the file was filled in
    return module_sample_logs_db, lake


@pytest.mark.parametrize("number", range(1, len(DOC_QUERIES) + 1))
def test_docs_sql_answers_are_the_same_on_the_file_and_the_lake(number, file_and_lake):
    db, lake = file_and_lake
    query = DOC_QUERIES[number - 1]
    with reading(db) as con:
        on_file = con.execute(query).fetchall()
    with lakes.reading(lake) as con:
        on_lake = con.execute(query).fetchall()
        again = con.execute(query).fetchall()
    assert on_file == on_lake == again


TIE = """
import json, sys
import duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print(json.dumps(con.execute("SELECT exact_rate, mean_bid_error FROM bid_accuracy "
                             "WHERE player = 'Ann'").fetchone()))
"""


def test_an_exact_tie_rounds_the_same_in_every_reader(tmp_path, oldest_duckdb):  # noqa: F811
    """Ann bids exactly in 73 of 160 rounds: 0.45625, a tie at 4 decimals."""
    db = str(tmp_path / "tie.duckdb")
    with writing(db) as con:
        con.execute("INSERT INTO games (game_id, sha256, file_name, game, variants, "
                    "n_players, status, winners, claims_mismatched) VALUES ('g', 's', "
                    "'g.jsonl', 'rage', [], 2, 'complete', ['Ann'], 0)")
        con.execute("INSERT INTO players VALUES ('g', 0, 'Ann', 10, true), "
                    "('g', 1, 'Bob', 5, false)")
        con.execute("INSERT INTO rounds (game_id, round, dealer, leader) "
                    "SELECT 'g', r, 'Bob', 'Ann' FROM range(1, 161) t(r)")
        # bid_error 0 on 73 rounds, -1 on 87: the mean is -0.54375
        con.execute("INSERT INTO bids (game_id, round, player, bid, won, bid_error, exact, "
                    "score) SELECT 'g', r, 'Ann', 1, CASE WHEN r <= 73 THEN 1 ELSE 0 END, "
                    "CASE WHEN r <= 73 THEN 0 ELSE -1 END, r <= 73, 0 FROM range(1, 161) t(r)")
        refresh(con)  # rows written by hand: the per-game summaries the views read, as ingest makes them
        mine = con.execute("SELECT exact_rate, mean_bid_error FROM bid_accuracy "
                           "WHERE player = 'Ann'").fetchone()
    assert mine == (0.4563, -0.544)
    done = subprocess.run([sys.executable, "-c", TIE, db], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(oldest_duckdb)}, timeout=300)
    assert done.returncode == 0, done.stderr
    assert tuple(json.loads(done.stdout)) == mine
