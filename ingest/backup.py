"""Backup and restore: `trickledger export DIR` and `trickledger import DIR`.

An export is a folder holding one Parquet file per table (zstd) and `manifest.json`:
the schema version, and per table its row count and an order-independent checksum of
its rows. An import checks every file against the manifest, creates the database at
that schema version (migrating it forward if this trickledger is newer), loads every
table in one transaction and checks the counts and checksums again, so a restored
database is the exported one, row for row — or nothing is written.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

import duckdb

from . import schema
from .analytics import DERIVED_TABLES
from .db import STORAGE, open_db, owner_of, owner_tag, process_gone, remove_tree
from .transactions import transaction

MANIFEST = "manifest.json"
FORMAT = "trickledger-export/1"


class BackupError(RuntimeError):
    """An export or import that cannot be done; the message says why."""


def tables() -> dict[str, list[tuple[str, str]]]:
    """Every stored table: the facts, the derived analyses, the audit log, the version."""
    out: dict[str, list[tuple[str, str]]] = {}
    out.update(schema.TABLES)
    out.update(DERIVED_TABLES)
    out.update(schema.ADMIN_TABLES)
    return out


def checksum(con: duckdb.DuckDBPyConnection, relation: str) -> tuple[int, str]:
    """Rows and an order-independent checksum of a table or a Parquet file's rows."""
    row = con.execute(f"SELECT count(*), coalesce(CAST(bit_xor(hash(t)) AS VARCHAR), '0') "
                      f"FROM {relation} t").fetchone()
    assert row is not None
    return int(row[0]), str(row[1])


@dataclass
class Report:
    folder: str
    version: int
    rows: dict[str, int]

    def line(self) -> str:
        total = sum(self.rows.values())
        return (f"{len(self.rows)} tables, {total:,} rows, schema version {self.version}: "
                f"{self.folder}")


def export(db: str, folder: str) -> Report:
    """Write every table of `db` to `folder` (which must be empty or new)."""
    if not os.path.exists(db):
        raise BackupError(f"{db}: no such database file")
    out = Path(folder)
    if out.exists() and any(out.iterdir()):
        raise BackupError(f"{folder} is not empty: export into a new or empty folder")
    out.mkdir(parents=True, exist_ok=True)
    con = open_db(db, read_only=True, sandbox=False)
    try:
        version_row = con.execute("SELECT max(version) FROM schema_version").fetchone()
        version = int(version_row[0]) if version_row and version_row[0] is not None else 0
        present = {r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
        ).fetchall()}
        listed: dict[str, dict[str, object]] = {}
        counts: dict[str, int] = {}
        for name in [*tables(), "schema_version"]:
            if name not in present:
                continue
            target = out / f"{name}.parquet"
            con.execute(f"COPY (SELECT * FROM {name}) TO '{_literal(target)}' "
                        f"(FORMAT parquet, COMPRESSION zstd)")
            rows, digest = checksum(con, name)
            listed[name] = {"rows": rows, "checksum": digest}
            counts[name] = rows
        manifest = {"format": FORMAT, "schema_version": version, "tables": listed}
        (out / MANIFEST).write_text(json.dumps(manifest, indent=2))
    finally:
        con.close()
    return Report(folder, version, counts)


def _literal(path: Path) -> str:
    """A path inside a SQL string literal (the COPY target cannot be a parameter)."""
    return str(path).replace("'", "''")


def import_(folder: str, db: str) -> Report:
    """Restore `folder` (an export) into the new database file `db`."""
    src = Path(folder)
    try:
        manifest = json.loads((src / MANIFEST).read_text())
    except (OSError, ValueError) as e:
        raise BackupError(f"{folder} holds no readable {MANIFEST} ({e})") from None
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{folder}: not a trickledger export ({MANIFEST} says "
                          f"{manifest.get('format')!r})")
    try:
        version = int(manifest["schema_version"])
        assert isinstance(manifest["tables"], dict)
    except (KeyError, TypeError, ValueError, AssertionError):
        raise BackupError(f"{folder}/{MANIFEST} lacks its schema version or table list "
                          f"(damaged?)") from None
    if version != schema.SCHEMA_VERSION:
        raise BackupError(f"the export has schema version {version}, this trickledger "
                          f"{schema.SCHEMA_VERSION}: import it with the trickledger that "
                          f"exported it (a database file migrates when a newer trickledger "
                          f"opens it; export again after that)")
    if os.path.lexists(db):
        raise BackupError(f"{db} exists: import into a new database file")
    # Built under a name of its own and put in place only when whole: a killed import
    # leaves no file at `db` (which would make a retry refuse), only its work folder, which
    # the next import into the same folder removes. The work file is in a folder made for
    # this import alone (mode 0700, a name nobody can take first), never at a name in the
    # database's folder, where anyone who may write there could have put a link to
    # anywhere under the name this process would use.
    folder, name = os.path.split(os.path.abspath(db))
    _remove_stale_work(folder, name)
    work_folder = tempfile.mkdtemp(prefix=f".{name}{_WORK}{owner_tag()}-", dir=folder)
    work = os.path.join(work_folder, name)
    try:
        report = _build(src, work, manifest, version)
        _publish(work, db)
    finally:
        _remove_entry(folder, os.path.basename(work_folder))
    return Report(db, report.version, report.rows)


_WORK = ".importing-"


def _remove_entry(folder: str, entry: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        remove_tree(entry, fd)
    finally:
        os.close(fd)


def _remove_stale_work(folder: str, name: str) -> None:
    """The work folders of imports into `folder/name` that were killed (their process is
    gone, or its id is another process's now), and an older trickledger's work files
    (`.NAME.importing-PID`, `-PID.wal`) whose process is gone. Any other entry under that
    prefix (a name with other digits, a link, a number beyond any process id) is not an
    import's and is left alone."""
    prefix = f".{name}{_WORK}"
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for entry in entries:
        if not entry.startswith(prefix):
            continue
        rest = entry[len(prefix):]
        owner = owner_of(rest)
        if owner is not None:
            if process_gone(*owner):
                _remove_entry(folder, entry)
            continue
        pid_text = rest.removesuffix(".wal")
        if not (pid_text.isascii() and pid_text.isdigit() and len(pid_text) <= 7):
            continue
        try:
            os.kill(int(pid_text), 0)
            continue  # an import under way
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError, ValueError):
            continue  # alive, another user's; or no process id
        path = os.path.join(folder, entry)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
        except OSError:
            pass


def _publish(work: str, db: str) -> None:
    """Put the finished work file at `db`, unless something appeared there meanwhile."""
    try:
        os.link(work, db)  # fails if `db` exists: never overwrites
    except FileExistsError:
        raise BackupError(f"{db} appeared while importing: import into a new database "
                          f"file") from None
    except OSError:  # a file system without hard links
        if os.path.lexists(db):
            raise BackupError(f"{db} appeared while importing: import into a new database "
                              f"file") from None
        os.rename(work, db)


def _build(src: Path, db: str, manifest: dict[str, object], version: int) -> Report:
    """Load the export into the new file `db` in one transaction, checked twice."""
    listed = manifest["tables"]
    assert isinstance(listed, dict)
    known = tables()
    con = duckdb.connect(db, config=STORAGE)  # readable by older DuckDBs too
    try:
        for name, expect in listed.items():
            if name not in known and name != "schema_version":
                raise BackupError(f"the export holds a table {name!r} this trickledger does "
                                  f"not know")
            path = src / f"{name}.parquet"
            if not path.exists():
                raise BackupError(f"{path}: missing (the manifest lists it)")
            try:
                got = checksum(con, f"read_parquet('{_literal(path)}')")
            except duckdb.Error as e:
                raise BackupError(f"{path}: not a readable Parquet file ({e})") from None
            if got != (expect["rows"], expect["checksum"]):
                raise BackupError(f"{path}: its rows differ from the manifest (damaged?)")
        with transaction(con):
            con.execute("CREATE TABLE schema_version (version INTEGER, applied_at TIMESTAMP)")
            for name, cols in known.items():  # the schema of this version, which the export has
                body = ", ".join(f'"{c}" {t}' for c, t in cols)
                con.execute(f"CREATE TABLE {name} ({body})")
            for name in listed:
                path = src / f"{name}.parquet"
                con.execute(f"INSERT INTO {name} BY NAME SELECT * FROM "
                            f"read_parquet('{_literal(path)}')")
            for name, expect in listed.items():
                if checksum(con, name) != (expect["rows"], expect["checksum"]):
                    raise BackupError(f"table {name}: the restored rows differ from the export")
    except BaseException as e:
        con.close()
        for leftover in (db, db + ".wal"):
            if os.path.exists(leftover):
                os.unlink(leftover)
        if isinstance(e, duckdb.Error):  # a file the manifest vouched for, yet unreadable
            raise BackupError(f"the import failed and nothing was written: "
                              f"{str(e).splitlines()[0]}") from None
        raise
    con.close()
    # views, macros and migrations to this trickledger's version
    setup = open_db(db, read_only=False)
    try:
        schema.create(setup)
    finally:
        setup.close()
    return Report(db, version, {n: int(str(e["rows"])) for n, e in listed.items()})
