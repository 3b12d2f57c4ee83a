"""The `trickledger` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

import orjson

from .engine import Replay, exit_status, replay_path, verdict


def _score_table(r: Replay) -> list[str]:
    st = r.state
    if st is None or not st.rounds:
        return []
    players = st.players
    width = max(6, max(len(p) for p in players) + 1)
    head = " " * width + "".join(f"{'R' + str(rs.round):>6}" for rs in st.rounds) + f"{'total':>7}"
    lines = [head]
    for p in players:
        row = f"{p:<{width}}" + "".join(f"{rs.scores[p]:>6}" for rs in st.rounds)
        lines.append(row + f"{st.totals[p]:>7}")
    return lines


def human_report(r: Replay) -> str:
    v = verdict(r)
    out: list[str] = []
    if r.status == "unreadable":
        out.append(f"{r.error}")
        out.append(f"{r.file}: unreadable")
        return "\n".join(out)
    st = r.state
    assert st is not None and r.header is not None
    desc = f"{r.header.game}, {st.n} players, {len(st.rounds)} of {st.rounds_total} rounds"
    out.append(f"{r.file}: {r.status} ({desc})")
    if r.error is not None:
        out.append(f"{r.error}")
    out.extend("  " + line for line in _score_table(r))
    if v["winners"]:
        out.append("  winner" + ("s" if len(v["winners"]) > 1 else "") + ": "
                   + ", ".join(v["winners"]))
    if st.claims:
        bad = [c for c in st.claims if not c.match]
        out.append(f"  claims: {len(st.claims)} checked, "
                   + (f"{len(bad)} {'does' if len(bad) == 1 else 'do'} not match:" if bad else "all match"))
        for c in bad:
            what = f"round {c.round}" if c.round is not None else "totals"
            out.append(f"    {c.player} {what}: {c.derivation}, sheet says {c.claimed}"
                       f" (line {c.line})")
    return "\n".join(out)


def cmd_verify(args: argparse.Namespace) -> int:
    worst = 0
    results: list[dict[str, Any]] = []
    for i, f in enumerate(args.files):
        r = replay_path(f)
        worst = max(worst, exit_status(r))
        if args.json:
            results.append(verdict(r))
        else:
            if i:
                print()
            print(human_report(r))
    if args.json:
        payload = results[0] if len(results) == 1 else results
        sys.stdout.write(orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n")
    return worst


def cmd_replay(args: argparse.Namespace) -> int:
    r = replay_path(args.file)
    if r.state is None:
        print(f"{r.error}", file=sys.stderr)
        return 2
    h = r.header
    assert h is not None
    print(f"{r.file}: {h.game}, players {', '.join(h.players)}"
          + (f", edition {h.edition}" if h.edition else "")
          + (f", variants {', '.join(sorted(h.variants))}" if h.variants else ""))
    for line in r.state.render():
        print(line)
    if r.error is not None:
        print(f"ILLEGAL: {r.error}")
    print(f"status: {r.status}")
    for line in _score_table(r):
        print("  " + line)
    return exit_status(r)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="trickledger",
                                description="Replay card-game logs and settle the scores.")
    sub = p.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="check logs and print their verdicts")
    v.add_argument("files", nargs="+", metavar="FILE")
    v.add_argument("--json", action="store_true", help="print the verdict as JSON")
    v.set_defaults(fn=cmd_verify)
    r = sub.add_parser("replay", help="print a game trick by trick")
    r.add_argument("file", metavar="FILE")
    r.set_defaults(fn=cmd_replay)
    _simulate_parser(sub)
    _ingest_parsers(sub)
    d = sub.add_parser("dashboard", help="start the Streamlit dashboard")
    d.add_argument("--db", default=None)
    d.add_argument("--port", type=int, default=8501)
    d.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default: this machine only)")
    d.add_argument("--no-samples", action="store_true",
                   help="do not load sample_logs/ into an empty database")
    d.set_defaults(fn=cmd_dashboard)
    b = sub.add_parser("bench", help="run the benchmark (same as python -m bench)",
                       add_help=False)
    b.add_argument("rest", nargs=argparse.REMAINDER)
    b.set_defaults(fn=cmd_bench)
    return p


def cmd_bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.run import main as bench_main

    return bench_main(args.rest)


def streamlit_command(address: str, port: int) -> list[str]:
    """How the dashboard is served: on `address` only, XSRF protection on, uploads capped."""
    from pathlib import Path

    app = Path(__file__).resolve().parent.parent / "dashboard" / "app.py"
    return [sys.executable, "-m", "streamlit", "run", str(app),
            "--server.address", address, "--server.port", str(port),
            "--server.headless", "true", "--server.enableXsrfProtection", "true",
            "--server.enableCORS", "true", "--server.maxUploadSize", "50",
            "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
            "--theme.base", "light"]


def cmd_dashboard(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from ingest.db import db_path, is_empty
    from ingest.load import expand, ingest

    root = Path(__file__).resolve().parent.parent
    path = os.path.abspath(db_path(args.db))
    if not args.no_samples:
        samples = root / "sample_logs"
        if samples.is_dir() and is_empty(path):
            sources, _ = expand([str(samples)])
            print(f"{path} is empty: loading {len(sources)} sample logs...", flush=True)
            print(ingest(sources, path).line(), flush=True)
    env = dict(os.environ, TRICKLEDGER_DB=path)
    cmd = streamlit_command(args.address, args.port)
    print(f"dashboard on http://{args.address}:{args.port} (database {path})", flush=True)
    # become the server: signals sent to `trickledger dashboard` (Ctrl-C, a supervisor's
    # SIGTERM) reach Streamlit itself instead of orphaning a child process
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


def _ingest_parsers(sub: Any) -> None:
    i = sub.add_parser("ingest", help="load logs into the DuckDB database")
    i.add_argument("paths", nargs="+", metavar="PATH", help="files, folders or globs")
    i.add_argument("--db", default=None, help="database file (default: $TRICKLEDGER_DB or "
                   "trickledger.duckdb)")
    i.add_argument("--jobs", type=int, default=None, help="replay processes (default: all cores)")
    i.add_argument("--batch", type=int, default=500, help="logs per transaction")
    i.set_defaults(fn=cmd_ingest)
    q = sub.add_parser("sql", help="run one read-only SQL query on the database")
    q.add_argument("query", metavar="SQL")
    q.add_argument("--db", default=None)
    q.add_argument("--format", choices=("table", "csv", "json"), default="table")
    q.add_argument("--max-rows", type=int, default=1000)
    q.add_argument("--timeout", type=float, default=10.0, help="seconds before the query is "
                   "stopped")
    q.set_defaults(fn=cmd_sql)


def cmd_ingest(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ingest.db import DatabaseBusy, db_path
    from ingest.load import expand, ingest, record_missing

    path = db_path(args.db)
    sources, missing = expand(args.paths)
    for name, msg in missing:
        print(f"{name}: {msg}", file=sys.stderr)
    bar = tqdm(total=len(sources), unit="log", desc="ingest",
               disable=not sys.stderr.isatty() or len(sources) < 200)

    def progress(done: int, total: int) -> None:
        bar.update(done - bar.n)

    def busy(left: float) -> None:
        print(f"{path} is busy (another process writes to it), retrying...", file=sys.stderr)

    try:
        record_missing(missing, path)
        summary = ingest(sources, path, jobs=args.jobs, batch_size=args.batch,
                         progress=progress, on_busy=busy, keep_all=False)
    except DatabaseBusy as e:
        print(f"trickledger ingest: {e}", file=sys.stderr)
        return 2
    finally:
        bar.close()
    for p in summary.results:
        if p.status in ("illegal", "unreadable", "conflict"):
            where = f"{p.name}:{p.line}" if p.line else p.name
            print(f"{where}: {p.status}: {p.message}")
    print(summary.line())
    print(f"database: {path}")
    return 1 if missing or summary.unreadable or summary.conflicts else 0


def cmd_sql(args: argparse.Namespace) -> int:
    import csv

    from ingest.db import DatabaseBusy, db_path
    from ingest.sql import SqlRefused, query

    try:
        res = query(db_path(args.db), args.query, max_rows=args.max_rows,
                    timeout_s=args.timeout)
    except SqlRefused as e:
        print(f"trickledger sql: {e}", file=sys.stderr)
        return 1
    except DatabaseBusy as e:
        print(f"trickledger sql: {e}", file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.write(orjson.dumps(res.as_dicts(), default=str,
                                      option=orjson.OPT_INDENT_2).decode() + "\n")
    elif args.format == "csv":
        w = csv.writer(sys.stdout)
        w.writerow(res.columns)
        w.writerows(res.rows)
    else:
        cells = [[_cell(v) for v in row] for row in res.rows]
        widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(res.columns)]
        print("  ".join(c.ljust(w) for c, w in zip(res.columns, widths)))
        print("  ".join("-" * w for w in widths))
        for r in cells:
            print("  ".join(v.ljust(w) for v, w in zip(r, widths)))
        print(f"({len(res.rows)} row{'s' if len(res.rows) != 1 else ''})")
    if res.truncated:
        print(f"trickledger sql: output cut at {args.max_rows} rows", file=sys.stderr)
    return 0


def _cell(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def _players_range(text: str) -> tuple[int, int]:
    try:
        if "-" in text:
            a, b = text.split("-", 1)
            lo, hi = int(a), int(b)
        else:
            lo = hi = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected K or K1-K2, got {text!r}") from None
    if lo > hi:
        raise argparse.ArgumentTypeError(f"empty range {text!r}")
    return lo, hi


def _fraction(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction 0-1, got {text!r}") from None
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"expected a fraction 0-1, got {text!r}")
    return v


def _simulate_parser(sub: Any) -> None:
    s = sub.add_parser("simulate", help="bots play seeded games and write legal logs")
    s.add_argument("--game", required=True, help="plotters, rage, color_stacks, under_the_radar")
    s.add_argument("--games", type=int, required=True, help="how many games")
    s.add_argument("--players", type=_players_range, default=None,
                   help="players per game: K or K1-K2 (default: every count the game allows)")
    s.add_argument("--bots", default="greedy", help="comma list of bots by seat, cycled "
                   "(greedy, random); default greedy")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--variants", default="",
                   help="comma list of variants for every game, or 'random' for a random "
                        "subset per game")
    s.add_argument("--edition", default=None, help="plotters edition, or 'mixed'")
    s.add_argument("--rounds", type=int, default=None, help="header rounds (shorter games)")
    s.add_argument("--claims", action="store_true", help="write score-sheet claims")
    s.add_argument("--wrong-claims", type=_fraction, default=0.0, metavar="P",
                   help="fraction of claimed scores written wrong (implies --claims)")
    s.add_argument("--illegal", type=_fraction, default=0.0, metavar="P",
                   help="fraction of games with one injected illegal move")
    s.add_argument("--gzip", action="store_true", help="write .jsonl.gz")
    s.add_argument("--id-prefix", default=None, help="game ids and file names start with this "
                   "(default: the game)")
    s.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    s.add_argument("--out", required=True, help="output folder")
    s.set_defaults(fn=cmd_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from .bots import BOTS
    from .engine import registry
    from .simulate import SimOptions, write_run

    games = registry()
    info = games.get(args.game)
    if info is None:
        print(f"trickledger simulate: unknown game {args.game!r} "
              f"(expected one of {', '.join(sorted(games))})", file=sys.stderr)
        return 2
    lo, hi = args.players or (info.min_players, info.max_players)
    if lo < info.min_players or hi > info.max_players:
        print(f"trickledger simulate: {args.game} is for {info.min_players}-{info.max_players} "
              f"players", file=sys.stderr)
        return 2
    bots = tuple(b.strip() for b in args.bots.split(",") if b.strip())
    unknown = [b for b in bots if b not in BOTS]
    if not bots or unknown:
        print(f"trickledger simulate: unknown bot {unknown[0] if unknown else ''!r} "
              f"(expected {', '.join(BOTS)})", file=sys.stderr)
        return 2
    variants: tuple[str, ...] | None
    if args.variants == "random":
        variants = None
    else:
        variants = tuple(v for v in args.variants.split(",") if v)
        bad = [v for v in variants if v not in info.variants]
        if bad:
            print(f"trickledger simulate: unknown variant {bad[0]!r} for {args.game}",
                  file=sys.stderr)
            return 2
    if args.games < 0:
        print("trickledger simulate: --games must be >= 0", file=sys.stderr)
        return 2
    opts = SimOptions(game=args.game, games=args.games, players=(lo, hi), bots=bots,
                      seed=args.seed, variants=variants, edition=args.edition,
                      claims=args.claims or args.wrong_claims > 0,
                      wrong_claims=args.wrong_claims, illegal=args.illegal, gzip=args.gzip,
                      rounds=args.rounds, id_prefix=args.id_prefix)
    t0 = time.perf_counter()
    n = write_run(opts, Path(args.out), args.jobs, progress=sys.stderr.isatty())
    dt = time.perf_counter() - t0
    print(f"wrote {n} {args.game} games to {args.out} in {dt:.1f} s")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: misuse is exit status 2
        return int(e.code or 0)
    try:
        return int(args.fn(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
