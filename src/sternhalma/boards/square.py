"""The 16×16 Halma board (rules.md#halma) and its corner camps.

Squares are (column, row), both 1..16: columns ``a``..``p`` from left to
right, rows from the bottom. Index order is row by row from the bottom, left
to right, so ``a1`` is square 0, ``p1`` square 15 and ``p16`` square 255.
Pieces move in all 8 directions, so the distance between two squares is the
king distance (Chebyshev).
"""

from __future__ import annotations

from sternhalma.boards.base import Board

SIDE = 16

#: The 8 directions: right, left, up, down, and the four diagonals.
KING_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (-1, 1), (1, -1))

#: The four corners as (column, row), and which way is "outward" from each.
CORNERS: dict[str, tuple[int, int]] = {
    "bottom-right": (SIDE, 1),
    "bottom-left": (1, 1),
    "top-left": (1, SIDE),
    "top-right": (SIDE, SIDE),
}

#: Camp shapes: the length of each row of the camp, counted outward from the corner.
HALMA_2_CAMP = (5, 5, 4, 3, 2)
HALMA_4_CAMP = (4, 4, 3, 2)


def square_name(column: int, row: int) -> str:
    return f"{chr(ord('a') + column - 1)}{row}"


class SquareBoard(Board):
    def __init__(self) -> None:
        cells = [(column, row) for row in range(1, SIDE + 1) for column in range(1, SIDE + 1)]
        names = [square_name(column, row) for column, row in cells]
        super().__init__("square", cells, names, KING_DIRECTIONS)

    def distance(self, a: int, b: int) -> int:
        """Steps between two squares on an empty board (8 directions: king distance)."""
        (ca, ra), (cb, rb) = self.cells[a], self.cells[b]
        return max(abs(ca - cb), abs(ra - rb))

    def camp(self, corner: str, rows: tuple[int, ...]) -> int:
        """The camp in ``corner``: its first row (the board edge) holds rows[0] squares
        starting at the corner, the next row rows[1], and so on outward."""
        column, row = CORNERS[corner]
        across = -1 if column == SIDE else 1  # from the corner along the edge
        outward = 1 if row == 1 else -1  # from the edge toward the middle
        squares = []
        for depth, length in enumerate(rows):
            for offset in range(length):
                squares.append(
                    self.index(square_name(column + across * offset, row + outward * depth))
                )
        return self.mask(squares)


SQUARE = SquareBoard()
