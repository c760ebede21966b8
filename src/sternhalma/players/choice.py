"""The engine-facing API every computer player answers: ``choose(game, limit) -> Choice``.

A ``Limit`` says what the caller allows one move: seconds, a fixed node count, or the
player's clock and increment; the time manager (players/timeman.py) turns it into the
allowance a search runs under, so no caller does that arithmetic itself. The answer
is the move with what the search did (``Info``), for benchmarks and the command line.
"""

from __future__ import annotations

from dataclasses import dataclass

from sternhalma.position import Move


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
