"""A/B of a log's way through a load worker (issue 32): the SHA-256 and the decompression
done once per log, and the winners read without building the verdict, against the way it
was (hash, replay that hashes and decompresses again, decompress once more for the stored
text, a whole verdict for its winners). Both ways run here on the same logs, plain and
gzip, in interleaved rounds; the ratio new/old of the medians is the figure.

    python -m bench.load_once [--rounds 7]

It times the per-log work a worker does before its rows are written (ingest.batch); the
DuckDB inserts and commits, which bound a whole load (docs/performance.md), are not in it.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import statistics
import time
from pathlib import Path

from trickledger.ingest.rows import decode_text
from trickledger.replay.engine import replay_bytes, replay_bytes_text, verdict, winners

CORPUS = Path(__file__).resolve().parents[1] / "sample_logs" / "corpus"


def old_way(logs: list[tuple[str, bytes]]) -> int:
    n = 0
    for name, data in logs:
        hashlib.sha256(data).hexdigest()
        r = replay_bytes(data, name)
        decode_text(data)
        if r.state is not None:
            n += len(verdict(r)["winners"])
    return n


def new_way(logs: list[tuple[str, bytes]]) -> int:
    n = 0
    for name, data in logs:
        sha = hashlib.sha256(data).hexdigest()
        r, text = replay_bytes_text(data, name, sha256=sha)
        decode_text(data, text)
        if r.state is not None:
            n += len(winners(r))
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    plain = [(p.name, p.read_bytes()) for p in sorted(CORPUS.rglob("*.jsonl"))]
    zipped = [(name + ".gz", gzip.compress(data, mtime=0)) for name, data in plain]
    print(f"{len(plain)} logs, plain and gzip; load average {os.getloadavg()[0]:.1f}")
    for label, logs in (("plain", plain), ("gzip", zipped)):
        assert old_way(logs) == new_way(logs)  # the same winners
        times: dict[str, list[float]] = {"old": [], "new": []}
        for i in range(args.rounds):
            for way, fn in ((("old", old_way), ("new", new_way)) if i % 2 == 0
                            else (("new", new_way), ("old", old_way))):
                t0 = time.perf_counter()
                fn(logs)
                times[way].append(time.perf_counter() - t0)
        old, new = statistics.median(times["old"]), statistics.median(times["new"])
        print(f"{label}: old {old * 1e3:.0f} ms, new {new * 1e3:.0f} ms, new/old {new / old:.3f}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
