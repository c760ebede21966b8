"""bench/first_place.py: the chance of coming first for a lead over each other seat."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from first_place import elo_for, elo_for_first, first_chance, shift_for_elo


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_between_equals_each_seat_is_first_as_often(seats: int) -> None:
    assert first_chance(seats, 0.0) == pytest.approx(1 / seats, abs=1e-4)


def test_two_seats_first_is_the_lead_itself() -> None:
    # With one other seat, coming first is finishing before it: the Elo's own score.
    score = 1 / (1 + 10 ** (-100 / 400))
    assert first_chance(2, shift_for_elo(100)) == pytest.approx(score, abs=1e-4)
    assert elo_for(shift_for_elo(100)) == pytest.approx(100)


def test_a_bigger_lead_comes_first_more_often_and_the_inverse_agrees() -> None:
    chances = [first_chance(6, shift_for_elo(elo)) for elo in (0, 47, 100, 200)]
    assert chances == sorted(chances) and chances[-1] > 0.4
    assert first_chance(6, shift_for_elo(elo_for_first(6, 0.35))) == pytest.approx(0.35, abs=1e-3)
