"""Progress rows (docs/players.md#easy-and-medium): each seat's row index of every hole.

The source documents' computer levels measure progress in rows toward the
goal, and Hard's evaluation builds on the same frame, so the table lives in
one place. A row index runs from 1 at the seat's home tip to the goal tip
(17 on the star, 31 on the Halma board).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules

#: The star's row index of hole (q, r) for each seat colour.
STAR_ROWS: dict[str, Callable[[int, int], int]] = {
    "white": lambda q, r: r,
    "black": lambda q, r: 18 - r,
    "red": lambda q, r: q + r - 9,
    "yellow": lambda q, r: 27 - (q + r),
    "blue": lambda q, r: q,
    "green": lambda q, r: 18 - q,
}


def _letter_number(name: str) -> tuple[int, int]:
    """(letter index from 1, number) of a hole or square name like ``m1`` or ``p16``."""
    return ord(name[0]) - ord("a") + 1, int(name[1:])


@cache
def row_table(rules: Ruleset) -> tuple[tuple[int, ...], ...]:
    """rows[seat][hole]: the seat's row index of every hole (race games only).

    Raises ValueError for the capture game, which has no rows: nobody owns a piece.
    """
    if not isinstance(rules, RaceRules):
        raise ValueError(f"{rules.id} has no progress rows: pieces belong to nobody")
    cells = [_letter_number(name) for name in rules.board.names]
    if rules.game == "halma":
        return tuple(_halma_rows(rules.homes[seat], cells) for seat in range(rules.players))
    return tuple(tuple(STAR_ROWS[colour](a, b) for a, b in cells) for colour in rules.seats)


def _halma_rows(home: int, cells: list[tuple[int, int]]) -> tuple[int, ...]:
    """The anti-diagonal counted from the home corner, 1 in the corner.

    For halma-2 this is the source documents' rule (white, home bottom right:
    ``(17 − column) + row − 1``; black the mirror); the same rule serves any
    corner.
    """
    side = max(max(cell) for cell in cells)
    corner = next(
        cell
        for hole, cell in enumerate(cells)
        if home >> hole & 1 and cell[0] in (1, side) and cell[1] in (1, side)
    )
    return tuple(abs(a - corner[0]) + abs(b - corner[1]) + 1 for a, b in cells)


def row_gain(rules: Ruleset, seat: int, start: int, end: int) -> int:
    """How many rows a marble of ``seat`` gains going from ``start`` to ``end``."""
    rows = row_table(rules)[seat]
    return rows[end] - rows[start]
