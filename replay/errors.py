"""Error classes. A message always says what was expected and where."""

from __future__ import annotations


class TrickledgerError(Exception):
    """Base class of every error the tool reports to a user."""


class RuleError(TrickledgerError):
    """A game rule (or the event's shape) was broken; the engine adds file and line."""


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
