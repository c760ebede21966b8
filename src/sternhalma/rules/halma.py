"""Halma on the 16×16 board (rules.md#halma): the race rules on the square board.

Halma is the star race with a different board: steps and jump chains in 8
directions, no revisits, a piece in the opposing camp never leaves it (the
race rules' goal lock), and a player wins with every own piece in that camp
(no anti-blocking rule). There are no forbidden squares and no leaving-home
deadline. ``halma-4`` is our addition: see docs/halma.md.
"""

from __future__ import annotations

from sternhalma.boards.square import CORNERS, HALMA_2_CAMP, HALMA_4_CAMP, SQUARE
from sternhalma.rules.race import RaceRules

#: Seat colour -> its home corner, in turn order (clockwise from the bottom right).
HALMA_SEATING: dict[int, dict[str, str]] = {
    2: {"white": "bottom-right", "black": "top-left"},
    4: {"white": "bottom-right", "red": "bottom-left", "black": "top-left", "yellow": "top-right"},
}

#: The corner diagonally across the board from each corner.
OPPOSITE_CORNER = {
    "bottom-right": "top-left",
    "top-left": "bottom-right",
    "bottom-left": "top-right",
    "top-right": "bottom-left",
}
assert set(OPPOSITE_CORNER) == set(CORNERS)


def halma(id: str, players: int, *, title: str) -> RaceRules:
    """Halma for 2 (19-piece camps) or 4 players (13-piece camps, partners opposite)."""
    seating = HALMA_SEATING[players]
    shape = HALMA_2_CAMP if players == 2 else HALMA_4_CAMP
    seats = list(seating)
    homes = [SQUARE.camp(seating[colour], shape) for colour in seats]
    goals = [SQUARE.camp(OPPOSITE_CORNER[seating[colour]], shape) for colour in seats]
    # Partners sit in opposite corners, so each one's goal is the other's home.
    teams = [(0, 2), (1, 3)] if players == 4 else []
    return RaceRules(
        id,
        "halma",
        SQUARE,
        seats,
        homes,
        goals,
        forbidden=[0] * players,
        teams=teams,
        deadline=None,
        anti_blocking=False,
        last_reply=False,
        title=title,
    )


def halma_variants() -> list[RaceRules]:
    return [
        halma("halma-2", 2, title="Halma, 2 players"),
        halma("halma-4", 4, title="Halma, 4 players (2 × 2)"),
    ]
