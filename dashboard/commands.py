"""The dashboard's command: `trickledger dashboard` (composed into `trickledger` by `cli`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

APP = Path(__file__).resolve().parent / "app.py"


def streamlit_command(address: str, port: int) -> list[str]:
    """How the dashboard is served: on `address` only, XSRF protection on, uploads capped."""
    app = APP
    return [sys.executable, "-m", "streamlit", "run", str(app),
            "--server.address", address, "--server.port", str(port),
            "--server.headless", "true", "--server.enableXsrfProtection", "true",
            "--server.enableCORS", "true", "--server.maxUploadSize", "50",
            "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
            "--client.toolbarMode", "minimal",
            "--theme.base", "light"]


def cmd_dashboard(args: argparse.Namespace) -> int:
    from ingest.db import db_path, is_empty
    from ingest.lake import LakeError, LakeWriter, is_lake, seq_of
    from ingest.load import expand, ingest
    from sample_logs import SAMPLES

    if args.lake and args.db:
        print("trickledger dashboard: give --db or --lake, not both", file=sys.stderr)
        return 2
    lake = os.path.abspath(args.lake) if args.lake else None
    path = lake or os.path.abspath(db_path(args.db))
    if lake and not is_lake(lake):
        try:
            LakeWriter(lake).close()  # an empty lake, so that pages find their tables
        except (LakeError, OSError) as e:
            print(f"trickledger dashboard: {e}", file=sys.stderr)
            return 2
    empty = seq_of(lake) == 0 if lake else is_empty(path)
    if not args.no_samples and SAMPLES.is_dir() and empty:
        sources, _ = expand([str(SAMPLES)])
        print(f"{path} is empty: loading {len(sources)} sample logs...", flush=True)
        try:
            summary = ingest(sources, None if lake else path, lake=lake)
        except LakeError as e:
            print(f"trickledger dashboard: {e}", file=sys.stderr)
            return 2
        print(summary.line(), flush=True)
    env = dict(os.environ, **({"TRICKLEDGER_LAKE": path} if lake else {"TRICKLEDGER_DB": path}))
    if not lake:
        env.pop("TRICKLEDGER_LAKE", None)
    cmd = streamlit_command(args.address, args.port)
    print(f"dashboard on http://{args.address}:{args.port} "
          f"({'lake' if lake else 'database'} {path})", flush=True)
    # become the server: signals sent to `trickledger dashboard` (Ctrl-C, a supervisor's
    # SIGTERM) reach Streamlit itself instead of orphaning a child process
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


def register_commands(sub: Any) -> None:
    """Add this package's subcommand to the `trickledger` parser."""
    d = sub.add_parser("dashboard", help="start the Streamlit dashboard")
    d.add_argument("--db", default=None)
    d.add_argument("--lake", default=None, metavar="DIR",
                   help="read a lake folder made by trickledger ingest --lake instead")
    d.add_argument("--port", type=int, default=8501)
    d.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default: this machine only)")
    d.add_argument("--no-samples", action="store_true",
                   help="do not load the sample logs into an empty database")
    d.set_defaults(fn=cmd_dashboard)
