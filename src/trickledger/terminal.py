"""The command line's terminal: what the commands print, made safe to print.

Every command of every package (`verify` in replay, `ingest` and `sql` in ingest, ...)
prints data read from logs and databases: a file name, a player's name, a value. These
helpers escape it so that nothing read can rewrite what the terminal shows or add a line
of its own. They sit on the lowest floor beside the engine (they read its list of
invisible characters), outside it: the engine holds no command-line code that the loader
needs (tests/units/test_import_cycles.py).
"""

from __future__ import annotations

import re
import sys
from typing import Any

import orjson

from trickledger.replay.engine import verdict_json
from trickledger.replay.reader import INVISIBLE, INVISIBLE_RANGES, char_class

# Everything a reader cannot see (replay.reader.INVISIBLE: controls, ESC, BEL, C1, every
# text-direction mark, zero widths, fillers), the tab and the line break included.
_CONTROL = INVISIBLE
# The same class with the line break cut out of it (a lookahead before the class was tried
# at every character of a verdict: 18 % of `verify --json`).
_CONTROL_BUT_LINES = char_class(
    r for lo, hi in INVISIBLE_RANGES
    for r in (((lo, 0x09), (0x0B, hi)) if lo <= 0x0A <= hi else ((lo, hi),)))
# Its ASCII part: most output is ASCII (a flag Python keeps on every string), and a class of
# three ranges scans it about five times faster.
_ASCII_CONTROL_BUT_LINES = re.compile("[\x00-\x09\x0b-\x1f\x7f]")


def _but_lines(text: str) -> re.Pattern[str]:
    return _ASCII_CONTROL_BUT_LINES if text.isascii() else _CONTROL_BUT_LINES


def _escape(m: re.Match[str]) -> str:
    return m.group().encode("unicode_escape").decode()


def terminal(text: str) -> str:
    """One data field (a file name, a value, a column name) made safe to print: control,
    text-direction and invisible characters are shown as escapes, the line break and the
    tab too, so nothing read from a log or a database can rewrite what the terminal shows
    or add a line of its own."""
    return _CONTROL.sub(_escape, text)


def _json_escape(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP JSON spells a character as its UTF-16 surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_text(value: Any, indent: bool = True) -> str:
    """`value` as JSON that is safe to print: orjson escapes C0 controls only, so every
    other invisible character (DEL, C1, text-direction marks, ...) is written as a
    \\u escape too. The JSON means the same; only its spelling changes."""
    try:
        text = orjson.dumps(value, default=str,
                            option=orjson.OPT_INDENT_2 if indent else 0).decode()
    except TypeError:  # an integer beyond 64 bits, written exactly
        text = verdict_json(value).decode()
    return json_escaped(text)


def json_escaped(text: str) -> str:
    """JSON text (one document, or JSON lines) with every invisible character inside its
    strings written as a \\u escape; its own line breaks stay (orjson's indentation, the
    breaks between JSON lines: orjson writes none inside a string)."""
    if text.isascii() and "\x7f" not in text:
        return text  # orjson escapes every other ASCII control inside strings
    return _but_lines(text).sub(_json_escape, text)


def say(text: str = "", error: bool = False) -> None:
    """Print the program's own lines: its line breaks stay, every other control character
    is escaped (data fields in `text` must be escaped with `terminal` first, so that a line
    break in them shows as \\n). An error is one line whatever it quotes (a path given on
    the command line, a database's message): every character of it is escaped."""
    if error:
        print(terminal(text), file=sys.stderr)
        return
    print(_but_lines(text).sub(_escape, text), file=sys.stdout)


# the exit statuses of the commands that read logs (verify, replay; ingest words it for loading)
EXIT_CODES = ("exit status: 0 when every log is complete or incomplete and every claim "
              "matches; 1 when a move is illegal or a claim does not match (disputed); 2 "
              "when a log is unreadable or the command is misused")
