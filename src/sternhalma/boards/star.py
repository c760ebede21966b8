"""The 121-hole star of Chinese checkers (rules.md#the-star-board).

Holes are (q, r): q the diagonal a..q (1..17), r the row 1..17 from the
bottom. Index order is row by row from the bottom, left to right, so
``m1`` is hole 0 and ``e17`` hole 120.
"""

from __future__ import annotations

from sternhalma.boards.base import Board

#: The six neighbour directions: right, left, up-right, up-left, down-left, down-right.
HEX_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (-1, 1), (0, -1), (1, -1))

#: Seat colours clockwise from the bottom point.
COLOURS = ("white", "red", "blue", "black", "yellow", "green")

_POINT_HOLES = {
    "white": "m1 l2 m2 k3 l3 m3 j4 k4 l4 m4",
    "red": "e5 f5 g5 h5 e6 f6 g6 e7 f7 e8",
    "blue": "d10 c11 d11 b12 c12 d12 a13 b13 c13 d13",
    "black": "e14 f14 g14 h14 e15 f15 g15 e16 f16 e17",
    "yellow": "m10 l11 m11 k12 l12 m12 j13 k13 l13 m13",
    "green": "n5 o5 p5 q5 n6 o6 p6 n7 o7 n8",
}


def _on_star(q: int, r: int) -> bool:
    upward = r >= 5 and q >= 5 and q + r <= 22
    downward = r <= 13 and q <= 13 and q + r >= 14
    return upward or downward


def opposite(colour: str) -> str:
    """The colour of the point facing ``colour``'s point."""
    return COLOURS[(COLOURS.index(colour) + 3) % 6]


class StarBoard(Board):
    def __init__(self) -> None:
        cells = [(q, r) for r in range(1, 18) for q in range(1, 18) if _on_star(q, r)]
        names = [f"{chr(ord('a') + q - 1)}{r}" for q, r in cells]
        super().__init__("star", cells, names, HEX_DIRECTIONS)
        #: point[colour]: the 10 holes of that colour's point.
        self.point: dict[str, int] = {
            colour: self.mask_of_names(holes.split()) for colour, holes in _POINT_HOLES.items()
        }
        self.points = 0
        for mask in self.point.values():
            self.points |= mask
        self.hexagon = self.all & ~self.points
        at = {cell: i for i, cell in enumerate(self.cells)}
        #: rotate[i]: hole i turned 60° clockwise about i9 (the S point goes to SW).
        self.rotate: tuple[int, ...] = tuple(at[_turn(q, r)] for q, r in self.cells)
        #: mirror[i]: hole i reflected in the vertical axis through m1, i9 and e17.
        self.mirror: tuple[int, ...] = tuple(at[_mirror(q, r)] for q, r in self.cells)

    def distance(self, a: int, b: int) -> int:
        """Steps between two holes on an empty board (hex distance)."""
        (qa, ra), (qb, rb) = self.cells[a], self.cells[b]
        dq, dr = qa - qb, ra - rb
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def _turn(q: int, r: int) -> tuple[int, int]:
    # Cube coordinates about the centre (9, 9): x = dq, z = dr, y = -x - z.
    x, z = q - 9, r - 9
    y = -x - z
    # Turning 60° clockwise sends (x, y, z) to (-y, -z, -x).
    return -y + 9, -x + 9


def _mirror(q: int, r: int) -> tuple[int, int]:
    # The screen position is x = 2q + r; reflecting it about i9 (x = 27) keeps r.
    return 27 - q - r, r


STAR = StarBoard()
