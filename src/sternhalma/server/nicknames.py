"""When two nicknames are the same name: compared case-folded and by their Unicode
confusable skeleton (UTS #39), so "Аlice" with a Cyrillic А, "ALICE" and "alice"
are one name and only one identity may hold it.

The confusables data is Unicode's ``confusables.txt`` as the PyPI package
``confusable-homoglyphs`` ships it: a symmetric table (each character lists the
characters it can be confused with). UTS #39 maps each source character to one
prototype, and a prototype is never a source, so the direction can be read back:
a source lists exactly one character, its prototype; a character listed by
several sources is a prototype; and a pair that only knows each other is one line
of the file, written source first (the package keeps the file's order).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib.resources import files

#: The package writes right-to-left characters between left-to-right marks.
_MARK = "\u200e"


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable source character and its prototype (one or more characters)."""
    table: dict[str, list[dict[str, str]]] = json.loads(
        files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    )
    order = {text: index for index, text in enumerate(table)}
    mapping: dict[str, str] = {}
    for text, entries in table.items():
        if len(entries) != 1:
            continue  # listed by several sources: a prototype
        other = entries[0]["c"]
        if len(table.get(other, ())) > 1 or order.get(other, -1) > order[text]:
            source = text.replace(_MARK, "")
            if len(source) == 1:
                mapping[source] = other.replace(_MARK, "")
    return mapping


def skeleton(text: str) -> str:
    """UTS #39 skeleton: NFD, each character replaced by its prototype, NFD again."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in decomposed))


def nickname_key(nickname: str) -> str:
    """What makes two nicknames the same name: the skeleton of the case-folded text,
    twice, because some prototypes are capitals ("0" looks like "O")."""
    key = nickname
    for _ in range(2):
        key = skeleton(key.casefold())
    return key
