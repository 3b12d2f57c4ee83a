"""The event-sourced engine core. It knows no game.

A game module subclasses `GameState`, declares its metadata as a `GameInfo`
and registers it. `replay()` folds a log's events through `GameState.apply`;
the state emits derived facts (small frozen dataclasses, past tense) into
`state.facts` as it goes. Claims, rounds bookkeeping and the verdict are
shared here so that every game reports them the same way.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .errors import IllegalLine, LogError, RuleError, UnreadableLog
from .reader import Event, Header, Log, kind

# ---------------------------------------------------------------- registry


@dataclass(frozen=True)
class GameInfo:
    """A game's metadata, declared as data."""

    name: str
    title: str
    min_players: int
    max_players: int
    state_class: type[GameState]
    variants: tuple[str, ...] = ()
    editions: tuple[str, ...] = ()
    needs_suits: bool = False
    lowest_wins: bool = False
    # lines of `trickledger replay` for one of the game's own facts, given the players
    render_fact: Callable[[Any, tuple[str, ...]], list[str]] | None = None


_REGISTRY: dict[str, GameInfo] = {}
_GAME_MODULES = ("plotters", "rage", "color_stacks", "under_the_radar")


def register(info: GameInfo) -> GameInfo:
    _REGISTRY[info.name] = info
    info.state_class.info = info
    return info


_loaded = False


def registry() -> dict[str, GameInfo]:
    """All games, by id; importing the game modules registers them."""
    global _loaded
    if not _loaded:
        for mod in _GAME_MODULES:
            importlib.import_module(f"replay.games.{mod}")
        _loaded = True
    return _REGISTRY


# ------------------------------------------------------------------- facts


@dataclass(frozen=True, slots=True)
class RoundScored:
    """A round finished and was scored; game-specific keys go in `extra`."""

    round: int
    dealer: str
    scores: dict[str, int]
    derivations: dict[str, str]
    extra: dict[str, Any]
    line: int


@dataclass(frozen=True, slots=True)
class RoundDealt:
    round: int
    dealer: str
    leader: str | None
    hands: dict[str, tuple[str, ...]]
    extra: dict[str, Any]  # game-specific: pile, aside, removed
    line: int


@dataclass(frozen=True, slots=True)
class ClaimChecked:
    round: int | None
    player: str
    claimed: int
    computed: int
    match: bool
    derivation: str
    line: int


ALL_EVENT_TYPES = ("deal", "play", "take", "keep", "trump", "bid", "place", "draw", "claim")

# ------------------------------------------------------- event field access


def field_of(ev: Event, key: str, want: type, what: str) -> Any:
    """The value of `key` in `ev`, of JSON kind `want`; a RuleError names what was expected."""
    v = ev.data.get(key)
    if type(v) is not want:
        if v is None and key not in ev.data:
            raise RuleError(f"{ev.type} event needs '{key}' ({what})")
        raise RuleError(f"{ev.type} event: '{key}' must be {what}, got {kind(v)}")
    return v


def str_list(ev: Event, key: str, what: str) -> list[str]:
    v = field_of(ev, key, list, what)
    for x in v:
        if type(x) is not str:
            raise RuleError(f"{ev.type} event: '{key}' must be {what}, but holds {kind(x)}")
    return v


def int_dict(ev: Event, key: str, what: str) -> dict[str, int]:
    v = field_of(ev, key, dict, what)
    for name, x in v.items():
        if type(x) is not int:
            raise RuleError(f"{ev.type} event: '{key}' for {name} must be an integer, got {kind(x)}")
    return v


# ------------------------------------------------------------------- state


class GameState:
    """The state of one game, folded from events by `apply`.

    Subclasses implement `on_<type>` for their event types, `legal_moves`,
    `to_move` and `expects`, and call `finish_round` when a round is scored.
    """

    info: ClassVar[GameInfo]
    _dispatch: ClassVar[dict[str, Callable[[GameState, Event], None]]]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._dispatch = {}
        for t in ALL_EVENT_TYPES:
            fn = getattr(cls, f"on_{t}", None)
            if fn is not None:
                cls._dispatch[t] = fn

    @classmethod
    def check_header(cls, header: Header) -> int:
        """Validate game-specific header keys; return the number of rounds. ValueError if bad."""
        return check_rounds(header, default=1)

    def __init__(self, header: Header) -> None:
        self.header = header
        self.players = header.players
        self.n = len(header.players)
        self.seat = {p: i for i, p in enumerate(header.players)}
        self.rounds_total = header.rounds
        self.round_no = 0
        self.dealer = self.seat[header.dealer]  # dealer of the current (or first) round
        self.rounds: list[RoundScored] = []
        self.totals = {p: 0 for p in header.players}
        self.claims: list[ClaimChecked] = []
        self.facts: list[Any] = []
        self.over = False
        self.in_round = False

    # -- the uniform API
    def apply(self, ev: Event) -> None:
        fn = self._dispatch.get(ev.type)
        if fn is None:
            if ev.type in ALL_EVENT_TYPES:
                raise RuleError(f"'{ev.type}' events are not part of {self.info.name}")
            raise RuleError(f"unknown event type {ev.type!r}")
        if self.over and ev.type != "claim":
            raise RuleError(f"the game is over (all {self.rounds_total} rounds were played): "
                            f"no '{ev.type}' may follow")
        fn(self, ev)

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> dict[str, int]:
        return dict(self.totals)

    def render(self) -> list[str]:
        """The replay as a person reads it, from `self.facts`: scores and claims here, the
        game's own facts by its `render_fact`."""
        out: list[str] = []
        for f in self.facts:
            if isinstance(f, RoundScored):
                out.extend(f"   {p:<10} {f.derivations[p]}" for p in self.players)
            elif isinstance(f, ClaimChecked):
                out.append(claim_text(f))
            elif self.info.render_fact is not None:
                out.extend(self.info.render_fact(f, self.players))
        return out

    def legal_moves(self) -> list[dict[str, Any]]:
        """The events the player to move may write next (empty when a deal or trump is due)."""
        raise NotImplementedError

    def expects(self) -> str | None:
        """What the next event must be: 'deal', 'trump', 'move' or None when the game is over.
        Games keep a `phase`; "deal" means a round is to be dealt."""
        if self.over:
            return None
        return "deal" if getattr(self, "phase", "deal") == "deal" else "move"

    # -- helpers for games
    def seat_of(self, ev: Event) -> int:
        """The seat of `ev`'s player: one lookup when valid, else `player()` says what is wrong."""
        name = ev.data.get("player")
        if type(name) is str:
            s = self.seat.get(name)
            if s is not None:
                return s
        return self.player(ev)

    def player(self, ev: Event, key: str = "player") -> int:
        name = field_of(ev, key, str, "a player's name")
        s = self.seat.get(name)
        if s is None:
            raise RuleError(f"{ev.type} event names {name!r}, who is not a player "
                            f"({', '.join(self.players)})")
        return s

    def left_of(self, s: int) -> int:
        return (s + 1) % self.n

    def begin_deal(self, ev: Event) -> dict[str, list[str]]:
        """Common checks of a `deal`: round number, dealer, hands keyed by every player."""
        if self.in_round:
            raise RuleError(f"a deal came before round {self.round_no} was finished")
        self.round_no += 1
        if self.round_no > 1:
            self.dealer = self.left_of(self.dealer)
        if "dealer" in ev.data:
            d = self.player(ev, "dealer")
            if d != self.dealer:
                raise RuleError(f"round {self.round_no} is dealt by {self.players[self.dealer]} "
                                f"(the dealer moves one seat left each round), "
                                f"not {self.players[d]}")
        hands = field_of(ev, "hands", dict, "an object {player: [cards]}")
        for name in hands:
            if name not in self.seat:
                raise RuleError(f"deal gives a hand to {name!r}, who is not a player")
        for name in self.players:
            if name not in hands:
                raise RuleError(f"deal has no hand for {name}")
            if type(hands[name]) is not list:
                raise RuleError(f"deal: {name}'s hand must be a list of cards, "
                                f"got {kind(hands[name])}")
            for c in hands[name]:
                if type(c) is not str:
                    raise RuleError(f"deal: {name}'s hand holds {kind(c)}, expected card names")
        self.in_round = True
        return hands

    def finish_round(self, scores: dict[str, int], derivations: dict[str, str],
                     extra: dict[str, Any], line: int) -> None:
        fact = RoundScored(self.round_no, self.players[self.dealer], scores, derivations,
                           extra, line)
        self.rounds.append(fact)
        self.facts.append(fact)
        for p, v in scores.items():
            self.totals[p] += v
        self.in_round = False
        if self.round_no >= self.rounds_total:
            self.over = True

    def before_claim(self, ev: Event) -> None:
        """Hook: a game raises here when a claim cannot come now (e.g. a keep is owed)."""

    def on_claim(self, ev: Event) -> None:
        self.before_claim(ev)
        d = ev.data
        if "round" in d:
            if "totals" in d:
                raise RuleError("a claim has either 'round' with 'scores' or 'totals', not both")
            r = field_of(ev, "round", int, "a round number")
            claimed = int_dict(ev, "scores", "an object {player: score}")
            if not 1 <= r <= len(self.rounds):
                if 1 <= r <= self.rounds_total:
                    raise RuleError(f"claim for round {r}, which has not finished "
                                    f"({len(self.rounds)} finished so far)")
                raise RuleError(f"claim for round {r}: the game has rounds 1-{self.rounds_total}")
            rs = self.rounds[r - 1]
            computed, derivs = rs.scores, rs.derivations
            round_no: int | None = r
        elif "totals" in d:
            claimed = int_dict(ev, "totals", "an object {player: total}")
            computed = self.totals
            derivs = {p: totals_derivation(self.rounds, p) for p in self.players}
            round_no = None
        else:
            raise RuleError("claim event needs 'round' and 'scores', or 'totals'")
        for name in claimed:
            if name not in self.seat:
                raise RuleError(f"claim names {name!r}, who is not a player")
        for name, v in claimed.items():
            c = computed[name]
            fact = ClaimChecked(round_no, name, v, c, v == c, derivs[name], ev.line)
            self.claims.append(fact)
            self.facts.append(fact)


def claim_text(c: ClaimChecked) -> str:
    what = f"round {c.round}" if c.round is not None else "totals"
    if c.match:
        return f"   claim (line {c.line}): {c.player} {what} {c.claimed} - matches"
    return (f"   claim (line {c.line}): {c.player} {what}: {c.derivation}, "
            f"sheet says {c.claimed}  ** MISMATCH **")


def hands_lines(f: RoundDealt) -> list[str]:
    return [f"   {p:<10} {' '.join(hand)}" for p, hand in f.hands.items()]


def totals_derivation(rounds: Iterable[RoundScored], player: str) -> str:
    parts = [str(r.scores[player]) for r in rounds]
    if not parts:
        return "no round finished -> 0"
    return " + ".join(parts) + f" = {sum(int(x) for x in parts)}"


def check_rounds(header: Header, default: int, maximum: int | None = None) -> int:
    r = header.raw.get("rounds", default)
    if type(r) is not int or r < 1:
        raise ValueError(f"'rounds' must be a positive integer, got {r!r}")
    if maximum is not None and r > maximum:
        raise ValueError(f"'rounds' may be at most {maximum} for {header.game}, got {r}")
    return r


# ------------------------------------------------------------------ replay


@dataclass
class Replay:
    """The outcome of replaying one log."""

    file: str
    sha256: str | None
    header: Header | None
    state: GameState | None
    status: str
    error: LogError | None
    events: int = 0
    lines: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def facts(self) -> list[Any]:
        return self.state.facts if self.state else []


def new_state(header: Header) -> GameState:
    return registry()[header.game].state_class(header)


def replay_log(log: Log) -> Replay:
    state = new_state(log.header)
    apply = state.apply
    count = 0
    ev: Event | None = None
    try:
        for ev in log.events():
            apply(ev)
            count += 1
    except RuleError as e:
        assert ev is not None
        err = IllegalLine(log.name, ev.line, str(e))
        return Replay(log.name, log.sha256, log.header, state, "illegal", err, count,
                      len(log.lines))
    except IllegalLine as e:
        return Replay(log.name, log.sha256, log.header, state, "illegal", e, count,
                      len(log.lines))
    except Exception as e:  # a bug of ours must still give a verdict, not a traceback
        line = ev.line if ev is not None else None
        err = IllegalLine(log.name, line, f"internal error while replaying this line "
                                          f"({type(e).__name__}: {e}); please report it")
        return Replay(log.name, log.sha256, log.header, state, "illegal", err, count,
                      len(log.lines))
    status = "complete" if state.is_over() else "incomplete"
    return Replay(log.name, log.sha256, log.header, state, status, None, count, len(log.lines))


def replay_bytes(data: bytes, name: str, max_bytes: int | None = None) -> Replay:
    """Replay a log given as bytes; `max_bytes` caps its decompressed size."""
    from .reader import read_bytes

    try:
        log = read_bytes(data, name, max_bytes)
    except UnreadableLog as e:
        import hashlib

        return Replay(name, hashlib.sha256(data).hexdigest(), None, None, "unreadable", e)
    return replay_log(log)


def replay_path(path: str, name: str | None = None) -> Replay:
    from pathlib import Path

    label = name or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return Replay(label, None, None, None, "unreadable",
                      UnreadableLog(label, None, f"cannot read the file ({e.strerror or e})"))
    return replay_bytes(data, label)


# ----------------------------------------------------------------- verdict


def verdict(r: Replay) -> dict[str, Any]:
    """The verdict object of FORMAT.md (plus `id` and `sha256` to tie it to the bytes)."""
    st = r.state
    err = None
    if r.error is not None:
        err = {"line": r.error.line, "message": r.error.message}
    rounds = []
    claims = []
    totals: dict[str, int] = {}
    winners: list[str] = []
    if st is not None:
        for rs in st.rounds:
            entry: dict[str, Any] = {"round": rs.round, "dealer": rs.dealer}
            entry.update(rs.extra)
            entry["scores"] = rs.scores
            rounds.append(entry)
        totals = dict(st.totals)
        claims = [{"round": c.round, "player": c.player, "claimed": c.claimed,
                   "computed": c.computed, "match": c.match} for c in st.claims]
        if r.status == "complete":
            best = (min if st.info.lowest_wins else max)(totals.values())
            winners = [p for p in st.players if totals[p] == best]
    h = r.header
    return {
        "file": r.file,
        "game": h.game if h else None,
        "players": list(h.players) if h else [],
        "id": h.id if h else None,
        "sha256": r.sha256,
        "status": r.status,
        "error": err,
        "rounds": rounds,
        "totals": totals,
        "winners": winners,
        "claims": claims,
    }


def exit_status(r: Replay) -> int:
    if r.status == "unreadable":
        return 2
    if r.status == "illegal":
        return 1
    if r.state is not None and any(not c.match for c in r.state.claims):
        return 1
    return 0
