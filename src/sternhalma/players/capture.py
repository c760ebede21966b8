"""Hard's search for capture Chinese checkers: captures now against the best reply.

Every move is a capture, so the evaluation is simply the capture lead; the
strength is in the look-ahead: a long chain that opens a longer one for the
reply is a bad move. Two players: negamax alpha-beta with iterative
deepening and a transposition table. Three or more: our move, then the one
reply of any rival that is worst for us, then a line of moves we choose, each
credited to the seat whose turn it is (so the rivals take most of what the
line captures), judged by our lead over the best rival. It looks odd, but it
beat each tidier search in sequential tests: our moves alternating with best
replies, each rival in turn replying (paranoid), and the line's captures all
credited to us (docs/measurements.md). The game ends when no jump exists; then
the most captures wins.

Moves come from ``distinct_moves`` (one chain per resulting position; on the
compiled core where it was built, ``core.distinct_captures``) and are ordered by
captures. With two players inner nodes keep only the ``breadth`` longest; with
three or more every chain (the longest alone miss the chains that matter
between several rivals: keeping all won sequential tests in capture-3 and
capture-3-longjump, docs/measurements.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sternhalma import core
from sternhalma.players.search import Limits, OutOfTime, at_least
from sternhalma.position import Move, Position
from sternhalma.rules.capture import CaptureRules

#: Larger than any lead: a game over.
WIN = 1 << 20


@dataclass(frozen=True)
class CaptureSettings:
    """The capture search's settings, with their defaults (the one place they are written)."""

    #: Nodes a second of the time limit with two players: 20,000 beat 5,000 by a sequential
    #: test from even openings (+30 accepted; +24 [+6, +42] over 360 fixed pairs), at
    #: about 3.3 times the CPU a move (docs/measurements.md).
    nodes_per_second: int = 20_000
    #: The same with three or more, where 20,000 was no better in capture-3.
    crowd_nodes_per_second: int = 5_000
    #: Chains kept at inner nodes with two players (three or more keep every one).
    breadth: int = 8

    def __post_init__(self) -> None:
        at_least(self, nodes_per_second=1, crowd_nodes_per_second=1, breadth=1)


_EXACT, _LOWER, _UPPER = 0, 1, 2


class CaptureSearch:
    """One decision for ``seat`` in ``position``; ``in_play`` are the seats still playing."""

    def __init__(
        self,
        rules: CaptureRules,
        seat: int,
        in_play: Sequence[int],
        limits: Limits,
        *,
        breadth: int = 8,
        max_depth: int = 10,
    ) -> None:
        self.rules = rules
        self.me = seat
        self.seats = tuple(in_play) if seat in in_play else (seat, *in_play)
        self.limits = limits
        #: Three or more seats in play: the reply, then our line (the module's docstring).
        self.crowd = len(self.seats) > 2
        #: Chains kept at inner nodes: ``breadth`` with two players, all with more.
        self.breadth: int | None = None if self.crowd else breadth
        self.max_depth = max_depth
        self.tt: dict[object, tuple[int, int, int]] = {}
        self.depth_reached = 0
        self.mode = "brs" if self.crowd else "alphabeta"
        #: The chosen move's value at the deepest finished search (our capture lead, or
        #: about WIN for a game won), None before one finished.
        self.score: int | None = None
        #: The principal line (Info.line): the capture search keeps none.
        self.line: tuple[Move, ...] = ()

    def choose(self, position: Position, options: list[Move]) -> Move:
        order = sorted(options, key=len, reverse=True)
        best = order[0]
        for depth in range(1, self.max_depth + 1):
            try:
                best, order, score = self._root(position, order, depth)
            except OutOfTime:
                break
            self.depth_reached, self.score = depth, score
            if self.limits.spent:
                break
        return best

    # -- values from our point of view ----------------------------------------------
    def _lead(self, position: Position) -> int:
        captured = position.captured
        return captured[self.me] - max(captured[s] for s in self.seats if s != self.me)

    def _final(self, position: Position, ply: int) -> int:
        """The game is over (no jump anywhere): a win, a loss or a draw for us."""
        lead = self._lead(position)
        if lead > 0:
            return WIN - ply
        if lead < 0:
            return -WIN + ply
        return 0

    def _leaf(self, position: Position, ply: int) -> int:
        """The value at the horizon: the lead, or the game's end when no jump is left. Most
        nodes are leaves, and one jump found says the game goes on: listing every chain
        there, to keep the longest, was half of the search's time."""
        if self.rules.has_move(position):
            return self._lead(position)
        return self._final(position, ply)

    def _next(self, seat: int) -> int:
        seats = self.seats
        return seats[(seats.index(seat) + 1) % len(seats)]

    def _children(self, position: Position) -> list[Move]:
        """The longest chains; the pieces are shared, so they are the same for every seat."""
        moves = core.distinct_captures(self.rules, position)
        moves.sort(key=len, reverse=True)
        return moves[: self.breadth]

    # -- the search -----------------------------------------------------------------
    def _root(
        self, position: Position, order: list[Move], depth: int
    ) -> tuple[Move, list[Move], int]:
        alpha = -WIN - 1
        scored: list[tuple[int, Move]] = []
        for move in order:
            after = self.rules.apply_unchecked(position, move)
            value = self._search(after, self._next(self.me), depth - 1, alpha, WIN + 1, 1)
            scored.append((value, move))
            alpha = max(alpha, value)
        ranked = sorted(scored, key=lambda vm: vm[0], reverse=True)
        return ranked[0][1], [move for _, move in ranked], ranked[0][0]

    def _search(
        self, position: Position, seat: int, depth: int, alpha: int, beta: int, ply: int
    ) -> int:
        """Our value; we maximise at our nodes, the rivals (best reply) minimise at theirs."""
        self.limits.tick()
        ours = seat == self.me
        if self.crowd and not ours:
            return self._best_reply(position, depth, alpha, beta, ply)
        if depth == 0:
            return self._leaf(position, ply)
        moves = self._children(position)
        if not moves:  # no jump for anyone: the game is over
            return self._final(position, ply)
        key = (position.pieces, position.captured, seat)
        known = self.tt.get(key)
        if known is not None and known[0] >= depth:
            value, flag = known[1], known[2]
            if (
                flag == _EXACT
                or (flag == _LOWER and value >= beta)
                or (flag == _UPPER and value <= alpha)
            ):
                return value
        start_alpha, start_beta = alpha, beta
        best = -WIN - 1 if ours else WIN + 1
        following = self.me if self.crowd else self._next(seat)
        for move in moves:
            after = self.rules.apply_unchecked(position, move)
            value = self._search(after, following, depth - 1, alpha, beta, ply + 1)
            if ours:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        flag = _UPPER if best <= start_alpha else _LOWER if best >= start_beta else _EXACT
        self.tt[key] = (depth, best, flag)
        return best

    def _best_reply(self, position: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Three or more: the one rival move, of all rivals', that is worst for us."""
        if depth == 0:
            return self._leaf(position, ply)
        moves = self._children(position)
        if not moves:
            return self._final(position, ply)
        best = WIN + 1
        replies = [(seat, move) for move in moves for seat in self.seats if seat != self.me]
        for seat, move in replies[: self.breadth]:
            after = self.rules.apply_unchecked(position.with_turn(seat), move)
            value = self._search(after, self.me, depth - 1, alpha, beta, ply + 1)
            best = min(best, value)
            beta = min(beta, value)
            if alpha >= beta:
                break
        return best
