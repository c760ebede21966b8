"""Legal-move fixtures of Halma and capture Chinese checkers (tests/data), checked two ways.

Each ``tests/data/<variant>.json`` holds positions (the start and mid-game
positions) with their full sorted legal-move lists. The engine must give
exactly those lists, and an independent, slow reading of the rules below
(rules.md#capture-chinese-checkers and rules.md#halma; coordinates and sets,
nothing from the engine) must agree with them.
The fixtures are written by ``python tests/make_fixtures.py``; the engine is
checked against them in test_fixtures.py.
"""

from __future__ import annotations

import pytest
from make_fixtures import CAPTURE_FIXTURES, load

from sternhalma.notation import position_from_dict
from sternhalma.rules.race import RaceRules

HALMA_FIXTURES = ["halma-2", "halma-4"]

Cell = tuple[int, int]


def name(cell: Cell) -> str:
    return f"{chr(ord('a') + cell[0] - 1)}{cell[1]}"


def cell(text: str) -> Cell:
    return ord(text[0]) - ord("a") + 1, int(text[1:])


# -- capture, read from rules.md#capture-chinese-checkers -----------------------------------
HEX = ((1, 0), (-1, 0), (0, 1), (-1, 1), (0, -1), (1, -1))


def on_star(c: Cell) -> bool:
    q, r = c
    return (r >= 5 and q >= 5 and q + r <= 22) or (r <= 13 and q <= 13 and q + r >= 14)


def capture_hops(at: Cell, pieces: set[Cell], long: bool) -> list[tuple[Cell, Cell]]:
    """(jumped piece, landing hole) of every jump from ``at``."""
    hops = []
    for dq, dr in HEX:
        line = []
        c = (at[0] + dq, at[1] + dr)
        while on_star(c):
            line.append(c)
            c = (c[0] + dq, c[1] + dr)
        occupied = [i for i, c in enumerate(line) if c in pieces]
        if not occupied:
            continue
        k = occupied[0]  # the first piece on the line, k empty holes before it
        if k > 0 and not long:
            continue
        land = 2 * k + 1
        if land < len(line) and not any(line[i] in pieces for i in range(k + 1, land + 1)):
            hops.append((line[k], line[land]))
    return hops


def capture_paths(pieces: list[str], long: bool) -> set[str]:
    """Every chain of every piece: each jumped piece leaves the board at once."""
    paths: set[str] = set()
    board = {cell(p) for p in pieces}

    def walk(at: Cell, left: set[Cell], path: list[Cell]) -> None:
        for over, land in capture_hops(at, left, long):
            longer = [*path, land]
            paths.add("-".join(name(c) for c in longer))
            walk(land, left - {over}, longer)

    for start in board:
        walk(start, board - {start}, [start])
    return paths


# -- Halma, read from rules.md#halma ---------------------------------------------------------
KING = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]


def halma_pairs(marbles: dict[str, list[str]], colour: str, goal: set[str]) -> set[tuple[str, str]]:
    """(start, end) of every legal move of ``colour``: steps, and jump chains without revisits."""
    occupied = {cell(s) for squares in marbles.values() for s in squares}
    camp = {cell(s) for s in goal}
    pairs = set()
    for start_name in marbles[colour]:
        start = cell(start_name)
        others = occupied - {start}
        # A piece in its goal camp lands only on camp squares, in a chain too.
        targets = camp if start in camp else {(c, r) for c in range(1, 17) for r in range(1, 17)}
        targets = targets - others

        for dc, dr in KING:
            step = (start[0] + dc, start[1] + dr)
            if step in targets:
                pairs.add((start_name, name(step)))
        visited = {start}
        todo = [start]
        while todo:
            at = todo.pop()
            for dc, dr in KING:
                over, land = (at[0] + dc, at[1] + dr), (at[0] + 2 * dc, at[1] + 2 * dr)
                if over in others and land in targets and land not in visited:
                    visited.add(land)
                    todo.append(land)
                    pairs.add((start_name, name(land)))
    return pairs


# -- the tests ------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", CAPTURE_FIXTURES)
def test_capture_fixtures_agree_with_an_independent_reading(variant: str) -> None:
    for entry in load(variant):
        data = entry["position"]
        expected = capture_paths(data["pieces"], "longjump" in data.get("options", []))
        assert set(entry["moves"]) == expected, entry["name"]
        assert len(entry["moves"]) == len(expected)


@pytest.mark.parametrize("variant", HALMA_FIXTURES)
def test_halma_fixtures_agree_with_an_independent_reading(variant: str) -> None:
    for entry in load(variant):
        position = position_from_dict(entry["position"])
        rules = position.rules
        assert isinstance(rules, RaceRules)
        goal = set(rules.board.names_of(rules.goals[position.turn]))
        expected = halma_pairs(entry["position"]["marbles"], position.colour, goal)
        pairs = {(m.split("-")[0], m.split("-")[-1]) for m in entry["moves"]}
        assert pairs == expected, entry["name"]
        assert len(pairs) == len(entry["moves"])  # one move per (start, end)
        for text in entry["moves"]:
            rules.parse_move(position, text)  # every listed path is legal hop by hop
