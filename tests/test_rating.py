"""Ratings against numbers computed by hand (10^0.25 = 1.778279, 10^0.5 = 3.162278)."""

from __future__ import annotations

import pytest

from sternhalma.rating import (
    START_RATING,
    RatingError,
    expected_score,
    is_rated,
    k_factor,
    new_ratings,
    rating_changes,
)
from sternhalma.rules import find_variant


def test_new_players_start_at_1500_with_k_32_for_30_games() -> None:
    assert START_RATING == 1500
    assert k_factor(0) == 32
    assert k_factor(29) == 32
    assert k_factor(30) == 16


def test_expected_score() -> None:
    assert expected_score(1500, 1500) == 0.5
    # 1 / (1 + 10^(-200/400)) = 1 / 1.316228
    assert expected_score(1600, 1400) == pytest.approx(0.759747, abs=1e-6)
    assert expected_score(1400, 1600) == pytest.approx(0.240253, abs=1e-6)


def test_two_new_players_win_and_lose_16() -> None:
    assert new_ratings([1500, 1500], [1, 2], [0, 0]) == [1516, 1484]
    assert rating_changes([1500, 1500], [1, 1], [0, 0]) == [0, 0]


def test_elo_with_different_k() -> None:
    # The favourite (1600, 40 games: K 16) beats a newcomer (1400, 5 games: K 32).
    changes = rating_changes([1600, 1400], [1, 2], [40, 5])
    assert changes == pytest.approx([16 * 0.240253, 32 * -0.240253], abs=1e-4)
    assert changes == pytest.approx([3.84405, -7.68810], abs=1e-4)
    # A draw: 16 * (0.5 - 0.759747) and 32 * (0.5 - 0.240253).
    assert rating_changes([1600, 1400], [1, 1], [40, 5]) == pytest.approx(
        [-4.15595, 8.31190], abs=1e-4
    )


def test_three_players_by_place_weighted_by_one_half() -> None:
    # Equal ratings: first beats two (+0.5 each), second one win one loss, third two losses.
    assert rating_changes([1500, 1500, 1500], [1, 2, 3], [0, 0, 0]) == pytest.approx([16, 0, -16])


def test_three_players_with_different_ratings() -> None:
    # 1600 (K 16) came 3rd, 1500 (K 32) 1st, 1400 (K 32) 2nd.
    # E(1600 v 1500) = 0.640065, E(1600 v 1400) = 0.759747, E(1500 v 1400) = 0.640065.
    # 1600: 16 * 1/2 * (-0.640065 - 0.759747)          = -11.19850
    # 1500: 32 * 1/2 * ((1 - 0.359935) + (1 - 0.640065)) = 16.0
    # 1400: 32 * 1/2 * ((1 - 0.240253) + (0 - 0.359935)) =  6.39699
    changes = rating_changes([1600, 1500, 1400], [3, 1, 2], [50, 0, 0])
    assert changes == pytest.approx([-11.19850, 16.0, 6.39699], abs=1e-4)


def test_shared_places_count_as_draws() -> None:
    # Four equal players placed 1, 2, 2, 4: weight 1/3.
    # 1st: 3 wins -> 32/3 * 1.5 = 16; 2nd: loss, draw, win -> 0; 4th: -16.
    assert rating_changes([1500] * 4, [1, 2, 2, 4], [0] * 4) == pytest.approx([16, 0, 0, -16])


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(RatingError):
        rating_changes([1500], [1], [0])
    with pytest.raises(RatingError):
        rating_changes([1500, 1500], [1, 3], [0, 0])
    with pytest.raises(RatingError):
        rating_changes([1500, 1500], [1, 2], [0])
    with pytest.raises(RatingError):
        k_factor(-1)


def test_which_games_are_rated() -> None:
    assert is_rated(find_variant("classic-2"))
    assert is_rated(find_variant("classic-6"))
    assert not is_rated(find_variant("classic-2"), rated_table=False)
    assert not is_rated(find_variant("classic-3"), computer_seats=1)
    assert not is_rated(find_variant("pairs-4"))
    assert not is_rated(find_variant("pairs-6"))
