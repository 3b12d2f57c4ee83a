"""Decision quality: every decision of a move log judged against its alternatives.

For each decision of a log (a move event whose player had more than one distinct legal
move), from that player's information at that moment (docs/analytics.md argues each rule;
a native analysis engine plugs in at step 3 and must keep steps 1, 2 and 4):

1. **The view and its seed.** What the player saw: the header's rules (not its `id` or
   `meta`), every earlier round's scores, their own hand as dealt, the deal's public
   fields, every event of the round before the decision (without `t` and `note`) and the
   decision's place. Its SHA-256 (`Decision.view`), with the method and the seed, seeds
   the decision's random stream: two logs the player cannot tell apart get the same
   samples and the same judgement, whatever else they hold.
2. **Samples of the hidden cards, drawn directly.** The hidden cards are pooled: what the
   other players still hold from the deal, the face-down cards of the deal not yet revealed
   (the fields the game declares `face_down`: 4-player color_stacks' `aside`,
   under_the_radar's `removed`, 2-player color_stacks' `pile` below its drawn top), and the
   cards of the game's deck that were neither dealt nor turned up (rage's undealt pile).
   They are dealt again into the same places — each player keeps their number of hidden
   cards, a face-down card that was revealed stays where it was — uniformly among the deals
   that fit what the table saw: a card a player has shown they do not hold
   (`GameState.rules_out`: rage's follow rule, under_the_radar's acceptability rule) never
   goes to them. The draw is exact (`Dealer`: the number of fitting deals is counted over
   the classes of cards that the same players may hold, so every fitting deal is equally
   likely, as a rejection sampler would make them, and no draw is wasted). Every sample is
   then replayed from the round's deal through the log's own events up to the decision: one
   under which an earlier move would be illegal is rejected and drawn again (`REJECTIONS`
   tries per sample wanted). With the four games' declarations no sample is rejected
   (tests/units/test_judge.py checks it), so a decision gets the samples asked for;
   rejection remains for a game whose module does not say what its moves rule out, and where
   counting the fitting deals would cost too much (`STATES_LIMIT`, `WORK_LIMIT`: large
   tables with many players seen void: the weakest constraints are then left to the replay).
3. **Values** (`ValueEngine`, selected by name: `engine`): for each sample and each legal
   alternative, the judged player's round score after it. The reference engine,
   `PythonEngine`: when the rest of the round of the sample has at most `budget`
   positions (`ENDGAME_BUDGET`) the sample is solved exactly (replay/search.py: max^n,
   equally good moves averaged, chance averaged); otherwise every alternative is applied
   to a branch of the sample (`GameState.clone`) and the round is played out by the
   greedy bot in every seat with the same random stream for every alternative (common
   random numbers), chance events drawn from that stream. Once a sample of a decision
   does not fit the budget, its later samples are played out without trying. The native
   engine, `NativeEngine` (replay/native, "native"), does the same in C++ with budgets in
   its own positions (replay/native/judging.py); `trickledger analyse --moves` uses it by
   default where it is built.
4. **The verdict.** The value of an alternative is the mean over the samples of the
   judged player's value after it, in the game's own points (better is higher, lower
   where the lowest total wins). The best alternatives are those within `TIE` (1e-9
   points) of the best mean. The move made is `best` when it is one of them, and also
   when no alternative leads it *surely* by half an inaccuracy (`BEST_MARGIN` of the
   game's first threshold: the lead's lower bound, lead − z SE of the per-sample
   differences, stays below it; z = `sure_z(k, n)` for the decision's k other
   alternatives and n samples, Student's t with n − 1 degrees at Bonferroni's 1 − 0.05 /
   k, never under 2, so that "sure" holds for the decision as a whole at 95 %): a lead
   the samples cannot tell from noise, or too small to matter, is a tie, and a verdict
   that flipped with the seed otherwise. A best move has cost 0, `equal_moves` the
   alternatives that scored at least as well on the samples (the highest first),
   `best_value` the best mean (the move made's own when it scored best), and `cost_se`
   the standard error of the lead of the best other alternative (how sure "best" is).
   Otherwise `best_move` is the first best alternative by its label, `cost` = its mean −
   the mean of the move made (turned so that a positive cost is always worse), `cost_se`
   the standard error of the per-sample differences, and the band the sure part of the
   cost (cost − z SE, the same z) against the game's thresholds in points
   (`GameInfo.bands`): `good`, `inaccuracy`, `mistake`, `blunder`. Noise cannot make a
   blunder; a decision with a single sample (no error to measure: `cost_se` is NaN) is
   best only when the move made scored best, and never called worse than `good`. The
   judge as a player (`cost_of`, the benchmarks) still takes the alternative with the
   best mean.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Final, Protocol

import orjson

from .bots import GreedyBot
from .cards import randbelow, shuffle
from .engine import replay_bytes
from .errors import FormatError, RuleError
from .events import SHOWN_EVENT, Event
from .native.judging import native_engine
from .playsonly import settled_events
from .registry import registry
from .search import TIE, BudgetExceeded, Unsearchable, exact_values
from .state import GameState, Move

METHOD: Final = "greedy-crn-v3"  # v3: a lead the samples cannot tell from noise is a tie
# the random streams of v2: v3 changed the verdict, not what is sampled or how it is valued,
# so a decision draws the same samples (and a test its statistics) as under v2
STREAMS: Final = "greedy-crn-v2"
BEST_MARGIN: Final = 0.5  # of the game's inaccuracy threshold: a lead surely this large counts
DEFAULT_SAMPLES: Final = 16
MAX_MOVES: Final = 100_000  # a playout that does not end is a bug, not a hang
ENDGAME_BUDGET: Final = 400  # positions: a rest of the round this small is searched
REJECTIONS: Final = 40  # tries per wanted sample before settling for fewer
STATES_LIMIT: Final = 3_000  # capacities the count of fitting deals may go through
WORK_LIMIT: Final = 3_000  # counts of fitting deals worked out, before a constraint is dropped
BANDS: Final = ("best", "good", "inaccuracy", "mistake", "blunder")
_NORMAL: Final = NormalDist()

_NOT_SEEN: Final = ("t", "note")  # event keys that say nothing about the game
# spelled out, not starred: mypyc fails on a starred tuple in a comprehension's test (an
# internal error that left the whole engine interpreted)
_HEADER_NOT_SEEN: Final = ("id", "meta", "t", "note")


@dataclass(init=False, eq=True, unsafe_hash=True)
class Judgement:
    """One decision judged: the move made against the best of its legal alternatives.

    Read-only by `Final`, not `frozen`: compiled, a frozen dataclass cannot be unpickled
    (its `__setattr__` refuses the fields), and judgements travel back from worker
    processes pickled (`__reduce__`; tests/units/test_judge.py pickles one)."""

    round: Final[int]
    step: Final[int]  # the decision's place among the round's moves (1-based, log order)
    line: Final[int]
    player: Final[str]
    move: Final[str]
    best_move: Final[str]  # the move made when it is best
    value: Final[float]  # the player's expected round score after the move made
    best_value: Final[float]
    cost: Final[float]  # >= 0: how much worse than the best, in the game's points
    cost_se: Final[float]
    samples: Final[int]
    alternatives: Final[int]
    band: Final[str]
    equal_moves: Final[tuple[str, ...]]  # other alternatives as good as best_move
    exact_samples: Final[int]  # samples solved exactly (the search), the rest played out
    seconds: Final[float]  # CPU time this decision took

    def __init__(self, round: int, step: int, line: int, player: str, move: str,
                 best_move: str, value: float, best_value: float, cost: float,
                 cost_se: float, samples: int, alternatives: int, band: str,
                 equal_moves: tuple[str, ...] = (), exact_samples: int = 0,
                 seconds: float = 0.0) -> None:
        self.round = round
        self.step = step
        self.line = line
        self.player = player
        self.move = move
        self.best_move = best_move
        self.value = value
        self.best_value = best_value
        self.cost = cost
        self.cost_se = cost_se
        self.samples = samples
        self.alternatives = alternatives
        self.band = band
        self.equal_moves = equal_moves
        self.exact_samples = exact_samples
        self.seconds = seconds

    def __reduce__(self) -> tuple[type[Judgement], tuple[Any, ...]]:
        # compiled, a native class is unpickled through its __init__ with no arguments
        return (Judgement, (self.round, self.step, self.line, self.player, self.move,
                            self.best_move, self.value, self.best_value, self.cost,
                            self.cost_se, self.samples, self.alternatives, self.band,
                            self.equal_moves, self.exact_samples, self.seconds))

    def same_verdict(self, other: Judgement) -> bool:
        """Everything but the time it took."""
        return (self.round, self.step, self.line, self.player, self.move, self.best_move,
                self.value, self.best_value, self.cost, _nan_safe(self.cost_se),
                self.samples, self.alternatives, self.band, self.equal_moves,
                self.exact_samples) == (
                other.round, other.step, other.line, other.player, other.move,
                other.best_move, other.value, other.best_value, other.cost,
                _nan_safe(other.cost_se), other.samples, other.alternatives, other.band,
                other.equal_moves, other.exact_samples)


def _nan_safe(x: float) -> float | None:
    return None if math.isnan(x) else x


def move_label(m: Move) -> str:
    """A move as one short text: its type and fields, without player, time or note
    (`play B7`, `bid 2`, `take B3 G5`)."""
    parts = [str(m.get("type", "?"))]
    for k, v in m.items():
        if k in ("type", "player", "t", "note"):
            continue
        if isinstance(v, list):
            parts.append(" ".join(str(x) for x in v))
        else:
            parts.append(str(v))
    return " ".join(parts)


def sure_z(compared: int, samples: int = 0) -> float:
    """How many standard errors below its mean a lead is still sure, when `compared`
    alternatives are compared with the move made on `samples` samples: the lower bound of
    a 95 % interval for the decision as a whole, never under 2. Bonferroni: each of the
    `compared` bounds at 1 − 0.05 / `compared` (the best of many noisy leads is larger than
    its own interval says, the winner's curse: with 13 alternatives each held to 2 SE, one
    of them looks surely better by noise alone in about 1 − 0.977^13 ≈ 26 % of the
    decisions whose move made is as good as any); and Student's t with `samples` − 1
    degrees of freedom, since the standard error is itself measured on those samples (the
    normal quantile when `samples` is 0: not known)."""
    key = (max(compared, 1), samples)
    z = _SURE_Z.get(key)
    if z is None:
        confidence = 1.0 - 0.05 / key[0]
        z = max(2.0, _t_two_sided(confidence, samples - 1) if samples >= 2
                else _NORMAL.inv_cdf(1.0 - (1.0 - confidence) / 2))
        _SURE_Z[key] = z
    return z


_SURE_Z: Final[dict[tuple[int, int], float]] = {}


def _t_within(t: float, nu: int) -> float:
    """P(|T| < t) for Student's t with `nu` ≥ 1 degrees of freedom (Abramowitz and Stegun
    26.7.3 and 26.7.4: finite sums for a whole number of degrees)."""
    theta = math.atan(t / math.sqrt(nu))
    c2 = math.cos(theta) ** 2
    term = 1.0
    total = 1.0
    if nu % 2:
        if nu == 1:
            return 2.0 * theta / math.pi
        for k in range(1, (nu - 3) // 2 + 1):
            term *= c2 * (2 * k) / (2 * k + 1)
            total += term
        return 2.0 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)
    for k in range(1, (nu - 2) // 2 + 1):
        term *= c2 * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(theta) * total


def _t_two_sided(confidence: float, nu: int) -> float:
    """The t with P(|T| < t) = `confidence`, `nu` degrees of freedom (bisection)."""
    lo = 0.0
    hi = 1.0
    while _t_within(hi, nu) < confidence:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if _t_within(mid, nu) < confidence:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def band_of(game: str, cost: float, cost_se: float, made_best: bool,
            compared: int = 1, samples: int = 0) -> str:
    """The verdict band of a decision (see the module's doc): `best` when the move made is
    best or tied with the best (`judge_decision`); otherwise the sure part of the cost,
    with `compared` alternatives beside the move made on `samples` samples (`sure_z`),
    against the thresholds."""
    if made_best:
        return "best"
    if math.isnan(cost_se):
        return "good"  # one sample: no error to measure, never worse than good on its word
    # the certain part of the cost against the game's scale (GameInfo.bands)
    inaccuracy, mistake, blunder = registry()[game].bands
    sure = cost - sure_z(compared, samples) * cost_se
    if sure >= blunder:
        return "blunder"
    if sure >= mistake:
        return "mistake"
    if sure >= inaccuracy:
        return "inaccuracy"
    return "good"


def better_sign(game: str) -> int:
    """+1 when a higher round score is better, -1 when lower is (under_the_radar)."""
    return -1 if registry()[game].lowest_wins else 1


# ------------------------------------------------------------------- the log


@dataclass
class _Round:
    number: int
    before_deal: GameState  # the state before the round's deal
    deal_line: int
    deal: dict[str, Any]
    earlier: list[list[int]]  # every earlier round's scores, by seat (public)
    not_allowed: dict[str, frozenset[str]] = field(default_factory=dict)  # (_not_allowed)


@dataclass
class Decision:
    """One decision of a log, with what is needed to sample and play it out."""

    round: _Round
    step: int
    line: int
    seat: int
    player: str
    made: Move
    alternatives: list[Move]
    prefix: list[tuple[int, dict[str, Any]]]  # the round's events after the deal, before it
    truth: GameState  # the true state at the decision (tests; the judge never reads it)
    ruled_out: dict[int, frozenset[str]]  # by seat: cards the table saw they do not hold
    view: str  # the SHA-256 of what the player saw (the module's doc, step 1)


def decisions(raw: bytes, name: str = "<log>",
              rounds: set[int] | None = None) -> Iterator[Decision]:
    """Every decision of a log with more than one distinct legal move, in log order (of
    the rounds in `rounds` only, when given). Claims are left out; a log that does not
    replay raises ValueError at its first bad line."""
    header_line, events = _parse(raw, name)
    start = replay_bytes(header_line, name)
    state = start.state
    if state is None:
        raise ValueError(f"{name}: the header does not replay: {start.error}")
    events, unjudged = settled_events(header_line, events, name)
    public_header = _public_header(header_line)
    current: _Round | None = None
    prefix: list[tuple[int, dict[str, Any]]] = []
    ruled: dict[int, frozenset[str]] = {}
    step = 0
    wanted = False
    for line, ev in events:
        kind = ev.get("type")
        who = ev.get("player")
        if kind == "deal":
            number = state.round_no + 1
            wanted = (rounds is None or number in rounds) and number not in unjudged
            earlier = [list(r.scores) for r in state.rounds]
            current = _Round(number, state.clone() if wanted else state, line, ev, earlier)
            prefix, step, ruled = [], 0, {}
        elif (current is not None and kind != SHOWN_EVENT and isinstance(who, str)
              and who in state.seat):
            step += 1
            if wanted:
                seat = state.seat[who]
                mine = [m for m in state.legal_moves() if m.get("player") == who]
                alternatives = _distinct(mine, ev)
                if len(alternatives) > 1:
                    yield Decision(current, step, line, seat, who, ev, alternatives,
                                   list(prefix), state.clone(), dict(ruled),
                                   _view(public_header, current, seat, prefix, step))
                shown = state.rules_out(ev)
                if shown:
                    ruled[seat] = ruled.get(seat, frozenset()) | shown
        try:
            state.apply(Event(line, str(kind), ev))
        except (RuleError, FormatError) as e:
            raise ValueError(f"{name}:{line}: {e}") from None
        if kind != "deal":
            prefix.append((line, ev))


def count_decisions(raw: bytes, name: str = "<log>", rounds: set[int] | None = None
                    ) -> dict[int, int]:
    """The number of decisions (as `decisions` yields them) in each round of a log, of the
    rounds in `rounds` when given: the replay and the legal moves only, nothing judged."""
    header_line, events = _parse(raw, name)
    state = replay_bytes(header_line, name).state
    if state is None:
        raise ValueError(f"{name}: the header does not replay")
    events, unjudged = settled_events(header_line, events, name)
    out: dict[int, int] = {}
    last = max(rounds) if rounds else None
    number = 0
    for line, ev in events:
        kind = ev.get("type")
        who = ev.get("player")
        if kind == "deal":
            number = state.round_no + 1
            if last is not None and number > last:
                break
            if (rounds is None or number in rounds) and number not in unjudged:
                out[number] = 0
        elif (number in out and kind != SHOWN_EVENT and isinstance(who, str)
              and who in state.seat):
            mine = [m for m in state.legal_moves() if m.get("player") == who]
            if len(mine) > 1 and len(_distinct(mine, ev)) > 1:
                out[number] += 1
        try:
            state.apply(Event(line, str(kind), ev))
        except (RuleError, FormatError) as e:
            raise ValueError(f"{name}:{line}: {e}") from None
    return out


def round_moves(raw: bytes, name: str = "<log>") -> dict[int, int]:
    """The number of move events (a player's) of each round of a log, read without
    replaying it: what `trickledger analyse --moves` plans and bounds with."""
    _, events = _parse(raw, name)
    out: dict[int, int] = {}
    number = 0
    for _, ev in events:
        if ev.get("type") == "deal":
            number += 1
            out[number] = 0
        elif number and ev.get("type") != SHOWN_EVENT and isinstance(ev.get("player"), str):
            out[number] += 1
    return out


def _parse(raw: bytes, name: str) -> tuple[bytes, list[tuple[int, dict[str, Any]]]]:
    header_line = b""
    events: list[tuple[int, dict[str, Any]]] = []
    for number, text in enumerate(raw.splitlines(), 1):
        text = text.strip()
        if not text or text.startswith(b"#"):
            continue
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as e:
            raise ValueError(f"{name}:{number}: not JSON ({e})") from None
        if not header_line:
            header_line = text
        elif isinstance(value, dict) and value.get("type") != "claim":
            events.append((number, value))
    return header_line, events


def _public_header(header_line: bytes) -> dict[str, Any]:
    header = orjson.loads(header_line)
    if not isinstance(header, dict):
        return {}
    return {k: v for k, v in header.items() if k not in _HEADER_NOT_SEEN}


def _seen(ev: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in ev.items() if k not in _NOT_SEEN}


def _view(header: dict[str, Any], rnd: _Round, seat: int,
          prefix: list[tuple[int, dict[str, Any]]], step: int) -> str:
    """The SHA-256 of what the player at `seat` saw at the decision (the module's doc)."""
    players = rnd.before_deal.players
    # not seen: the hands (the player's own is added below) and the face-down fields
    hidden = ("hands", "t", "note") + rnd.before_deal.info.face_down
    deal = {k: v for k, v in rnd.deal.items() if k not in hidden}
    hands = rnd.deal.get("hands")
    own = hands.get(players[seat]) if isinstance(hands, dict) else None
    seen = {"method": STREAMS, "header": header, "earlier": rnd.earlier, "round": rnd.number,
            "seat": seat, "hand": sorted(own) if isinstance(own, list) else own,
            "deal": deal, "before": [_seen(e) for _, e in prefix], "step": step}
    return hashlib.sha256(orjson.dumps(seen, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _sorted_key(m: Move) -> tuple[str, str]:
    # the same cards in another order are the same move for the judge
    return m.get("type", ""), " ".join(sorted(move_label(m).split()))


def _distinct(legal: list[Move], made: Move) -> list[Move]:
    """The legal alternatives, one per distinct move, with the move made as the log wrote
    it in place of its legal twin."""
    made_key = _sorted_key(made)
    out: list[Move] = [{k: v for k, v in made.items() if k not in _NOT_SEEN}]
    seen = {made_key}
    for m in legal:
        k = _sorted_key(m)
        if k not in seen:
            seen.add(k)
            out.append(m)
    return out


# ------------------------------------------------------------------- sampling


def _deck(game: str) -> Counter[str] | None:
    """The game's whole deck by card name (`GameInfo.deck`: rage's), or None when it
    declares none: then every card is dealt and the pool is what the others hold."""
    deck = registry()[game].deck
    if deck is None:
        return None
    return Counter({card.name: copies for card, copies in deck.items()})


def _names(cards: Any) -> list[str]:
    return [str(c) for c in cards] if isinstance(cards, list) else []


def _event_cards(ev: dict[str, Any]) -> list[str]:
    out = [ev["card"]] if isinstance(ev.get("card"), str) else []
    return out + _names(ev.get("cards"))


@dataclass
class Bin:
    """A place hidden cards are dealt into: another player's hand (their hidden cards) or a
    face-down field of the deal (its places not yet revealed)."""

    name: str  # the player, or the deal's field
    field: bool
    size: int
    ruled_out: frozenset[str]  # cards that cannot be there (shown not held; not allowed)


@dataclass
class Places:
    """Where a decision's hidden cards may go (built from the view only): the bins, the
    cards of their deal the other players have shown (played), each face-down field's
    cards with None where one is hidden, and the rest of the deck that no place holds
    (rage's undealt pile)."""

    pool: list[str]  # every hidden card, sorted by name
    bins: list[Bin]
    shown: dict[str, list[str]]
    face_down: dict[str, list[str | None]]
    rest: int


def places(d: Decision) -> Places:
    """The hidden places of decision `d` and the pool of cards to deal into them.

    A player's hidden cards are the cards of their deal that none of their events of the
    round named (a card they played, placed or took leaves the hand); a face-down card
    that an event of the round named was revealed (the pile's drawn top) and stays; cards
    named by an event of no player were turned up for all (rage's trumps)."""
    deal = d.round.deal
    names = list(d.round.before_deal.players)
    hands = deal["hands"]
    named: dict[str, Counter[str]] = {p: Counter() for p in names}
    everywhere: Counter[str] = Counter()  # every card any event of the round named
    turned: Counter[str] = Counter()
    for _, ev in d.prefix:
        cards = _event_cards(ev)
        everywhere.update(cards)
        who = ev.get("player")
        if isinstance(who, str) and who in named:
            named[who].update(cards)
        else:
            turned.update(cards)
    pool: Counter[str] = Counter()
    bins: list[Bin] = []
    shown: dict[str, list[str]] = {}
    for s, p in enumerate(names):
        if p == d.player:
            continue
        dealt = Counter(hands[p])
        hidden = dealt - named[p]
        pool += hidden
        shown[p] = sorted((dealt - hidden).elements())
        bins.append(Bin(p, False, sum(hidden.values()), d.ruled_out.get(s, frozenset())))
    face_down: dict[str, list[str | None]] = {}
    for f in d.round.before_deal.info.face_down:
        listed = deal.get(f)
        if not isinstance(listed, list):
            continue
        slots: list[str | None] = []
        for c in map(str, listed):
            if everywhere[c] > 0:  # revealed (a drawn card of the pile): it stays in its place
                everywhere[c] -= 1
                slots.append(c)
            else:
                pool[c] += 1
                slots.append(None)
        face_down[f] = slots
    rest = 0
    deck = _deck(d.round.before_deal.info.name)
    if deck is not None:
        left = deck.copy()
        for p in names:
            left.subtract(Counter(hands[p]))
        for slots_ in face_down.values():
            left.subtract(Counter(c for c in slots_ if c is not None))
        left.subtract(turned)
        left = +left
        pool += left
        rest = sum(left.values())
    cards = sorted(pool.elements())
    for f, slots in face_down.items():
        hidden_slots = sum(1 for c in slots if c is None)
        if hidden_slots:
            bins.append(Bin(f, True, hidden_slots, _not_allowed(d, f, set(cards))))
    return Places(cards, bins, shown, face_down, rest)


def _not_allowed(d: Decision, field: str, pool: set[str]) -> frozenset[str]:
    """The cards of the pool the game does not let lie in the deal's face-down `field`
    (under_the_radar removes Completes only), asked of the engine: the round's deal with
    the card put in the field's first place, the card it replaces put where the card was,
    is applied to the state before the deal. Cached per round and field."""
    cache = d.round.not_allowed
    got = cache.get(field)
    if got is not None:
        return got
    deal = d.round.deal
    refused: set[str] = set()
    for c in sorted(pool):
        if c in deal[field]:
            continue
        trial: dict[str, Any] = {k: (list(v) if isinstance(v, list) else v)
                                 for k, v in deal.items()}
        trial["hands"] = {p: list(h) for p, h in deal["hands"].items()}
        out = trial[field][0]
        trial[field][0] = c
        holder = next((h for h in trial["hands"].values() if c in h), None)
        if holder is None:
            holder = next((trial[f] for f in d.round.before_deal.info.face_down
                           if f != field and isinstance(trial.get(f), list) and c in trial[f]),
                          None)
        if holder is not None:
            holder[holder.index(c)] = out
        state = d.round.before_deal.clone()
        try:
            state.apply(Event(d.round.deal_line, "deal", trial))
        except (RuleError, FormatError):
            refused.add(c)
    got = cache[field] = frozenset(refused)
    return got


class _TooMany(Exception):
    """Counting the fitting deals would take more than WORK_LIMIT steps."""


class _Counts:
    """Numbers of fitting deals, memoized. `ways(k, j, caps, left)`: the number of ways to
    fill the constrained groups' capacities `caps` from the `left` cards of class k not yet
    placed (groups j, j+1, ... still to take theirs) and then from the classes after k;
    a class's cards that no group takes go to the unconstrained bins, whose filling is the
    same number of ways whatever they get. A group takes x of the `left` cards in
    comb(left, x) ways, so a class's multinomial is built one group at a time."""

    def __init__(self, classes: list[tuple[tuple[bool, ...], int]], groups: int) -> None:
        self.classes = classes
        self.groups = groups
        self.memo: dict[tuple[int, int, tuple[int, ...], int], int] = {}
        self.work = 0

    def start(self, k: int, caps: tuple[int, ...]) -> int:
        """The fitting deals of classes k, k+1, ... into `caps`."""
        if k == len(self.classes):
            return 1 if not any(caps) else 0
        return self.ways(k, 0, caps, self.classes[k][1])

    def ways(self, k: int, j: int, caps: tuple[int, ...], left: int) -> int:
        if j == self.groups:
            return self.start(k + 1, caps)
        key = (k, j, caps, left)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.work += 1
        if self.work > WORK_LIMIT:
            raise _TooMany
        total = sum(w for _, w in self.choices(k, j, caps, left))
        self.memo[key] = total
        return total

    def choices(self, k: int, j: int, caps: tuple[int, ...], left: int
                ) -> list[tuple[int, int]]:
        """Each number of class k's cards group j may take, with the deals that follow."""
        top = min(caps[j], left) if self.classes[k][0][j] else 0
        out = []
        for x in range(top + 1):
            after = caps[:j] + (caps[j] - x,) + caps[j + 1:]
            w = math.comb(left, x) * self.ways(k, j + 1, after, left - x)
            if w:
                out.append((x, w))
        return out


class Dealer:
    """Deals a decision's pool into its bins, uniformly among the deals in which no bin
    gets a card ruled out there (as a rejection sampler would, without a wasted draw).

    Groups are the constrained bins with the same cards ruled out (they may hold the same
    cards, so they are one place of their summed size, shared out at the end); classes
    are the pool's cards that the same groups may hold. A class at a time, how many of
    its cards each group takes is drawn with the probability of the deals that continue
    it (`_Counts`: the number of fitting deals, counted once per decision); which of its
    cards those are is a shuffle; the cards no group takes are shuffled into the
    unconstrained bins. When counting would go through more than STATES_LIMIT capacities
    or take more than WORK_LIMIT steps, the bins with the fewest cards ruled out are
    dropped from the count (`dropped`): they are
    dealt as if unconstrained, and the replay of each sample rejects what breaks their
    constraints (still uniform among the fitting deals, at the cost of redrawing)."""

    def __init__(self, where: Places) -> None:
        self.where = where
        constrained = [i for i, b in enumerate(where.bins)
                       if b.size and b.ruled_out and not b.ruled_out.isdisjoint(where.pool)]
        # the strongest constraints first: when counting would cost too much, the weakest
        # is dropped (its bin dealt as if unconstrained) and the replay rejects for it
        constrained.sort(key=lambda i: (-len(where.bins[i].ruled_out), i))
        self.dropped = 0
        # the count's states are at most the product of the capacities: keep what fits
        kept, states = [], 1
        for i in constrained:
            grown = states * (where.bins[i].size + 1)
            if grown <= STATES_LIMIT:
                kept.append(i)
                states = grown
        self.dropped = len(constrained) - len(kept)
        constrained = kept
        while True:
            groups: dict[frozenset[str], list[int]] = {}
            for i in constrained:
                groups.setdefault(where.bins[i].ruled_out, []).append(i)
            self.keys = sorted(groups, key=lambda r: sorted(r))
            self.groups = groups
            by_class: dict[tuple[bool, ...], list[str]] = {}
            for c in where.pool:
                by_class.setdefault(tuple(c not in r for r in self.keys), []).append(c)
            self.classes = sorted(by_class.items())
            self.counts = _Counts([(e, len(cs)) for e, cs in self.classes], len(self.keys))
            self.caps = tuple(sum(where.bins[i].size for i in groups[r]) for r in self.keys)
            try:
                self.fits = self.counts.start(0, self.caps) > 0
                break
            except _TooMany:
                constrained.pop()
                self.dropped += 1

    def deal(self, rng: random.Random) -> list[list[str]] | None:
        """One deal: the cards of each bin, in `where.bins`' order (None when no deal fits
        what the table saw)."""
        if not self.fits:
            return None
        where = self.where
        caps = self.caps
        to_group: list[list[str]] = [[] for _ in self.keys]
        free: list[str] = []
        for k, (_, cards_) in enumerate(self.classes):
            cards = list(cards_)
            shuffle(rng, cards)
            left = len(cards)
            for j in range(len(self.keys)):
                options = self.counts.choices(k, j, caps, left)
                r = randbelow(rng, sum(w for _, w in options))
                x = options[-1][0]
                for option, weight in options:
                    if r < weight:
                        x = option
                        break
                    r -= weight
                to_group[j].extend(cards[:x])
                del cards[:x]
                left -= x
                caps = caps[:j] + (caps[j] - x,) + caps[j + 1:]
            free.extend(cards)
        out: list[list[str] | None] = [None] * len(where.bins)
        for j, key in enumerate(self.keys):
            cards = to_group[j]
            shuffle(rng, cards)
            i = 0
            for b in self.groups[key]:
                out[b] = cards[i:i + where.bins[b].size]
                i += where.bins[b].size
        shuffle(rng, free)
        i = 0
        for b, got in enumerate(out):
            if got is None:
                out[b] = free[i:i + where.bins[b].size]
                i += where.bins[b].size
        return [got or [] for got in out]


@dataclass
class Samples:
    states: list[GameState]
    rejected: int  # drawn deals an earlier move of the log would have made illegal
    dropped: int  # constraints the Dealer left to the replay (0: every draw fits)


def sample_states(d: Decision, samples: int, rng: random.Random) -> Samples:
    """Up to `samples` states at the decision, each with the hidden cards dealt again and
    consistent with everything the player saw (see the module's doc, step 2)."""
    where = places(d)
    deal = d.round.deal
    out: list[GameState] = []
    rejected = 0
    dealer = Dealer(where)
    for _ in range(samples * REJECTIONS):
        if len(out) == samples:
            break
        got = dealer.deal(rng)
        if got is None:
            break  # no deal fits what the table saw (a log cannot cause it)
        hands: dict[str, list[str]] = {d.player: list(deal["hands"][d.player])}
        dealt_now: dict[str, Any] = {**deal, "hands": hands}
        for b, cards in zip(where.bins, got):
            if b.field:
                fresh = iter(cards)
                dealt_now[b.name] = [c if c is not None else next(fresh)
                                     for c in where.face_down[b.name]]
            else:
                hands[b.name] = sorted([*where.shown[b.name], *cards])
        dealt_now["hands"] = {p: hands[p] for p in d.round.before_deal.players}
        state = d.round.before_deal.clone()
        try:
            state.apply(Event(d.round.deal_line, "deal", dealt_now))
            for line, e in d.prefix:
                state.apply(Event(line, str(e["type"]), e))
        except (RuleError, FormatError):
            rejected += 1  # an earlier move would be illegal with these hands
            continue
        out.append(state)
    return Samples(out, rejected, dealer.dropped)


# ------------------------------------------------------------------- values


def round_score(state: GameState, round_no: int, seat: int) -> int:
    for r in reversed(state.rounds):
        if r.round == round_no:
            return r.scores[seat]
    raise RuntimeError(f"round {round_no} was not scored by the end of the playout")


def play_round_out(state: GameState, rng: random.Random,
                   bot: GreedyBot | None = None) -> None:
    """Play `state` to the end of its round: the greedy bot in every seat, chance events
    drawn from `rng`."""
    bot = bot or GreedyBot()
    line = 10 ** 9
    for _ in range(MAX_MOVES):
        if state.is_over():
            return
        chance = state.next_chance()
        if chance == "deal":
            return
        ev = state.draw_chance(rng) if chance is not None else bot.choose(state, rng)
        line += 1
        state.apply(Event(line, ev["type"], ev))
    raise RuntimeError("a playout did not end")


class ValueEngine(Protocol):
    """What values the alternatives of one sample (the seam of the module's step 3)."""

    name: str

    def values(self, state: GameState, seat: int, alternatives: list[Move], stream: float,
               budget: int, search: bool) -> tuple[list[float], bool]:
        """`seat`'s round score after each of `alternatives` (moves of `seat` legal in
        `state`, a sample at the decision), and whether they are exact: when `search` and
        the rest of the round has at most `budget` positions, its exact value by
        replay/search.py's solution concept; otherwise a playout of the round after each
        alternative by the greedy bot in every seat, all with the random stream
        `random.Random(stream)` from its start (chance events drawn from it)."""
        ...


class PythonEngine:
    """The reference engine: replay/search.py and the greedy bot, through the rules."""

    name = "python"

    def values(self, state: GameState, seat: int, alternatives: list[Move], stream: float,
               budget: int, search: bool) -> tuple[list[float], bool]:
        if search:
            try:
                return exact_values(state, seat, alternatives, budget), True
            except (BudgetExceeded, Unsearchable):
                pass
        out: list[float] = []
        round_no = state.round_no
        for move in alternatives:
            branch = state.clone()
            branch.apply(Event(0, str(move["type"]), move))
            play_round_out(branch, random.Random(stream))
            out.append(float(round_score(branch, round_no, seat)))
        return out, False


_ENGINES: dict[str, ValueEngine] = {"python": PythonEngine()}
# the native analysis engine (replay/native, docs/native.md), with the Python engine for the
# games it does not know (and for every game where it is not built)
_ENGINES["native"] = native_engine(_ENGINES["python"])


def register_engine(engine: ValueEngine) -> None:
    """Make `engine` selectable by its name (a native analysis engine registers itself)."""
    _ENGINES[engine.name] = engine


def value_engine(name: str) -> ValueEngine:
    got = _ENGINES.get(name)
    if got is None:
        raise ValueError(f"no analysis engine {name!r} (known: {', '.join(sorted(_ENGINES))})")
    return got


def engine_names() -> list[str]:
    return sorted(_ENGINES)


@dataclass
class Evaluation:
    values: list[list[float]]  # values[alternative][sample]; [] when no sample fits
    exact: int  # samples solved exactly
    rejected: int


def decision_rng(d: Decision, seed: int) -> random.Random:
    """The decision's random stream: its view, the method and the seed (step 1)."""
    return random.Random(f"trickledger-judge:{STREAMS}:{seed}:{d.view}")


def evaluate(d: Decision, samples: int, seed: int, engine: str = "python",
             budget: int = ENDGAME_BUDGET) -> Evaluation:
    """The player's round score after each alternative (in `d.alternatives`' order, the move
    made first) on each sample of the hidden cards."""
    rng = decision_rng(d, seed)
    drawn = sample_states(d, samples, rng)
    valuer = value_engine(engine)
    values = [[0.0] * len(drawn.states) for _ in d.alternatives]
    search = True
    exact = 0
    for k, base in enumerate(drawn.states):
        stream = rng.random()  # one stream per sample, the same for every alternative
        got, was_exact = valuer.values(base, d.seat, d.alternatives, stream, budget, search)
        search = search and was_exact
        exact += was_exact
        for a, v in enumerate(got):
            values[a][k] = v
    return Evaluation(values if drawn.states else [], exact, drawn.rejected)


def verdict_of(values: list[list[float]], chosen: int, sign: int, labels: list[str]
               ) -> tuple[int, list[int], float, float]:
    """(the best alternative shown, the others as good, the cost of `chosen`, its standard
    error) from per-sample values: the best are those within TIE of the best mean; when
    `chosen` is one of them it is the one shown and its cost is 0. The standard error is
    NaN with a single sample."""
    n = len(values[0])
    means = [sum(v) / n for v in values]
    top = max(sign * m for m in means)
    tied = sorted((a for a in range(len(means)) if sign * means[a] >= top - TIE),
                  key=lambda a: labels[a])
    best = chosen if chosen in tied else tied[0]
    equal = [a for a in tied if a != best]
    # the cost's error; for a best move, the error of its lead over the runner-up (how sure
    # "best" is: a cost of 0 measured on these samples is not known to be 0 better than that)
    against = best
    if best == chosen:
        others = [a for a in range(len(means)) if a != chosen]
        against = max(others, key=lambda a: (sign * means[a], -a)) if others else chosen
    mean, se = lead_of(values, against, chosen, sign)
    return best, equal, 0.0 if best == chosen else mean, se


def lead_of(values: list[list[float]], better: int, than: int, sign: int
            ) -> tuple[float, float]:
    """How much alternative `better` scored over `than` on the samples (turned by `sign`,
    so that a positive lead is better), and the standard error of the per-sample
    differences (NaN with a single sample)."""
    n = len(values[0])
    diffs = [sign * (values[better][k] - values[than][k]) for k in range(n)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.nan
    return mean, math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1) / n)


def cost_of(values: list[list[float]], chosen: int, sign: int) -> tuple[int, float, float]:
    """(the best alternative, the cost of `chosen` against it, its standard error), with
    alternatives labelled by their index (tests and benchmarks)."""
    best, _, cost, se = verdict_of(values, chosen, sign, [f"{a:09d}" for a in
                                                          range(len(values))])
    return best, cost, se


def tied_with_made(values: list[list[float]], sign: int, margin: float
                   ) -> tuple[list[int], float] | None:
    """When no alternative's lead over the move made (alternative 0) is sure, that is its
    lower bound (lead − `sure_z` SE, for the decision's alternatives) reaches `margin`:
    the alternatives at least as good as the move made on the samples (its statistical
    ties, none strictly better beyond the noise) and the standard error of the top
    alternative's lead; otherwise None. Needs at least two samples: one sample has no
    error to measure."""
    n = len(values[0])
    if n < 2:
        return None
    z = sure_z(len(values) - 1, n)
    tied: list[int] = []
    top_lead = -math.inf
    top_se = 0.0
    for a in range(1, len(values)):
        lead, se = lead_of(values, a, 0, sign)
        if lead - z * se >= margin:
            return None
        if lead >= -TIE:
            tied.append(a)
        if lead > top_lead:
            top_lead, top_se = lead, se
    return tied, top_se


def judge_decision(d: Decision, samples: int, seed: int, engine: str = "python"
                   ) -> Judgement | None:
    """The judgement of one decision, or None when the sampler finds no deal of the hidden
    cards that fits what the player saw within its tries (`judge_log`'s `missed`)."""
    t0 = time.process_time()
    ev = evaluate(d, samples, seed, engine)
    if not ev.values:
        return None
    values = ev.values
    game = d.round.before_deal.info.name
    labels = [move_label(m) for m in d.alternatives]
    sign = better_sign(game)
    n = len(values[0])
    means = [sum(v) / n for v in values]
    best, equal, cost, se = verdict_of(values, 0, sign, labels)
    # best_value stays the best mean even when the move made is shown as best: a player
    # sees how large a lead within the noise was
    shown = best
    if best != 0:
        # a lead of the best that the samples cannot tell from noise, or smaller than half an
        # inaccuracy, is a tie: the move made is best, and the moves that scored as well or
        # better are as good, the highest first (docs/analytics.md, "Bands": unstable
        # otherwise between seeds)
        ties = tied_with_made(values, sign, BEST_MARGIN * registry()[game].bands[0])
        if ties is not None:
            shown, cost, se = 0, 0.0, ties[1]
            equal = sorted(ties[0], key=lambda a: (-sign * means[a], labels[a]))
    band = band_of(game, cost, se, shown == 0, len(values) - 1, n)
    return Judgement(d.round.number, d.step, d.line, d.player, labels[0], labels[shown],
                     means[0], means[best], cost, se, n,
                     len(d.alternatives), band, tuple(labels[a] for a in equal), ev.exact,
                     time.process_time() - t0)


def judge_log(raw: bytes, samples: int = DEFAULT_SAMPLES, seed: int = 0,
              name: str = "<log>", rounds: set[int] | None = None, engine: str = "python",
              progress: Callable[[int], None] | None = None,
              missed: list[int] | None = None) -> list[Judgement]:
    """Every decision of the log judged (of the rounds in `rounds`, when given). A decision
    for which the sampler finds no deal of the hidden cards that fits what the player saw
    (within its `REJECTIONS` tries per sample wanted: a rare deal, such as an 8-player
    rage table with hidden bids, at few samples) is left out; its line goes to `missed`."""
    out: list[Judgement] = []
    for d in decisions(raw, name, rounds):
        j = judge_decision(d, samples, seed, engine)
        if j is not None:
            out.append(j)
        elif missed is not None:
            missed.append(d.line)
        if progress:
            progress(len(out))
    return out
