"""The engine-facing API every computer player answers: ``choose(game, limit) -> Choice``.

A ``Limit`` says what the caller allows one move: seconds, a fixed node count, or the
player's clock and increment; the time manager (players/timeman.py) turns it into the
allowance a search runs under, so no caller does that arithmetic itself. The answer
is the move with what the search did (``Info``), for benchmarks and the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sternhalma.position import Move

if TYPE_CHECKING:
    from sternhalma.game import Game


@dataclass(frozen=True)
class Limit:
    """How long a player may think about one move; every field may be left out."""

    #: Seconds this move may take (None: the level's own, or what the clock allows).
    seconds: float | None = None
    #: A fixed search size in nodes: the same move on any machine (Hard).
    nodes: int | None = None
    #: Seconds left on the player's clock, and the increment it gets after each move.
    clock: float | None = None
    increment: float = 0.0

    def __post_init__(self) -> None:
        if not self.increment >= 0:
            raise ValueError(f"the increment is at least 0 seconds, not {self.increment}")


@dataclass(frozen=True)
class Info:
    """What the choice took: the search's kind, depth and nodes, the seconds spent, and
    the score and principal line where the search keeps them (else None and empty)."""

    search: str = ""
    depth: int = 0
    nodes: int = 0
    seconds: float = 0.0
    score: int | None = None
    line: tuple[Move, ...] = ()


@dataclass(frozen=True)
class Choice:
    """A legal move for the seat to move, and how it was found."""

    move: Move
    info: Info = Info()


def foreseen(game: Game, choice: Choice) -> list[tuple[int, Move]]:
    """The moves after ``choice``'s that its search foresees, each with the seat that plays
    it: alpha-beta's line alternates the rival's replies and the mover's answers; every
    other line (the forecast's, the solo beam's) is the mover's own plan. ``game`` is the
    position the choice was made in."""
    mover = game.turn
    after = choice.info.line[1:]
    if mover is None or not after:
        return []
    if choice.info.search != "alphabeta":
        return [(mover, move) for move in after]
    rival = next(seat for seat in game.in_play if seat != mover)
    return [(rival if n % 2 == 0 else mover, move) for n, move in enumerate(after)]
