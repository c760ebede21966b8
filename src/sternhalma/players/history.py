"""What a player reads from the game's history: repetitions and its own last move.

The search looks only forward from the position; the referee also counts how
often each position has stood (RULES.md "Repetition"): a third time ends the
game, ranked on the star and a draw in Halma. These helpers let the root of
Hard's decision (hard.py) see that ending before it plays into it, and see a
marble about to go straight back where it came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sternhalma.game import REPETITIONS, Result
from sternhalma.position import Move

if TYPE_CHECKING:
    from sternhalma.game import Game


def repetition_result(game: Game, move: Move) -> Result | None:
    """How the game ends if ``move`` makes a position stand the third time, else None.

    The referee decides, on a copy of the game (who moves next after passes,
    the deadline, finishing: all it checks first), once a quick look finds the
    marbles after the move seen twice with any player to move.
    """
    after = game.rules.apply_unchecked(game.position, move)
    if all(game.times_seen(after.with_turn(s)) < REPETITIONS - 1 for s in game.in_play):
        return None
    trial = game.copy()
    trial.play(move)
    result = trial.result
    return result if result is not None and result.ending == "repetition" else None


def lead(result: Result, seat: int, rivals: list[int]) -> int:
    """1 when ``result`` ranks ``seat`` above every one of ``rivals``, -1 when one of
    them is ranked above it, else 0 (a place shared with the best of them)."""
    places = result.places
    if any(places[s] < places[seat] for s in rivals):
        return -1
    return 1 if all(places[s] > places[seat] for s in rivals) else 0


def last_move(game: Game, seat: int) -> Move | None:
    """``seat``'s own last move in ``game``, or None before its first."""
    return next((t.move for t in reversed(game.turns) if t.seat == seat and t.move), None)
