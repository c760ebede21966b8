"""What every computer player shares: one interface and the deadline care.

``choose(game, limit) -> Choice`` (players/choice.py) is the whole interface.
A player is a small, picklable value (a level and a seed); all randomness
comes from a generator seeded by the player's seed and the game's move
number, so the same game asks the same question and gets the same move whether the player object
lives across moves or is rebuilt for each one (the server's worker pool).
"""

from __future__ import annotations

import dataclasses
import random
import time
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from sternhalma.game import GameError
from sternhalma.players.choice import Choice, Limit
from sternhalma.position import Move
from sternhalma.rules.race import RaceRules

if TYPE_CHECKING:
    from sternhalma.game import Game

#: From this many moves before the deadline, the simple levels only move marbles out of home.
DEADLINE_MARGIN = 5


class Player(ABC):
    """A computer player: a level and a seed; ``choose`` is pure CPU work."""

    #: The level's name as the CLI, the server and make_player spell it.
    level: ClassVar[str]

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def choose(self, game: Game, limit: Limit | None = None) -> Choice:
        """A legal move for the seat to move in ``game`` within ``limit`` (players/timeman.py
        says what it allows), with what finding it took."""
        started = time.perf_counter()
        choice = self._choose(game, limit or Limit())
        spent = time.perf_counter() - started
        return dataclasses.replace(choice, info=dataclasses.replace(choice.info, seconds=spent))

    def _choose(self, game: Game, limit: Limit) -> Choice:
        seat = game.turn
        if seat is None:
            raise GameError("the game is over: there is no move to choose")
        # One move per resulting position: capture chains between the same
        # holes can run into millions, and no level needs more than one of each.
        moves = game.rules.distinct_moves(game.position)
        if not moves:  # the referee passes for a seat without moves, so only a bad caller
            raise GameError(f"{game.rules.seats[seat]} has no legal move")
        options = self.careful(game, seat, moves)
        if len(options) == 1:
            return Choice(options[0])
        return self.pick(game, seat, options, self.random_for(game), limit)

    @abstractmethod
    def pick(
        self,
        game: Game,
        seat: int,
        options: list[Move],
        rng: random.Random,
        limit: Limit,
    ) -> Choice:
        """The level's choice among ``options`` (legal, deadline-safe, at least two)."""

    def careful(self, game: Game, seat: int, moves: list[Move]) -> list[Move]:
        """The moves the level may pick from: the care of docs/players.md#easy-and-medium."""
        return careful_moves(game, seat, moves, self.deadline_margin(game, seat))

    def deadline_margin(self, game: Game, seat: int) -> int:
        """How many moves before the deadline the care begins (the source documents' 5)."""
        return DEADLINE_MARGIN

    def random_for(self, game: Game) -> random.Random:
        """The generator for this turn: the seed and the move number decide it."""
        return random.Random(f"{self.level}:{self.seed}:{len(game.moves)}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seed={self.seed}>"


def careful_moves(
    game: Game, seat: int, moves: list[Move], margin: int = DEADLINE_MARGIN
) -> list[Move]:
    """The moves a player may pick from, by the deadline care (docs/players.md#easy-and-medium).

    Never a move that puts the player out while another move exists; and from
    ``margin`` moves before the deadline, only moves of marbles still
    at home: those that leave it when there are any, else those inside it.
    (Before that window no move can put anyone out.)
    """
    rules = game.rules
    if not isinstance(rules, RaceRules) or not in_care(game, seat, margin):
        return moves
    safe = [move for move in moves if not game.would_put_out(move)] or moves
    home = rules.homes[seat]
    from_home = [move for move in safe if home >> move[0] & 1]
    leaving = [move for move in from_home if not home >> move[-1] & 1]
    # A marble that cannot leave in one move (own marbles or the point's tip in
    # the way) still moves: inside the home, toward the way out.
    return leaving or from_home or safe


def in_care(game: Game, seat: int, margin: int) -> bool:
    """Whether ``seat``'s next move is within ``margin`` moves of its deadline (or past it)."""
    deadline = game.deadline  # None when the game has none or the table switched it off
    return deadline is not None and game.moves_made(seat) + 1 >= deadline - margin
