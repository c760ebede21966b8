"""The review can be trusted: a seat racing alone with the solo search is never told it
made a mistake, and a marble stepped back is caught; the compiled beam is the Python one."""

from __future__ import annotations

import random

import pytest

from sternhalma import analysis, core
from sternhalma.analysis import MoveReview, plan_move, review_move
from sternhalma.game import Game
from sternhalma.position import Move, Position
from sternhalma.rules import find_variant
from sternhalma.rules.race import RaceRules
from sternhalma.solo import _rows_to_go, beam, crossing_rules, python_beam

CLASSIC = find_variant("classic-2")
assert isinstance(CLASSIC, RaceRules)


def step_back(game: Game) -> Move | None:
    """A step that takes a marble outside the goal one row further from it, or None."""
    rows = _rows_to_go(CLASSIC, 0)
    goal = CLASSIC.goals[0]
    backs = [
        m
        for m in game.legal_moves()
        if len(m) == 2 and rows[m[-1]] > rows[m[0]] and not goal >> m[0] & 1
    ]
    return max(backs, key=lambda m: (rows[m[0]], m)) if backs else None


def solo_start(seed: int) -> Game:
    """White alone (black has no marbles), a few seeded random moves out of home."""
    rng = random.Random(seed)
    own = CLASSIC.homes[0]
    start = Game(CLASSIC, start=Position(CLASSIC, 0, (own, 0)), deadline_rule=False)
    for _ in range(3):
        start.play(rng.choice(start.legal_moves()))
    return Game(CLASSIC, start=start.position, deadline_rule=False)


def solo_game(seed: int) -> tuple[list[MoveReview], int]:
    """White alone (black has no marbles) from a seeded start a few random moves out of
    home, playing its solo search's moves; once three marbles or fewer are left outside
    the goal, one marble is stepped back. The review of every move, and the blunder's number."""
    game = solo_start(seed)
    reviews: list[MoveReview] = []
    blunder = 0
    while not game.is_over:
        assert len(game.moves) < 100
        marbles = game.position.marbles[0]
        move = None
        if not blunder and (marbles & ~CLASSIC.goals[0]).bit_count() <= 3:
            move = step_back(game)
            blunder = len(game.moves) + 1 if move else 0
        if move is None:
            plan = plan_move(CLASSIC, 0, marbles)
            assert plan is not None
            move = next(m for m in game.legal_moves() if (m[0], m[-1]) == (plan[0], plan[-1]))
        reviews.append(review_move(game.copy(), move))
        game.play(move)
    return reviews, blunder


@pytest.mark.parametrize("seed", range(5))
def test_the_solo_search_makes_no_mistake_and_a_step_back_is_caught(seed: int) -> None:
    reviews, blunder = solo_game(seed)
    assert blunder, "the game never had a step back to plant"
    for review in reviews:
        if review.number == blunder:
            assert review.verdict != "good", f"the step back {review.played} was not caught"
            assert review.loss >= 1 and (review.best[0], review.best[-1]) != (
                review.played[0],
                review.played[-1],
            )
        else:
            assert review.verdict != "mistake", f"move {review.number} lost {review.loss}"


@pytest.mark.skipif(not core.COMPILED, reason="the compiled core was not built")
@pytest.mark.parametrize("variant", ["classic-2", "halma-2", "classic-6"])
def test_the_compiled_beam_is_the_python_beam(variant: str) -> None:
    rules = find_variant(variant)
    assert isinstance(rules, RaceRules)
    rng = random.Random(variant)
    own = rules.homes[0]
    for _ in range(6):
        start = Position(rules, 0, tuple(own if s == 0 else 0 for s in range(rules.players)))
        own = rules.apply_unchecked(start, rng.choice(rules.legal_moves(start))).marbles[0]
    for width in (4, 16):
        compiled, python = beam(rules, 0, own, width), python_beam(rules, 0, own, width)
        assert compiled is not None and python is not None
        assert compiled.moves == python.moves and compiled.positions == python.positions


def test_the_crossing_beam_is_an_upper_bound_of_27() -> None:
    found = beam(crossing_rules(), 0, crossing_rules().homes[0], 256)
    assert found is not None and 27 <= len(found) <= 32


def clear_counts() -> None:
    """Forget every count and way home remembered (a fresh thinking process)."""
    analysis._count.cache_clear()
    analysis._way.cache_clear()
    analysis._wide.cache_clear()
    analysis._known.clear()


@pytest.mark.skipif(not core.COMPILED, reason="the compiled core was not built")
def test_the_review_is_the_same_on_the_python_beam(monkeypatch: pytest.MonkeyPatch) -> None:
    # The last moves of a seeded solo game with its step back, reviewed afresh with the
    # compiled beam and with the Python one: the same losses, verdicts, counts and moves.
    reviews, blunder = solo_game(1)
    game = solo_start(1)
    for review in reviews[: blunder - 3]:
        game.play(review.played)
    tail = [review.played for review in reviews[blunder - 3 : blunder + 2]]

    def judged() -> list[dict[str, object]]:
        clear_counts()
        again = game.copy()
        found = []
        for move in tail:
            found.append(review_move(again.copy(), move).as_dict(CLASSIC))
            again.play(move)
        return found

    compiled = judged()
    monkeypatch.setattr(analysis, "beam", python_beam)
    assert judged() == compiled
    clear_counts()
