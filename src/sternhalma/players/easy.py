"""Easy: a random move that raises the moving marble's row index.

The source documents' level (docs/players.md#easy-and-medium). In the capture game,
where nobody owns a piece, Easy plays a random legal move.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from sternhalma.players.base import Player
from sternhalma.players.choice import Choice, Limit
from sternhalma.players.rows import row_table
from sternhalma.position import Move

if TYPE_CHECKING:
    from sternhalma.game import Game


class EasyPlayer(Player):
    level = "easy"

    def pick(
        self,
        game: Game,
        seat: int,
        options: list[Move],
        rng: random.Random,
        limit: Limit,
    ) -> Choice:
        if game.rules.game == "capture":
            return Choice(rng.choice(options))
        rows = row_table(game.rules)[seat]
        forward = [move for move in options if rows[move[-1]] > rows[move[0]]]
        return Choice(rng.choice(forward or options))
