"""Random legal games of every variant, played to the end by the referee.

Moves are biased forward (most of the time the move that gains the most),
so games end in a reasonable number of moves; now and then a random player
resigns, so those endings are covered too. Variants added to VARIANTS are
picked up automatically.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sternhalma.game import ROUND_LIMIT, Game
from sternhalma.position import Position
from sternhalma.records import read_record, write_record
from sternhalma.rules import VARIANTS


def marble_counts(position: Position) -> list[int]:
    return [board.bit_count() for board in position.marbles]


def check_nothing_lost(game: Game, start_counts: list[int], start_total: int) -> None:
    """No marble lost or duplicated: each seat keeps its marbles (all gone if out)."""
    position = game.position
    counts = marble_counts(position)
    union = position.pieces
    total = position.pieces.bit_count()
    for board in position.marbles:
        assert not union & board, "two marbles on one hole"
        union |= board
        total += board.bit_count()
    for seat, count in enumerate(counts):
        expected = (
            0 if game.status(seat) == "out" and game.rules.players >= 3 else start_counts[seat]
        )
        assert count == expected
    if position.captured:  # capture: pieces on the board plus captures stay the same
        assert position.pieces.bit_count() + sum(position.captured) == start_total


def check_sport_ranking(places: tuple[int, ...]) -> None:
    """Every seat has a place; a place is 1 + the number of seats strictly before it."""
    for place in places:
        assert place == 1 + sum(1 for other in places if other < place)


@pytest.mark.parametrize("variant", list(VARIANTS))
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_end_properly_and_replay(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    forward = rng.choice([0.5, 0.8, 0.95, 1.0])
    game = Game(variant, deadline_rule=rng.random() < 0.8)
    rules = game.rules
    start = game.start
    start_total = start.pieces.bit_count() + sum(start.captured)
    start_counts = marble_counts(start)
    while not game.is_over:
        if rng.random() < 0.002:
            game.resign(rng.choice(game.in_play))
            break
        moves = game.legal_moves()
        assert moves, "the seat to move always has a move (others pass)"
        if rng.random() < forward:
            best = max(rules.progress(game.position, m) for m in moves)
            moves = [m for m in moves if rules.progress(game.position, m) == best]
        game.play(rng.choice(moves))
        check_nothing_lost(game, start_counts, start_total)
        assert game.rounds_played <= ROUND_LIMIT
    result = game.result
    assert result is not None
    assert game.rounds_played <= ROUND_LIMIT
    assert len(result.places) == rules.players
    check_sport_ranking(result.places)
    assert len(result.team_places) == len(rules.teams)
    check_sport_ranking(result.team_places)
    assert result.reason
    replayed = read_record(write_record(game)).game
    assert replayed.result == result
    assert replayed.position == game.position
    assert replayed.moves == game.moves
