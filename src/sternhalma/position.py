"""Moves and positions: small immutable values shared by everything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sternhalma.rules.base import Ruleset


class Move(tuple[int, ...]):
    """The path of one move as hole indices, start first.

    A tuple (cheap to create in move generation, hashable). Text form needs
    the board's names: ``rules.format_move(move)``.
    """

    __slots__ = ()

    @property
    def start(self) -> int:
        return self[0]

    @property
    def end(self) -> int:
        return self[-1]

    @property
    def key(self) -> tuple[int, int]:
        """(start, end): what makes two race moves the same move."""
        return self[0], self[-1]


@dataclass(frozen=True, slots=True)
class Position:
    """Everything the rules need to know about a board and whose turn it is.

    ``marbles[s]`` is the bitboard of seat ``s`` (index into ``rules.seats``).
    In the capture game the pieces are shared: ``marbles`` is empty and
    ``pieces`` holds them, ``captured[s]`` counts seat s's captures.
    """

    rules: Ruleset
    turn: int
    marbles: tuple[int, ...]
    pieces: int = 0
    captured: tuple[int, ...] = ()

    @property
    def variant(self) -> str:
        return self.rules.id

    @property
    def colour(self) -> str:
        """The colour of the seat to move."""
        return self.rules.seats[self.turn]

    @property
    def occupied(self) -> int:
        occupied = self.pieces
        for board in self.marbles:
            occupied |= board
        return occupied

    def with_turn(self, turn: int) -> Position:
        return Position(self.rules, turn, self.marbles, self.pieces, self.captured)

    def owner(self, hole: int) -> int | None:
        """The seat whose marble stands on ``hole``, or None."""
        bit = 1 << hole
        for seat, board in enumerate(self.marbles):
            if board & bit:
                return seat
        return None
