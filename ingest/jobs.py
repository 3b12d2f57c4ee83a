"""The dashboard's writes, each in a process of its own (`python -m trickledger.ingest.jobs`).

DuckDB lets one process hold a database file either read-write or read-only, not both at
once. If the dashboard wrote in its own process, every page would have to wait behind one
process-wide lock while an upload replays or the ratings are recomputed. Instead a write
runs here, in a child process: the dashboard's pages keep reading (DuckDB's file lock is
taken for the moment of each commit, and a reader retries while it is held), and a slow
upload never blocks another visitor's page.

The protocol is one JSON request on stdin and JSON lines on stdout: `{"progress": [done,
total]}` as it goes, then `{"result": ...}` or `{"error": "..."}`. Uploaded bytes travel as
files in a private temporary folder, not through the pipe.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, fields
from typing import IO, Any

from .batch import Outcome, Source
from .load import Summary

Progress = Callable[[int, int], None]


class JobFailed(RuntimeError):
    """The job ended without a result; the message says why, in one line."""


class JobBusy(JobFailed):
    """The database stayed locked by another writer for longer than the job waits."""


# ------------------------------------------------------------------ in the child


def _emit(out: IO[str], **kw: Any) -> None:
    out.write(json.dumps(kw, default=str) + "\n")
    out.flush()


def _upload(req: dict[str, Any], out: IO[str]) -> dict[str, Any]:
    from .admin import Actor
    from .usecases import ingest_sources

    sources = [Source(name, path=path) for name, path in req["items"]]
    # one audit row per file: into a database file in its batch's own transaction
    run = ingest_sources(sources, db=req.get("db"), lake=req.get("lake"),
                         actor=Actor.of(req.get("who")), action=req.get("action", "upload"),
                         per_log=True, jobs=1,
                         progress=lambda done, total: _emit(out, progress=[done, total]))
    data = {f.name: getattr(run.summary, f.name) for f in fields(Summary)
            if f.name != "results"}
    data["results"] = [asdict(o) for o in run.summary.results]
    return data


def _summaries(req: dict[str, Any], out: IO[str]) -> dict[str, Any]:
    """The per-game summaries of the games a killed or running ingest left without."""
    from . import summaries
    from .db import writing

    started = time.monotonic()
    with writing(req["db"], wait_s=float(req.get("wait_s", 30.0))) as con:
        waited = time.monotonic() - started
        done = summaries.refresh(con)
    return {"summarised": done, "waited": waited}


def _ratings(req: dict[str, Any], out: IO[str]) -> dict[str, Any]:
    from . import ratings, summaries
    from .db import reading, writing

    # a page that asks gives what is left of its one wait (docs/reliability.md, "busy
    # pages"): the waits for the file here share it
    budget = float(req.get("wait_s", 30.0))
    started = time.monotonic()

    def left() -> float:
        return max(0.0, budget - (time.monotonic() - started))

    with reading(req["db"], wait_s=left()) as con:
        stale = summaries.behind(con)  # the ratings read the finishing orders summarised
    if stale:
        with writing(req["db"], wait_s=left()) as con:
            summaries.refresh(con)
    # computed on a read-only connection: the write lock is held only to store
    with reading(req["db"], wait_s=left()) as con:
        waited = time.monotonic() - started
        fp = ratings.fingerprint(con)
        if ratings.stored_fingerprint(con) == fp:
            return {"recomputed": False, "waited": waited}
        rows = ratings.compute(con.execute(ratings.ORDER_SQL).fetchall())
    started = time.monotonic()
    with writing(req["db"], wait_s=max(0.0, budget - waited)) as con:
        waited += time.monotonic() - started
        if ratings.fingerprint(con) == fp:
            ratings.store(con, rows, fp)
        else:  # games arrived meanwhile
            ratings.refresh(con)
    return {"recomputed": True, "waited": waited}


def _estimate(req: dict[str, Any], out: IO[str]) -> dict[str, Any]:
    from .analyse import estimate_hands

    summary = estimate_hands(req["db"], game_ids=req["game_ids"], limit=req["limit"], jobs=1,
                             progress=lambda done, total: _emit(out, progress=[done, total]))
    return {"hands_done": summary.hands_done}


def _remove(req: dict[str, Any], out: IO[str]) -> dict[str, Any]:
    from .admin import Actor, remove

    done = remove(req["db"], req["log"], req["action"], Actor.of(req.get("who")),
                  req.get("reason") or "")
    return {"line": done.line()}


_JOBS = {"upload": _upload, "ratings": _ratings, "estimate": _estimate, "remove": _remove,
         "summaries": _summaries}


def child_main() -> None:
    # the protocol gets a descriptor of its own; anything else printed goes to stderr
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    try:
        req = json.loads(sys.stdin.readline())
        if req.get("owner"):
            from .executors import die_with

            die_with(req["owner"])  # a killed dashboard leaves no job writing behind it
        result = _JOBS[req["job"]](req, out)
        _emit(out, result=result)
    except BaseException as e:  # noqa: BLE001 - the parent gets one line, never a traceback
        from .db import DatabaseBusy
        from .lake import LakeError

        text = (str(e).strip().splitlines() or [type(e).__name__])[0][:400]
        busy = isinstance(e, DatabaseBusy) or (isinstance(e, LakeError) and "busy" in text)
        _emit(out, error=text, busy=busy)


# ------------------------------------------------------------------ in the dashboard


DEADLINE_S = 900.0  # a job that has not answered by then is stopped


def run(job: str, request: dict[str, Any], progress: Progress | None = None,
        files: list[tuple[str, bytes]] | None = None, deadline_s: float = DEADLINE_S) -> Any:
    """Run `job` in a child process and return its result. `files`: (name, bytes) handed
    over as files in a private temporary folder (request["items"] lists them). The child
    is stopped, and its folder removed, whatever happens here (a deadline, the visitor
    leaving the page, an error)."""
    folder = tempfile.mkdtemp(prefix="trickledger-job-")
    proc: subprocess.Popen[str] | None = None
    timer: threading.Timer | None = None
    try:
        if files is not None:
            items = []
            for i, (name, data) in enumerate(files):
                path = os.path.join(folder, f"{i:05d}")
                with open(path, "wb") as f:
                    f.write(data)
                items.append((name, path))
            request = {**request, "items": items}
        proc = subprocess.Popen([sys.executable, "-m", "trickledger.ingest.jobs"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert proc.stdin is not None and proc.stdout is not None
        timer = threading.Timer(deadline_s, proc.kill)
        timer.start()
        proc.stdin.write(json.dumps({**request, "job": job, "owner": os.getpid()}) + "\n")
        proc.stdin.close()
        answer: dict[str, Any] | None = None
        for line in proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if "progress" in msg:
                if progress is not None:
                    progress(*msg["progress"])
            else:
                answer = msg
        proc.wait()
    finally:
        if timer is not None:
            timer.cancel()
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    if answer is None:
        raise JobFailed(f"the {job} stopped without an answer (exit {proc.returncode}"
                        + (f"; stopped after {deadline_s:g} s)" if proc.returncode == -9 else ")"))
    if "error" in answer:
        raise (JobBusy if answer.get("busy") else JobFailed)(answer["error"])
    return answer["result"]


def upload(items: list[tuple[str, bytes]], db: str | None, lake: str | None,
           who: dict[str, Any] | None, action: str = "upload",
           progress: Progress | None = None) -> Summary:
    """Ingest uploaded logs (name, bytes) in a child process, audited as `who`."""
    data = run("upload", {"db": db, "lake": lake, "who": who, "action": action}, progress,
               files=items)
    results = [Outcome(**o) for o in data.pop("results")]
    return Summary(**data, results=results)


if __name__ == "__main__":
    child_main()
