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
