"""Error classes. A message always says what was expected and where.

Two kinds of trouble on an event line, as python-chess tells an invalid move
from an illegal one: `FormatError` (the line is malformed: a missing key, a
value of the wrong JSON kind, a card that does not exist) and `RuleError`
(a well-formed move that the rules forbid). Both make a log `illegal`; the
engine adds the file and line when it turns them into an `IllegalLine`.
"""

from __future__ import annotations


class TrickledgerError(Exception):
    """Base class of every error the tool reports to a user."""


class FormatError(TrickledgerError):
    """An event line is malformed: a key is missing or of the wrong kind, a card is unknown."""


class RuleError(TrickledgerError):
    """A well-formed event breaks a rule of the game."""


class HandRuleError(RuleError):
    """A move broke a rule that needs the mover's hand: they held a card that made it
    illegal (a revoke). The message is the one for a log with the hands; a plays-only round
    (docs/format.md) finds it only once the hands are inferred, and words it from the parts:
    "`name` `deed` while holding `held` (where `held` was seen) — `verdict`"."""

    def __init__(self, message: str, seat: int, held: str, deed: str, verdict: str) -> None:
        super().__init__(message)
        self.seat = seat
        self.held = held  # the card's name
        self.deed = deed  # "played G5 on a red lead"
        self.verdict = verdict  # "a revoke"


class EarlierLineError(RuleError):
    """A rule broken on an earlier line than the one being applied: a plays-only round
    checks the rules that need the hands when its hands are known, and the error belongs to
    the line of the move that broke one (the engine reports it there)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


class LogError(TrickledgerError):
    """An error tied to a file and, where one is to blame, a line."""

    status = "illegal"

    def __init__(self, file: str, line: int | None, message: str) -> None:
        super().__init__(message)
        self.file = file
        self.line = line
        self.message = message

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


class UnreadableLog(LogError):
    """No valid header: the file cannot be replayed at all."""

    status = "unreadable"


class IllegalLine(LogError):
    """A line after the header is malformed or breaks a rule."""

    status = "illegal"
