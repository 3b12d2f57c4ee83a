"""The loader's commands: `ingest` and `sql` (composed into `trickledger` by `trickledger`)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from trickledger.terminal import json_text, say, terminal

from .arguments import positive, refuse_database

SHOWN_FILES = 10  # per-file lines an ingest prints before it counts the rest (--show-all)
EXIT_STORAGE = 3  # the file system failed (full, read-only, failing); EXIT_CODES_INGEST
EXIT_INTERRUPTED = 130  # Ctrl-C: 128 + SIGINT, as shells report it

EXIT_CODES_INGEST = (
    "exit status: 0 when every file given was loaded or was loaded before: illegal, "
    "incomplete and disputed logs are loaded too (loading is not checking: they are facts "
    "in the database, and `trickledger verify` judges a log); 1 only with "
    "--fail-on-dispute, when a log loaded has an illegal move or a claim that does not "
    "match; 2 when a file was not loaded (unreadable, an id conflict, quarantined, a path "
    "that names nothing) or the command is misused (a busy or unusable database); "
    f"{EXIT_STORAGE} when the file system failed (full, over its quota, read-only, an "
    f"input/output error): the batches committed before it stay, whole; "
    f"{EXIT_INTERRUPTED} when stopped with Ctrl-C, likewise. After {EXIT_STORAGE} or "
    f"{EXIT_INTERRUPTED}, the same command again loads the rest.")


def cmd_ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from trickledger.ingest.admin import Actor
    from trickledger.ingest.cluster import ClusterError
    from trickledger.ingest.db import DatabaseBusy, NoDatabase, db_path, refuse_special
    from trickledger.ingest.executors import WorkerLost
    from trickledger.ingest.lake import LakeError
    from trickledger.ingest.load import (
        IngestInterrupted,
        StagingRefused,
        StorageFailed,
        file_system_of,
        storage_failure,
    )
    from trickledger.ingest.sources import SourceError
    from trickledger.ingest.usecases import ingest_paths

    if args.lake and args.db:
        print("trickledger ingest: give --db or --lake, not both", file=sys.stderr)
        return 2
    if args.compact and not args.lake:
        print("trickledger ingest: --compact merges a lake's small files: give it with "
              "--lake DIR", file=sys.stderr)
        return 2
    path = None if args.lake else db_path(args.db)
    if path is not None and refuse_database("ingest", path):
        return 2
    try:
        if path is not None:
            refuse_special(path)
    except NoDatabase as e:
        say(f"trickledger ingest: {e}", error=True)
        return 2
    bar: Any = None
    n_sources = 0
    target = args.lake or path or ""

    def close_bar() -> None:
        if bar is not None:
            bar.close()

    def expanded(sources: list[Any], missing: list[tuple[str, str]]) -> None:
        nonlocal bar, n_sources
        n_sources = len(sources)
        for name, msg in missing:
            say(f"{terminal(name)}: {msg}", error=True)
        bar = tqdm(total=len(sources), unit="log", desc="ingest",
                   disable=not sys.stderr.isatty() or len(sources) < 200)

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    def busy(left: float) -> None:
        say(f"{path} is busy (another process writes to it), retrying...", error=True)

    try:  # one audit row per run: the command line is the machine's owner
        run = ingest_paths(args.paths, db=path, lake=args.lake, actor=Actor.command_line(),
                           follow_symlinks=args.follow_symlinks, on_expanded=expanded,
                           jobs=args.jobs, batch_size=args.batch, progress=progress,
                           on_busy=busy, keep_all=False, cluster=args.cluster,
                           compact=args.compact)
    except SourceError as e:
        say(f"trickledger ingest: {terminal(str(e))}", error=True)
        return 2
    except IngestInterrupted as e:
        close_bar()
        done = e.summary.loaded + e.summary.already + e.summary.unreadable + \
            e.summary.conflicts + e.summary.quarantined
        if done >= n_sources:  # pressed while the run closed the database
            say(f"trickledger ingest: interrupted as it finished: all {done:,} logs done "
                f"({_loaded_words(e.summary)}); nothing is left to load", error=True)
        else:
            say(f"trickledger ingest: interrupted: {done:,} of {n_sources:,} logs done "
                f"({_loaded_words(e.summary)}, each batch whole); the same command again "
                f"loads the rest", error=True)
        return EXIT_INTERRUPTED
    except StorageFailed as e:
        close_bar()
        say(f"trickledger ingest: {terminal(str(e))}: {_loaded_words(e.summary)} before it, "
            f"each batch whole; make room there and run the same command again to load the "
            f"rest", error=True)
        return EXIT_STORAGE
    except KeyboardInterrupt:  # before any batch (the files were being listed)
        close_bar()
        say("trickledger ingest: interrupted before anything was loaded", error=True)
        return EXIT_INTERRUPTED
    except (DatabaseBusy, LakeError, ClusterError, WorkerLost, StagingRefused) as e:
        close_bar()
        say(f"trickledger ingest: {terminal(str(e))}", error=True)
        return 2
    except Exception as e:
        close_bar()
        what = storage_failure(e)
        if what is None:
            raise
        say(f"trickledger ingest: the file system at {terminal(file_system_of(target))} "
            f"(which holds {terminal(target)}) is {what}: nothing was loaded; make room "
            f"there and run the same command again", error=True)
        return EXIT_STORAGE
    finally:
        if bar is not None:
            bar.close()
    missing = run.missing
    summary = run.summary
    summary.unreadable += len(missing)  # a path that names nothing is a file not loaded
    _report_files(summary.results, args.show_all)
    say(summary.line())
    say(f"lake: {args.lake}" if args.lake else f"database: {path}")
    if run.audit_problem:
        say(f"trickledger ingest: the run is not in the audit log ({run.audit_problem})",
            error=True)
    if missing or summary.unreadable or summary.conflicts or summary.quarantined:
        return 2
    if args.fail_on_dispute and (summary.illegal or summary.disputed):
        return 1
    return 0


def _loaded_words(summary: Any) -> str:
    """'4,500 logs loaded' (and what was already in) for the line of a stopped run."""
    words = f"{summary.loaded:,} log{'s' if summary.loaded != 1 else ''} loaded"
    if summary.already:
        words += f", {summary.already:,} already loaded"
    return words


def _report_files(outcomes: list[Any], show_all: bool) -> None:
    """One line per log that needs a word — not loaded (unreadable, conflict, quarantined)
    first, then illegal, then disputed — the first SHOWN_FILES of them unless `show_all`,
    and a count of the rest with where to find them all."""
    lines: list[tuple[int, str, str]] = []  # (rank, kind, line)
    for p in outcomes:
        if p.status in ("unreadable", "conflict", "quarantined", "illegal"):
            where = f"{terminal(p.name)}:{p.line}" if p.line else terminal(p.name)
            rank = 1 if p.status == "illegal" else 0
            lines.append((rank, p.status, f"{where}: {p.status}: {terminal(str(p.message))}"))
        if p.disputed and p.status != "already loaded":
            lines.append((2, "disputed", f"{terminal(p.name)}: disputed: {p.disputed} claimed "
                          f"{'score does' if p.disputed == 1 else 'scores do'} not match the "
                          f"replay (trickledger verify {terminal(p.name)})"))
    lines.sort(key=lambda x: x[0])  # stable: input order within a kind
    shown = lines if show_all else lines[:SHOWN_FILES]
    for _, _, line in shown:
        say(line, error=True)
    rest = lines[len(shown):]
    if rest:
        kinds: dict[str, int] = {}
        for _, kind, _ in rest:
            kinds[kind] = kinds.get(kind, 0) + 1
        counted = ", ".join(f"{n:,} {kind}" for kind, n in kinds.items())
        say(f"... and {len(rest):,} more ({counted}): --show-all lists every one; all are in "
            f"the database (games.status and error_line, claims.match, ingest_errors)",
            error=True)


def cmd_compact(args: argparse.Namespace) -> int:
    from trickledger.ingest.lake import LakeError, compact

    try:
        merged = compact(args.lake, min_files=args.min_files)
    except (LakeError, OSError) as e:
        say(f"trickledger compact: {e}", error=True)
        return 2
    if merged:
        say(f"lake: {args.lake}: merged {merged} small files")
    else:
        say(f"lake: {args.lake}: nothing to merge (no partition has {args.min_files} or "
            f"more small files)")
    return 0


def cmd_sql(args: argparse.Namespace) -> int:
    import csv

    from trickledger.ingest.db import DatabaseBusy, NoDatabase, db_path
    from trickledger.ingest.lake import LakeError
    from trickledger.ingest.sql import SqlRefused, query

    if args.lake and args.db:
        print("trickledger sql: give --db or --lake, not both", file=sys.stderr)
        return 2
    from trickledger.ingest.lake import is_lake

    if args.lake and not is_lake(args.lake):
        say(f"trickledger sql: {args.lake}: not a trickledger lake (make one with "
            f"trickledger ingest SOURCE --lake {args.lake})", error=True)
        return 2
    if not args.query.strip():
        print("trickledger sql: no SQL statement given (e.g. trickledger sql "
              "\"SELECT count(*) FROM games\")", file=sys.stderr)
        return 2
    if not args.lake and refuse_database("sql", db_path(args.db), must_exist=True):
        return 2
    try:
        res = query(None if args.lake else db_path(args.db), args.query,
                    max_rows=args.max_rows, timeout_s=args.timeout, lake=args.lake)
    except SqlRefused as e:
        say(f"trickledger sql: {e}", error=True)
        return 1
    except (DatabaseBusy, NoDatabase, LakeError) as e:
        say(f"trickledger sql: {e}", error=True)
        return 2
    if args.format == "json":  # escaped as JSON escapes: \u001b, \u202e, ...
        # row by row, as one indented JSON list: the whole text is never held at once
        sys.stdout.write("[" if res.rows else "[]")
        for i, row in enumerate(res.rows):
            obj = json_text(dict(zip(res.columns, row)))
            sys.stdout.write(("," if i else "") + "\n  " + obj.replace("\n", "\n  "))
        sys.stdout.write("\n]\n" if res.rows else "\n")
    elif args.format == "csv":
        # one newline per row (not csv's CRLF) and SQL's true/false, as DuckDB writes CSV
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow([terminal(c) for c in res.columns])
        w.writerows([[_csv_cell(v) for v in row] for row in res.rows])
    else:
        # a cell wider than TABLE_CELL_CHARS is cut there, so that one long value does not
        # pad every row to its width (CSV and JSON give it whole)
        cells = [[_table_cell(v) for v in row] for row in res.rows]
        columns = [_cut(terminal(c)) for c in res.columns]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
        print("  ".join(c.ljust(w) for c, w in zip(columns, widths)))
        print("  ".join("-" * w for w in widths))
        for r in cells:
            print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
        print(f"({len(res.rows)} row{'s' if len(res.rows) != 1 else ''})")
        if any(len(v) > TABLE_CELL_CHARS for v in (*res.columns, *_strings(res.rows))):
            say(f"trickledger sql: values longer than {TABLE_CELL_CHARS} characters are cut "
                f"in the table (ending in {ELLIPSIS}); --format csv or json shows them whole",
                error=True)
    if res.truncated:
        say(f"trickledger sql: output cut: {res.note or f'at {args.max_rows} rows'}",
            error=True)
    return 0


COMPACT_MIN_FILES = 16  # ingest.lake.COMPACT_MIN_FILES (not imported: the parser stays light)
TABLE_CELL_CHARS = 200  # the widest a column of the table gets
ELLIPSIS = "\u2026"
MAX_ROWS = 10_000  # --max-rows at most: beyond it, write a query that aggregates


def _cut(text: str) -> str:
    return text if len(text) <= TABLE_CELL_CHARS else text[:TABLE_CELL_CHARS - 1] + ELLIPSIS


def _table_cell(v: Any) -> str:
    return _cut(terminal(_cell(v)))


def _strings(rows: list[tuple[Any, ...]]) -> Any:
    """Every cell as the table shows it before it is cut."""
    return (terminal(_cell(v)) for row in rows for v in row)


def _csv_cell(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    return terminal(v) if isinstance(v, str) else v


def _cell(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def cmd_export(args: argparse.Namespace) -> int:
    from trickledger.ingest.backup import BackupError, export
    from trickledger.ingest.db import DatabaseBusy, db_path

    if refuse_database("export", db_path(args.db), must_exist=True):
        return 2
    try:
        report = export(db_path(args.db), args.folder)
    except (BackupError, DatabaseBusy, OSError) as e:
        say(f"trickledger export: {e}", error=True)
        return 2
    say(f"exported {report.line()}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from trickledger.ingest.backup import BackupError, import_
    from trickledger.ingest.db import db_path

    if not os.path.exists(db_path(args.db)) and refuse_database("import", db_path(args.db)):
        return 2
    try:
        report = import_(args.folder, db_path(args.db))
    except (BackupError, OSError) as e:
        say(f"trickledger import: {e}", error=True)
        return 2
    say(f"imported {args.folder} into {db_path(args.db)}: "
        f"{report.line().rsplit(': ', 1)[0]}")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    import duckdb

    from trickledger.ingest.admin import Actor, AdminError, remove
    from trickledger.ingest.db import DatabaseBusy, NoDatabase, db_path, must_exist

    path = db_path(args.db)
    if refuse_database(args.action, path, must_exist=True):
        return 2
    try:
        must_exist(path)
        done = remove(path, args.log, args.action, Actor.command_line(), args.reason or "")
    except (AdminError, DatabaseBusy, NoDatabase, duckdb.Error) as e:
        say(f"trickledger {args.action}: {str(e).splitlines()[0]}", error=True)
        return 2
    say(terminal(done.line()))  # it names the log's file: data
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    import duckdb

    from trickledger.ingest.db import DatabaseBusy, NoDatabase, db_path, must_exist, reading

    path = db_path(args.db)
    if refuse_database("audit", path, must_exist=True):
        return 2
    try:
        must_exist(path)
        with reading(path) as con:
            if not con.execute("SELECT 1 FROM information_schema.tables "
                               "WHERE table_name = 'audit_log'").fetchall():
                say("the audit log is empty (nothing written since this trickledger)")
                return 0
            rows = con.execute(
                "SELECT happened_at, coalesce(actor, '-'), via, coalesce(address, '-'), action, "
                "coalesce(file_name, '-'), coalesce(result, '-') FROM audit_log "
                "ORDER BY happened_at DESC LIMIT ?", [args.limit]).fetchall()
    except (DatabaseBusy, NoDatabase, duckdb.Error) as e:
        say(f"trickledger audit: {str(e).splitlines()[0]}", error=True)
        return 2
    for r in rows:
        # every field is data (a file name may hold a line break): one line per row
        say(f"{r[0]:%Y-%m-%d %H:%M:%S}  {terminal(str(r[4])):<10} {terminal(str(r[1]))} "
            f"({terminal(str(r[2]))}, {terminal(str(r[3]))})  {terminal(str(r[5]))}: "
            f"{terminal(str(r[6]))}")
    if not rows:
        say("the audit log is empty")
    return 0


def row_count(text: str) -> int:
    """An argparse type: --max-rows, a whole number from 1 to MAX_ROWS."""
    value = int(positive(int)(text))
    if value > MAX_ROWS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_ROWS:,}, got {text}")
    return value


def register_commands(sub: Any) -> None:
    """Add this package's subcommands to the `trickledger` parser."""
    i = sub.add_parser("ingest", help="load logs into the DuckDB database or a lake",
                       description="Load logs into the database: each file once (by the "
                                   "SHA-256 of its bytes), one transaction per batch. A log "
                                   "that breaks a rule or whose score sheet disagrees is "
                                   "loaded as what it is (illegal up to its bad move, "
                                   "disputed); the first few such files are named, the "
                                   "rest counted (--show-all names every one).",
                       epilog=EXIT_CODES_INGEST)
    i.add_argument("paths", nargs="+", metavar="SOURCE",
                   help="files, folders, globs, - (standard input), or fsspec URLs "
                        "(s3://bucket/logs, ...)")
    i.add_argument("--follow-symlinks", action="store_true",
                   help="in folders and globs, follow symlinks that lead out of them")
    i.add_argument("--db", default=None, help="database file (default: $TRICKLEDGER_DB or "
                   "trickledger.duckdb)")
    i.add_argument("--lake", default=None, metavar="DIR",
                   help="write a Parquet lake folder (hive-partitioned by game and ingest "
                        "date, with a _manifest) instead of the database file")
    i.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="run the batches on Dask: tcp://HOST:8786 (a scheduler) or local:N "
                        "(N local worker processes); needs the 'cluster' extra")
    i.add_argument("--jobs", type=positive(int), default=None, help="replay processes (default: all cores)")
    i.add_argument("--batch", type=positive(int), default=500,
                   help="logs per batch (one transaction, or one manifest in a lake)")
    i.add_argument("--fail-on-dispute", action="store_true",
                   help="exit 1 when a log loaded has an illegal move or a claimed score "
                        "that does not match the replay (it is loaded all the same)")
    i.add_argument("--show-all", action="store_true",
                   help=f"name every file that is not loaded, illegal or disputed (by "
                        f"default the first {SHOWN_FILES} and a count of the rest)")
    i.add_argument("--compact", action="store_true",
                   help="with --lake: merge the lake's small files when the load is done "
                        "(otherwise that is a step of its own: trickledger compact)")
    i.set_defaults(fn=cmd_ingest)
    c = sub.add_parser("compact", help="merge a lake's small files (a step of its own, "
                                       "off the load path)",
                       description="Merge the small files of every partition of a lake that "
                                   "has N (--min-files) or more of them into one file each. Each "
                                   "partition's files are swapped in one step, so readers "
                                   "(and a plain glob) never see a row twice, even if this "
                                   "is killed; it waits for no one: while an ingest or "
                                   "analysis writes the lake, it refuses.",
                       epilog="exit status: 0 when done (also when nothing needed merging); "
                              "2 when DIR is not a lake or another process is writing it")
    c.add_argument("--lake", required=True, metavar="DIR", help="the lake folder")
    c.add_argument("--min-files", type=positive(int), default=COMPACT_MIN_FILES, metavar="N",
                   help=f"merge a partition once it has this many small files "
                        f"(default {COMPACT_MIN_FILES})")
    c.set_defaults(fn=cmd_compact)
    q = sub.add_parser("sql", help="run one read-only SQL query on the database",
                       description="Run one read-only query (SELECT, a read-only PRAGMA, "
                                   "EXPLAIN) on the database or a lake and print its rows; "
                                   "NULL shows as NULL in the table, empty in CSV, null in "
                                   "JSON.",
                       epilog="exit status: 0 when the query ran; 1 when it failed or was "
                              "refused (an error from DuckDB, a statement that writes, the "
                              "time limit); 2 when the command is misused (no SQL, no such "
                              "database, a busy one)")
    q.add_argument("query", metavar="SQL")
    q.add_argument("--db", default=None, help="database file (must exist)")
    q.add_argument("--lake", default=None, metavar="DIR",
                   help="query a lake folder made by ingest --lake instead")
    q.add_argument("--format", choices=("table", "csv", "json"), default="table")
    q.add_argument("--max-rows", type=row_count, default=1000,
                   help=f"rows shown at most (default 1000, at most {MAX_ROWS:,})")
    q.add_argument("--timeout", type=positive(float), default=10.0,
                   help="seconds the query may run before its process is stopped (default 10; "
                        "counted once the worker has started)")
    q.set_defaults(fn=cmd_sql)


    from trickledger.ingest.analyse import add_command  # `trickledger analyse` (issue 18)

    add_command(sub)
    from trickledger.ingest.recordings import add_command as add_recordings  # (issue 34)

    add_recordings(sub)
    e = sub.add_parser("export", help="back up the database: one Parquet file per table",
                       description="Write every table of the database to FOLDER (new or "
                                   "empty) as zstd Parquet, with manifest.json: the schema "
                                   "version and each table's row count and checksum.")
    e.add_argument("folder", metavar="FOLDER")
    e.add_argument("--db", default=None, help="database file (must exist)")
    e.set_defaults(fn=cmd_export)
    m = sub.add_parser("import", help="restore an export into a new database file",
                       description="Check FOLDER (an export) against its manifest and load "
                                   "it into a new database file in one transaction; the "
                                   "counts and checksums are checked again before it "
                                   "commits.")
    m.add_argument("folder", metavar="FOLDER")
    m.add_argument("--db", default=None, help="the new database file (must not exist)")
    m.set_defaults(fn=cmd_import)
    for action, words in (("quarantine", "take a log's facts out, keep its text, refuse its "
                                         "bytes if uploaded again"),
                          ("delete", "take a log and its facts out altogether")):
        r = sub.add_parser(action, help=words, description=words.capitalize() + ", in one "
                           "transaction with its audit row (docs/reliability.md).")
        r.add_argument("log", metavar="LOG", help="the log's SHA-256 (or its first 8 or more "
                                                 "characters) or its game id, as "
                                                 "`trickledger sql` or the Admin page show "
                                                 "them; not a file name")
        r.add_argument("--reason", default=None, help="why (kept in the audit log)")
        r.add_argument("--db", default=None, help="database file (must exist)")
        r.set_defaults(fn=cmd_remove, action=action)
    a = sub.add_parser("audit", help="who wrote what: the newest rows of the audit log")
    a.add_argument("--limit", type=positive(int), default=50)
    a.add_argument("--db", default=None, help="database file (must exist)")
    a.set_defaults(fn=cmd_audit)
