"""Decision quality: every decision of a move log judged against its alternatives.

For each decision of a log (a move event whose player had more than one legal move), from
that player's information at that moment:

1. **Samples of the hidden cards.** The cards the other players still hold from the deal,
   and the cards nobody has shown (rage's undealt pile, the deal's face-down `aside` or
   `removed` cards), are pooled and dealt again at random, each player keeping the number
   they hold; cards already played stay where they were. The round is replayed from its
   deal with the sampled hands and the log's own events up to the decision: a sample under
   which an earlier move of the log would be illegal (a failure to follow the led colour
   while holding it: a void the table saw) is rejected. What is kept is consistent with
   everything the player saw: their own hand, the cards played, the voids revealed, the
   public bids and turned trumps.
2. **Common random numbers.** Every legal alternative is applied to a branch
   (`GameState.clone`) of each sample, then the round is played out by the greedy bot in
   every seat with the same random stream per sample, so the alternatives differ only by
   the move. In an endgame, where the rest of the round of a sample has at most
   `ENDGAME_BUDGET` positions, the sample is searched instead (replay/search.py: every
   player plays perfectly for themselves, the sample's hands known): the playout policy
   is the greedy bot, or better where better is affordable.
3. **Value** of a move = the player's mean round score over the samples, in the game's own
   points. "Better" is higher, lower in games where the lowest total wins.
   `cost` = value of the best alternative − value of the move made (turned so that a
   positive cost is always worse), with the standard error of the per-sample differences.

Bands (`band_of`): `best` when the cost is within one standard error of the best (the
accuracy count), otherwise the lower end of the cost's 95 % interval (cost − 2 SE) against
the game's thresholds in points (`THRESHOLDS`): `good`, `inaccuracy`, `mistake`, `blunder`.
Noise cannot make a blunder: a cost that is not at least two standard errors above the
blunder threshold is not one, and a decision with a single fitting sample (no error to
measure; `cost_se` is NaN) is never called worse than `good`.

Each decision's random streams are seeded by (seed, the log's SHA-256, the decision's line):
the same log gives the same judgements in any order, on any number of processes.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .bots import GreedyBot
from .cards import shuffle
from .engine import replay_bytes
from .errors import FormatError, RuleError
from .events import Event
from .native.judging import sample_values
from .registry import registry
from .search import BudgetExceeded, Unsearchable, exact_values
from .state import GameState, Move

METHOD: Final = "greedy-crn-v1"
DEFAULT_SAMPLES: Final = 16
MAX_MOVES: Final = 100_000  # a playout that does not end is a bug, not a hang
ENDGAME_BUDGET: Final = 400  # positions: a rest of the round this small is searched
REJECTIONS: Final = 40  # attempts per wanted sample before settling for fewer
BANDS: Final = ("best", "good", "inaccuracy", "mistake", "blunder")

# Per game, the certain part of a cost (cost − 2 SE, in the game's points) from which a
# decision is an inaccuracy, a mistake, a blunder. Scaled to each game's round score:
# rage scores a round at about -5..+20 (a missed bid costs 15), plotters 0..40 (a product
# of two stacks), color_stacks a hand's value of a few tens, under_the_radar a count of
# tricks taken in the low single digits (lower is better).
THRESHOLDS: Final[dict[str, tuple[float, float, float]]] = {
    "rage": (2.0, 5.0, 10.0),
    "plotters": (2.0, 4.0, 8.0),
    "color_stacks": (2.0, 4.0, 8.0),
    "under_the_radar": (0.5, 1.0, 2.0),
}
# (not Final: mypyc left a Final tuple of floats unset at import, issue 31)
DEFAULT_THRESHOLDS: tuple[float, float, float] = (1.0, 2.0, 4.0)
FACE_DOWN: Final = ("aside", "removed")  # deal fields the players do not see


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
    best_move: Final[str]
    value: Final[float]  # the player's expected round score after the move made
    best_value: Final[float]
    cost: Final[float]  # >= 0: how much worse than the best, in the game's points
    cost_se: Final[float]
    samples: Final[int]
    alternatives: Final[int]
    band: Final[str]

    def __init__(self, round: int, step: int, line: int, player: str, move: str,
                 best_move: str, value: float, best_value: float, cost: float,
                 cost_se: float, samples: int, alternatives: int, band: str) -> None:
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

    def __reduce__(self) -> tuple[type[Judgement], tuple[Any, ...]]:
        # compiled, a native class is unpickled through its __init__ with no arguments
        return (Judgement, (self.round, self.step, self.line, self.player, self.move,
                            self.best_move, self.value, self.best_value, self.cost,
                            self.cost_se, self.samples, self.alternatives, self.band))


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


def band_of(game: str, cost: float, cost_se: float, made_best: bool) -> str:
    """The verdict band of a decision (see the module's doc)."""
    if made_best or cost <= cost_se:
        return "best"
    inaccuracy, mistake, blunder = THRESHOLDS.get(game, DEFAULT_THRESHOLDS)
    sure = cost - 2 * cost_se
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
    truth: GameState  # the true state at the decision (for the perfect-information search)


def decisions(raw: bytes, name: str = "<log>") -> Iterator[Decision]:
    """Every decision of a log with more than one legal move, in log order. Claims are
    left out; a log that does not replay raises ValueError at its first bad line."""
    header_line, events = _parse(raw, name)
    start = replay_bytes(header_line, name)
    state = start.state
    if state is None:
        raise ValueError(f"{name}: the header does not replay: {start.error}")
    current: _Round | None = None
    prefix: list[tuple[int, dict[str, Any]]] = []
    step = 0
    for line, ev in events:
        kind = ev.get("type")
        who = ev.get("player")
        if kind == "deal":
            current = _Round(state.round_no + 1, state.clone(), line, ev)
            prefix, step = [], 0
        elif current is not None and isinstance(who, str) and who in state.seat:
            step += 1
            mine = [m for m in state.legal_moves() if m.get("player") == who]
            alternatives = _distinct(mine, ev)
            if len(alternatives) > 1:
                yield Decision(current, step, line, state.seat[who], who, ev, alternatives,
                               list(prefix), state.clone())
        try:
            state.apply(Event(line, str(kind), ev))
        except (RuleError, FormatError) as e:
            raise ValueError(f"{name}:{line}: {e}") from None
        if kind != "deal":
            prefix.append((line, ev))


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


def _key(m: Move) -> tuple[str, str]:
    return m.get("type", ""), move_label(m)


def _sorted_key(m: Move) -> tuple[str, str]:
    # the same cards in another order are the same move for the judge
    return m.get("type", ""), " ".join(sorted(move_label(m).split()))


def _distinct(legal: list[Move], made: Move) -> list[Move]:
    """The legal alternatives, one per distinct move, with the move made as the log wrote
    it in place of its legal twin."""
    made_key = _sorted_key(made)
    out: list[Move] = [{k: v for k, v in made.items() if k not in ("t", "note")}]
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


def _hand_names(state: GameState, seat: int) -> Counter[str]:
    return Counter(c.name for c in state.hand(seat))


def sample_states(d: Decision, samples: int, rng: random.Random) -> list[GameState]:
    """Up to `samples` states at the decision, each with the hidden cards dealt again and
    consistent with everything the player saw (see the module's doc)."""
    deal = d.round.deal
    names = list(d.round.before_deal.players)
    dealt: dict[str, Counter[str]] = {p: Counter(deal["hands"][p]) for p in names}
    held_now = {p: _hand_names(d.truth, s) for s, p in enumerate(names)}
    pool: Counter[str] = Counter()
    keep: dict[str, Counter[str]] = {}
    hidden: dict[str, int] = {}
    for p in names:
        if p == d.player:
            continue
        still = dealt[p] & held_now[p]  # dealt cards not yet shown: the hidden ones
        keep[p] = dealt[p] - still
        hidden[p] = sum(still.values())
        pool += still
    face_down = {f: list(deal[f]) for f in FACE_DOWN if isinstance(deal.get(f), list)}
    for cards in face_down.values():
        pool.update(cards)
    game = d.round.before_deal.info.name
    deck = _deck(game)
    if deck is not None:
        rest = deck.copy()
        for p in names:
            rest.subtract(dealt[p])
        for cards in face_down.values():
            rest.subtract(cards)
        for _, ev in d.prefix:
            if "player" not in ev and isinstance(ev.get("card"), str):
                rest[ev["card"]] -= 1  # a card turned up for all to see
        pool += +rest
    cards = sorted(pool.elements())
    out: list[GameState] = []
    for _ in range(samples * REJECTIONS):
        if len(out) == samples:
            break
        shuffle(rng, cards)  # rng.shuffle's order, drawn by the compiled engine
        hands: dict[str, list[str]] = {}
        i = 0
        for p in names:
            if p == d.player:
                hands[p] = list(deal["hands"][p])
            else:
                hands[p] = sorted([*keep[p].elements(), *cards[i:i + hidden[p]]])
                i += hidden[p]
        dealt_now: dict[str, Any] = {**deal, "hands": hands}
        for f, was in face_down.items():
            dealt_now[f] = sorted(cards[i:i + len(was)])
            i += len(was)
        state = d.round.before_deal.clone()
        try:
            state.apply(Event(d.round.deal_line, "deal", dealt_now))
            for line, e in d.prefix:
                state.apply(Event(line, str(e["type"]), e))
        except (RuleError, FormatError):
            continue  # an earlier move would be illegal with these hands: not the table seen
        out.append(state)
    return out


# ------------------------------------------------------------------- playouts


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


def evaluate(d: Decision, samples: int, seed: int, sha256: str) -> list[list[float]]:
    """The player's round score after each alternative (in `d.alternatives`' order, the move
    made first) on each sample of the hidden cards: values[alternative][sample]. Empty
    when no sample fits what the player saw."""
    rng = random.Random(f"trickledger-judge:{METHOD}:{seed}:{sha256}:{d.line}")
    states = sample_states(d, samples, rng)
    values = [[0.0] * len(states) for _ in d.alternatives]
    search = True  # an endgame: every sample is searched to the round's end instead
    for k, base in enumerate(states):
        stream = rng.random()  # one stream per sample, the same for every alternative
        native = sample_values(base, d.seat, d.alternatives, stream, search)
        if native is not None:  # the native analysis engine plays this game
            search = search and native[1]
            for a, value in enumerate(native[0]):  # (not `v`: compiled, a name has one type)
                values[a][k] = value
            continue
        if search:
            try:
                exact = exact_values(base, d.seat, d.alternatives, ENDGAME_BUDGET)
            except (BudgetExceeded, Unsearchable):
                search = False
            else:
                for a, v in enumerate(exact):
                    values[a][k] = float(v)
                continue
        for a, move in enumerate(d.alternatives):
            branch = base.clone()
            branch.apply(Event(d.line, str(move["type"]), move))
            play_round_out(branch, random.Random(stream))
            values[a][k] = float(round_score(branch, d.round.number, d.seat))
    return values if states else []


def cost_of(values: list[list[float]], chosen: int, sign: int) -> tuple[int, float, float]:
    """(the best alternative, the cost of `chosen` against it, its standard error) from
    `evaluate`'s values; the standard error is NaN with a single sample."""
    n = len(values[0])
    means = [sum(v) / n for v in values]
    best = max(range(len(means)), key=lambda a: (sign * means[a], -a))
    diffs = [sign * (values[best][k] - values[chosen][k]) for k in range(n)]
    cost = sum(diffs) / n
    if n < 2:
        return best, cost, math.nan
    return best, cost, math.sqrt(sum((x - cost) ** 2 for x in diffs) / (n - 1) / n)


def judge_decision(d: Decision, samples: int, seed: int, sha256: str,
                   ) -> Judgement | None:
    """The judgement of one decision, or None when no sample of the hidden cards fits
    what the player saw (which a legal log cannot cause, but a budget can)."""
    values = evaluate(d, samples, seed, sha256)
    if not values:
        return None
    game = d.round.before_deal.info.name
    sign = better_sign(game)
    best, cost, se = cost_of(values, 0, sign)
    n = len(values[0])
    if n > 1:
        band = band_of(game, cost, se, best == 0)
    else:
        # one sample has no error to measure: never called worse than good on its word
        band = "best" if best == 0 or cost == 0 else "good"
    return Judgement(d.round.number, d.step, d.line, d.player, move_label(d.made),
                     move_label(d.alternatives[best]), sum(values[0]) / n,
                     sum(values[best]) / n, cost, se, n, len(d.alternatives), band)


def judge_log(raw: bytes, samples: int = DEFAULT_SAMPLES, seed: int = 0, sha256: str = "",
              name: str = "<log>",
              progress: Callable[[int], None] | None = None) -> list[Judgement]:
    """Every decision of the log judged (decisions no sample fits are left out)."""
    out: list[Judgement] = []
    for d in decisions(raw, name):
        j = judge_decision(d, samples, seed, sha256)
        if j is not None:
            out.append(j)
        if progress:
            progress(len(out))
    return out
