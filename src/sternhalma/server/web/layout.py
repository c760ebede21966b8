"""What the browser needs to draw a board and explain a variant, taken from the engine.

The web client never repeats the rules or the geometry: it receives hole names,
screen coordinates (one hole spacing = 1 unit, y growing upward), the outline of
the board and, per variant, each seat's home, goal and the holes where its moves
may not end. Everything here is computed once from ``VARIANTS``.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from sternhalma.boards.base import Board
from sternhalma.rules import GAMES, VARIANTS
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules

#: The vertical distance between two rows of the star, in hole spacings.
ROW_HEIGHT = math.sqrt(3) / 2


def screen_point(board: Board, hole: int) -> tuple[float, float]:
    """Where a hole is drawn: x to the right, y upward, neighbours 1 unit apart."""
    a, b = board.cells[hole]
    if board.kind == "star":
        # rules.md#the-star-board: x = 2q + r in half-hole units, one row per unit of height.
        return (2 * a + b) / 2, b * ROW_HEIGHT
    return float(a), float(b)


def _outline(board: Board) -> list[list[tuple[float, float]]]:
    """Polygons to draw behind the holes (the two triangles of the star, or the square)."""
    points = [screen_point(board, h) for h in range(board.size)]
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    if board.kind != "star":
        pad = 0.5
        return [
            [
                (min(xs) - pad, min(ys) - pad),
                (max(xs) + pad, min(ys) - pad),
                (max(xs) + pad, max(ys) + pad),
                (min(xs) - pad, max(ys) + pad),
            ]
        ]
    # The star is two big triangles; pad each corner outward from the centre.
    cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
    triangles = []
    for corners in (("e5", "q5", "e17"), ("a13", "m13", "m1")):
        polygon = []
        for name in corners:
            x, y = screen_point(board, board.index(name))
            dx, dy = x - cx, y - cy
            length = math.hypot(dx, dy)
            pad = 1.0
            polygon.append((x + dx / length * pad, y + dy / length * pad))
        triangles.append(polygon)
    return triangles


def _rounded(values: tuple[float, float]) -> list[float]:
    return [round(values[0], 4), round(values[1], 4)]


@cache
def board_description(kind: str) -> dict[str, Any]:
    """Names, screen positions and outline of the board of ``kind`` ("star" or "square")."""
    board = next(r.board for r in VARIANTS.values() if r.board.kind == kind)
    return {
        "kind": board.kind,
        "names": list(board.names),
        "xy": [_rounded(screen_point(board, h)) for h in range(board.size)],
        "outline": [[_rounded(p) for p in polygon] for polygon in _outline(board)],
    }


def variant_description(rules: Ruleset) -> dict[str, Any]:
    """One variant as the lobby and the table need it."""
    names = rules.board.names_of
    data: dict[str, Any] = {
        "id": rules.id,
        "game": rules.game,
        "title": rules.title,
        "players": rules.players,
        "seats": list(rules.seats),
        "teams": [list(team) for team in rules.teams],
        "board": rules.board.kind,
        "long_jumps": rules.long_jumps,
        "moves_by_path": rules.moves_by_path,
        "deadline": rules.deadline,
    }
    if isinstance(rules, RaceRules):
        data["marbles"] = rules.marbles_per_seat
        data["homes"] = [names(home) for home in rules.homes]
        data["goals"] = [names(goal) for goal in rules.goals]
        data["no_end"] = [names(rules.board.all & ~ok) for ok in rules.may_end]
    return data


@cache
def catalogue() -> dict[str, Any]:
    """Every game, variant and the boards they use: the payload of ``GET /api/variants``."""
    kinds = sorted({rules.board.kind for rules in VARIANTS.values()})
    return {
        "games": list(GAMES),
        "boards": {kind: board_description(kind) for kind in kinds},
        "variants": [variant_description(rules) for rules in VARIANTS.values()],
    }
