"""The Admin page's data: the audit log, the logs a SHA-256 or game id names, and taking a
log out (quarantine or delete, in a child process)."""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import pandas as pd

from trickledger.ingest import admin, jobs

from .access import database, query, reading, write_job


def can_take_out() -> bool:
    """Whether logs can be taken out here: from a database file, not from a lake (its
    committed files are never rewritten, docs/reliability.md)."""
    return database().kind != "lake"


def audit_rows(limit: int = 500) -> pd.DataFrame:
    """The newest rows of the audit log (a lake's from its `_audit.jsonl`)."""
    store = database()
    if store.kind == "lake":  # a lake keeps its audit as JSON lines beside its tables
        path = Path(store.path) / "_audit.jsonl"
        if not path.exists():
            return pd.DataFrame()
        frame = pd.read_json(path, lines=True, dtype=False)
        return frame.sort_values("happened_at", ascending=False).head(limit)
    if not query("SELECT 1 FROM information_schema.tables WHERE table_name = 'audit_log'",
                 ()).shape[0]:
        return pd.DataFrame()  # a database not written to since version 4: nothing yet
    return query("SELECT happened_at, actor, via, address, action, file_name, result, detail, "
                 "game_id, sha256 FROM audit_log ORDER BY happened_at DESC LIMIT ?", (limit,))


def find_logs(wanted: str) -> pd.DataFrame:
    """The logs a SHA-256 (or its first 8+ characters) or a game id names, the oldest 20
    (ingest.admin.find_logs, the lookup a quarantine or delete makes). Not cached: a log
    an admin has just taken out must not show as it was."""
    found = reading(lambda con: admin.find_logs(con, wanted, limit=20))
    return pd.DataFrame([asdict(log) for log in found],
                        columns=[f.name for f in fields(admin.FoundLog)])


def remove_log(sha256: str, action: str, who: dict[str, Any], reason: str) -> str:
    """Quarantine or delete a log and its facts (one transaction, audited) in a child
    process; returns what was done, in words."""
    with write_job():
        result = jobs.run("remove", {"db": database().path, "log": sha256, "action": action,
                                     "who": who, "reason": reason})
    query.clear()
    return str(result["line"])
