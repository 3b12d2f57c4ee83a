"""The engine's commands: `verify`, `replay` and `simulate` (composed into `trickledger`
by the top-level `trickledger` package)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from trickledger.terminal import EXIT_CODES, json_escaped, json_text, say, terminal

from .engine import Replay, exit_status, replay_path, verdict
from .errors import LogError
from .files import STDIN, find_logs
from .registry import registry


def _score_table(r: Replay) -> list[str]:
    st = r.state
    if st is None or not st.rounds:
        return []
    players = st.players
    width = max(6, max(len(p) for p in players) + 1)
    head = " " * width + "".join(f"{'R' + str(rs.round):>6}" for rs in st.rounds) + f"{'total':>7}"
    lines = [head]
    for s, p in enumerate(players):
        row = f"{p:<{width}}" + "".join(f"{rs.scores[s]:>6}" for rs in st.rounds)
        lines.append(row + f"{st.totals[s]:>7}")
    return lines


def human_report(r: Replay) -> str:
    v = verdict(r)
    out: list[str] = []
    if r.status == "unreadable":
        out.append(_error_line(r.error))
        out.append(f"{terminal(r.file)}: unreadable")
        return "\n".join(out)
    st = r.state
    assert st is not None and r.header is not None
    kind = " score sheet" if st.is_sheet else ""
    desc = f"{r.header.game}{kind}, {st.n} players, {len(st.rounds)} of {st.rounds_total} rounds"
    out.append(f"{terminal(r.file)}: {r.status} ({desc})")
    if r.error is not None:
        out.append(_error_line(r.error))
    out.extend("  " + line for line in _score_table(r))
    if v["winners"]:
        out.append("  winner" + ("s" if len(v["winners"]) > 1 else "") + ": "
                   + ", ".join(v["winners"]))
    if st.claims:
        bad = r.mismatched_claims()
        out.append(f"  claims: {len(st.claims)} checked, "
                   + (f"{len(bad)} {'does' if len(bad) == 1 else 'do'} not match:" if bad else "all match"))
        for c in bad:
            what = f"round {c.round}" if c.round is not None else "totals"
            out.append(f"    {st.players[c.player]} {what}: {c.derivation}, sheet says {c.claimed}"
                       f" (line {c.line})")
    return "\n".join(out)


def _error_line(e: object) -> str:
    """A log's error as printed: its file name escaped as a data field."""
    if isinstance(e, LogError):
        where = terminal(e.file) + (f":{e.line}" if e.line is not None else "")
        return f"{where}: {terminal(e.message)}"
    return terminal(str(e))


def cmd_verify(args: argparse.Namespace) -> int:
    found = find_logs(args.files, follow_symlinks=args.follow_symlinks)
    worst = 2 if found.refused else 0
    for name, why in found.refused:
        say(f"{terminal(name)}: {why}", error=True)
    results: list[dict[str, Any]] = []
    for i, f in enumerate(found.paths):
        r = replay_path("/dev/stdin", "<stdin>") if f == STDIN else replay_path(f)
        worst = max(worst, exit_status(r))
        if r.status == "unreadable":
            say(_error_line(r.error), error=True)
        if args.json:
            results.append(verdict(r))
        elif r.status != "unreadable":
            if i:
                say()
            say(human_report(r))
    if args.json:
        payload = results[0] if len(results) == 1 and len(args.files) == 1 and \
            not Path(args.files[0]).is_dir() else results
        sys.stdout.write(json_text(payload) + "\n")
    elif not found.paths and not found.refused:
        say("trickledger verify: no log given", error=True)
        return 2
    return worst


def missing_file(name: str) -> str | None:
    """The words every command uses for a FILE argument that names nothing."""
    if name != STDIN and not Path(name).exists():
        return f"{terminal(name)}: no such file or folder"
    return None


def cmd_replay(args: argparse.Namespace) -> int:
    missing = missing_file(args.file)
    if missing:
        say(missing, error=True)
        return 2
    r = replay_path("/dev/stdin", "<stdin>") if args.file == STDIN else replay_path(args.file)
    if r.state is None:
        say(_error_line(r.error), error=True)
        return 2
    h = r.header
    assert h is not None
    say(f"{terminal(r.file)}: {h.game}{' score sheet' if r.state.is_sheet else ''}, "
        f"players {', '.join(h.players)}"
        + (f", edition {h.edition}" if h.edition else "")
        + (f", variants {', '.join(sorted(h.variants))}" if h.variants else ""))
    for line in r.render():
        say(line)
    if r.error is not None:
        say(f"ILLEGAL: {_error_line(r.error)}")
    say(f"status: {r.status}")
    for line in _score_table(r):
        say("  " + line)
    mismatched = r.mismatched_claims()
    if mismatched:
        say(f"DISPUTED: {len(mismatched)} claimed "
            f"{'score does' if len(mismatched) == 1 else 'scores do'} not match (see the "
            f"claim lines above)")
    return exit_status(r)


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


class _GamesHelp(str):
    """A help text that lists the games when it is shown, not when the parser is built: the
    plugin games' entry points are looked up only then (a command's start-up never needs
    them)."""

    def __mod__(self, params: Any) -> str:
        return f"{self}: " + ", ".join(sorted(registry()))


def _simulate_parser(sub: Any) -> None:
    s = sub.add_parser("simulate", help="bots play seeded games and write legal logs")
    s.add_argument("--game", required=True,
                   help=_GamesHelp("the game"))
    s.add_argument("--games", type=int, required=True, help="how many games")
    s.add_argument("--players", type=_players_range, default=None,
                   help="players per game: K or K1-K2 (default: every count the game allows)")
    s.add_argument("--bots", default="greedy", help="comma list of bots by seat, cycled "
                   "(greedy, random); default greedy")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--variants", default="",
                   help="comma list of variants for every game, or 'random' for a random "
                        "subset per game")
    s.add_argument("--edition", default=None,
                   help="the game's edition (for a game that has editions), or 'mixed'")
    s.add_argument("--rounds", type=int, default=None, help="header rounds (shorter games)")
    s.add_argument("--claims", action="store_true", help="write score-sheet claims")
    s.add_argument("--wrong-claims", type=_fraction, default=0.0, metavar="P",
                   help="fraction of claimed scores written wrong (implies --claims)")
    s.add_argument("--illegal", type=_fraction, default=0.0, metavar="P",
                   help="fraction of games with one injected illegal move")
    s.add_argument("--gzip", action="store_true", help="write .jsonl.gz")
    s.add_argument("--sheets", action="store_true",
                   help="also write each game's score sheet beside its log (<id>.sheet.jsonl; "
                        "the same game id: load one or the other)")
    s.add_argument("--id-prefix", default=None, help="game ids and file names start with this "
                   "(default: the game)")
    s.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    s.add_argument("--out", required=True, help="output folder")
    s.set_defaults(fn=cmd_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from .bots import BOTS
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
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        say(f"trickledger simulate: --out {args.out}: is a file; give a folder (new or "
            f"existing) for the logs", error=True)
        return 2
    opts = SimOptions(game=args.game, games=args.games, players=(lo, hi), bots=bots,
                      seed=args.seed, variants=variants, edition=args.edition,
                      claims=args.claims or args.wrong_claims > 0,
                      wrong_claims=args.wrong_claims, illegal=args.illegal, gzip=args.gzip,
                      rounds=args.rounds, id_prefix=args.id_prefix, sheets=args.sheets)
    t0 = time.perf_counter()
    try:
        n = write_run(opts, out, args.jobs, progress=sys.stderr.isatty())
    except OSError as e:
        say(f"trickledger simulate: --out {args.out}: {e.strerror or e}", error=True)
        return 2
    dt = time.perf_counter() - t0
    print(f"wrote {n} {args.game} games to {args.out} in {dt:.1f} s")
    return 0


def cmd_sheet_of(args: argparse.Namespace) -> int:
    from .sheetlog import NoSheet, sheet_of

    missing = missing_file(args.file)
    if missing:
        say(missing, error=True)
        return 2
    if args.out:
        folder = Path(args.out).parent
        if not folder.is_dir():
            say(f"trickledger sheet-of: -o {args.out}: the folder {folder} does not exist",
                error=True)
            return 2
        if Path(args.out).is_dir():
            say(f"trickledger sheet-of: -o {args.out}: is a folder; give a file name",
                error=True)
            return 2
    r = replay_path("/dev/stdin", "<stdin>") if args.file == STDIN else replay_path(args.file)
    try:
        data = sheet_of(r)
    except NoSheet as e:
        say(f"trickledger sheet-of: {e}", error=True)
        return 2
    if r.error is not None:
        say(_error_line(r.error), error=True)
        say(f"trickledger sheet-of: the sheet holds the {len(r.state.rounds) if r.state else 0} "
            f"rounds finished before the illegal line", error=True)
    if args.out:
        try:
            Path(args.out).write_bytes(data)
        except OSError as e:
            say(f"trickledger sheet-of: -o {args.out}: {e.strerror or e}", error=True)
            return 2
    else:
        # the header's id and meta are the log's text: a C1 control or a direction mark in
        # them is written as a JSON escape, as by `verify --json` (the same JSON)
        sys.stdout.write(json_escaped(data.decode()))
    return 1 if r.status == "illegal" else 0


def register_commands(sub: Any) -> None:
    """Add this package's subcommands to the `trickledger` parser."""
    v = sub.add_parser("verify", help="check logs and print their verdicts",
                       description="Check logs: every move under the rules, every claimed "
                                   "score against the replay. Verdicts go to standard "
                                   "output, errors to standard error.",
                       epilog=EXIT_CODES)
    v.add_argument("files", nargs="+", metavar="FILE",
                   help="a log, a folder (searched for *.jsonl and *.jsonl.gz), or - for "
                        "standard input")
    v.add_argument("--json", action="store_true",
                   help="print the verdict as JSON (a list when several logs are checked)")
    v.add_argument("--follow-symlinks", action="store_true",
                   help="in folders, also read symlinks that lead out of the folder")
    v.set_defaults(fn=cmd_verify)
    r = sub.add_parser("replay", help="print a game trick by trick",
                       description="Print a game as a person reads it: every trick, the "
                                   "picks, stacks, early ends and score derivations.",
                       epilog=EXIT_CODES)
    r.add_argument("file", metavar="FILE", help="a log, or - for standard input")
    r.set_defaults(fn=cmd_replay)
    so = sub.add_parser("sheet-of", help="write the score sheet of a move log",
                        description="Write the score sheet a table would have kept of a move "
                                    "log: one sheet line per finished round, with the log's "
                                    "claims. It verifies to the same scores as the log.",
                        epilog="exit status: 0 when written; 1 when the log has an illegal line "
                               "(the sheet holds the rounds before it); 2 when the log is "
                               "unreadable, already a sheet, or of a game without a sheet")
    so.add_argument("file", metavar="FILE", help="a move log, or - for standard input")
    so.add_argument("--out", "-o", metavar="SHEET", default=None,
                    help="write the sheet to this file (default: standard output)")
    so.set_defaults(fn=cmd_sheet_of)
    _simulate_parser(sub)
