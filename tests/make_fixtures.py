"""Writes the legal-move fixtures: ``python tests/make_fixtures.py``.

Each ``tests/data/<variant>.json`` holds positions (the start and seeded
mid-game positions) with their full sorted legal-move lists. The fixtures
were checked against independent, slow readings of the rules
(``tests/reference.py`` for the star race, test_halma_capture_fixtures.py for
capture and Halma), and the tests keep checking both.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from sternhalma.benchmark import sample_positions
from sternhalma.notation import position_to_dict
from sternhalma.position import Position
from sternhalma.rules import VARIANTS
from sternhalma.rules.capture import CaptureRules

DATA = Path(__file__).parent / "data"
#: The race variants with fixtures, and how many seeded mid-game positions each has.
MID_GAMES = {v.id: 4 for v in VARIANTS.values() if v.game == "chinese-checkers"}
MID_GAMES.update({"halma-2": 3, "halma-4": 3})
CAPTURE_FIXTURES = ["capture-2", "capture-5", "capture-2-longjump", "capture-6-longjump"]
FIXTURES = [*MID_GAMES, *CAPTURE_FIXTURES]


def capture_positions(variant: str) -> list[tuple[str, Position]]:
    """The start and three seeded mid-game positions with a listable number of chains."""
    rules = VARIANTS[variant]
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


def entries(variant: str) -> list[dict[str, object]]:
    rules = VARIANTS[variant]
    if variant in CAPTURE_FIXTURES:
        positions = capture_positions(variant)
    else:
        samples = sample_positions(rules, MID_GAMES[variant], seed=7)
        positions = [("start", rules.initial())]
        positions += [(f"mid-game {i + 1}", p) for i, p in enumerate(samples)]
    return [
        {
            "name": label,
            "position": position_to_dict(position),
            "moves": sorted(rules.format_move(m) for m in rules.legal_moves(position)),
        }
        for label, position in positions
    ]


def load(variant: str) -> list[dict[str, object]]:
    """The fixture entries of a variant, as the tests read them."""
    loaded: list[dict[str, object]] = json.loads((DATA / f"{variant}.json").read_text())
    assert len(loaded) >= 2, "a start and at least one mid-game position"
    return loaded


def main() -> None:
    for variant in FIXTURES:
        path = DATA / f"{variant}.json"
        lines = ",\n".join(json.dumps(entry) for entry in entries(variant))
        path.write_text(f"[\n{lines}\n]\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
