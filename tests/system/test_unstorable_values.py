"""One bad value never takes its batch down: a log whose rows cannot be written (a claim
of 20 digits in a 32-bit column) is recorded with its reason, the rest of its batch is
loaded — into a database file, a lake, and through the dashboard's upload job."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import rows

from trickledger.ingest import jobs
from trickledger.ingest import lake as lakes
from trickledger.ingest.load import Source, ingest

ROOT = Path(__file__).resolve().parents[2]
GOOD = sorted((ROOT / "sample_logs" / "corpus" / "plotters").glob("*.jsonl"))[:5]
SAMPLE = ROOT / "sample_logs" / "plotters" / "plotters-5p-claims.jsonl"
HUGE = 123456789012345678901234
HUGE_LINE = len(SAMPLE.read_bytes().splitlines()) + 1


def huge_claim() -> bytes:
    return SAMPLE.read_bytes() + b'{"type":"claim","totals":{"Yan":%d}}\n' % HUGE


def sources() -> list[Source]:
    good = [Source(p.name, data=p.read_bytes()) for p in GOOD]
    return good[:2] + [Source("huge.jsonl", data=huge_claim())] + good[2:]


def check_reason(line: int | None, message: str) -> None:
    assert line == HUGE_LINE and "claimed" in message and str(HUGE) in message, message


@pytest.mark.parametrize("jobs_n", [1, 2])
def test_a_value_the_database_cannot_hold_costs_only_its_own_log(tmp_path, jobs_n):
    db = str(tmp_path / "t.duckdb")
    summary = ingest(sources(), db, jobs=jobs_n)
    assert summary.loaded == len(GOOD) and summary.unreadable == 1
    bad = [o for o in summary.results if o.name == "huge.jsonl"]
    assert bad[0].status == "unreadable"
    check_reason(bad[0].line, bad[0].message or "")
    assert rows(db, "SELECT count(*) FROM games") == [(len(GOOD),)]
    assert rows(db, "SELECT count(*) FROM claims WHERE claimed > 2147483000") == [(0,)]
    errors = rows(db, "SELECT file_name, status, line, message FROM ingest_errors")
    assert [e[:2] for e in errors] == [("huge.jsonl", "unreadable")]
    check_reason(*errors[0][2:])
    assert rows(db, "SELECT status, error_line FROM logs WHERE file_name = 'huge.jsonl'") == \
        [("unreadable", HUGE_LINE)]
    again = ingest(sources(), db, jobs=1)  # recorded once: not tried again, not counted twice
    assert again.already == len(GOOD) and again.unreadable == 1
    assert rows(db, "SELECT count(*) FROM ingest_errors") == [(1,)]


def test_a_value_the_lake_cannot_hold_costs_only_its_own_log(tmp_path):
    lake = str(tmp_path / "lake")
    summary = ingest(sources(), lake=lake, jobs=1)
    assert summary.loaded == len(GOOD) and summary.unreadable == 1
    with lakes.reading(lake) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (len(GOOD),)
        errors = con.execute("SELECT file_name, status, line, message FROM ingest_errors"
                             ).fetchall()
    assert [e[:2] for e in errors] == [("huge.jsonl", "unreadable")]
    check_reason(*errors[0][2:])


def test_an_upload_with_a_value_the_database_cannot_hold_loads_the_rest_and_audits_all(
        tmp_path):
    db = str(tmp_path / "t.duckdb")
    items = [(p.name, p.read_bytes()) for p in GOOD] + [("huge.jsonl", huge_claim())]
    summary = jobs.upload(items, db, None, {"user": "ann", "via": "password",
                                            "address": "10.0.0.7"})
    assert summary.loaded == len(GOOD) and summary.unreadable == 1
    audit = rows(db, "SELECT file_name, result FROM audit_log WHERE action = 'upload' "
                     "ORDER BY file_name")
    want = {o.name: o.status for o in summary.results}
    assert len(audit) == len(GOOD) + 1 and dict(audit) == want
    assert want["huge.jsonl"] == "unreadable"


def _with_huge(where: str) -> bytes:
    """The sample log with a number beyond 64 bits put `where`."""
    first, rest = SAMPLE.read_bytes().split(b"\n", 1)
    put = {"meta": b'"huge":%d' % HUGE,
           "meta, nested and negative": b'"notes":[{"x":-%d}]' % HUGE,
           "meta, beyond 128 bits": b'"huge":%d' % HUGE ** 2}.get(where)
    if put is None:
        assert where == "the claim line"
        return huge_claim()
    return first.replace(b'"meta":{', b'"meta":{' + put + b",") + b"\n" + rest


@pytest.mark.parametrize("where", ["meta", "meta, nested and negative", "meta, beyond 128 bits",
                                   "the claim line"])
def test_verify_and_ingest_agree_on_a_number_beyond_64_bits(tmp_path, where, capsys):
    """FORMAT.md: `meta` is any object, kept and never interpreted, and an integer is an
    integer whatever its size. `verify` and `ingest` give the log the same verdict; where
    the database cannot hold a value (a claim), ingest's refusal names its line and value."""
    import json

    from trickledger import main
    from trickledger.replay.engine import replay_bytes, verdict

    log = tmp_path / "huge.jsonl"
    log.write_bytes(_with_huge(where))
    v = verdict(replay_bytes(log.read_bytes(), log.name))
    db = str(tmp_path / "t.duckdb")
    main(["ingest", str(log), "--db", db])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err, err
    (status, line, message), = rows(db, "SELECT status, error_line, error_message FROM logs")
    if status == "unreadable":  # the database cannot hold the value: its line and the value
        assert where == "the claim line"
        check_reason(line, message)
        return
    assert status == v["status"] and line is None and v["error"] is None, (status, message)
    given = json.loads(log.read_bytes().split(b"\n", 1)[0])["meta"]
    (meta,), = rows(db, "SELECT meta FROM games")
    assert json.loads(meta) == given  # kept, every integer exactly
    assert main(["sheet-of", str(log)]) == 0  # the sheet keeps it exactly too
    sheet_head = json.loads(capsys.readouterr().out.split("\n", 1)[0])
    assert sheet_head["meta"] == {**given, "sheet_of": v["sha256"]}
