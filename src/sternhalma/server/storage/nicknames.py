"""When two nicknames are the same name: when they look alike in some case, by their
Unicode confusable skeleton (UTS #39). So "Аlice" with a Cyrillic А, "ALICE" and
"alice" are one name, and so are "Ian" and "lan" (a capital I looks like a small L):
only one identity may hold it.

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

from sternhalma.invisible import without_invisible

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
    """What makes two nicknames the same name. The nickname in NFKC ("ﬁ" is "fi", a
    full-width letter the letter) without invisible characters (sternhalma/invisible.py:
    UTS #39 leaves default-ignorables out of a skeleton); then the skeleton of the
    capitals ("Ian" is "IAN", whose I looks like an l), case-folded, and the skeleton of
    that (small letters have look-alikes of their own: "m" and "rn"); twice, because a
    skeleton may hold letters that look like others in the other case ("ⅈ" is "i", whose
    capital is "I", an "l"). Two passes reach the fixed point for every character of
    the table (tests/test_nicknames.py)."""
    key = nickname
    for _ in range(2):
        # A skeleton may hold compatibility characters ("‱" has "₀"): NFKC each pass.
        key = without_invisible(unicodedata.normalize("NFKC", key))
        key = skeleton(skeleton(key.upper()).casefold())
    return key
