"""Hard: our strong level, a search under a time budget (default 1 second a move).

The race games go to race.py (solo, alpha-beta or best-reply search over
the evaluation in evaluate.py); the capture game to capture.py. The search
is bounded by a node allowance derived from the budget, which makes Hard
reproducible: the same game and seed give the same move on any machine. The
budget itself is a wall-clock cap on top, so a slow or busy machine still
gets its move in time (and only then may the move differ).
"""

from __future__ import annotations

import random
from functools import cache
from typing import TYPE_CHECKING

from sternhalma.boards.base import bits
from sternhalma.players.base import DEADLINE_MARGIN, Player
from sternhalma.players.race import RaceSearch
from sternhalma.players.search import Limits
from sternhalma.position import Move
from sternhalma.rules.race import RaceRules

if TYPE_CHECKING:
    from sternhalma.game import Game

#: Seconds a move when the caller gives no budget.
DEFAULT_BUDGET = 1.0
#: Search nodes per second of budget: about what this machine searches in half that time.
NODES_PER_SECOND = 40_000


class HardPlayer(Player):
    level = "hard"

    def __init__(self, seed: int = 0, *, nodes: int | None = None) -> None:
        """``nodes`` fixes the search size (then the budget is only the time cap)."""
        super().__init__(seed)
        self.nodes = nodes

    def deadline_margin(self, game: Game, seat: int) -> int:
        """Begin the deadline care early enough to walk every marble out of home.

        RULES.md §5's fixed 5 moves is too late when a marble sits deep in the
        home behind others; Hard counts the steps they need.
        """
        rules = game.rules
        if not isinstance(rules, RaceRules):
            return DEADLINE_MARGIN
        steps = _exit_steps(rules)[seat]
        needed = sum(steps[hole] for hole in bits(game.position.marbles[seat] & rules.homes[seat]))
        return max(DEADLINE_MARGIN, needed + 1)

    def pick(
        self,
        game: Game,
        seat: int,
        options: list[Move],
        rng: random.Random,
        budget: float | None,
    ) -> Move:
        seconds = DEFAULT_BUDGET if budget is None else budget
        limits = Limits.of(self.nodes or max(1, int(seconds * NODES_PER_SECOND)), seconds)
        # The seed decides the order among moves the search finds equal.
        options = list(options)
        rng.shuffle(options)
        rules = game.rules
        if isinstance(rules, RaceRules):
            return RaceSearch(rules, seat, game.in_play, limits).choose(game.position, options)
        from sternhalma.players.capture import CaptureSearch

        return CaptureSearch(rules, seat, game.in_play, limits).choose(game.position, options)


@cache
def _exit_steps(rules: RaceRules) -> tuple[tuple[int, ...], ...]:
    """steps[seat][hole]: steps from a home hole to the nearest hole outside the home."""
    board = rules.board
    tables = []
    for seat, home in enumerate(rules.homes):
        outside = list(bits(rules.may_end[seat] & ~home))
        tables.append(
            tuple(
                min(board.distance(hole, out) for out in outside) if home >> hole & 1 else 0
                for hole in range(board.size)
            )
        )
    return tuple(tables)
