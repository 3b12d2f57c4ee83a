"""A game as a sequence of steps (tricks, or turns), for a person stepping through it.

The engine's fold (`replay_log`) is watched: before every move the watcher notes what only
the engine knows, every player's hand and the moves that were legal for the player who
moved, and after it files the facts the move produced. A step
closes when the game emits one of its step facts (`GameInfo.step_facts`: a finished
trick, a turn); a step also closes where a round ends early, where the log stops, and
at an illegal line. Nothing here is a rule: it is the engine's own state, read out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .engine import Replay, replay_log
from .errors import LogError
from .events import Event
from .facts import Fact, RoundDealt, RoundScored
from .reader import Log, read_bytes
from .render import render
from .state import FoldWatcher, GameState


@dataclass(frozen=True)
class StepMove:
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
    moves: list[StepMove] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)  # the engine's words for this step
    facts: list[Fact] = field(default_factory=list)
    finished: bool = False  # closed by a step fact (not by an early end or the log's end)
    label: str = ""  # as the engine names it ("Trick 3", "Turn 2", "Draw after turn 2")
    error: str | None = None  # the illegal move that ends the log here, with its line
    error_line: int | None = None
    illegal: StepMove | None = None  # that move, when it was a card move: what the mover held


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


class _StepWatcher(FoldWatcher):
    """Cuts the engine's fold into steps: before each move it notes the mover's hand and
    legal cards, after it files the new facts into the open step (see the module's text)."""

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.round_lines: dict[int, list[str]] = {}
        self.current: Step | None = None
        self.seen = 0  # facts filed so far
        # the event being applied: its line, its card move and the step its facts go to
        self.applying: int | None = None
        self.pending: StepMove | None = None
        self.where: Step | None = None

    @staticmethod
    def hands(state: GameState) -> dict[str, tuple[str, ...]]:
        return {p: tuple(c.name for c in state.hand(s)) for s, p in enumerate(state.players)}

    def new_step(self, state: GameState) -> Step:
        round_no = state.round_no
        number = len([s for s in self.steps if s.round == round_no]) + 1
        step = Step(round_no, number, self.hands(state),
                    label=f"{state.info.step.capitalize()} {number}")
        self.steps.append(step)
        return step

    def target(self, state: GameState) -> Step | None:
        """Where the facts of a move that is not a card move go: the open step, else the
        round's last step (a keep after its trick, secret bids after the last trick),
        else the round itself (bids before the first trick)."""
        if self.current is not None:
            return self.current
        steps = self.steps
        if steps and steps[-1].round == state.round_no:
            return steps[-1]
        return None

    def before(self, state: GameState, ev: Event) -> None:
        self.pending = None
        card_move = ev.type not in ("deal", "claim") and _is_card_move(ev.data)
        if card_move and state.in_round and self.current is None:
            self.current = self.new_step(state)
        if card_move and self.current is not None:
            who = ev.data.get("player")
            name = who if isinstance(who, str) else ""
            s = state.seat.get(name)
            hand = tuple(c.name for c in state.hand(s)) if s is not None else ()
            self.pending = StepMove(name, ev.data, ev.line, hand, _legal_cards(state, name))
        self.where = self.current if card_move else self.target(state)
        self.applying = ev.line

    def after(self, state: GameState, ev: Event) -> None:
        self.applying = None
        current, where, info, players = self.current, self.where, state.info, state.players
        if self.pending is not None and current is not None:
            current.moves.append(self.pending)
        new = state.facts[self.seen:]
        self.seen = len(state.facts)
        for f in new:
            if isinstance(f, (RoundDealt, RoundScored)) or where is None:
                self.round_lines.setdefault(state.round_no, []).extend(render(info, [f], players))
                continue
            where.facts.append(f)
            where.lines.extend(render(info, [f], players))
            if where is current and current is not None and type(f) in info.step_facts:
                current.finished = True
                current.label = (info.step_label(f) if info.step_label is not None
                                 else f"{info.step.capitalize()} {current.number}")
                self.current = current = None
        if self.current is not None and not state.in_round:
            self.current = None  # the round ended inside the step (an early end)

    def stopped(self, state: GameState, error: LogError) -> None:
        """The fold stopped at `error`'s line: the step it belongs to ends the log there."""
        in_round = state.in_round
        if error.line is not None and error.line == self.applying:
            # the event was applied and broke a rule: its own step, with the move tried
            step = self.where if self.where is not None else self.current
            if step is None and in_round:
                step = self.new_step(state)
            if step is not None:
                step.illegal = self.pending
        else:  # a malformed line: the open step, or the round's last one, or a new one
            step = self.current or (self.target(state) if in_round else None)
            if step is None and in_round:
                self.current = step = self.new_step(state)
        if step is not None:
            step.error, step.error_line = error.message, error.line


def timeline_of(log: Log) -> Timeline:
    """Replay `log` step by step (see the module's text): the engine's one fold, watched."""
    watcher = _StepWatcher()
    replay = replay_log(log, watcher)
    if replay.error is not None and replay.state is not None:
        watcher.stopped(replay.state, replay.error)
    return Timeline(replay, watcher.steps, watcher.round_lines)


def timeline_bytes(data: bytes, name: str) -> Timeline | None:
    """The timeline of a log given as bytes; None when it has no valid header."""
    try:
        log = read_bytes(data, name)
    except Exception:
        return None
    return timeline_of(log)
