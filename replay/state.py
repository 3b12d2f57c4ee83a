"""The game's state: `GameState`, folded from events by `apply`, and the shared machinery
every game's state uses. It knows no game.

A game module subclasses `GameState`, declares its metadata and parts as a `GameInfo`
(`replay.info`) and registers it (`replay.registry`). The state is folded from events by
`GameState.apply` and emits derived facts (`replay.facts`) into `state.facts`. Claims and
round bookkeeping are shared here so that every game reports them the same way;
`replay.engine` runs a log through it, `replay.render` and `replay.rows` render and project
its facts.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from .cards import Card, CardTable
from .errors import FormatError, RuleError
from .events import EVENT_TYPES, SHEET_EVENT, Event, Header, field_of, int_dict, kind
from .facts import ClaimChecked, Fact, RoundOutcome, RoundScored

if TYPE_CHECKING:
    from .info import GameInfo

Move = dict[str, Any]


# Compiled with mypyc, the contract's classes are native classes: a game defined outside
# the compiled engine (a new module, the tests' toy game) subclasses them interpreted.
@mypyc_attr(allow_interpreted_subclasses=True)
class GameState(ABC):
    """The state of one game, folded from events by `apply`.

    A game implements `on_<type>` for each event type it takes (the dispatch table is
    built from those names; a compiled game also switches to them in `handle`), the
    uniform API below, and calls `finish_round` when a
    round is scored. Handlers raise `FormatError` for a malformed field and `RuleError`
    for a broken rule; each legality rule is one predicate that both the handler and
    `legal_moves` use.

    The engine may be compiled with mypyc (docs/games.md, "The compiled engine"): a
    handler must not keep the `Event` it is given, which the engine reuses for every line
    of a log (keep `ev.line` or values read from `ev.data`); a game module outside
    `replay/games/` runs interpreted, and may subclass `GameState`, `Fact`,
    `RoundOutcome`, `Card` and `SheetState`, which allow it, but no other class of the
    engine.
    """

    info: ClassVar[GameInfo]
    # built from the on_<type> methods when the game registers (see `handler_table`)
    handlers: ClassVar[dict[str, Callable[[Any, Event], None]]] = {}
    is_sheet: ClassVar[bool] = False  # a score sheet's state (replay.sheet) says True

    def __init__(self, header: Header) -> None:
        self.header = header
        self.players = header.players
        self.n = len(header.players)
        self.seat = {p: i for i, p in enumerate(header.players)}
        self.rounds_total = header.rounds
        self.round_no = 0
        self.dealer = self.seat[header.dealer]  # dealer of the current (or first) round
        self.rounds: list[RoundScored] = []
        self.totals = [0] * self.n
        self.claims: list[ClaimChecked] = []
        self.facts: list[Fact] = []
        self.over = False
        self.in_round = False
        self.dispatch = type(self).handlers  # read once per event: an attribute, not a lookup

    # -- what every game declares
    @classmethod
    @abstractmethod
    def check_header(cls, header: Header) -> int:
        """Validate the game's own header keys; return the number of rounds (ValueError)."""

    @classmethod
    def random_setup(cls, rng: Random, players: int) -> dict[str, Any]:
        """Header keys a simulated game of this many players needs beyond the generic ones."""
        return {}

    @abstractmethod
    def hand(self, seat: int) -> list[Card]:
        """The cards a player holds now, in deck order."""

    @abstractmethod
    def to_move(self) -> str | None:
        """The player whose decision comes next (None while a chance event is due or the
        game is over). Others may have legal moves too (hidden bids, a second keep)."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every move event (any player's) that `apply` accepts now; [] when a chance
        event is due or the game is over. Claims are not moves."""

    def choices(self) -> list[Move]:
        """The moves the player to move chooses among when the table is simulated: by
        default their legal moves (a game may keep to a canonical order, such as bids
        before plays)."""
        who = self.to_move()
        return [m for m in self.legal_moves() if m.get("player") == who]

    @abstractmethod
    def next_chance(self) -> str | None:
        """The chance event due next ('deal', or a game's own such as rage's 'trump'), or
        None when a player moves next or the game is over."""

    @abstractmethod
    def draw_chance(self, rng: Random) -> Move:
        """The chance event due now, drawn from `rng` (a shuffled deal, a turned card)."""

    def chance_outcomes(self) -> list[tuple[Move, int]]:
        """Every outcome of the chance event due now that is not a `deal`, each with its
        weight (its number of copies among the cards not yet seen): what the perfect-
        information search averages over (replay/search.py). [] when the game does not
        list them (then a search that meets the event stops: `Unsearchable`)."""
        return []

    def rules_out(self, move: Move) -> frozenset[str]:
        """Called just before `move` (a legal move of the player to move): the names of the
        cards that player shows the table they do not hold, by this game's rules (rage: no
        card of the led colour when they do not follow it). Read from the public state
        only. The judge deals its samples of the hidden hands around them
        (replay/judge.py); the default, nothing, leaves any such rule to the judge's
        replay of every sample."""
        return frozenset()

    def close(self) -> None:
        """The log ended here (complete, incomplete or at an illegal line): emit facts for
        what is still open, such as the cards of an unfinished trick."""
        return None  # a game without tricks leaves nothing open

    def check_claim_now(self) -> None:
        """Raise RuleError when a claim cannot come now (e.g. a keep is owed)."""
        return None  # by default a claim may come between any two events

    def __deepcopy__(self, memo: dict[int, Any]) -> GameState:
        """A copy to try moves on (the conformance test, a bot's look-ahead): a fresh state
        of the same game with a deep copy of every attribute; cards, facts and the header
        are immutable and shared. (A compiled state has no __dict__, and its __new__ needs
        the header, so the default copy does not work for it.)"""
        new = type(self)(self.header)
        memo[id(self)] = new
        for name, value in self._attributes().items():
            setattr(new, name, copy.deepcopy(value, memo))
        return new

    # -- branching: a cheap copy to try moves on (playouts, the judge, the search)
    def clone(self) -> GameState:
        """A copy that can diverge from this state: the core's mutable containers are
        copied one level (their items, facts and scored rounds, are immutable and shared),
        then `clone_into` copies the game's own. Far cheaper than `copy.deepcopy`, which
        walks every card and fact."""
        new = type(self)(self.header)
        new.round_no = self.round_no
        new.dealer = self.dealer
        new.rounds = self.rounds.copy()
        new.totals = self.totals.copy()
        new.claims = self.claims.copy()
        new.facts = self.facts.copy()
        new.over = self.over
        new.in_round = self.in_round
        self.clone_into(new)
        return new

    def clone_into(self, new: Any) -> None:
        """Copy the game's own attributes into `new` (a fresh state of the same game, the
        core's attributes already copied). A game overrides this with a hand-written copy;
        this default copies every container it finds, nested lists, sets and dicts
        included, and shares everything else (cards and facts are immutable)."""
        core = _CORE_ATTRIBUTES
        for name, value in self._attributes().items():
            if name not in core:
                setattr(new, name, _copy_containers(value))

    def _attributes(self) -> dict[str, Any]:
        names: tuple[str, ...] | None = getattr(type(self), "__mypyc_attrs__", None)
        if names is None:  # interpreted
            return dict(vars(self))
        out = {n: getattr(self, n) for n in names if n != "__dict__" and hasattr(self, n)}
        out.update(getattr(self, "__dict__", {}))  # an interpreted subclass's own attributes
        return out

    # -- the uniform API
    def apply(self, ev: Event) -> None:
        d = ev.data
        # A move log's lines rarely carry 't' or 'note' and the game is over only at its
        # end: the checks, in their order (the type first), run only when one may fail.
        if self.over or "t" in d or "note" in d:
            if ev.type not in self.dispatch:
                raise self.not_handled(ev)
            if "t" in d and type(d["t"]) is not str:
                raise FormatError(f"'t' must be a timestamp string, got {kind(d['t'])}")
            if "note" in d and type(d["note"]) is not str:
                raise FormatError(f"'note' must be a string, got {kind(d['note'])}")
            if self.over and ev.type != "claim":
                played = ("its only round was played" if self.rounds_total == 1 else
                          f"all {self.rounds_total} rounds were played")
                raise RuleError(f"the game is over ({played}): "
                                f"no '{ev.type}' may follow")
        self.handle(ev)

    def handle(self, ev: Event) -> None:
        """Call the `on_<type>` handler of `ev` (its type known or not: `apply` has checked
        the rest). This one looks the handler up in the dispatch table, a call through
        Python's generic path; a compiled game overrides it with a switch on the type that
        calls its handlers natively, falling back to this one for any other type (a claim,
        an unknown type). docs/games.md, "The compiled engine", says how."""
        fn = self.dispatch.get(ev.type)
        if fn is None:
            raise self.not_handled(ev)
        fn(self, ev)

    def not_handled(self, ev: Event) -> Exception:
        """The error for an event this log cannot take: an unknown type, a type the game does
        not use, or a score sheet's line in a move log."""
        if ev.type == SHEET_EVENT:
            if self.info.sheet_state is None:
                return RuleError(f"{self.info.name} has no score sheet: its games are "
                                 f"checked from their moves only")
            return RuleError("a 'sheet' line cannot stand in a move log: this log's first "
                             "event is a move, and a log is either a move log or a score "
                             "sheet, never both")
        if ev.type in EVENT_TYPES:
            return FormatError(f"'{ev.type}' events are not part of {self.info.name}")
        return FormatError(f"unknown event type {ev.type!r}")

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> dict[str, int]:
        return dict(zip(self.players, self.totals))

    # -- helpers for games
    def emit(self, fact: Fact) -> None:
        self.facts.append(fact)

    def seat_of(self, ev: Event) -> int:
        """The seat of `ev`'s player when valid, else `player()` says what is wrong. The few
        names are compared in turn: the line's name is a fresh string, which a lookup in
        `self.seat` would first have to hash."""
        name: Any = ev.data.get("player")
        if type(name) is str:
            wanted: str = name
            players = self.players
            for s in range(self.n):
                if players[s] == wanted:
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

    def card_played(self, ev: Event, turn: int, cards: CardTable[Any], hands: Sequence[Any],
                    trick_words: str, trick: int) -> tuple[int, Card]:
        """The seat and card of a `play` to a trick: it is the player's turn (`turn`; the
        message says "it is Ann's turn {trick_words} {trick}") and they hold the card
        (`hands[seat]` holds it)."""
        s = self.seat_of(ev)
        name = self.players[s]
        if s != turn:
            raise RuleError(f"{name} plays out of turn: it is {self.players[turn]}'s turn "
                            f"{trick_words} {trick}")
        card: Card = cards.from_event(ev)
        if card not in hands[s]:
            raise RuleError(f"{name} cannot play {card}: it is not in {name}'s hand")
        return s, card

    def why_no_deal(self) -> str | None:
        """Why a deal cannot come now (the round is not finished), or None when it may. A game
        may say more (which trick is being played, whose bid is missing)."""
        if self.in_round:
            return f"a deal came before round {self.round_no} was finished"
        return None

    def begin_deal(self, ev: Event) -> dict[str, list[str]]:
        """Common checks of a `deal`: that one may come now (`why_no_deal`), round number,
        dealer, hands keyed by every player."""
        why = self.why_no_deal()
        if why is not None:
            raise RuleError(why)
        self.round_no += 1
        if self.round_no > 1:
            self.dealer = self.left_of(self.dealer)
        if "dealer" in ev.data:
            d = self.player(ev, "dealer")
            if d != self.dealer:
                raise RuleError(f"round {self.round_no} is dealt by {self.players[self.dealer]} "
                                f"(the dealer moves one seat left each round), "
                                f"not {self.players[d]}")
        hands: dict[str, Any] = field_of(ev, "hands", dict, "an object {player: [cards]}")
        for name in hands:
            if name not in self.seat:
                raise RuleError(f"deal gives a hand to {name!r}, who is not a player")
        for name in self.players:
            if name not in hands:
                raise RuleError(f"deal has no hand for {name}")
            if type(hands[name]) is not list:
                raise FormatError(f"deal: {name}'s hand must be a list of cards, "
                                  f"got {kind(hands[name])}")
            for c in hands[name]:
                if type(c) is not str:
                    raise FormatError(f"deal: {name}'s hand holds {kind(c)}, expected card names")
        self.in_round = True
        return hands

    def named_leader(self, ev: Event) -> int | None:
        """The seat a deal names as `leader`, or None when it names none."""
        if "leader" not in ev.data:
            return None
        return self.player(ev, "leader")

    def finish_round(self, scores: list[int], derivations: list[str], outcome: RoundOutcome,
                     line: int) -> None:
        fact = RoundScored(self.round_no, self.dealer, tuple(scores), tuple(derivations),
                           outcome, line)
        self.rounds.append(fact)
        self.facts.append(fact)
        totals = self.totals
        for s, v in enumerate(scores):
            totals[s] += v
        self.in_round = False
        if self.round_no >= self.rounds_total:
            self.over = True

    def on_claim(self, ev: Event) -> None:
        self.check_claim_now()
        d = ev.data
        round_no: int | None
        if "round" in d:
            if "totals" in d:
                raise RuleError("a claim has either 'round' with 'scores' or 'totals', not both")
            r: int = field_of(ev, "round", int, "a round number")
            claimed = int_dict(ev, "scores", "an object {player: score}")
            if not 1 <= r <= len(self.rounds):
                if 1 <= r <= self.rounds_total:
                    raise RuleError(f"claim for round {r}, which has not finished "
                                    f"({len(self.rounds)} finished so far)")
                has = ("round 1 only" if self.rounds_total == 1 else
                       f"rounds 1-{self.rounds_total}")
                raise RuleError(f"claim for round {r}: the game has {has}")
            rs = self.rounds[r - 1]
            computed, derivs = rs.scores, rs.derivations
            round_no = r
        elif "totals" in d:
            claimed = int_dict(ev, "totals", "an object {player: total}")
            computed = tuple(self.totals)
            derivs = tuple(totals_derivation(self.rounds, s) for s in range(self.n))
            round_no = None
        else:
            raise FormatError("claim event needs 'round' and 'scores', or 'totals'")
        for name in claimed:
            if name not in self.seat:
                raise RuleError(f"claim names {name!r}, who is not a player")
        for name, v in claimed.items():
            s = self.seat[name]
            c = computed[s]
            fact = ClaimChecked(round_no, s, v, c, v == c, derivs[s], ev.line)
            self.claims.append(fact)
            self.facts.append(fact)


_CORE_ATTRIBUTES: Final = frozenset({
    "header", "players", "n", "seat", "rounds_total", "round_no", "dealer", "rounds",
    "totals", "claims", "facts", "over", "in_round", "dispatch"})


def _copy_containers(value: Any) -> Any:
    """`value` with every list, set, dict and tuple in it copied, and every other object
    shared: the default `clone_into`'s copy."""
    t = type(value)
    if t is list:
        return [_copy_containers(v) for v in value]
    if t is dict:
        return {k: _copy_containers(v) for k, v in value.items()}
    if t is set:
        return set(value)
    if t is tuple:
        return tuple(_copy_containers(v) for v in value)
    return value


def handler_table(cls: type[GameState], types: Iterable[str]
                  ) -> dict[str, Callable[[Any, Event], None]]:
    """A state's dispatch table: each of its event `types` -> its `on_<type>` method (built
    when the game registers, which checks that the two agree, rather than in
    `__init_subclass__`, which mypyc does not combine with copying a native state)."""
    return {t: getattr(cls, f"on_{t}") for t in types}


def handled_types(cls: type[GameState]) -> set[str]:
    """The event types a state class has an `on_<type>` method for."""
    return {name[3:] for name in dir(cls)
            if name.startswith("on_") and callable(getattr(cls, name, None))}


def totals_derivation(rounds: Iterable[RoundScored], seat: int) -> str:
    parts = [r.scores[seat] for r in rounds]
    if not parts:
        return "no round finished -> 0"
    return " + ".join(str(x) for x in parts) + f" = {sum(parts)}"


def check_rounds(header: Header, default: int, maximum: int | None = None) -> int:
    r = header.raw.get("rounds", default)
    if type(r) is not int or r < 1:
        raise ValueError(f"'rounds' must be a positive integer, got {r!r}")
    if maximum is not None and r > maximum:
        raise ValueError(f"'rounds' may be at most {maximum} for {header.game}, got {r}")
    return r


@mypyc_attr(allow_interpreted_subclasses=True)
class FoldWatcher:
    """Told of every event the engine's fold (`replay.engine.replay_log`) applies, just
    before and just after `GameState.apply`: a reader of the state between moves (the step
    viewer, `replay.timeline`) watches the one fold instead of running its own. An event
    that breaks a rule gets `before` and no `after`."""

    def before(self, state: GameState, ev: Event) -> None:
        return None

    def after(self, state: GameState, ev: Event) -> None:
        return None
