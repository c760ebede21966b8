"""Hard's search for the race games (every star race variant and Halma).

Three searches over the same evaluation (evaluate.py), chosen by the
position:

- **solo**: the player's own moves only, the other marbles standing still
  ("greedy with lookahead"). Once the armies have passed each other nothing
  the others do can help or hinder, and the race is a puzzle: finish in the
  fewest moves. Every level of solo search is one more own move.
- **alpha-beta** (two players in contact): negamax with iterative
  deepening, a transposition table and ordering by each move's gain.
- **best-reply** (three or more in contact): the player's moves alternate with
  the single strongest reply of any opponent (Schadd & Winands' best-reply
  search, the published winner over max-n and paranoid in Chinese checkers).

Inner nodes keep only the ``breadth`` most promising moves (by their gain in
the evaluation); the root looks at every option. A move's gain is known
from two table look-ups, so leaves need no move generation.
"""

from __future__ import annotations

from collections.abc import Sequence

from sternhalma.boards.base import bits
from sternhalma.players.evaluate import race_cost, race_costs
from sternhalma.players.rows import row_table
from sternhalma.players.search import Limits, OutOfTime
from sternhalma.position import Move, Position
from sternhalma.rules.race import RaceRules

#: Larger than any evaluation: a finished seat.
WIN = 1 << 40

_EXACT, _LOWER, _UPPER = 0, 1, 2


class RaceSearch:
    """One decision: ``seat`` to move in ``position``, the others in ``in_play`` still racing."""

    def __init__(
        self,
        rules: RaceRules,
        seat: int,
        in_play: Sequence[int],
        limits: Limits,
        *,
        breadth: int = 10,
        max_depth: int = 12,
        multi: str = "brs",
        duel: str = "alphabeta",
        reply_breadth: int = 3,
    ) -> None:
        self.rules = rules
        self.me = seat
        self.rivals = tuple(s for s in in_play if s != seat)
        self.limits = limits
        self.breadth = breadth
        self.max_depth = max_depth
        self.multi = multi
        self.duel = duel
        self.reply_breadth = reply_breadth
        self.costs = race_costs(rules)
        self.goals = rules.goals
        self.tt: dict[object, tuple[int, int, int, tuple[int, int] | None]] = {}
        #: The deepest search that finished, for the benchmarks' figures.
        self.depth_reached = 0
        self.mode = ""

    # -- the decision ----------------------------------------------------------
    def choose(self, position: Position, options: list[Move]) -> Move:
        marbles = position.marbles
        if not self.rivals or self.separated(marbles):
            self.mode = "solo"
            search = self._solo_root
        elif len(self.rivals) == 1 and self.duel == "alphabeta":
            self.mode = "alphabeta"
            search = self._negamax_root
        elif len(self.rivals) > 1 and self.multi == "brs":
            self.mode = "brs"
            search = self._brs_root
        else:
            self.mode = "solo"
            search = self._solo_root
        sums = tuple(race_cost(self.costs[s], marbles[s]) for s in range(len(marbles)))
        order = sorted(options, key=lambda m: self._gain(self.me, m), reverse=True)
        best = order[0]
        for depth in range(1, self.max_depth + 1):
            try:
                best, order = search(marbles, sums, order, depth)
            except OutOfTime:
                break
            self.depth_reached = depth
            if self.limits.spent:
                break
        return best

    def separated(self, marbles: tuple[int, ...]) -> bool:
        """Whether every rival marble is behind every marble of ours (in our rows)."""
        rows = row_table(self.rules)[self.me]
        ours = min(rows[h] for h in bits(marbles[self.me]))
        theirs = 0
        for seat in self.rivals:
            for hole in bits(marbles[seat]):
                theirs = max(theirs, rows[hole])
        return theirs < ours

    # -- helpers ---------------------------------------------------------------
    def _gain(self, seat: int, move: Move) -> int:
        cost = self.costs[seat]
        return cost[move[0]] - cost[move[-1]]

    def _moves(self, marbles: tuple[int, ...], seat: int) -> list[Move]:
        position = Position(self.rules, seat, marbles)
        return self.rules.moves_of(position, seat, marbles[seat])

    def _ordered(self, moves: list[Move], seat: int, first: tuple[int, int] | None) -> list[Move]:
        """The most promising moves by gain, the transposition table's move first.

        Our own moves keep ``breadth``; a rival's only ``reply_breadth``: in a race
        the replies that matter are the few that gain the most.
        """
        breadth = self.breadth if seat == self.me else self.reply_breadth
        cost = self.costs[seat]
        moves.sort(key=lambda m: cost[m[-1]] - cost[m[0]])
        if first is not None:
            for i, move in enumerate(moves):
                if (move[0], move[-1]) == first:
                    if i >= breadth:
                        return [move, *moves[: breadth - 1]]
                    moves.insert(0, moves.pop(i))
                    break
        return moves[:breadth]

    def _play(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], seat: int, move: Move
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        start, end = move[0], move[-1]
        after = list(marbles)
        after[seat] ^= (1 << start) | (1 << end)
        new_sums = list(sums)
        cost = self.costs[seat]
        new_sums[seat] += cost[end] - cost[start]
        return tuple(after), tuple(new_sums)

    def _finishes(self, marbles: tuple[int, ...], seat: int, move: Move) -> bool:
        if not self.goals[seat] >> move[-1] & 1:
            return False
        return self.rules.has_finished(Position(self.rules, seat, marbles), seat)

    def _finish_value(self, marbles: tuple[int, ...], seat: int, ply: int) -> int:
        """What finishing is worth to ``seat``: a win, or a draw by the last reply."""
        rules = self.rules
        if rules.last_reply and seat == 0 and len(self.rivals) == 1:
            other = 1
            for reply in self._moves(marbles, other):
                after = list(marbles)
                after[other] ^= (1 << reply[0]) | (1 << reply[-1])
                if self._finishes(tuple(after), other, reply):
                    return 0
        return WIN - ply

    def _frontier(
        self, marbles: tuple[int, ...], seat: int, moves: list[Move], ply: int, value: int
    ) -> int:
        """The value one move from the horizon: ``value`` plus the best gain, or a finish.

        The moves come best gain first, so only goal moves need a closer look;
        this saves a node for every leaf.
        """
        for move in moves:
            if self.goals[seat] >> move[-1] & 1:
                after = list(marbles)
                after[seat] ^= (1 << move[0]) | (1 << move[-1])
                if self._finishes(tuple(after), seat, move):
                    return self._finish_value(tuple(after), seat, ply)
        return value + self._gain(seat, moves[0])

    # -- solo: own moves only ----------------------------------------------------
    def _solo_root(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], order: list[Move], depth: int
    ) -> tuple[Move, list[Move]]:
        me = self.me
        scored: list[tuple[int, Move]] = []
        for move in order:
            after, new_sums = self._play(marbles, sums, me, move)
            if self._finishes(after, me, move):
                value = WIN
            else:
                value = self._solo(after, new_sums[me], depth - 1, 1)
            scored.append((value, move))
        return _ranked(scored)

    def _solo(self, marbles: tuple[int, ...], total: int, depth: int, ply: int) -> int:
        """The best value reachable in ``depth`` more own moves (higher is better)."""
        self.limits.tick()
        if depth == 0:
            return -total
        me = self.me
        key = (marbles[me], depth)
        known = self.tt.get(key)
        if known is not None:
            return known[1]
        moves = self._ordered(self._moves(marbles, me), me, None)
        if not moves:
            return -total
        cost = self.costs[me]
        if depth == 1:
            return self._frontier(marbles, me, moves, ply, -total)
        best = -WIN
        for move in moves:
            start, end = move[0], move[-1]
            after = list(marbles)
            after[me] ^= (1 << start) | (1 << end)
            after_t = tuple(after)
            if self._finishes(after_t, me, move):
                value = WIN - ply
            else:
                value = self._solo(after_t, total + cost[end] - cost[start], depth - 1, ply + 1)
            best = max(best, value)
        self.tt[key] = (depth, best, _EXACT, None)
        return best

    # -- two players: negamax alpha-beta ------------------------------------------
    def _negamax_root(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], order: list[Move], depth: int
    ) -> tuple[Move, list[Move]]:
        me = self.me
        other = self.rivals[0]
        alpha = -WIN - 1
        scored: list[tuple[int, Move]] = []
        for move in order:
            after, new_sums = self._play(marbles, sums, me, move)
            if self._finishes(after, me, move):
                value = self._finish_value(after, me, 0)
            else:
                # A full window for the first move, then alpha: later moves only
                # need to be known worse than the best so far.
                value = -self._negamax(after, new_sums, other, depth - 1, -WIN - 1, -alpha, 1)
            scored.append((value, move))
            alpha = max(alpha, value)
        return _ranked(scored)

    def _negamax(
        self,
        marbles: tuple[int, ...],
        sums: tuple[int, ...],
        turn: int,
        depth: int,
        alpha: int,
        beta: int,
        ply: int,
    ) -> int:
        self.limits.tick()
        other = self.me if turn != self.me else self.rivals[0]
        if depth == 0:
            return sums[other] - sums[turn]
        key = (marbles, turn)
        known = self.tt.get(key)
        first = None
        if known is not None:
            k_depth, k_value, k_flag, first = known
            if k_depth >= depth:
                if k_flag == _EXACT:
                    return k_value
                if k_flag == _LOWER:
                    alpha = max(alpha, k_value)
                elif k_flag == _UPPER:
                    beta = min(beta, k_value)
                if alpha >= beta:
                    return k_value
        moves = self._ordered(self._moves(marbles, turn), turn, first)
        if not moves:  # a pass
            return -self._negamax(marbles, sums, other, depth - 1, -beta, -alpha, ply + 1)
        if depth == 1:
            return self._frontier(marbles, turn, moves, ply, sums[other] - sums[turn])
        start_alpha = alpha
        best = -WIN - 1
        best_key: tuple[int, int] | None = None
        for move in moves:
            after, new_sums = self._play(marbles, sums, turn, move)
            if self._finishes(after, turn, move):
                value = self._finish_value(after, turn, ply)
            else:
                value = -self._negamax(after, new_sums, other, depth - 1, -beta, -alpha, ply + 1)
            if value > best:
                best, best_key = value, (move[0], move[-1])
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT
        self.tt[key] = (depth, best, flag, best_key)
        return best

    # -- three or more: best-reply search -----------------------------------------
    def _brs_value(self, sums: tuple[int, ...]) -> int:
        """Our lead over the rival nearest to finishing (higher is better for us)."""
        return min(sums[s] for s in self.rivals) - sums[self.me]

    def _brs_root(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], order: list[Move], depth: int
    ) -> tuple[Move, list[Move]]:
        me = self.me
        alpha = -WIN - 1
        scored: list[tuple[int, Move]] = []
        for move in order:
            after, new_sums = self._play(marbles, sums, me, move)
            if self._finishes(after, me, move):
                value = WIN
            else:
                value = self._brs(after, new_sums, depth - 1, alpha, WIN + 1, False, 1)
            scored.append((value, move))
            alpha = max(alpha, value)
        return _ranked(scored)

    def _brs(
        self,
        marbles: tuple[int, ...],
        sums: tuple[int, ...],
        depth: int,
        alpha: int,
        beta: int,
        ours: bool,
        ply: int,
    ) -> int:
        """Value for us; at ``ours`` nodes we move, at the others the best rival reply."""
        self.limits.tick()
        if depth == 0:
            return self._brs_value(sums)
        key = (marbles, ours)
        known = self.tt.get(key)
        if known is not None and known[0] >= depth:
            k_value, k_flag = known[1], known[2]
            if (
                k_flag == _EXACT
                or (k_flag == _LOWER and k_value >= beta)
                or (k_flag == _UPPER and k_value <= alpha)
            ):
                return k_value
        start_alpha, start_beta = alpha, beta
        if ours:
            moves = [
                (self.me, m) for m in self._ordered(self._moves(marbles, self.me), self.me, None)
            ]
        else:
            moves = []
            for seat in self.rivals:
                moves.extend(
                    (seat, m) for m in self._ordered(self._moves(marbles, seat), seat, None)
                )
            moves.sort(key=lambda sm: self._gain(sm[0], sm[1]), reverse=True)
            moves = moves[: self.breadth]
        if not moves:
            return self._brs(marbles, sums, depth - 1, alpha, beta, not ours, ply + 1)
        best = -WIN - 1 if ours else WIN + 1
        for seat, move in moves:
            after, new_sums = self._play(marbles, sums, seat, move)
            if self._finishes(after, seat, move):
                value = WIN - ply if ours else -WIN + ply
            else:
                value = self._brs(after, new_sums, depth - 1, alpha, beta, not ours, ply + 1)
            if ours:
                best = max(best, value)
                alpha = max(alpha, value)
            else:
                best = min(best, value)
                beta = min(beta, value)
            if alpha >= beta:
                break
        flag = _UPPER if best <= start_alpha else _LOWER if best >= start_beta else _EXACT
        self.tt[key] = (depth, best, flag, None)
        return best


def _ranked(scored: list[tuple[int, Move]]) -> tuple[Move, list[Move]]:
    """The best move and every move in order for the next iteration (stable on ties)."""
    ranked = sorted(scored, key=lambda vm: vm[0], reverse=True)
    return ranked[0][1], [move for _, move in ranked]
