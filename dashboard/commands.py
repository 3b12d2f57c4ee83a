"""The dashboard's command: `trickledger dashboard` (composed into `trickledger` by `trickledger`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from trickledger.terminal import say, terminal

# the server file of the `dashboard` package this command was imported from: the installed
# package, wherever the command is started (a source checkout included)
SERVER = Path(__file__).resolve().parent / "server.py"


# How the pages' scripts run, on the server and in the tests' AppTest alike: no "magic" (a
# bare expression written to the page). No page relies on it, and it rewrote each page's
# syntax tree whenever its script was compiled.
SCRIPT_OPTIONS = {"runner.magicEnabled": False}


def streamlit_command(address: str, port: int) -> list[str]:
    """How the dashboard is served: on `address` only, XSRF protection on, one upload's size
    capped, error details kept for the server's log, no developer toolbar. Python's -P
    keeps the working folder off sys.path: a module of the folder the dashboard is
    started in (a `streamlit.py` of the user's, say) must not shadow what the server
    imports."""
    from trickledger.dashboard.limits import MAX_FILE_MB, MAX_MESSAGE_MB, MAX_WIDGET_STATE_MB

    scripts = [arg for name, value in SCRIPT_OPTIONS.items()
               for arg in (f"--{name}", str(value).lower())]
    return [sys.executable, "-P", "-m", "streamlit", "run", str(SERVER),
            "--server.address", address, "--server.port", str(port),
            "--server.headless", "true", "--server.enableXsrfProtection", "true",
            "--server.enableCORS", "true", "--server.maxUploadSize", str(MAX_FILE_MB),
            "--server.maxWidgetStateSize", str(MAX_WIDGET_STATE_MB),
            "--server.maxMessageSize", str(MAX_MESSAGE_MB),
            "--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false",
            "--client.toolbarMode", "minimal", "--client.showErrorDetails", "none",
            "--theme.base", "light", *scripts]


def allowed_hosts(address: str, extra: list[str]) -> list[str]:
    """The Host names the server answers to: this machine's, the listening address, its
    host names, and those given with --allowed-host (a proxy's public name)."""
    import socket

    from trickledger.dashboard.accounts import is_loopback

    names = ["localhost", "127.0.0.1"]
    if address not in ("0.0.0.0", "::", ""):
        names.append(address)
    if not is_loopback(address):
        for n in (socket.gethostname(), socket.getfqdn()):
            if n and n not in names:
                names.append(n)
    names.extend(h for h in extra if h not in names)
    return names


def port_problem(address: str, port: int) -> str | None:
    """Why the server could not listen on (address, port), checked before anything loads."""
    import socket

    if not 1 <= port <= 65535:
        return f"--port must be 1-65535, got {port}"
    try:
        infos = socket.getaddrinfo(address, port, type=socket.SOCK_STREAM)
    except OSError as e:
        return f"cannot listen on {address}: {e.strerror or e}"
    except UnicodeError:  # a name no resolver can ask for (a control character in it)
        return f"cannot listen on {address}: not an address or host name"
    family, _, _, _, where = infos[0]
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(where)
        except OSError as e:
            if e.errno in (98, 48):  # EADDRINUSE (Linux, macOS)
                return (f"port {port} on {address} is already in use (another dashboard?); "
                        f"choose another with --port, e.g. --port {port + 1}")
            return f"cannot listen on {address}:{port}: {e.strerror or e}"
    return None


def cmd_dashboard(args: argparse.Namespace) -> int:
    from trickledger.dashboard.accounts import is_loopback, loopback_warning
    from trickledger.ingest.admin import Actor
    from trickledger.ingest.db import db_path, is_empty
    from trickledger.ingest.lake import LakeError, LakeWriter, is_lake, seq_of
    from trickledger.ingest.load import Source, expand
    from trickledger.ingest.usecases import ingest_sources
    from trickledger.sample_logs import SAMPLES

    problem = port_problem(args.address, args.port)
    if problem:
        say(f"trickledger dashboard: {problem}", error=True)
        return 2
    if args.lake and args.db:
        print("trickledger dashboard: give --db or --lake, not both", file=sys.stderr)
        return 2
    if not is_loopback(args.address):
        say(f"warning: the dashboard listens on {args.address}, beyond this machine. Put it "
            f"behind a TLS reverse proxy and set up accounts for writing (see "
            f"docs/reliability.md, 'Hosting').", error=True)
    else:
        warning = loopback_warning(args.address)
        if warning:
            say(warning, error=True)
    from trickledger.ingest.arguments import refuse_database

    if not args.lake and refuse_database("dashboard", db_path(args.db)):
        return 2
    lake = os.path.abspath(args.lake) if args.lake else None
    path = lake or os.path.abspath(db_path(args.db))
    new_lake = bool(lake) and not is_lake(path)
    if new_lake:
        try:
            LakeWriter(path).close()  # an empty lake, so that pages find their tables
        except (LakeError, OSError) as e:
            say(f"trickledger dashboard: {e}", error=True)
            return 2
    # a lake made just now holds one (empty) manifest: it is as empty as one never written
    empty = (new_lake or seq_of(path) == 0) if lake else is_empty(path)
    if not args.no_samples and SAMPLES.is_dir() and empty:
        found, _ = expand([str(SAMPLES)])
        # stored under names relative to the samples folder: no server path in the data
        sources = [Source(Path(s.name).relative_to(SAMPLES).as_posix(), path=s.path)
                   for s in found]
        say(f"{terminal(path)} is empty: loading {len(sources)} sample logs...")
        sys.stdout.flush()
        try:  # audited as one run of the machine's owner, as `trickledger ingest` is
            run = ingest_sources(sources, db=None if lake else path, lake=lake,
                                 actor=Actor.command_line(), label="the sample logs")
        except LakeError as e:
            say(f"trickledger dashboard: {e}", error=True)
            return 2
        say(run.summary.line())
        sys.stdout.flush()
        if run.audit_problem:
            say(f"trickledger dashboard: the sample logs are not in the audit log "
                f"({run.audit_problem})", error=True)
    env = dict(os.environ, TRICKLEDGER_LISTEN=args.address,
               TRICKLEDGER_ALLOWED_HOSTS=",".join(allowed_hosts(args.address,
                                                                args.allowed_host)),
               **({"TRICKLEDGER_LAKE": path} if lake else {"TRICKLEDGER_DB": path}))
    if not lake:
        env.pop("TRICKLEDGER_LAKE", None)
    if args.users:
        env["TRICKLEDGER_USERS"] = os.path.abspath(args.users)
    # glibc hands a freed buffer of 1 MiB or more back to the system at once (its default
    # threshold grows with the buffers freed, and then a session's pasted log, gone with
    # the session, stays in the server's resident memory)
    env.setdefault("MALLOC_MMAP_THRESHOLD_", str(1024 * 1024))
    cmd = streamlit_command(args.address, args.port)
    say(f"dashboard on http://{terminal(args.address)}:{args.port} "
        f"({'lake' if lake else 'database'} {terminal(path)})")
    sys.stdout.flush()
    # become the server: signals sent to `trickledger dashboard` (Ctrl-C, a supervisor's
    # SIGTERM) reach Streamlit itself instead of orphaning a child process
    os.execve(sys.executable, cmd, env)
    return 0  # not reached


def cmd_users_add(args: argparse.Namespace) -> int:
    import getpass

    from trickledger.dashboard.accounts import add_user

    password: str | None = None
    if not args.provider:
        if args.password_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            try:
                password = getpass.getpass(f"password for {terminal(args.name)}: ")
                again = getpass.getpass("again: ")
            except EOFError:  # no terminal and nothing on standard input
                say("trickledger users: no password given (type it at the prompt, or give "
                    "it on standard input with --password-stdin)", error=True)
                return 2
            if again != password:
                say("trickledger users: the passwords differ", error=True)
                return 2
    try:
        add_user(args.users, args.name, password, args.role)
    except (ValueError, OSError) as e:
        say(f"trickledger users: {e}", error=True)
        return 2
    say(f"{terminal(args.name.strip().casefold())}: {args.role} account saved in "
        f"{terminal(args.users)}")
    return 0


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
    d.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a Host name the server answers to besides this machine's (the "
                        "public name behind a reverse proxy); repeatable")
    d.add_argument("--users", metavar="FILE", default=None,
                   help="accounts for writing when listening beyond this machine (see "
                        "`trickledger users add`)")
    d.set_defaults(fn=cmd_dashboard)
    u = sub.add_parser("users", help="manage dashboard accounts (a users file)")
    usub = u.add_subparsers(dest="users_command", required=True)
    add = usub.add_parser("add", help="add or change an account; asks for the password")
    add.add_argument("name")
    add.add_argument("--users", metavar="FILE", required=True, help="the users file")
    add.add_argument("--role", choices=("member", "admin"), default="member",
                     help="member: may upload and save; admin: also the SQL console, the "
                          "audit log, quarantine and delete")
    add.add_argument("--provider", action="store_true",
                     help="an identity-provider account (its e-mail as NAME): a role, no "
                          "password")
    add.add_argument("--password-stdin", action="store_true",
                     help="read the password from standard input (for scripts)")
    add.set_defaults(fn=cmd_users_add)
