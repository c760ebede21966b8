"""Writes the legal-move fixtures of the star variants: ``python tests/make_fixtures.py``.

Each ``tests/data/<variant>.json`` holds positions (the start and seeded
mid-game positions) with their full sorted legal-move lists. The fixtures
were checked against ``tests/reference.py``, an independent reading of the
rules; test_fixtures.py keeps checking both.
"""

from __future__ import annotations

import json
from pathlib import Path

from sternhalma.benchmark import sample_positions
from sternhalma.notation import position_to_dict
from sternhalma.rules import VARIANTS

DATA = Path(__file__).parent / "data"
STAR_VARIANTS = [v for v in VARIANTS.values() if v.game == "chinese-checkers"]


def entries(variant_id: str) -> list[dict[str, object]]:
    rules = VARIANTS[variant_id]
    positions = [("start", rules.initial())]
    positions += [
        (f"mid-game {i + 1}", p) for i, p in enumerate(sample_positions(rules, 4, seed=7))
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
    for rules in STAR_VARIANTS:
        path = DATA / f"{rules.id}.json"
        lines = ",\n".join(json.dumps(entry) for entry in entries(rules.id))
        path.write_text(f"[\n{lines}\n]\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
