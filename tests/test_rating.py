"""Glicko-2 ratings against the published worked example and numbers worked out by hand."""

from __future__ import annotations

import pytest

from sternhalma.rating import (
    ESTABLISHED_GAMES,
    START_DEVIATION,
    START_RATING,
    START_VOLATILITY,
    Rating,
    RatingError,
    is_provisional,
    is_rated,
    rate_game,
    update,
)
from sternhalma.rules import find_variant


def test_new_players_start_at_1500_350_and_0_06() -> None:
    assert Rating() == Rating(START_RATING, START_DEVIATION, START_VOLATILITY)
    assert (START_RATING, START_DEVIATION, START_VOLATILITY) == (1500, 350, 0.06)


def test_glickmans_worked_example() -> None:
    # Glickman, "Example of the Glicko-2 system" (τ = 0.5): a 1500/200/0.06 player beats
    # 1400/30 and loses to 1550/100 and 1700/300; the paper gives 1464.06, 151.52, 0.05999.
    player = Rating(1500, 200, 0.06)
    after = update(
        player,
        [
            (Rating(1400, 30), 1.0, 1.0),
            (Rating(1550, 100), 0.0, 1.0),
            (Rating(1700, 300), 0.0, 1.0),
        ],
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_two_new_players_move_apart_by_the_same_amount() -> None:
    winner, loser = rate_game([Rating(), Rating()], [1, 2])
    assert winner.rating - START_RATING == pytest.approx(START_RATING - loser.rating)
    assert winner.rating > 1600  # one game says a lot about a newcomer ...
    assert winner.deviation == loser.deviation < START_DEVIATION  # ... and the doubt shrinks
    a, b = rate_game([Rating(), Rating()], [1, 1])
    assert a.rating == b.rating == START_RATING  # a draw between equals changes no rating
    assert a.deviation < START_DEVIATION


def test_an_established_player_moves_less_than_a_newcomer() -> None:
    veteran, newcomer = Rating(1500, 60, 0.06), Rating(1500, 350, 0.06)
    after_veteran, after_newcomer = rate_game([veteran, newcomer], [2, 1])
    assert 0 < veteran.rating - after_veteran.rating < 15
    assert after_newcomer.rating - newcomer.rating > 100


def test_two_players_is_the_papers_update_with_weight_one() -> None:
    a, b = Rating(1620, 80, 0.06), Rating(1480, 150, 0.07)
    assert rate_game([a, b], [2, 1]) == [update(a, [(b, 0.0, 1.0)]), update(b, [(a, 1.0, 1.0)])]


def test_places_compare_every_pair_each_weighted_one_over_opponents() -> None:
    first, second, third = rate_game([Rating()] * 3, [1, 2, 3])
    # Among equals the first gains what the last loses; the middle wins once, loses once.
    assert first.rating - START_RATING == pytest.approx(START_RATING - third.rating)
    assert second.rating == pytest.approx(START_RATING)
    # Beating everyone at a table of six is worth as much as beating one equal opponent.
    six = rate_game([Rating()] * 6, [1, 2, 3, 4, 5, 6])
    two = rate_game([Rating()] * 2, [1, 2])
    assert six[0].rating == pytest.approx(two[0].rating)
    assert six[5].rating == pytest.approx(two[1].rating)


def test_shared_places_count_as_draws() -> None:
    ratings = rate_game([Rating()] * 4, [1, 2, 2, 4])
    assert ratings[1].rating == pytest.approx(START_RATING)
    assert ratings[2].rating == pytest.approx(START_RATING)
    assert ratings[0].rating - START_RATING == pytest.approx(START_RATING - ratings[3].rating)


def test_provisional_until_enough_rated_games() -> None:
    assert is_provisional(0)
    assert is_provisional(ESTABLISHED_GAMES - 1)
    assert not is_provisional(ESTABLISHED_GAMES)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(RatingError):
        rate_game([Rating()], [1])
    with pytest.raises(RatingError):
        rate_game([Rating(), Rating()], [1, 3])
    with pytest.raises(RatingError):
        rate_game([Rating(), Rating()], [1])
    with pytest.raises(RatingError):
        update(Rating(), [])
    with pytest.raises(RatingError):
        update(Rating(), [(Rating(), 2.0, 1.0)])


def test_which_games_are_rated() -> None:
    assert is_rated(find_variant("classic-2"))
    assert is_rated(find_variant("classic-6"))
    assert not is_rated(find_variant("classic-2"), rated_table=False)
    assert not is_rated(find_variant("classic-3"), computer_seats=1)
    assert not is_rated(find_variant("pairs-4"))
    assert not is_rated(find_variant("pairs-6"))
