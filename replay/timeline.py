"""A game as a sequence of steps (tricks, or turns), for a person stepping through it.

The engine replays the log once more and, before every move, notes what only it knows:
every player's hand and the moves that were legal for the player who moved. A step
closes when the game emits one of its step facts (`GameInfo.step_facts`: a finished
trick, a turn); a step also closes where a round ends early, where the log stops, and
at an illegal line. Nothing here is a rule: it is the engine's own state, read out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engine import Replay, new_state, replay_log
from .errors import FormatError, IllegalLine, RuleError
from .reader import Log, read_bytes
from .state import Fact, GameState, RoundDealt, RoundScored, render


@dataclass(frozen=True)
class Move:
    """One move of a step, with what the mover held and could have played."""

    player: str
    event: dict[str, Any]
    line: int
    hand_before: tuple[str, ...]  # the mover's hand, in deck order
    legal: tuple[str, ...]  # the cards the mover could legally have played (card moves)

    @property
    def cards(self) -> tuple[str, ...]:
        ev = self.event
        if isinstance(ev.get("card"), str):
            return (ev["card"],)
        return tuple(c for c in ev.get("cards", ()) if isinstance(c, str))

    @property
    def from_hand(self) -> bool:
        """Whether the move played cards from the mover's hand (not a pick from the table,
        nor cards turned from a pile)."""
        upper = {c.upper() for c in self.hand_before} | set(self.hand_before)
        return bool(self.cards) and all(c in upper or c.upper() in upper for c in self.cards)


@dataclass
class Step:
    """One trick (or turn) of a round, numbered from 1 within the round."""

    round: int
    number: int
    hands_before: dict[str, tuple[str, ...]]
    moves: list[Move] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the engine's words for this step
    facts: list[Fact] = field(default_factory=list)
    finished: bool = False  # closed by a step fact (not by an early end or the log's end)
    label: str = ""  # as the engine names it ("Trick 3", "Turn 2", "Draw after turn 2")
    error: str | None = None  # the illegal move that ends the log here, with its line
    error_line: int | None = None
    illegal: Move | None = None  # that move, when it was a card move: what the mover held


@dataclass
class Timeline:
    """Every step of a game, by round, plus the rounds' scoring lines."""

    replay: Replay
    steps: list[Step]
    round_lines: dict[int, list[str]]

    def rounds(self) -> list[int]:
        return sorted({s.round for s in self.steps} | set(self.round_lines))

    def in_round(self, r: int) -> list[Step]:
        return [s for s in self.steps if s.round == r]

    def step_of_line(self, line: int) -> Step | None:
        """The step holding the move on `line` (or the illegal line)."""
        for s in self.steps:
            if s.error_line == line or any(m.line == line for m in s.moves):
                return s
        return None


def _legal_cards(state: GameState, player: str) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for m in state.legal_moves():
        if m.get("player") != player:
            continue
        if isinstance(m.get("card"), str):
            out[m["card"]] = None
        elif isinstance(m.get("cards"), list):
            for c in m["cards"]:
                out[c] = None
    return tuple(out)


def _is_card_move(data: dict[str, Any]) -> bool:
    """A move that puts cards on the table or takes them (play, take, place, draw)."""
    return isinstance(data.get("card"), str) or isinstance(data.get("cards"), list)


def timeline_of(log: Log) -> Timeline:
    """Replay `log` step by step (see the module's text)."""
    state = new_state(log.header, log.is_sheet())
    info = state.info
    players = state.players
    steps: list[Step] = []
    round_lines: dict[int, list[str]] = {}
    current: Step | None = None
    seen = 0

    def hands() -> dict[str, tuple[str, ...]]:
        return {p: tuple(c.name for c in state.hand(s)) for s, p in enumerate(players)}

    def new_step() -> Step:
        number = len([s for s in steps if s.round == state.round_no]) + 1
        step = Step(state.round_no, number, hands(),
                    label=f"{info.step.capitalize()} {number}")
        steps.append(step)
        return step

    def target() -> Step | None:
        """Where the facts of a move that is not a card move go: the open step, else the
        round's last step (a keep after its trick, secret bids after the last trick),
        else the round itself (bids before the first trick)."""
        if current is not None:
            return current
        if steps and steps[-1].round == state.round_no:
            return steps[-1]
        return None

    events = log.events()
    while True:
        try:
            ev = next(events)
        except StopIteration:
            break
        except IllegalLine as e:  # a malformed line: the log ends there
            step = current or (target() if state.in_round else None)
            if step is None and state.in_round:
                current = step = new_step()
                steps.append(step)
            if step is not None:
                step.error, step.error_line = e.message, e.line
            break
        pending: Move | None = None
        card_move = ev.type not in ("deal", "claim") and _is_card_move(ev.data)
        if card_move and state.in_round and current is None:
            current = new_step()
        if card_move and current is not None:
            who = ev.data.get("player")
            name = who if isinstance(who, str) else ""
            s = state.seat.get(name)
            hand = tuple(c.name for c in state.hand(s)) if s is not None else ()
            pending = Move(name, ev.data, ev.line, hand, _legal_cards(state, name))
        where = current if card_move else target()
        try:
            state.apply(ev)
        except (RuleError, FormatError) as e:
            step = where if where is not None else current
            if step is None and state.in_round:
                step = new_step()
            if step is not None:
                step.error, step.error_line = str(e), ev.line
                step.illegal = pending
            break
        if pending is not None and current is not None:
            current.moves.append(pending)
        new = state.facts[seen:]
        seen = len(state.facts)
        for f in new:
            if isinstance(f, (RoundDealt, RoundScored)) or where is None:
                round_lines.setdefault(state.round_no, []).extend(render(info, [f], players))
                continue
            where.facts.append(f)
            where.lines.extend(render(info, [f], players))
            if where is current and type(f) in info.step_facts:
                current.finished = True
                current.label = (info.step_label(f) if info.step_label is not None
                                 else f"{info.step.capitalize()} {current.number}")
                current = None
        if current is not None and not state.in_round:
            current = None  # the round ended inside the step (an early end)
    return Timeline(replay_log(log), steps, round_lines)


def timeline_bytes(data: bytes, name: str) -> Timeline | None:
    """The timeline of a log given as bytes; None when it has no valid header."""
    try:
        log = read_bytes(data, name)
    except Exception:
        return None
    return timeline_of(log)
