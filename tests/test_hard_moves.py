"""Hard plays as it did: its recorded choices in seeded positions of many variants.

tests/data/hard-moves.json was written by tests/make_hard_moves.py before the
engine API and the time manager came: the same position, seed and node
allowance must still give the same move, from the same search, using the same
nodes. The race games' search is the compiled core's: without it (the pure-Python
fallback, no promise of the same moves) only the capture games are checked.
"""

from __future__ import annotations

import json

import pytest
from make_hard_moves import PATH, hard_choice

from sternhalma import core
from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules

CASES = json.loads(PATH.read_text(encoding="utf-8"))


def test_the_recorded_positions_span_the_variants() -> None:
    assert len(CASES) >= 25
    assert len({case["variant"] for case in CASES}) >= 10


@pytest.mark.parametrize("case", CASES, ids=[f"{c['variant']}-{len(c['moves'])}" for c in CASES])
def test_hard_chooses_what_it_chose(case: dict[str, object]) -> None:
    if isinstance(find_variant(str(case["variant"])), RaceRules) and not core.COMPILED:
        pytest.skip("a race game: Hard's search is the compiled core's")
    chosen = hard_choice(case["variant"], case["moves"], case["seed"], case["nodes"])  # type: ignore[arg-type]
    assert chosen == (case["move"], case["search"], case["depth"], case["used"])
