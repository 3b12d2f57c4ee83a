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
from .errors import EarlierLineError, FormatError, HandRuleError, RuleError
from .events import (
    EVENT_TYPES,
    SHEET_EVENT,
    SHOWN_EVENT,
    Event,
    Header,
    field_of,
    int_dict,
    kind,
    str_list,
)
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
    # a game whose deals may leave out the hands (docs/format.md, "Plays-only rounds") says
    # True and provides the hooks of "plays-only rounds" below
    plays_only_rounds: ClassVar[bool] = False
    # the parts of a deal beside the hands that a `shown` may name as `from` (the pile...)
    shown_parts: ClassVar[tuple[str, ...]] = ()

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
        # a plays-only round being played (None otherwise: every full-hands check is one
        # test of this attribute), what stayed unknown in each settled one, by round, and
        # whether the deal being applied gives hands inferred from the plays (some partial)
        self.live: LiveRound | None = None
        self.unknown: dict[int, tuple[str, ...]] | None = None
        # the deal each settled plays-only round was replayed with, by round: its hands as
        # the plays and shown cards gave them (what the judge deals its samples around)
        self.inferred: dict[int, dict[str, Any]] | None = None
        self.inferring = False
        # a table's recording goes on past a rule that needed the hands (the cards were
        # played): a settle then keeps the round as its plays had it and notes the error
        self.keep_going = False
        self.violations: list[EarlierLineError] = []

    # -- what every game declares
    @classmethod
    @abstractmethod
    def check_header(cls, header: Header) -> int:
        """Validate the game's own header keys; return the number of rounds (ValueError)."""

    @classmethod
    def most_rounds(cls) -> int | None:
        """The most rounds a header may ask for (a game whose deck deals a fixed number of
        rounds), or None when any number may be played."""
        return None

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
        live = self.live
        if live is not None:
            new.live = live.copy()
        if self.unknown is not None:
            new.unknown = dict(self.unknown)
        if self.inferred is not None:
            new.inferred = dict(self.inferred)
        if self.keep_going:
            new.keep_going = True
            new.violations = self.violations.copy()
        self.clone_into(new)
        return new

    def adopt(self, other: GameState) -> None:
        """Become `other`, a state of the same game that nothing else holds (a plays-only
        round replayed again with its hands inferred): its core attributes are taken over
        and `clone_into` copies the game's own."""
        self.round_no = other.round_no
        self.dealer = other.dealer
        self.rounds = other.rounds
        self.totals = other.totals
        self.claims = other.claims
        self.facts = other.facts
        self.over = other.over
        self.in_round = other.in_round
        self.live = other.live
        self.unknown = other.unknown
        self.inferred = other.inferred
        other.clone_into(self)

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
        live = self.live
        if live is not None:
            if live.over and ev.type != SHOWN_EVENT:
                # the round's last move and what was shown are in: its hands are known
                self.settle()
                live = None
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
            if self.over and ev.type != "claim" and ev.type != SHOWN_EVENT:
                played = ("its only round was played" if self.rounds_total == 1 else
                          f"all {self.rounds_total} rounds were played")
                raise RuleError(f"the game is over ({played}): "
                                f"no '{ev.type}' may follow")
        if live is not None:
            # a plays-only round keeps its events, to be replayed again once its hands are
            # known (before the event is handled: it may be the one that ends the round)
            live.events.append((ev.line, ev.type, d))
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
        if card not in hands[s] and self.live is None:  # a plays-only round: not known yet
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
        plays_only = "hands" not in ev.data and self.plays_only_rounds
        snapshot = self.clone() if plays_only else None
        self.round_no += 1
        if self.round_no > 1:
            self.dealer = self.left_of(self.dealer)
        if "dealer" in ev.data:
            d = self.player(ev, "dealer")
            if d != self.dealer:
                raise RuleError(f"round {self.round_no} is dealt by {self.players[self.dealer]} "
                                f"(the dealer moves one seat left each round), "
                                f"not {self.players[d]}")
        if snapshot is not None:
            for key in self.shown_parts:
                if key in ev.data:
                    raise RuleError(f"a deal without hands gives no '{key}' either: nobody "
                                    f"knows it at the table (a 'shown' event from the {key} "
                                    f"may say it at the round's end)")
            self.live = LiveRound(snapshot, self.round_no, ev.line, dict(ev.data), self.n)
            self.in_round = True
            return {}
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

    # -- plays-only rounds (docs/format.md, "Plays-only rounds"). A deal without hands starts
    # a `LiveRound`: the game checks every rule that needs no hand as the moves come (turn
    # order, each card once and of the deck, tricks, the round's end) and notes each card
    # with `live_card`/`live_seen`; it calls `round_played` when the round's last move is
    # in. The round is then settled: each hand is inferred from the cards its player played
    # and showed (`inferred_deal`), and the round is replayed again from the state before its
    # deal, with those hands and the full-hands rules; what that replay finds is a rule
    # that needed the hands, reported on its own line (`EarlierLineError`), and its state
    # becomes this one (`adopt`), so that the facts are those of the full log.

    def on_shown(self, ev: Event) -> None:
        """Cards shown at a round's end that were never played: `player` (their hand) or
        `from` (a part of the deal that a game has beside the hands), and `cards`."""
        if self.is_sheet:
            raise RuleError("a 'shown' line cannot stand in a score sheet: it shows the cards "
                            "left at a plays-only round's end, in a move log")
        raw = str_list(ev, "cards", "a list of card names")
        cards = [self.info.cards.parse(c) for c in raw]
        seat: int | None = None
        part: str | None = None
        if "player" in ev.data:
            if "from" in ev.data:
                raise FormatError("a shown event names either a 'player' or where the cards "
                                  "come 'from', not both")
            seat = self.player(ev)
        elif "from" in ev.data:
            part = field_of(ev, "from", str, "where the cards come from")
            if part not in self.shown_parts:
                parts = (f"'player', or 'from' one of {', '.join(self.shown_parts)}"
                         if self.shown_parts else "'player'")
                raise RuleError(f"{self.info.name} has no {part!r} to show cards from: a "
                                f"shown event names {parts}")
        else:
            raise FormatError("shown event needs 'player' (whose cards they are)")
        self.show(seat, part, cards, ev.line)

    def show(self, seat: int | None, part: str | None, cards: list[Card], line: int) -> None:
        """A `shown` event (read by `on_shown`): check it and note its cards."""
        raise RuleError(f"{self.info.name} has no plays-only rounds: there is nothing a "
                        f"'shown' event could show")

    def live_card(self, seat: int, card: Card, line: int, step: int) -> None:
        """In a plays-only round, `seat` puts `card` from their hand on the table in `step`
        (a trick or a turn): it is of the game's deck, not seen more often than the deck
        holds it, and the player still holds a card. Noted for the inferred hand."""
        live = self.live
        assert live is not None
        name = self.players[seat]
        if len(live.played[seat]) >= live.dealt[seat]:
            raise RuleError(f"{name} cannot play {card}: {name} was dealt "
                            f"{live.dealt[seat]} cards and has played them all")
        self._live_unseen(card, f"{name} cannot play {card}")
        live.played[seat].append((card, line, step))

    def live_seen(self, card: Card, what: str, how: str) -> None:
        """In a plays-only round, a card that comes from no hand (a trump turned up, a draw
        from the pile) shows: it is of the deck and not seen more often than it holds it
        (`what` says what cannot be, `how` how it was seen: "turned up as trump, line 5")."""
        live = self.live
        assert live is not None
        self._live_unseen(card, what)
        live.outside.append((card, how))

    def _live_unseen(self, card: Card, what: str) -> None:
        live = self.live
        assert live is not None
        copies = self.copies(card)
        if copies == 0:
            raise RuleError(f"{what}: {card} {self.not_in_deck()}")
        seen = live.seen.get(card, 0)
        if seen >= copies:
            raise RuleError(f"{what}: {self.where_seen(card)}")
        live.seen[card] = seen + 1

    def copies(self, card: Card) -> int:
        """How many copies of `card` this game's deck holds at this table (0: none)."""
        return 1

    def not_in_deck(self) -> str:
        """Why a card is not of this table's deck, after its name ("is not in ...")."""
        return "is not in this game's deck"

    def where_seen(self, card: Card) -> str:
        """Where every copy of `card` was seen already this round, in words."""
        live = self.live
        assert live is not None
        places = []
        for s in range(self.n):
            for c, line, step in live.played[s]:
                if c is card:
                    places.append(f"{self.players[s]} played it in {self.info.step} {step} "
                                  f"(line {line})")
            shown = live.shown[s]
            if shown is not None and card in shown:
                places.append(f"{self.players[s]} showed it (line {live.shown_line[s]})")
        for part, cards in live.parts.items():
            if card in cards:
                places.append(f"it was shown from the {part}")
        for c, how in live.outside:
            if c is card:
                places.append(f"it was {how}")
        copies = self.copies(card)
        if copies > 1:
            return (f"the deck holds {copies} {card}, and all were seen this round"
                    + (f" ({'; '.join(places)})" if places else ""))
        if places:
            return f"{card} was seen already this round: {places[0]}"
        return f"{card} is listed twice"

    def cards_left(self, seat: int) -> int:
        """In a plays-only round: how many cards `seat` still holds (dealt, minus played)."""
        live = self.live
        assert live is not None
        return live.dealt[seat] - len(live.played[seat])

    def live_show(self, seat: int | None, part: str | None, cards: list[Card], line: int,
                  expected: int) -> None:
        """A `shown` in a plays-only round whose last move is in (the game checked when it
        may come): `expected` cards, none seen before, once per player or part."""
        live = self.live
        assert live is not None
        who = self.players[seat] if seat is not None else f"the {part}"
        if seat is not None and live.shown[seat] is not None:
            raise RuleError(f"{who}'s cards were shown already (line {live.shown_line[seat]})")
        if part is not None and part in live.parts:
            raise RuleError(f"the cards of {who} were shown already")
        if len(cards) != expected:
            holds = ("holds" if seat is not None else "has")
            raise RuleError(f"{who} {holds} {expected} card{'s' if expected != 1 else ''} "
                            f"at this point, and a shown event lists them all: it lists "
                            f"{len(cards)}")
        for c in cards:
            self._live_unseen(c, f"{who} cannot show {c}")
        if seat is not None:
            live.shown[seat] = list(cards)
            live.shown_line[seat] = line
        elif part is not None:
            live.parts[part] = list(cards)

    def full_show(self, seat: int | None, part: str | None, cards: list[Card],
                  held: list[Card]) -> None:
        """A `shown` in a round dealt with its hands: it must show exactly what is still
        `held` (the player's hand, or what is left of the deal's part)."""
        who = self.players[seat] if seat is not None else f"the {part}"
        want = sorted(c.index for c in held)
        if sorted(c.index for c in cards) != want:
            names = " ".join(c.name for c in held) or "nothing"
            raise RuleError(f"{who} shows {' '.join(c.name for c in cards) or 'nothing'}, "
                            f"but holds {names}")

    def round_played(self) -> None:
        """A plays-only round's last move is in. With nothing left to show it is settled at
        once; otherwise at the next event that is not a `shown` (or the log's end)."""
        live = self.live
        assert live is not None
        live.over = True
        if not any(self.cards_left(s) for s in range(self.n)) and not self.parts_unshown():
            self.settle()

    def claim_ends_round(self) -> None:
        """A claim for the plays-only round being played: the table says the round is over,
        where only what follows the plays can say so (a game whose round may end without a
        last move, as plotters' early end, ends it here)."""
        return None

    def why_unscored(self) -> str | None:
        """Why the plays-only round being settled has no score without its replay with the
        hands (color_stacks scores the hands left), or None when its plays scored it."""
        return None

    def could_hold(self) -> list[Card]:
        """In a plays-only round: every card nobody has shown yet (as often as the deck
        holds it more), in deck order: what a player could still hold."""
        live = self.live
        assert live is not None
        out: list[Card] = []
        for c in self.info.cards.deck_order:
            left = self.copies(c) - live.seen.get(c, 0)
            if left > 0:
                out.append(c)
        return out

    def parts_to_show(self) -> dict[str, int]:
        """In a plays-only round whose last move is in: the parts of the deal beside the
        hands not shown yet, with how many cards a `shown` from each lists (a game's own)."""
        return {}

    def leader_elected(self) -> bool:
        """Whether the deal due next may name any player as the leader of its first trick
        (its `leader`: a game's table may elect one), rather than the one the rules give."""
        return False

    def names_for(self, card: Card) -> list[str]:
        """What a play of `card` must name in its `as` (a card that stands for a colour of
        the player's choice), each value it may take; [] when it names nothing."""
        return []

    def ends_if_shown(self) -> str | None:
        """In a plays-only round: when the player to move showing their hand would end the
        round here (plotters: they hold only the fourth colour), why, in words; else None."""
        return None

    def parts_left(self) -> dict[str, list[Card]]:
        """In a round dealt with its hands: what is left of each part of the deal beside the
        hands that a `shown` may show (`shown_parts`), by part."""
        return {}

    def parts_unshown(self) -> bool:
        """Whether a part of the deal beside the hands may still be shown."""
        return bool(self.parts_to_show())

    def why_unsettled(self) -> str | None:
        """Why the plays-only round cannot be scored yet (what must be shown first), or None."""
        return None

    def inferred_deal(self, live: LiveRound, upto: int | None) -> dict[str, Any]:
        """The round's deal as the plays show it: each hand the cards its player played
        (before line `upto`, when given) and showed. A game adds the other parts."""
        data = dict(live.deal_data)
        hands: dict[str, list[str]] = {}
        for s, name in enumerate(self.players):
            cards = [c for c, line, _ in live.played[s] if upto is None or line < upto]
            shown = live.shown[s]
            if shown is not None and (upto is None or live.shown_line[s] < upto):
                cards.extend(shown)
            hands[name] = [c.name for c in self.info.cards.in_order(cards)]
        data["hands"] = hands
        return data

    def unknown_cards(self, live: LiveRound) -> list[str]:
        """What stays unknown of a settled plays-only round, in words (the verdict's
        `unknown`): by default the cards left in the hands that were not shown."""
        left = [f"{self.players[s]}'s {k}" for s in range(self.n)
                for k in (self.cards_left(s),) if k and live.shown[s] is None]
        if not left:
            return []
        return [f"cards left in hand, never played nor shown: {', '.join(left)}"]

    def not_ended(self, replayed: GameState, live: LiveRound) -> EarlierLineError:
        """The error when the round, replayed with the hands the plays and shown cards give,
        does not end where its plays did (a game says which card keeps it going)."""
        last = max((line for cards in live.played for _, line, _ in cards),
                   default=live.deal_line)
        return EarlierLineError(last, f"with the hands the cards played and shown give, round "
                                      f"{live.round} does not end here")

    def settle(self) -> None:
        """Settle the plays-only round: replay it again with the hands inferred, and become
        that replay (a rule that needed the hands, broken, is an `EarlierLineError`)."""
        why = self.why_unsettled()
        if why is not None:
            raise RuleError(why)
        live = self.live
        assert live is not None
        notes = self.unknown_cards(live)
        snap, failure = self._replay_inferred(live, None)
        if failure is None and snap.in_round and snap.round_no == live.round:
            failure = self.not_ended(snap, live)
        if failure is not None and self.keep_going and not self.why_unscored():
            # the round as its plays had it (scored already): the error is noted
            self.violations.append(failure)
            self.live = None
            return
        violations = self.violations
        self.adopt(snap)
        self.violations = violations
        if notes:
            self.unknown = {**(self.unknown or {}), live.round: tuple(notes)}
        if failure is not None:
            if self.keep_going:
                self.violations.append(failure)
                return
            raise failure

    def earlier_violation(self, line: int | None) -> EarlierLineError | None:
        """A rule that needed the hands, broken in the plays-only round being played before
        `line` (None: in any of its events so far), as far as the cards played show the
        hands; this state becomes the replay that found it. None when none is found (then
        nothing changes)."""
        live = self.live
        if live is None:
            return None
        snap, failure = self._replay_inferred(live, line)
        if failure is not None:
            self.adopt(snap)
        return failure

    def log_ended(self) -> None:
        """The log (or the table's recording) ends here: a plays-only round whose last move
        is in is settled; one still being played is checked for a rule that the cards
        played so far show broken."""
        live = self.live
        if live is None:
            return
        if live.over and self.why_unsettled() is None:
            self.settle()
            return
        failure = self.earlier_violation(None)
        if failure is not None:
            raise failure

    def _replay_inferred(self, live: LiveRound, upto: int | None
                         ) -> tuple[GameState, EarlierLineError | None]:
        snap = live.snapshot.clone()
        deal = self.inferred_deal(live, upto)
        if upto is None:
            snap.inferred = {**(snap.inferred or {}), live.round: deal}
        ev = Event(live.deal_line, "deal", deal)
        try:
            snap.inferring = True
            snap.apply(ev)
            snap.inferring = False
            for line, etype, data in live.events:
                if upto is not None and line >= upto:
                    break
                if etype == SHOWN_EVENT or etype == "deal":
                    continue  # what it shows is in the hands; a deal began the next round
                ev.line = line
                ev.type = etype
                ev.data = data
                snap.apply(ev)
        except (RuleError, FormatError) as e:
            snap.inferring = False
            return snap, EarlierLineError(ev.line, self._hand_rule_text(e, live, ev.line))
        return snap, None

    def _hand_rule_text(self, e: Exception, live: LiveRound, line: int) -> str:
        if not isinstance(e, HandRuleError):
            return str(e)
        name = self.players[e.seat]
        seen = self._seen_later(live, e.seat, e.held, line)
        return f"{name} {e.deed} while holding {e.held} ({seen}) — {e.verdict}"

    def _seen_later(self, live: LiveRound, seat: int, held: str, line: int) -> str:
        name = self.players[seat]
        for c, at, step in live.played[seat]:
            if c.name == held and at > line:
                return f"{name} played {held} in {self.info.step} {step}, line {at}"
        shown = live.shown[seat]
        if shown is not None and any(c.name == held for c in shown):
            return f"{name} showed {held} at the round's end, line {live.shown_line[seat]}"
        return f"as the cards {name} played and showed say"

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
        d = ev.data
        if self.live is not None and d.get("round") == self.round_no and self.in_round:
            self.claim_ends_round()
        self.check_claim_now()
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
    "totals", "claims", "facts", "over", "in_round", "dispatch", "live", "unknown",
    "inferred",
    "inferring", "keep_going", "violations"})


class LiveRound:
    """A plays-only round being played (`GameState.live`): the state before its deal, its
    deal and later events (to replay it again once the hands are known), and every card
    seen: played from each hand (with its line and trick or turn), shown, or seen outside
    the hands (a turned trump, a draw)."""

    def __init__(self, snapshot: GameState, round_no: int, deal_line: int,
                 deal_data: dict[str, Any], n: int) -> None:
        self.snapshot = snapshot  # never changed: a settle replays a clone of it
        self.round = round_no
        self.deal_line = deal_line
        self.deal_data = deal_data
        self.events: list[tuple[int, str, dict[str, Any]]] = []
        self.dealt: list[int] = [0] * n  # the hand sizes (the game sets them)
        self.played: list[list[tuple[Card, int, int]]] = [[] for _ in range(n)]
        self.shown: list[list[Card] | None] = [None] * n
        self.shown_line: list[int] = [0] * n
        self.parts: dict[str, list[Card]] = {}
        self.outside: list[tuple[Card, str]] = []  # seen outside the hands, in order: how
        self.seen: dict[Card, int] = {}
        self.over = False  # the round's last move is in

    def copy(self) -> LiveRound:
        new = LiveRound(self.snapshot, self.round, self.deal_line, self.deal_data,
                        len(self.dealt))
        new.events = self.events.copy()
        new.dealt = self.dealt.copy()
        new.played = [p.copy() for p in self.played]
        new.shown = [None if s is None else s.copy() for s in self.shown]
        new.shown_line = self.shown_line.copy()
        new.parts = {k: v.copy() for k, v in self.parts.items()}
        new.outside = self.outside.copy()
        new.seen = self.seen.copy()
        new.over = self.over
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> LiveRound:
        new = self.copy()
        new.snapshot = copy.deepcopy(self.snapshot, memo)
        return new


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
