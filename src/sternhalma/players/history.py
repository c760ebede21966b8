"""What a player reads from the game's history: repetitions, its own last move and
how a rival has been playing.

The search looks only forward from the position; the referee also counts how
often each position has stood (rules.md#repetition): a third time ends the
game, ranked on the star and a draw in Halma. These helpers let the root of
Hard's decision (hard.py) see that ending before it plays into it, and see a
marble about to go straight back where it came from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sternhalma.game import REPETITIONS, Result
from sternhalma.players.rows import row_table
from sternhalma.position import Move, Position
from sternhalma.rules.race import RaceRules

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


def races(game: Game, seat: int, moves: int) -> bool:
    """Whether each of ``seat``'s last ``moves`` moves gained the most rows it could
    (as a racing player plays, like Medium); False before it has made that many.

    The positions before them come from walking the game back from where it stands:
    a race move only moves one marble (for capture games this says False).
    """
    rules = game.rules
    if not isinstance(rules, RaceRules) or moves <= 0:
        return False
    marbles = list(game.position.marbles)
    rows = row_table(rules)[seat]
    seen = 0
    for turn in reversed(game.turns):
        if turn.move is None:
            continue
        start, end = turn.move[0], turn.move[-1]
        marbles[turn.seat] ^= (1 << start) | (1 << end)  # back to before the move
        if turn.seat != seat:
            continue
        before = Position(rules, seat, tuple(marbles))
        gains = [rows[m[-1]] - rows[m[0]] for m in rules.moves_of(before, seat, marbles[seat])]
        if rows[end] - rows[start] < max(gains):
            return False
        seen += 1
        if seen == moves:
            return True
    return False
