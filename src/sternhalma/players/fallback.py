"""Hard's search where the compiled core is missing: plain, short, pure Python.

The compiled core (``_core/search.hpp``) is Hard's search. This one plays where
no compiler built it, and in the browser, whose engine runs under Pyodide. It
judges positions by the same evaluation (evaluate.py) on the same node allowance,
with no promise to choose the core's moves. Two searches:

- **alpha-beta** (two players in contact): negamax with iterative deepening,
  the root's moves ordered by the last iteration, the ``breadth`` moves of
  biggest gain at inner nodes (a rival's ``reply_breadth``); no table. Each node
  keeps the line below its best move, so the root's is the principal line.
- **a beam over our own moves** (everything else: alone, far ahead, a racing
  rival, three or more): ply by ply the best positions the allowance can carry
  go on, and before each of our moves every rival plays its one move of biggest
  gain in rows, when it has one (a racer, as Medium plays; one with several
  stays). With three or more meeting head on it plans only ``CROWD_DEPTH`` of
  our moves ahead; in the solo search (nobody left to meet, and classic-3) the
  rivals stand. Each position keeps the move that made it and the position it
  came from, so the best plan is read back from where it ended.

A node is a position whose moves are listed. ``line`` is the principal line, packed:
alpha-beta's moves of both players in turn, the beam's plan of our own, in the
forecast with the rival's racing move (0: it stays) before each of ours after the
first (none with three or more meeting head on, where the rivals' moves in between
are not kept).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sternhalma.players.evaluate import BIAS, HOLE, WIN, pack, unpack
from sternhalma.players.search import OutOfTime
from sternhalma.position import Position

if TYPE_CHECKING:
    from sternhalma.players.race import RaceSearch
    from sternhalma.rules.race import RaceRules

Board = tuple[int, ...]
#: A beam position's plan: its last move and the plan before it (None at the root); a
#: racing rival's move before ours is a move of the plan too.
Trail = tuple[int, "Trail"] | None

#: The beam's plies with three or more players: a crowd changes more between our
#: moves. 24 plies stepped where a rung was about to go away in tests/test_players.py's
#: crowd position, 2 to 12 jumped; at 8, first in 12 of 12 classic-3 and 9 of 12
#: classic-6 games against Medium (docs/measurements.md, the fallback's entry).
CROWD_DEPTH = 8


class PlainSearch:
    """One decision of ``search`` (its seat, settings, allowance and mode), in Python."""

    def __init__(self, search: RaceSearch) -> None:
        self.search = search
        self.rules = search.rules
        self.limits = search.limits
        self.evaluation = search.evaluation
        self.me = search.me
        #: The principal line, packed (the module's docstring).
        self.line: list[int] = []
        #: Alpha-beta's line below the best move of the node at each ply so far.
        self._below: dict[int, list[int]] = {}

    def choose(self, marbles: Board, sums: Board, order: list[int]) -> int:
        """The best of ``order`` (packed options, biggest gain first); ``sums`` per seat s:
        ``sums[2s]`` its cost, ``sums[2s + 1]`` its rows to go."""
        if self.search.mode == "alphabeta":
            return self._alpha_beta(marbles, sums, order)
        return self._beam(marbles, sums, order)

    # -- moves and positions ------------------------------------------------------------
    def moves(self, marbles: Board, seat: int) -> list[int]:
        """Every legal move of ``seat``, packed, biggest gain first."""
        occupied = 0
        for board in marbles:
            occupied |= board
        cost = self.evaluation.costs[seat]
        ends = self.rules.move_ends(occupied, seat, marbles[seat])
        return sorted((pack(cost[s] - cost[e], s, e) for s, e in ends), reverse=True)

    def play(self, marbles: Board, sums: Board, seat: int, move: int) -> tuple[Board, Board]:
        """The board and sums after ``seat`` plays ``move``."""
        start, end = unpack(move)
        to_go = self.evaluation.to_go[seat]
        new_sums = list(sums)
        new_sums[2 * seat] -= (move >> 18) - BIAS
        new_sums[2 * seat + 1] += to_go[end] - to_go[start]
        return _moved(marbles, seat, move), tuple(new_sums)

    def value(self, seat: int, sums: Board) -> int:
        """What ``seat`` still has to do (lower is better)."""
        return self.evaluation.value(seat, sums[2 * seat], sums[2 * seat + 1])

    def finishes(self, marbles: Board, seat: int, move: int) -> bool:
        """Whether ``move`` (already played in ``marbles``) finished ``seat``, by what
        counts at the root (``RaceSearch.owner_counts``)."""
        if not self.rules.goals[seat] >> (move & HOLE) & 1:
            return False
        position = Position(self.rules, seat, marbles)
        counts = self.search.owner_counts[seat]
        return self.rules.has_finished(position, seat, owner_counts=counts)

    def finish_value(self, marbles: Board, seat: int, ply: int) -> int:
        """What finishing is worth to ``seat``: a win, the sooner the more, or a draw when
        the second player can finish with its last reply (rules.md)."""
        if self.rules.last_reply and seat == 0 and len(self.search.rivals) == 1:
            for reply in self.moves(marbles, 1):
                if self.finishes(_moved(marbles, 1, reply), 1, reply):
                    return 0
        return WIN - ply

    # -- two players in contact: alpha-beta ------------------------------------------------
    def _alpha_beta(self, marbles: Board, sums: Board, order: list[int]) -> int:
        """Iterative deepening: each whole iteration orders the root's moves for the next;
        one cut short by the allowance is thrown away."""
        search = self.search
        rival = search.rivals[0]
        best = order[0]
        for depth in range(1, search.max_depth + 1):
            scored = []
            lines = {}
            alpha = -WIN - 1
            try:
                for move in order:
                    # Later moves only need to be proved no better than the best so far.
                    value = self._after(
                        marbles, sums, self.me, rival, move, depth, alpha, WIN + 1, 0
                    )
                    scored.append((value, move))
                    lines[move] = [move, *self._below[1]]
                    alpha = max(alpha, value)
            except OutOfTime:
                break
            scored.sort(key=lambda vm: vm[0], reverse=True)  # stable: ties keep their order
            search.score, best = scored[0]
            self.line = lines[best]
            order = [move for _, move in scored]
            search.depth_reached = depth
            if self.limits.spent:
                break
        return best

    def _after(
        self,
        marbles: Board,
        sums: Board,
        turn: int,
        other: int,
        move: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """The value for ``turn`` of playing ``move`` ``ply`` plies from the root, the rest
        searched ``depth - 1`` plies."""
        after, after_sums = self.play(marbles, sums, turn, move)
        if self.finishes(after, turn, move):
            self._below[ply + 1] = []
            return self.finish_value(after, turn, ply)
        return -self._negamax(after, after_sums, other, turn, depth - 1, -beta, -alpha, ply + 1)

    def _negamax(
        self,
        marbles: Board,
        sums: Board,
        turn: int,
        other: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        """The value for ``turn`` (to move) searched ``depth`` plies: at the horizon its
        way to go against ``other``'s, weighted (ours 100, the rival's ``rival_weight``,
        in percent)."""
        self._below[ply] = []  # the line ends at the horizon and at a pass
        if depth == 0:
            theirs = self._weight(other) * self.value(other, sums)
            return theirs - self._weight(turn) * self.value(turn, sums)
        self.limits.tick()
        breadth = self.search.breadth if turn == self.me else self.search.reply_breadth
        moves = self.moves(marbles, turn)[:breadth]
        if not moves:  # a pass
            return -self._negamax(marbles, sums, other, turn, depth - 1, -beta, -alpha, ply + 1)
        best = -WIN - 1
        for move in moves:
            value = self._after(marbles, sums, turn, other, move, depth, alpha, beta, ply)
            if value > best:
                best = value
                self._below[ply] = [move, *self._below[ply + 1]]
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        return best

    def _weight(self, seat: int) -> int:
        return 100 if seat == self.me else self.search.rival_weight

    # -- our moves with the rivals racing: the beam ------------------------------------------
    def _beam(self, marbles: Board, sums: Board, order: list[int]) -> int:
        """The first move of the best plan of ``beam_depth`` own moves (with three or more
        players ``CROWD_DEPTH``): the first plan that finishes wins at once; when the
        nodes run out, the best position of the last whole ply decides."""
        search = self.search
        rivals = () if search.mode == "solo" else search.after_us
        depth = CROWD_DEPTH if len(rivals) > 1 else search.beam_depth
        replies = search.mode == "forecast"  # only its line names the rival's moves
        width = search.beam_width(depth)
        started, used = time.perf_counter(), self.limits.used
        layer: list[tuple[Board, Board, Trail]] = [(marbles, sums, None)]
        best: Trail = None
        for ply in range(depth):
            children = []  # (value, board, sums, trail), in the order made
            try:
                for board, board_sums, trail in layer:
                    moves = order
                    if ply:
                        for seat in rivals:
                            board, board_sums, reply = self._racing(board, board_sums, seat)
                            if replies:
                                trail = (reply, trail)
                        self.limits.tick()
                        moves = self.moves(board, self.me)
                    for move in moves:
                        after, after_sums = self.play(board, board_sums, self.me, move)
                        if self.finishes(after, self.me, move):
                            return self._plan((move, trail))
                        value = self.value(self.me, after_sums)
                        children.append((value, after, after_sums, (move, trail)))
            except OutOfTime:
                break
            children.sort(key=lambda child: child[0])
            if ply + 1 < depth and self.limits.used > used and math.isfinite(self.limits.stop):
                # Where the clock bounds the search before the nodes (the browser's), the
                # plies left share the nodes the time left allows at the pace so far: the
                # plan then reaches its depth instead of ending as a wide, shallow search.
                now = time.perf_counter()
                pace = (self.limits.used - used) / max(now - started, 1e-9)
                in_time = int(max(self.limits.stop - now, 0.0) * pace)
                width = min(width, search.beam_width(depth - ply - 1, in_time))
            seen: set[Board] = set()
            layer = []
            for _, after, after_sums, trail in children:
                if after not in seen:
                    seen.add(after)
                    layer.append((after, after_sums, trail))
                    if len(layer) == width:
                        break
            if not layer:
                break
            best = layer[0][2]
            search.depth_reached = ply + 1
        return order[0] if best is None else self._plan(best)

    def _plan(self, trail: Trail) -> int:
        """The first move of the plan that ends in ``trail``, which is the line unless
        three or more meet head on."""
        plan = []
        while trail is not None:
            move, trail = trail
            plan.append(move)
        plan.reverse()
        if self.search.mode != "playout":
            self.line = plan
        return plan[0]

    def _racing(self, marbles: Board, sums: Board, seat: int) -> tuple[Board, Board, int]:
        """The board after ``seat`` plays its racing move (``racing_move``), and the move
        packed; as it was, and 0, when it has none. Listing its moves is a node."""
        self.limits.tick()
        racing = racing_move(self.rules, self.evaluation.to_go[seat], marbles, seat)
        if racing is None:
            return marbles, sums, 0
        start, end = racing
        cost = self.evaluation.costs[seat]
        move = pack(cost[start] - cost[end], start, end)
        return (*self.play(marbles, sums, seat, move), move)


def racing_move(
    rules: RaceRules, rows: Sequence[int], marbles: Sequence[int], seat: int
) -> tuple[int, int] | None:
    """``seat``'s one move of biggest gain in ``rows`` (its rows to go), as a racing
    player (Medium) plays; None when it has several such moves, or none: the forecast
    does not guess, that rival stays."""
    occupied = 0
    for board in marbles:
        occupied |= board
    most: int | None = None
    racing: list[tuple[int, int]] = []
    for start, end in rules.move_ends(occupied, seat, marbles[seat]):
        gain = rows[start] - rows[end]
        if most is None or gain > most:
            most, racing = gain, []
        if gain == most:
            racing.append((start, end))
    return racing[0] if len(racing) == 1 else None


def _moved(marbles: Board, seat: int, move: int) -> Board:
    """The board after ``seat`` plays ``move``."""
    start, end = unpack(move)
    after = list(marbles)
    after[seat] ^= (1 << start) | (1 << end)
    return tuple(after)
