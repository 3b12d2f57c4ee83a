"""Letters of other scripts that look like Latin ones (Cyrillic А, Greek Ο, Armenian ո),
from the Unicode Consortium's table of confusable characters (UTS #39, as packaged by
confusable-homoglyphs): `Аnn` with a Cyrillic А and `Ann` are spelt differently and look
the same. A table, not a hand-made list: there are thousands of such letters."""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources


@functools.cache
def _latin_twin() -> dict[str, str]:
    """Each non-ASCII character that Unicode lists as confusable with one ASCII character,
    and that character."""
    table = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json")
                       .read_text(encoding="utf-8"))
    twins: dict[str, str] = {}
    for char, glyphs in table.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_glyphs = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii()
                        and g["c"].isalnum()]
        if ascii_glyphs:
            twins[char] = ascii_glyphs[0]
    return twins


def seen_as(name: str) -> str:
    """How `name` looks: NFKC's spelling (full-width and compatibility letters folded),
    with every letter of another script that looks like a Latin one written as that one.
    ASCII is left as it is (`l` and `I` stay two letters)."""
    folded = unicodedata.normalize("NFKC", name)
    if folded.isascii():
        return folded
    twins = _latin_twin()
    return "".join(twins.get(c, c) for c in folded)


def lookalike_letters(name: str) -> list[str]:
    """The letters of `name` that only look like Latin ones, each as 'А (CYRILLIC
    CAPITAL LETTER A)', for a message that says why two names look alike."""
    twins = _latin_twin()
    return [f"{c} ({unicodedata.name(c, f'U+{ord(c):04X}')})"
            for c in dict.fromkeys(unicodedata.normalize("NFKC", name)) if c in twins]
