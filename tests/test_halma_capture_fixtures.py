"""Legal-move fixtures of Halma and capture Chinese checkers (tests/data), checked two ways.

Each ``tests/data/<variant>.json`` holds positions (the start and mid-game
positions) with their full sorted legal-move lists. The engine must give
exactly those lists, and an independent, slow reading of RULES.md §2 and §3
below (coordinates and sets, nothing from the engine) must agree with them.
Regenerate with ``python tests/test_halma_capture_fixtures.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from sternhalma.benchmark import sample_positions
from sternhalma.notation import position_from_dict, position_to_dict
from sternhalma.position import Position
from sternhalma.rules import find_variant
from sternhalma.rules.capture import CaptureRules
from sternhalma.rules.race import RaceRules

DATA = Path(__file__).parent / "data"
CAPTURE_FIXTURES = ["capture-2", "capture-5", "capture-2-longjump", "capture-6-longjump"]
HALMA_FIXTURES = ["halma-2", "halma-4"]

Cell = tuple[int, int]


def name(cell: Cell) -> str:
    return f"{chr(ord('a') + cell[0] - 1)}{cell[1]}"


def cell(text: str) -> Cell:
    return ord(text[0]) - ord("a") + 1, int(text[1:])


# -- capture, read from RULES.md §2 ---------------------------------------------------------
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


# -- Halma, read from RULES.md §3 -----------------------------------------------------------
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


# -- making the fixtures ----------------------------------------------------------------------
def capture_positions(variant: str) -> list[tuple[str, Position]]:
    """The start and three seeded mid-game positions with a listable number of chains."""
    rules = find_variant(variant)
    assert isinstance(rules, CaptureRules)
    rng = random.Random(f"fixtures:{variant}")
    found = [("start", rules.initial())]
    while len(found) < 4:
        position = rules.initial()
        for _ in range(rng.randint(3, 20)):
            if not rules.has_move(position):
                break
            position = rules.apply_unchecked(position, rng.choice(rules.distinct_moves(position)))
        if 10 <= rules.count_moves(position) <= 400:
            found.append((f"mid-game {len(found)}", position))
    return found


def entries(variant: str) -> list[dict[str, Any]]:
    rules = find_variant(variant)
    if rules.game == "capture":
        positions = capture_positions(variant)
    else:
        positions = [("start", rules.initial())]
        positions += [
            (f"mid-game {i + 1}", p) for i, p in enumerate(sample_positions(rules, 3, seed=7))
        ]
    return [
        {
            "name": label,
            "position": position_to_dict(position),
            "moves": sorted(rules.format_move(m) for m in rules.legal_moves(position)),
        }
        for label, position in positions
    ]


def main() -> None:
    for variant in CAPTURE_FIXTURES + HALMA_FIXTURES:
        path = DATA / f"{variant}.json"
        lines = ",\n".join(json.dumps(entry) for entry in entries(variant))
        path.write_text(f"[\n{lines}\n]\n")
        print("wrote", path)


# -- the tests ------------------------------------------------------------------------------------
def load(variant: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads((DATA / f"{variant}.json").read_text())
    assert len(loaded) >= 2, "a start and at least one mid-game position"
    return loaded


@pytest.mark.parametrize("variant", CAPTURE_FIXTURES + HALMA_FIXTURES)
def test_engine_gives_the_fixture_moves(variant: str) -> None:
    for entry in load(variant):
        position = position_from_dict(entry["position"])
        assert position.rules is find_variant(variant)
        moves = sorted(position.rules.format_move(m) for m in position.rules.legal_moves(position))
        assert moves == entry["moves"], entry["name"]


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


if __name__ == "__main__":
    main()
