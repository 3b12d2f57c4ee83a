"""Seeded self-play: bots choose legal moves, the game deals; the result is a log.

Every game of a run gets its own rng seeded from (seed, game, index), so a
game's bytes depend only on those three and the options — not on the order
or the process that made it. That is what makes runs reproducible and lets
them spread over all cores.
"""

from __future__ import annotations

import datetime as dt
import gzip
import os
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import orjson

from .bots import BOTS, Bot
from .engine import new_state, replay_bytes
from .events import Event
from .reader import parse_header
from .registry import registry
from .state import GameState
from .writer import dump_lines

NAME_POOL = (
    "Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou",
    "Mia", "Ned", "Oli", "Pam", "Quinn", "Rex", "Sue", "Tom", "Uma", "Vic", "Wes", "Xia",
    "Yan", "Zoe", "Ada", "Bea", "Cy", "Dot",
)


def play_game(header: dict[str, Any], bots: dict[str, Bot], rng: random.Random,
              claims: bool = False, wrong_claims: float = 0.0,
              wrong: list[dict[str, Any]] | None = None,
              ) -> tuple[GameState, list[dict[str, Any]]]:
    """Play one game to its end; returns the final state and the event list.

    With `claims`, a score-sheet `claim` follows every round and a `totals`
    claim ends the game; each claimed score is off by 1-3 with probability
    `wrong_claims`, and the wrong ones are appended to `wrong`.
    """
    h = parse_header("<simulated>", 1, orjson.dumps(header), "simulated")
    state = new_state(h)
    events: list[dict[str, Any]] = []
    line = 1
    finished = 0

    def claim(ev: dict[str, Any], key: str, round_no: int | None) -> None:
        nonlocal line
        for p in ev[key]:
            if wrong_claims and rng.random() < wrong_claims:
                ev[key][p] += rng.choice((-3, -2, -1, 1, 2, 3))
                if wrong is not None:
                    wrong.append({"line": line + 1, "round": round_no, "player": p})
        line += 1
        state.apply(Event(line, "claim", ev))
        events.append(ev)

    while not state.is_over():
        if state.next_chance() is not None:
            ev = state.draw_chance(rng)
        else:
            who = state.to_move()
            assert who is not None, "a game that is not over has a chance event or a mover"
            ev = bots[who].choose(state, rng)
        line += 1
        state.apply(Event(line, ev["type"], ev))
        events.append(ev)
        if claims and len(state.rounds) > finished:
            finished = len(state.rounds)
            claim({"type": "claim", "round": finished,
                   "scores": dict(zip(state.players, state.rounds[-1].scores))},
                  "scores", finished)
    if claims:
        claim({"type": "claim", "totals": state.scores()}, "totals", None)
    return state, events


@dataclass(frozen=True)
class SimOptions:
    game: str
    games: int
    players: tuple[int, int]
    bots: tuple[str, ...] = ("greedy",)
    seed: int = 0
    variants: tuple[str, ...] | None = ()  # None: a random subset per game
    edition: str | None = None  # plotters; None: the default, "mixed": either
    claims: bool = False
    wrong_claims: float = 0.0
    illegal: float = 0.0
    gzip: bool = False
    rounds: int | None = None
    start_date: str = "2026-01-01"
    id_prefix: str | None = None
    extra_meta: dict[str, Any] = field(default_factory=dict)
    sheets: bool = False  # write_run also writes each game's score sheet beside its log


def defer_moves(events: list[dict[str, Any]], move_type: str) -> list[dict[str, Any]]:
    """Move each round's moves of `move_type` to after its last trick (before the next deal
    or claim), as a variant that defers them writes them (`GameInfo.deferrable`: rage's
    secret bids are revealed then)."""
    out: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    for ev in events:
        if ev["type"] == move_type:
            pending.append(ev)
            continue
        if ev["type"] in ("deal", "claim") and pending:
            out.extend(pending)
            pending = []
        out.append(ev)
    out.extend(pending)
    return out


def game_id(opts: SimOptions, index: int) -> str:
    return f"{opts.id_prefix or opts.game}-s{opts.seed}-{index:06d}"


def simulate_one(opts: SimOptions, index: int) -> tuple[str, bytes, dict[str, Any]]:
    """One game of a run: its file name, bytes and its meta (what was injected)."""
    rng = random.Random(f"trickledger:{opts.seed}:{opts.game}:{index}")
    info = registry()[opts.game]
    n = rng.randint(*opts.players)
    players = rng.sample(NAME_POOL, n)
    header: dict[str, Any] = {"format": "trickledger/1", "game": opts.game, "players": players,
                              "id": game_id(opts, index)}
    if info.editions and opts.edition:
        header["edition"] = (rng.choice(info.editions) if opts.edition == "mixed"
                             else opts.edition)
    if opts.variants is None:
        variants = [v for v in info.variants if rng.random() < 0.3]
    else:
        variants = [v for v in opts.variants if v in info.variants]
    if variants:
        header["variants"] = variants
    header.update(info.state_class.random_setup(rng, n))
    if opts.rounds:
        header["rounds"] = opts.rounds
    bots_by_player = {p: opts.bots[i % len(opts.bots)] for i, p in enumerate(players)}
    day = dt.date.fromisoformat(opts.start_date) + dt.timedelta(days=index % 300)
    meta: dict[str, Any] = {"date": day.isoformat(), "platform": "trickledger simulate",
                            "seed": opts.seed, "index": index, "bots": bots_by_player}
    meta.update(opts.extra_meta)
    bots: dict[str, Bot] = {p: BOTS[b]() for p, b in bots_by_player.items()}
    wrong: list[dict[str, Any]] = []
    _, events = play_game(header, bots, rng, opts.claims, opts.wrong_claims, wrong)
    for variant, move_type in info.deferrable.items():
        if variant in variants and rng.random() < 0.5:
            events = defer_moves(events, move_type)
    if opts.illegal and rng.random() < opts.illegal:
        injected = inject_illegal(header, events, rng)
        if injected is not None:
            meta["illegal"] = injected
            # verify stops at the illegal line: later claims are never checked
            wrong = [w for w in wrong if w["line"] < injected["line"]]
    if wrong:
        meta["wrong_claims"] = wrong
    header["meta"] = meta
    data = dump_lines(header, events)
    name = f"{header['id']}.jsonl"
    if opts.gzip:
        data = gzip.compress(data, mtime=0)
        name += ".gz"
    return name, data, meta


def inject_illegal(header: dict[str, Any], events: list[dict[str, Any]],
                   rng: random.Random) -> dict[str, Any] | None:
    """Change one move so that it breaks a rule; returns where and how, checked by a replay."""
    moves = registry()[header["game"]].injectable
    candidates = [i for i, e in enumerate(events) if e["type"] in moves]
    players = header["players"]
    for _ in range(20):
        i = rng.choice(candidates)
        ev = dict(events[i])
        kind = rng.choice(("player", "card"))
        if kind == "player" or "card" not in ev:
            ev["player"] = rng.choice([p for p in players if p != ev["player"]])
            kind = "player"
        else:
            ev["card"] = _some_card_elsewhere(events, i, ev)
        trial = list(events)
        trial[i] = ev
        line = i + 2  # the header is line 1
        r = replay_bytes(dump_lines({**header, "meta": {}}, trial), "<inject>")
        if r.status == "illegal" and r.error is not None and r.error.line == line:
            events[i] = ev
            return {"line": line, "kind": f"wrong {kind}", "message": r.error.message}
    return None


def _some_card_elsewhere(events: list[dict[str, Any]], i: int, ev: dict[str, Any]) -> str:
    """A card the player does not hold: one played earlier in the log by anybody."""
    earlier = [e["card"] for e in events[:i] if e["type"] == "play"]
    return earlier[0] if earlier else ev["card"]


def _work(args: tuple[SimOptions, int]) -> tuple[str, bytes, dict[str, Any]]:
    return simulate_one(*args)


def simulate(opts: SimOptions, jobs: int | None = None) -> Iterator[tuple[str, bytes, dict]]:
    """Every game of the run, in index order; spread over `jobs` processes for large runs."""
    jobs = jobs or os.cpu_count() or 1
    tasks = ((opts, i) for i in range(opts.games))
    if jobs == 1 or opts.games < 50:
        yield from map(_work, tasks)
        return
    with get_context("forkserver").Pool(jobs) as pool:  # no fork: callers may hold threads
        yield from pool.imap(_work, tasks, chunksize=16)


def sheet_name(name: str) -> str:
    """`<id>.sheet.jsonl` (or `.sheet.jsonl.gz`) for the log `<id>.jsonl`."""
    for suffix in (".jsonl.gz", ".jsonl"):
        if name.endswith(suffix):
            return name[:-len(suffix)] + ".sheet" + suffix
    return name + ".sheet.jsonl"


def write_sheet(out: Path, name: str, data: bytes) -> None:
    """The score sheet of the log `name` (its bytes `data`), written beside it."""
    from .sheetlog import sheet_of

    sheet = sheet_of(replay_bytes(data, name))
    if name.endswith(".gz"):
        sheet = gzip.compress(sheet, mtime=0)
    (out / sheet_name(name)).write_bytes(sheet)


def write_run(opts: SimOptions, out: Path, jobs: int | None = None, progress: bool = True) -> int:
    from tqdm import tqdm

    out.mkdir(parents=True, exist_ok=True)
    count = 0
    bar = tqdm(total=opts.games, desc=f"simulate {opts.game}", unit="game",
               disable=not progress or opts.games < 200)
    for name, data, _ in simulate(opts, jobs):
        (out / name).write_bytes(data)
        if opts.sheets:
            write_sheet(out, name, data)
        count += 1
        bar.update()
    bar.close()
    return count
