"""A log on the load path is hashed once and decompressed once (issue 32): the worker's
SHA-256 serves the replay, the replay's text is the one stored."""

from __future__ import annotations

import gzip
import hashlib
import zlib
from pathlib import Path

from trickledger.ingest.batch import Source, Task, run_batch

RAGE = Path(__file__).resolve().parents[2] / "sample_logs" / "rage" / "rage-5p-hidden-bid.jsonl"


def test_a_gzip_log_is_hashed_and_decompressed_once(tmp_path, monkeypatch):
    data = gzip.compress(RAGE.read_bytes(), mtime=0)
    log = tmp_path / "rage.jsonl.gz"
    log.write_bytes(data)
    hashed: list[bytes] = []
    inflaters: list[object] = []
    real_sha, real_inflater = hashlib.sha256, zlib.decompressobj

    def sha256(b: bytes = b"", **kw: object) -> object:
        hashed.append(bytes(b))
        return real_sha(b, **kw)  # type: ignore[arg-type]

    def decompressobj(*a: object, **kw: object) -> object:
        d = real_inflater(*a, **kw)  # type: ignore[arg-type]
        inflaters.append(d)
        return d

    monkeypatch.setattr(hashlib, "sha256", sha256)
    monkeypatch.setattr(zlib, "decompressobj", decompressobj)
    done = run_batch(Task(0, (Source("rage.jsonl.gz", path=str(log)),), str(tmp_path), "2026-01-01"))
    (outcome,) = done.outcomes
    assert outcome.status == "complete" and outcome.sha256 == real_sha(data).hexdigest()
    assert hashed.count(data) == 1  # (the Parquet files written are hashed too: not the log)
    assert len(inflaters) == 1  # one gzip member, inflated once
