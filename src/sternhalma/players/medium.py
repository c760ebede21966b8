"""Medium: the move that raises the moving marble's row index the most.

The source documents' level (docs/players.md#easy-and-medium). Ties are broken at random.
In the capture game Medium takes the move that captures the most pieces (one
per hop of the chain).
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


class MediumPlayer(Player):
    level = "medium"

    def pick(
        self,
        game: Game,
        seat: int,
        options: list[Move],
        rng: random.Random,
        limit: Limit,
    ) -> Choice:
        if game.rules.game == "capture":
            scores = [len(move) - 1 for move in options]
        else:
            rows = row_table(game.rules)[seat]
            scores = [rows[move[-1]] - rows[move[0]] for move in options]
        best = max(scores)
        return Choice(
            rng.choice([move for move, score in zip(options, scores, strict=True) if score == best])
        )
