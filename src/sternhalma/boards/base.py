"""Board geometry shared by the star and the square board.

A board is a fixed set of holes numbered 0..n-1; a set of holes is a
bitboard (a Python int, bit i = hole i). Everything the move generators need
is precomputed here once per board, so generating moves is table look-ups.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence


def bits(mask: int) -> Iterator[int]:
    """The hole indices of a bitboard, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def popcount(mask: int) -> int:
    return mask.bit_count()


class Board:
    """Holes, their names, neighbours and straight lines (rays).

    ``cells`` are the holes' coordinates in the board's own system,
    ``directions`` the coordinate offsets of the neighbour directions
    (opposite directions need not be listed in any order).
    """

    def __init__(
        self,
        kind: str,
        cells: Sequence[tuple[int, int]],
        names: Sequence[str],
        directions: Sequence[tuple[int, int]],
    ) -> None:
        self.kind = kind
        self.size = len(cells)
        self.cells: tuple[tuple[int, int], ...] = tuple(cells)
        self.names: tuple[str, ...] = tuple(names)
        self.directions: tuple[tuple[int, int], ...] = tuple(directions)
        self.index_of: dict[str, int] = {name: i for i, name in enumerate(self.names)}
        self.all = (1 << self.size) - 1
        at = {cell: i for i, cell in enumerate(self.cells)}

        rays: list[tuple[tuple[int, ...], ...]] = []
        for x, y in self.cells:
            per_direction = []
            for dx, dy in self.directions:
                ray = []
                cx, cy = x + dx, y + dy
                while (cx, cy) in at:
                    ray.append(at[(cx, cy)])
                    cx, cy = cx + dx, cy + dy
                per_direction.append(tuple(ray))
            rays.append(tuple(per_direction))
        #: rays[i][d]: the holes from i outward in direction d, nearest first.
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)
        #: neighbours[i]: the adjacent holes of i.
        self.neighbours: tuple[tuple[int, ...], ...] = tuple(
            tuple(ray[0] for ray in per if ray) for per in self.rays
        )
        self.neighbour_mask: tuple[int, ...] = tuple(
            self.mask(self.neighbours[i]) for i in range(self.size)
        )
        #: jumps[i]: (bit of the jumped hole, landing hole, bit of the landing hole).
        self.jumps: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
            tuple((1 << ray[0], ray[1], 1 << ray[1]) for ray in per if len(ray) >= 2)
            for per in self.rays
        )

    def distance(self, a: int, b: int) -> int:
        """Steps from hole a to hole b on an empty board."""
        raise NotImplementedError

    def index(self, name: str) -> int:
        """The hole called ``name`` (case-insensitive); KeyError if there is none."""
        return self.index_of[name.strip().lower()]

    def mask(self, holes: Iterable[int]) -> int:
        result = 0
        for hole in holes:
            result |= 1 << hole
        return result

    def mask_of_names(self, names: Iterable[str]) -> int:
        return self.mask(self.index(name) for name in names)

    def names_of(self, mask: int) -> list[str]:
        return [self.names[i] for i in bits(mask)]

    def __repr__(self) -> str:
        return f"<{self.kind} board, {self.size} holes>"
