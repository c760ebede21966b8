"""A slow, independent reading of rules.md#moves, to check the engine against.

Written straight from the rules text with coordinates and sets, no bitboards
and no tables from the engine: if both agree, the fixtures are right.
"""

from __future__ import annotations

DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (-1, 1), (0, -1), (1, -1))

POINTS = {
    "white": "m1 l2 m2 k3 l3 m3 j4 k4 l4 m4",
    "red": "e5 f5 g5 h5 e6 f6 g6 e7 f7 e8",
    "blue": "d10 c11 d11 b12 c12 d12 a13 b13 c13 d13",
    "black": "e14 f14 g14 h14 e15 f15 g15 e16 f16 e17",
    "yellow": "m10 l11 m11 k12 l12 m12 j13 k13 l13 m13",
    "green": "n5 o5 p5 q5 n6 o6 p6 n7 o7 n8",
}
OPPOSITE = {"white": "black", "red": "yellow", "blue": "green"}
OPPOSITE.update({v: k for k, v in OPPOSITE.items()})


def exists(q: int, r: int) -> bool:
    return (r >= 5 and q >= 5 and q + r <= 22) or (r <= 13 and q <= 13 and q + r >= 14)


def name(cell: tuple[int, int]) -> str:
    return f"{chr(ord('a') + cell[0] - 1)}{cell[1]}"


def cell(hole: str) -> tuple[int, int]:
    return ord(hole[0]) - ord("a") + 1, int(hole[1:])


def point_cells(colour: str) -> set[tuple[int, int]]:
    return {cell(h) for h in POINTS[colour].split()}


def jump_landings(
    c: tuple[int, int], others: set[tuple[int, int]], long_jumps: bool
) -> list[tuple[int, int]]:
    """Holes one jump from ``c`` lands on, over exactly one of ``others``."""
    found = []
    for dq, dr in DIRECTIONS:
        k = 0  # empty holes before the jumped marble
        while True:
            over = (c[0] + (k + 1) * dq, c[1] + (k + 1) * dr)
            if not exists(*over):
                break
            if over in others:
                beyond = [(over[0] + i * dq, over[1] + i * dr) for i in range(1, k + 2)]
                if all(exists(*b) and b not in others for b in beyond):
                    found.append(beyond[-1])
                break
            if not long_jumps:
                break
            k += 1
    return found


def legal_pairs(
    marbles: dict[str, list[str]],
    turn: str,
    home: set[str],
    goal: set[str],
    long_jumps: bool,
) -> set[tuple[str, str]]:
    """Every (from, to) the side to move can play. ``home``/``goal`` are hole names."""
    occupied = {cell(h) for holes in marbles.values() for h in holes}
    all_points = set().union(*(point_cells(c) for c in POINTS))
    goal_cells = {cell(h) for h in goal}
    other_points = all_points - {cell(h) for h in home} - goal_cells
    result: set[tuple[str, str]] = set()
    for hole in marbles[turn]:
        start = cell(hole)
        others = occupied - {start}
        allowed = goal_cells if start in goal_cells else set(map(cell, ALL))
        ends = allowed - other_points
        for dq, dr in DIRECTIONS:
            c = (start[0] + dq, start[1] + dr)
            if c in ends and c not in others:
                result.add((hole, name(c)))
        stack = [(start, frozenset([start]))]
        while stack:
            here, visited = stack.pop()
            for land in jump_landings(here, others, long_jumps):
                if land in visited or land not in allowed:
                    continue
                if land in ends:
                    result.add((hole, name(land)))
                stack.append((land, visited | {land}))
    return result


ALL = [name((q, r)) for q in range(1, 18) for r in range(1, 18) if exists(q, r)]
