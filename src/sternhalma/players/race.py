"""Hard's search for the race games (every star race variant and Halma).

Four searches over the same evaluation (evaluate.py), chosen by the
position:

- **alpha-beta** (two players in contact): negamax with iterative
  deepening, a transposition table and moves ordered by their gain.
- **forecast** (two players, once we lead by far or the rival races): our
  moves only, but before each of them the rival plays the move a racing
  player plays, its biggest gain in rows (as Medium plays), so the search
  plans on the board as it will be, not as it stands. Far behind, the
  rival's blocking can no longer win it the game, and planning on its
  likely moves finishes sooner than guarding against its worst one.
- **playouts** (three or more in contact): our most promising options,
  each played out many times for a few moves, the rivals racing (a move
  that gains the most rows, as Medium plays (docs/players.md#easy-and-medium),
  which one of several by chance) and we playing our best move by the
  evaluation. A crowd's marbles are rungs and obstacles that move between
  our moves; playing the moves out sees which options still pay after the
  others have moved.
- **solo** (nobody left to meet): once every rival marble is behind all of
  ours, nothing the others do can help or hinder, and the race is a puzzle:
  finish in the fewest moves.

The two searches over our own moves (solo, forecast) plan with a **beam**
(``SoloSettings.beam_depth``): ply by ply the best positions go on, so a plan
looks twenty moves ahead where depth-first search on the same nodes looks
five, and racing pays off moves after a ladder is built.

Alpha-beta's inner nodes keep only the ``breadth`` most promising moves (a
rival's only ``reply_breadth``), judged by their gain in the evaluation; the
root looks at every option. Inside the search a move is one int, its gain,
start and end packed so that sorting the ints sorts by gain: generating,
ordering and playing moves needs no paths, and a move's effect on the
evaluation is two table look-ups, so the last level needs no nodes of its own.

Each family's settings are a frozen dataclass here, with its defaults: the one
place they are written (HardSettings holds one of each).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from sternhalma import core
from sternhalma.boards.base import bits
from sternhalma.players.evaluate import CROWD_WEIGHTS, DEFAULT_WEIGHTS, RaceWeights, race_evaluation
from sternhalma.players.rows import row_table
from sternhalma.players.search import Limits, OutOfTime
from sternhalma.position import Move, Position
from sternhalma.rules.race import RaceRules

#: Larger than any evaluation: a finished seat.
WIN = 1 << 40
#: The deepest alpha-beta search.
MAX_DEPTH = 16

_EXACT, _LOWER, _UPPER = 0, 1, 2

#: Packed move: ((gain + _BIAS) << 18) | (start << 9) | end; holes fit in 9 bits.
_BIAS = 1 << 20
_HOLE = (1 << 9) - 1


def pack(gain: int, start: int, end: int) -> int:
    """One int for a move inside the search; larger gains sort higher."""
    return ((gain + _BIAS) << 18) | (start << 9) | end


def unpack(key: int) -> tuple[int, int]:
    """(start, end) of a packed move."""
    return (key >> 9) & _HOLE, key & _HOLE


def _at_least(settings: object, **least: int) -> None:
    """A setting below what its search can use is a mistake, not a quiet clamp."""
    for name, low in least.items():
        value = getattr(settings, name)
        if value < low:
            raise ValueError(f"{name} is at least {low}, not {value}")


@dataclass(frozen=True)
class DuelSettings:
    """Two players in contact: alpha-beta, or the forecast when the rival races."""

    #: Own moves kept at inner nodes.
    breadth: int = 10
    #: A rival's replies kept at inner nodes: enough to see it block us, not only race
    #: (10 won 27 of 30 games against 3 at equal nodes, docs/measurements.md).
    reply_breadth: int = 10
    #: The forecast instead of alpha-beta once the rival has this many rows more to go
    #: than we (0: never). Against Medium it finishes sooner (34.3 moves against 36.7 in
    #: 50 games); between equals the lead hardly ever comes.
    race_lead: int = 10
    #: A rival each of whose last this many moves gained the most rows it could is racing
    #: (as Medium does), not blocking: Hard then plans on its racing moves (the forecast)
    #: at any lead (0: never). Against Medium: 31.6 moves to finish in 100 games.
    racer_moves: int = 8
    #: What the rival's way to go counts in the evaluation, in percent of ours (100:
    #: hindering the rival is worth as much as our own progress).
    rival_weight: int = 100
    #: 1: alpha-beta starts no iteration it cannot finish (``RaceSearch._unfinishable``),
    #: 40% less CPU a move; 0: it spends its whole allowance. Off until its sequential
    #: test against the whole allowance decides (94 games: undecided, docs/players.md).
    foresee: int = 0
    #: The race evaluation's weights.
    weights: RaceWeights = DEFAULT_WEIGHTS

    def __post_init__(self) -> None:
        _at_least(self, breadth=1, reply_breadth=1, race_lead=0, racer_moves=0, foresee=0)


@dataclass(frozen=True)
class CrowdSettings:
    """Three or more in contact: playouts, the rivals racing."""

    #: How many moves of ours a playout lasts.
    playout_moves: int = 8
    #: How many of our options (those of biggest gain) are played out.
    playout_options: int = 8
    #: What the way to go of the opponent nearest to the goal counts at the end of a
    #: playout, in percent of ours.
    rival_weight: int = 25
    #: The race evaluation's weights (no group term: docs/players.md).
    weights: RaceWeights = CROWD_WEIGHTS

    def __post_init__(self) -> None:
        _at_least(self, playout_moves=1, playout_options=1)


@dataclass(frozen=True)
class SoloSettings:
    """The searches over our own moves (solo, and the duel's forecast): a beam."""

    #: Plies the beam plans ahead, its width the node allowance allows. Racing alone
    #: from the start: 27 moves, the proven minimum, against depth-first search's 31-33.
    beam_depth: int = 24

    def __post_init__(self) -> None:
        _at_least(self, beam_depth=1)


class RaceSearch:
    """One decision: ``seat`` to move in ``position``, the others in ``in_play`` still racing."""

    def __init__(
        self,
        rules: RaceRules,
        seat: int,
        in_play: Sequence[int],
        limits: Limits,
        *,
        duel: DuelSettings | None = None,
        crowd: CrowdSettings | None = None,
        solo: SoloSettings | None = None,
        racing: bool = False,
        max_depth: int = MAX_DEPTH,
        owner_counts: Sequence[bool] | None = None,
        compiled: bool = core.COMPILED,
    ) -> None:
        """``racing``: with two players, the rival is racing (hard.py reads it from the
        game's history): the forecast at any lead. ``max_depth``: the deepest alpha-beta
        iteration. ``owner_counts``: per seat, whether the marbles of its goal's owner
        count toward filling it (``Game.owner_counts``, rules.md#finishing); None: they
        all count. The search judges every finish by what counts at its root: a goal that
        the owner's 30th move opens inside the horizon is seen from the next decision on,
        and a finish is never seen where the referee would not give one. ``compiled``:
        search with the compiled core (the same search, node for node). With three or
        more seats in the game the crowd's weights count, whatever the search."""
        self.rules = rules
        self.native = core.native_race_core(rules) if compiled else None
        self.me = seat
        self.rivals = tuple(s for s in in_play if s != seat)
        partners = next((team for team in rules.teams if seat in team), (seat,))
        #: The rivals not on our team (pairs variants: a partner's progress is ours too).
        self.opponents = tuple(s for s in self.rivals if s not in partners)
        #: The rivals in the order they move after us.
        self.after_us = tuple(sorted(self.rivals, key=lambda s: (s - seat) % len(rules.seats)))
        self.limits = limits
        duel, crowd = duel or DuelSettings(), crowd or CrowdSettings()
        many = rules.players > 2
        self.breadth = duel.breadth
        self.reply_breadth = duel.reply_breadth
        self.foresee = duel.foresee > 0
        self.race_lead = duel.race_lead
        self.racing = racing
        self.max_depth = max_depth
        self.rival_weight = crowd.rival_weight if many else duel.rival_weight
        self.beam_depth = (solo or SoloSettings()).beam_depth
        self.playout_moves = crowd.playout_moves
        self.playout_options = crowd.playout_options
        self.owner_counts: tuple[bool, ...] = (
            (True,) * len(rules.seats) if owner_counts is None else tuple(owner_counts)
        )
        if len(self.owner_counts) != len(rules.seats):
            raise ValueError(f"owner_counts needs one flag per seat of {rules.id}")
        self.evaluation = race_evaluation(rules, crowd.weights if many else duel.weights)
        self.costs = self.evaluation.costs
        self.to_go = self.evaluation.to_go
        self.goals = rules.goals
        self.may_end = rules.may_end
        self.everywhere = rules.board.all
        self.steps = _steps(rules)
        self.jumps = rules.board.jumps
        self.tt: dict[object, tuple[int, int, int, int]] = {}
        #: The board after the rivals' forecast moves, by the board before them (forecast).
        self.forecasts: dict[tuple[int, ...], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        #: The deepest search that finished, which search ran (for the benchmarks) and
        #: alpha-beta's value of the chosen move at that depth (None for the others).
        self.depth_reached = 0
        self.mode = ""
        self.score: int | None = None

    # -- the decision ----------------------------------------------------------
    def choose(self, position: Position, options: list[Move]) -> Move:
        """The best of ``options`` (legal moves of ``seat``) by iterative deepening."""
        marbles = position.marbles
        # Per seat s: sums[2s] its cost, sums[2s + 1] its rows to go (evaluate.py).
        sums = tuple(x for s in range(len(marbles)) for x in self.evaluation.sums(s, marbles[s]))
        self.mode = self._mode(marbles, sums)
        cost = self.costs[self.me]
        by_key = {pack(cost[m[0]] - cost[m[-1]], m[0], m[-1]): m for m in options}
        # Stable sorts keep the caller's order (the seed's) among equal moves.
        order = sorted(by_key, key=lambda k: k >> 18, reverse=True)
        width = self._beam_width()
        if self.native is not None:
            return by_key[self._compiled(marbles, order, width)]
        if self.mode == "playout":
            return by_key[self._playouts(marbles, sums, order)]
        if self.mode != "alphabeta":
            return by_key[self._beam(marbles, sums, order, width)]
        best = order[0]
        took: list[int] = []  # the nodes of each iteration
        for depth in range(1, self.max_depth + 1):
            before = self.limits.used
            try:
                self.score, best, order = self._negamax_root(marbles, sums, order, depth)
            except OutOfTime:
                break
            self.depth_reached = depth
            took.append(self.limits.used - before)
            if self.limits.spent or self._unfinishable(took):
                break
        return by_key[best]

    def _unfinishable(self, took: list[int]) -> bool:
        """Whether the next iteration could not finish in what is left of the allowance
        (with ``foresee``): an iteration cut short is thrown away, so starting it only
        wastes its nodes. Its cost is foreseen from the last ones': the one before the
        last times the growth from the one before that to the last (the cost alternates
        between odd and even depths, so the growth is taken over two). Decided by nodes,
        not the clock, so the move stays reproducible.
        """
        if not self.foresee or len(took) < 3:
            return False
        return self.limits.used + took[-2] * took[-1] // max(took[-3], 1) > self.limits.nodes

    def _mode(self, marbles: tuple[int, ...], sums: tuple[int, ...]) -> str:
        """Which search the position asks for."""
        if not self.rivals or self.separated(marbles):
            return "solo"
        if len(self.rivals) > 1:
            return "playout"
        rival = self.rivals[0]
        ahead = sums[2 * rival + 1] - sums[2 * self.me + 1]  # rows to go
        if self.racing or (self.race_lead and ahead >= self.race_lead):
            return "forecast"
        return "alphabeta"

    def _beam_width(self) -> int:
        """How many positions each ply of the beam keeps (solo, forecast; 0 for the others):
        the node allowance spread over ``beam_depth`` plies, each position costing a node
        and, in the forecast, one more for every rival's move listed before ours."""
        if self.mode not in ("solo", "forecast"):
            return 0
        per_position = 1 + (len(self.rivals) if self.mode == "forecast" else 0)
        left = self.limits.nodes - self.limits.used
        return max(1, left // (self.beam_depth * per_position))

    def _compiled(self, marbles: tuple[int, ...], order: list[int], width: int) -> int:
        """The same search in the compiled core (src/sternhalma/_core/search.hpp)."""
        assert self.native is not None
        evaluation = self.evaluation
        settings = core.native_search_settings(self.mode)
        settings.me = self.me
        settings.rivals = list(self.rivals)
        settings.opponents = list(self.opponents)
        settings.owner_counts = list(self.owner_counts)
        settings.breadth = self.breadth
        settings.reply_breadth = self.reply_breadth
        settings.max_depth = self.max_depth
        settings.foresee = self.foresee
        settings.rival_weight = self.rival_weight
        settings.beam_width = min(max(width, 1), 2**31 - 1)  # the core's int; more than memory
        settings.beam_depth = self.beam_depth
        settings.playout_moves = self.playout_moves
        settings.playout_options = self.playout_options
        settings.nodes = min(max(self.limits.nodes - self.limits.used, 1), 2**63 - 1)
        left = self.limits.stop - time.perf_counter()
        settings.seconds = max(left, 0.0) if math.isfinite(left) else -1.0
        result = self.native.search(
            core.native_evaluation(
                evaluation.costs, evaluation.to_go, evaluation.divisor, evaluation.group
            ),
            marbles,
            settings,
            order,
        )
        self.depth_reached = result.depth
        if self.mode == "alphabeta" and result.depth:
            self.score = result.score
        self.limits.used += result.used
        return result.best

    def separated(self, marbles: tuple[int, ...]) -> bool:
        """Whether every rival marble is behind every marble of ours (in our rows)."""
        rows = row_table(self.rules)[self.me]
        ours = min(rows[h] for h in bits(marbles[self.me]))
        theirs = max((rows[h] for s in self.rivals for h in bits(marbles[s])), default=0)
        return theirs < ours

    # -- moves -------------------------------------------------------------------
    def targets(self, marbles: tuple[int, ...], seat: int) -> list[int]:
        """Every legal move of ``seat`` packed, best gain first.

        The same moves as ``RaceRules.moves_of`` (tests hold them equal), by
        (start, end) without paths: steps, then every hole a chain of jumps
        can reach, never landing twice on a hole; a marble in its goal lands
        only in the goal; no move ends in another point.
        """
        occupied = 0
        for board in marbles:
            occupied |= board
        if self.rules.long_jumps:
            position = Position(self.rules, seat, marbles)
            cost = self.costs[seat]
            found = [
                pack(cost[m[0]] - cost[m[-1]], m[0], m[-1])
                for m in self.rules.moves_of(position, seat, marbles[seat])
            ]
            found.sort(reverse=True)
            return found
        free = ~occupied
        goal = self.goals[seat]
        may_end = self.may_end[seat]
        everywhere = self.everywhere
        steps = self.steps
        jumps = self.jumps
        cost = self.costs[seat]
        found = []
        append = found.append
        own = marbles[seat]
        while own:
            low = own & -own
            own ^= low
            start = low.bit_length() - 1
            if goal & low:
                land_ok = end_ok = goal
            else:
                land_ok, end_ok = everywhere, may_end
            base = ((cost[start] + _BIAS) << 18) | (start << 9)
            step_ok = free & end_ok
            for end, bit in steps[start]:
                if step_ok & bit:
                    append(base - (cost[end] << 18) | end)
            others = occupied ^ low
            closed = occupied | ~land_ok
            stack = [start]
            for hole in stack:
                for over, land, bit in jumps[hole]:
                    if others & over and not closed & bit:
                        closed |= bit
                        stack.append(land)
                        if end_ok & bit:
                            append(base - (cost[land] << 18) | land)
        found.sort(reverse=True)
        return found

    def _ordered(self, marbles: tuple[int, ...], seat: int, first: int) -> list[int]:
        """The most promising moves: ``breadth`` of ours, ``reply_breadth`` of a rival's.

        ``first`` (a packed move from the transposition table, or 0) goes first.
        """
        moves = self.targets(marbles, seat)
        breadth = self.breadth if seat == self.me else self.reply_breadth
        if first and first in moves:
            moves.remove(first)
            moves.insert(0, first)
        return moves[:breadth]

    def _play(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], seat: int, move: int
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        start, end = unpack(move)
        after = list(marbles)
        after[seat] ^= (1 << start) | (1 << end)
        new_sums = list(sums)
        cost, to_go = self.costs[seat], self.to_go[seat]
        new_sums[2 * seat] += cost[end] - cost[start]
        new_sums[2 * seat + 1] += to_go[end] - to_go[start]
        return tuple(after), tuple(new_sums)

    def _value(self, seat: int, sums: tuple[int, ...]) -> int:
        """What ``seat`` still has to do (lower is better)."""
        return self.evaluation.value(seat, sums[2 * seat], sums[2 * seat + 1])

    def _weight(self, seat: int) -> int:
        """What ``seat``'s way to go counts in the two-player evaluation (percent)."""
        return 100 if seat == self.me else self.rival_weight

    def _best_after(self, seat: int, sums: tuple[int, ...], moves: list[int]) -> int:
        """The lowest value ``seat`` reaches with one of ``moves``."""
        value = self.evaluation.value
        cost, to_go = sums[2 * seat], sums[2 * seat + 1]
        rows = self.to_go[seat]
        best = WIN
        for move in moves:
            start, end = unpack(move)
            gain = (move >> 18) - _BIAS
            best = min(best, value(seat, cost - gain, to_go - rows[start] + rows[end]))
        return best

    def _finishes(self, marbles: tuple[int, ...], seat: int, move: int) -> bool:
        """Whether ``move`` (already played in ``marbles``) finished ``seat``."""
        if not self.goals[seat] >> (move & _HOLE) & 1:
            return False
        position = Position(self.rules, seat, marbles)
        return self.rules.has_finished(position, seat, owner_counts=self.owner_counts[seat])

    def _finish_value(self, marbles: tuple[int, ...], seat: int, ply: int) -> int:
        """What finishing is worth to ``seat``: a win, or a draw by the last reply."""
        if self.rules.last_reply and seat == 0 and len(self.rivals) == 1:
            other = 1
            for reply in self.targets(marbles, other):
                after = list(marbles)
                start, end = unpack(reply)
                after[other] ^= (1 << start) | (1 << end)
                if self._finishes(tuple(after), other, reply):
                    return 0
        return WIN - ply

    def _frontier(
        self,
        marbles: tuple[int, ...],
        sums: tuple[int, ...],
        seat: int,
        moves: list[int],
        ply: int,
        others: int,
        weight: int = 1,
    ) -> int:
        """The value for ``seat`` one move from the horizon: ``others`` (what its rivals
        still have to do) less ``weight`` times its best value after a move, or a finish.

        No node for every leaf: the sums give each move's value at once.
        """
        goal = self.goals[seat]
        for move in moves:
            if goal >> (move & _HOLE) & 1:
                start, end = unpack(move)
                after = list(marbles)
                after[seat] ^= (1 << start) | (1 << end)
                if self._finishes(tuple(after), seat, move):
                    return self._finish_value(tuple(after), seat, ply)
        return others - weight * self._best_after(seat, sums, moves)

    # -- two players: negamax alpha-beta ------------------------------------------
    def _negamax_root(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], order: list[int], depth: int
    ) -> tuple[int, int, list[int]]:
        me = self.me
        other = self.rivals[0]
        alpha = -WIN - 1
        scored: list[tuple[int, int]] = []
        for move in order:
            after, new_sums = self._play(marbles, sums, me, move)
            if self._finishes(after, me, move):
                value = self._finish_value(after, me, 0)
            else:
                # Later moves only need to be proved no better than the best so far.
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
        """The value for ``turn`` (to move) of the position, searched ``depth`` plies."""
        self.limits.tick()
        other = self.me if turn != self.me else self.rivals[0]
        weight, other_weight = self._weight(turn), self._weight(other)
        if depth == 0:
            return other_weight * self._value(other, sums) - weight * self._value(turn, sums)
        key = (marbles, turn)
        known = self.tt.get(key)
        first = 0
        if known is not None:
            k_depth, k_value, k_flag, first = known
            if k_depth >= depth:
                if k_flag == _EXACT:
                    return k_value
                if k_flag == _LOWER:
                    alpha = max(alpha, k_value)
                else:
                    beta = min(beta, k_value)
                if alpha >= beta:
                    return k_value
        moves = self._ordered(marbles, turn, first)
        if not moves:  # a pass
            return -self._negamax(marbles, sums, other, depth - 1, -beta, -alpha, ply + 1)
        if depth == 1:
            others = other_weight * self._value(other, sums)
            return self._frontier(marbles, sums, turn, moves, ply, others, weight)
        start_alpha = alpha
        best = -WIN - 1
        best_move = 0
        for move in moves:
            after, new_sums = self._play(marbles, sums, turn, move)
            if self._finishes(after, turn, move):
                value = self._finish_value(after, turn, ply)
            else:
                value = -self._negamax(after, new_sums, other, depth - 1, -beta, -alpha, ply + 1)
            if value > best:
                best, best_move = value, move
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= start_alpha else _LOWER if best >= beta else _EXACT
        self.tt[key] = (depth, best, flag, best_move)
        return best

    # -- forecast: the rivals race ------------------------------------------------------
    def _rivals_move(
        self, marbles: tuple[int, ...], sums: tuple[int, ...]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The board when our turn comes again: every rival in turn plays its move that
        gains the most rows. A rival with several such moves (or none) is not guessed
        at: it stays as it is. Listing a rival's moves costs as much as a node, and
        counts as one."""
        for seat in self.after_us:
            self.limits.tick()
            racing = self._racing_moves(marbles, seat)
            if len(racing) == 1:
                marbles, sums = self._play(marbles, sums, seat, racing[0])
        return marbles, sums

    def _racing_moves(self, marbles: tuple[int, ...], seat: int) -> list[int]:
        """``seat``'s moves that gain it the most rows, in listed order: what a racing
        player (Medium) chooses among; the forecast and the playouts
        foresee a rival by them."""
        rows = self.to_go[seat]
        moves = self.targets(marbles, seat)
        gains = [rows[(m >> 9) & _HOLE] - rows[m & _HOLE] for m in moves]
        most = max(gains, default=0)
        return [m for m, gain in zip(moves, gains, strict=True) if gain == most]

    def _forecast_board(
        self, marbles: tuple[int, ...], sums: tuple[int, ...]
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The board after the rivals' forecast moves (listed once per board)."""
        board = self.forecasts.get(marbles)
        if board is None:
            board = self.forecasts[marbles] = self._rivals_move(marbles, sums)
        return board

    # -- the beam: our moves, planned breadth-first -----------------------------------------
    def _beam(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], order: list[int], width: int
    ) -> int:
        """The first move of the best plan of ``beam_depth`` own moves (solo, forecast).

        Ply by ply, every kept position tries every move (in the forecast after
        the rivals' racing moves), and the ``width`` positions that
        are best by the evaluation go on, each once however it was reached. A
        depth-first search of the same nodes sees every line only a few moves
        deep; the beam follows the promising ones ten or more moves, which racing
        needs: a ladder pays off moves after it is built. The first plan that
        finishes wins at once; when the nodes run out, the best position of the
        last whole ply decides.
        """
        me = self.me
        goal, rows, value = self.goals[me], self.to_go[me], self.evaluation.value
        layer: list[tuple[tuple[int, ...], tuple[int, ...], int]] = [(marbles, sums, 0)]
        best = order[0]
        for ply in range(self.beam_depth):
            children: list[tuple[int, int, int]] = []  # (value, parent, move), made in order
            try:
                for parent, (board, board_sums, first) in enumerate(layer):
                    if ply == 0:
                        moves = order
                    else:
                        self.limits.tick()
                        if self.mode == "forecast":
                            board, board_sums = self._forecast_board(board, board_sums)
                            layer[parent] = (board, board_sums, first)
                        moves = self.targets(board, me)
                    cost, to_go = board_sums[2 * me], board_sums[2 * me + 1]
                    for move in moves:
                        start, end = unpack(move)
                        if goal >> end & 1:
                            played, _ = self._play(board, board_sums, me, move)
                            if self._finishes(played, me, move):
                                return first or move
                        gain = (move >> 18) - _BIAS
                        after_value = value(me, cost - gain, to_go - rows[start] + rows[end])
                        children.append((after_value, parent, move))
            except OutOfTime:
                return best
            children.sort(key=lambda c: c[0])  # stable: the order they were made in
            kept: list[tuple[tuple[int, ...], tuple[int, ...], int]] = []
            seen: set[tuple[int, ...]] = set()
            for _, parent, move in children:
                board, board_sums, first = layer[parent]
                after, after_sums = self._play(board, board_sums, me, move)
                if after not in seen:
                    seen.add(after)
                    kept.append((after, after_sums, first or move))
                    if len(kept) == width:
                        break
            if not kept:
                return best
            layer = kept
            best = layer[0][2]
            self.depth_reached = ply + 1
        return best

    # -- playouts: three or more, the rivals racing ------------------------------------------
    def _playouts(self, marbles: tuple[int, ...], sums: tuple[int, ...], order: list[int]) -> int:
        """Our ``playout_options`` best options by their gain, each played out alike.

        With three or more players the board is crowded: the rivals' marbles
        are the rungs of our ladders and stand in our way, and one move of each
        rival comes between two of ours. Planning against the worst of them
        (best-reply) or on one guess of their moves (forecast) misses how the
        crowd moves; playing the next moves out many times sees it. In a
        playout every rival plays a move that gains it the most rows (what a
        racing player plays; which of several, by the playout's random
        numbers) and we play our best move by the evaluation, for
        ``playout_moves`` of our moves. A playout scores how far the opponent
        nearest to its goal still is, at ``rival_weight`` percent (a crowd's
        fastest racer climbs our ladders too; a partner is not hindered), less
        how far we still are; one that finishes scores more, the sooner the
        more. An option's score is the sum over its playouts. Every option
        meets the same random numbers in its n-th playout, so the options
        differ by themselves, not by luck. Round after round of playouts until
        the nodes or the time run out (listing a seat's moves is a node); a
        round cut short does not count.
        """
        me = self.me
        candidates = order[: self.playout_options]
        for move in candidates:
            if self._finishes(self._play(marbles, sums, me, move)[0], me, move):
                return move
        totals = [0] * len(candidates)
        rounds = 0
        try:
            while True:
                scores = [self._playout(marbles, sums, move, rounds) for move in candidates]
                totals = [total + score for total, score in zip(totals, scores, strict=True)]
                rounds += 1
        except OutOfTime:
            pass
        self.depth_reached = rounds
        return candidates[totals.index(max(totals))]

    def _playout(
        self, marbles: tuple[int, ...], sums: tuple[int, ...], move: int, number: int
    ) -> int:
        """Our value after playing ``move`` and then racing on (higher is better)."""
        me = self.me
        rng = _Playout(number)
        marbles, sums = self._play(marbles, sums, me, move)
        finished: set[int] = set()
        for ply in range(1, self.playout_moves + 1):
            for seat in self.after_us:
                if seat in finished:
                    continue
                self.limits.tick()
                racing = self._racing_moves(marbles, seat)
                if not racing:
                    continue
                theirs = rng.choice(racing)
                marbles, sums = self._play(marbles, sums, seat, theirs)
                if self._finishes(marbles, seat, theirs):
                    finished.add(seat)
            self.limits.tick()
            moves = self.targets(marbles, me)
            if not moves:
                continue
            top = moves[0] >> 18
            ours = rng.choice([m for m in moves if m >> 18 == top])
            marbles, sums = self._play(marbles, sums, me, ours)
            if self._finishes(marbles, me, ours):
                return WIN - ply
        nearest = min((self._value(seat, sums) for seat in self.opponents), default=0)
        return self.rival_weight * nearest - 100 * self._value(me, sums)


class _Playout:
    """The random numbers of one playout: splitmix64, the same in the compiled core."""

    MASK = (1 << 64) - 1

    def __init__(self, number: int) -> None:
        self.state = number

    def choice(self, moves: list[int]) -> int:
        """One of ``moves`` (in their listed order), the first when there is one."""
        if len(moves) == 1:
            return moves[0]
        self.state = (self.state + 0x9E3779B97F4A7C15) & self.MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & self.MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & self.MASK
        return moves[(z ^ (z >> 31)) % len(moves)]


def _ranked(scored: list[tuple[int, int]]) -> tuple[int, int, list[int]]:
    """The best value, its move and every move in order for the next iteration (stable
    on ties)."""
    ranked = sorted(scored, key=lambda vm: vm[0], reverse=True)
    return ranked[0][0], ranked[0][1], [move for _, move in ranked]


@cache
def _steps(rules: RaceRules) -> tuple[tuple[tuple[int, int], ...], ...]:
    """steps[hole]: (neighbour, its bit) for every neighbour of the hole."""
    return tuple(
        tuple((n, 1 << n) for n in rules.board.neighbours[hole]) for hole in range(rules.board.size)
    )
