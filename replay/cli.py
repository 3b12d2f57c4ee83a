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
    for extra in _EXTRA_COMMANDS:
        extra(sub)
    return p


_EXTRA_COMMANDS: list[Any] = []


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
