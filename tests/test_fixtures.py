"""Legal-move fixtures (tests/data, written by make_fixtures.py), checked two ways.

The engine must give exactly the listed moves, and an independent reading of
the rules must agree with them (the star race here; capture and Halma in
test_halma_capture_fixtures.py).
"""

from __future__ import annotations

import pytest
from make_fixtures import FIXTURES, load
from reference import legal_pairs

from sternhalma.notation import position_from_dict
from sternhalma.rules import VARIANTS
from sternhalma.rules.race import RaceRules

STAR = [v.id for v in VARIANTS.values() if v.game == "chinese-checkers"]


@pytest.mark.parametrize("variant", FIXTURES)
def test_engine_gives_the_fixture_moves(variant: str) -> None:
    for entry in load(variant):
        position = position_from_dict(entry["position"])
        assert position.rules is VARIANTS[variant]
        moves = sorted(position.rules.format_move(m) for m in position.rules.legal_moves(position))
        assert moves == entry["moves"], entry["name"]


@pytest.mark.parametrize("variant", STAR)
def test_fixtures_agree_with_an_independent_reading_of_the_rules(variant: str) -> None:
    for entry in load(variant):
        position = position_from_dict(entry["position"])
        rules = position.rules
        assert isinstance(rules, RaceRules)
        names = rules.board.names_of
        expected = legal_pairs(
            entry["position"]["marbles"],
            position.colour,
            set(names(rules.homes[position.turn])),
            set(names(rules.goals[position.turn])),
            rules.long_jumps,
        )
        pairs = {(m.split("-")[0], m.split("-")[-1]) for m in entry["moves"]}
        assert pairs == expected, entry["name"]
        # Every listed path is itself legal hop by hop.
        for text in entry["moves"]:
            rules.parse_move(position, text)
