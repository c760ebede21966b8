"""Code points that show nothing, or nothing of their own: a name holding one looks
just like the name without it, so nicknames may not (server/protocol.py) and the
nickname key leaves them out (server/storage/nicknames.py).

``DEFAULT_IGNORABLE`` is Unicode's Default_Ignorable_Code_Point property, written out
from ``DerivedCoreProperties.txt`` (Unicode 16.0; the set has not changed since 14.0).
Python's ``unicodedata`` has no such property; tests/test_nicknames.py checks this
table against the ``regex`` package's ``\\p{Default_Ignorable_Code_Point}``.
``BLANK`` adds characters that are not default-ignorable yet draw nothing: the
Hangul fillers are there already; the braille blank, the musical null notehead and
the Khitan filler are not.
"""

from __future__ import annotations

import bisect

#: Default_Ignorable_Code_Point, first and last code point of each range.
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ..AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTOR ONE..FOUR, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK
    (0x202A, 0x202E),  # LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),  # WORD JOINER..NOMINAL DIGIT SHAPES (with 2065, reserved)
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT LETTER OVERLAP..UP STEP
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    (0xE0000, 0xE0FFF),  # tags, VARIATION SELECTOR-17..256, reserved
)

#: Blank characters that are not default-ignorable.
BLANK: tuple[tuple[int, int], ...] = (
    (0x2800, 0x2800),  # BRAILLE PATTERN BLANK
    (0x16FE4, 0x16FE4),  # KHITAN SMALL SCRIPT FILLER
    (0x1D159, 0x1D159),  # MUSICAL SYMBOL NULL NOTEHEAD
)

_RANGES = sorted(DEFAULT_IGNORABLE + BLANK)
_STARTS = [first for first, _ in _RANGES]


def is_invisible(character: str) -> bool:
    """Whether ``character`` (one code point) is default-ignorable or blank."""
    code = ord(character)
    at = bisect.bisect_right(_STARTS, code) - 1
    return at >= 0 and code <= _RANGES[at][1]


def first_invisible(text: str) -> str | None:
    """The first invisible character of ``text``, if any."""
    return next((c for c in text if is_invisible(c)), None)


def without_invisible(text: str) -> str:
    return "".join(c for c in text if not is_invisible(c))
