"""One seat alone on the board: how many moves it needs to reach its goal.

The crossing puzzle (ten marbles, an empty star, cross to the facing point;
the proven minimum is 27 moves) and the analysis board's "moves to go" are
the same problem: one seat's marbles, nobody else's, the race rules of its
variant. Two searches answer it:

- ``lower_bound``: iterative deepening A* (IDA*) with an admissible guess
  (every marble outside the goal moves at least once). Each depth it proves
  impossible raises the bound by one; when a depth succeeds the bound is
  exact. A node allowance keeps it to the small cases.
- ``beam``: breadth-first by moves, keeping only the ``width`` positions
  nearest the goal after each move. A real sequence of moves, so its
  length is an upper bound: Hard's estimate of the moves to go, and with a
  wide beam the crossing solver.

Move generation goes through ``SoloMoves``, the seam where a compiled core
can take over: it turns one bitboard of marbles into the bitboards one move
away.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from sternhalma.boards.base import bits
from sternhalma.boards.star import STAR
from sternhalma.core import COMPILED, native_race_core, pairs
from sternhalma.players.rows import row_table
from sternhalma.position import Move, Position
from sternhalma.rules.race import RaceRules


class SoloMoves:
    """The moves of ``seat``'s marbles with no other marble on the board."""

    def __init__(self, rules: RaceRules, seat: int) -> None:
        self.rules = rules
        self.seat = seat
        self.goal = rules.goals[seat]

    def finished(self, own: int) -> bool:
        """Whether every marble stands in the goal."""
        return own & self.goal == own

    def ends(self, own: int) -> Iterator[tuple[int, int]]:
        """(start bit, end bit) of every move, each (start, end) once."""
        for start, end in self.rules.move_ends(own, self.seat, own):
            yield 1 << start, 1 << end

    def path(self, own: int, start: int, end: int) -> Move:
        """The move from hole ``start`` to hole ``end`` with its path (a shortest one)."""
        move = self.rules.path(self._position(own), self.seat, start, end)
        if move is not None:
            return move
        names = self.rules.board.names
        raise ValueError(f"{names[start]}-{names[end]} is not a move here")

    def _position(self, own: int) -> Position:
        marbles = [0] * self.rules.players
        marbles[self.seat] = own
        return Position(self.rules, self.seat, tuple(marbles))


@cache
def _rows_to_go(rules: RaceRules, seat: int) -> tuple[int, ...]:
    """Rows from each hole to the seat's goal tip (the beam's measure of distance)."""
    rows = row_table(rules)[seat]
    tip = max(rows[hole] for hole in bits(rules.goals[seat]))
    return tuple(max(tip - row, 0) for row in rows)


def distance_weights(rules: RaceRules, seat: int) -> tuple[int, ...]:
    """weight[hole]: how far a marble there still is from the goal (the beam's measure).

    Rows to go, squared per marble so that a straggler weighs more than the
    same rows spread over several marbles (a crossing is as long as its last
    marble makes it), plus the steps off the goal. A position's distance is
    the sum over its marbles, so a move changes it by two look-ups.
    """
    to_go = _rows_to_go(rules, seat)
    goal_steps = rules.distance_to_goal[seat]
    return tuple(4 * t + t * t // 4 + 2 * s for t, s in zip(to_go, goal_steps, strict=True))


def distance(weights: tuple[int, ...], own: int) -> int:
    return sum(weights[hole] for hole in bits(own))


@dataclass(frozen=True)
class Bound:
    """What IDA* proved: at least ``moves`` moves; ``exact`` when a solution that long exists."""

    moves: int
    exact: bool


def lower_bound(rules: RaceRules, seat: int, own: int, nodes: int = 20_000) -> Bound:
    """The fewest moves ``seat`` needs alone from ``own``: proved at least, exact when small."""
    solo = SoloMoves(rules, seat)
    goal = solo.goal
    bound = (own & ~goal).bit_count()
    budget = [nodes]

    def reachable(marbles: int, left: int, seen: dict[int, int]) -> bool:
        if solo.finished(marbles):
            return True
        outside = (marbles & ~goal).bit_count()
        if outside > left or seen.get(marbles, -1) >= left:
            return False
        seen[marbles] = left
        budget[0] -= 1
        if budget[0] < 0:
            raise _Spent
        return any(
            reachable(marbles ^ start ^ end, left - 1, seen) for start, end in solo.ends(marbles)
        )

    while True:
        try:
            if reachable(own, bound, {}):
                return Bound(bound, exact=True)
        except _Spent:
            return Bound(bound, exact=False)
        bound += 1


class _Spent(Exception):
    """The lower bound's node allowance ran out."""


@dataclass(frozen=True)
class Solution:
    """A sequence of moves that brings one seat home alone, and the beam that found it."""

    moves: tuple[Move, ...]
    width: int
    positions: int

    def __len__(self) -> int:
        return len(self.moves)


def beam(
    rules: RaceRules,
    seat: int,
    own: int,
    width: int,
    *,
    max_moves: int = 200,
) -> Solution | None:
    """A short way home for ``seat`` alone by beam search; None if the beam dies out.

    The compiled core runs it where it was built (the same search, some fifty times
    faster: wide beams are then cheap enough for the analysis board); the Python
    search below is the reference and the fallback.
    """
    if not COMPILED:
        return python_beam(rules, seat, own, width, max_moves=max_moves)
    solo = SoloMoves(rules, seat)
    weights = distance_weights(rules, seat)
    found = native_race_core(rules).solo_beam(own, seat, list(weights), width, max_moves)
    if found is None:
        return None
    ends, positions = found
    moves = []
    for start, end in pairs(ends):
        moves.append(solo.path(own, start, end))
        own ^= (1 << start) | (1 << end)
    return Solution(tuple(moves), width, positions)


def python_beam(
    rules: RaceRules,
    seat: int,
    own: int,
    width: int,
    *,
    max_moves: int = 200,
) -> Solution | None:
    """``beam`` in Python: the reference the compiled search is held equal to."""
    solo = SoloMoves(rules, seat)
    weights = distance_weights(rules, seat)
    if solo.finished(own):
        return Solution((), width, 0)
    # levels[d][i] = (distance, marbles, index of the parent in levels[d - 1], start, end).
    levels: list[list[tuple[int, int, int, int, int]]] = [[(distance(weights, own), own, -1, 0, 0)]]
    seen = {own}
    positions = 0
    while len(levels) <= max_moves:
        children: dict[int, tuple[int, int, int, int, int]] = {}
        for index, (far, marbles, _, _, _) in enumerate(levels[-1]):
            for start, end in solo.ends(marbles):
                after = marbles ^ start ^ end
                if after in seen or after in children:
                    continue
                near = far - weights[start.bit_length() - 1] + weights[end.bit_length() - 1]
                children[after] = (near, after, index, start, end)
                if solo.finished(after):
                    levels.append([children[after]])
                    return Solution(_moves(solo, levels), width, positions + len(children))
        positions += len(children)
        if not children:
            return None
        kept = heapq.nsmallest(width, children.values(), key=_first)
        seen.update(child[1] for child in kept)
        levels.append(kept)
    return None


def _first(item: tuple[int, ...]) -> int:
    """The distance of a beam entry: ties keep the order moves were found in."""
    return item[0]


def _moves(solo: SoloMoves, levels: list[list[tuple[int, int, int, int, int]]]) -> tuple[Move, ...]:
    """The moves from the root to the last level's only position, with their paths."""
    chain = []
    index = 0
    for level in reversed(levels[1:]):
        _, marbles, parent, start, end = level[index]
        chain.append((marbles ^ start ^ end, start, end))
        index = parent
    return tuple(
        solo.path(before, start.bit_length() - 1, end.bit_length() - 1)
        for before, start, end in reversed(chain)
    )


def crossing_rules() -> RaceRules:
    """The crossing puzzle: white alone crosses the star to the black point."""
    return _crossing()


@cache
def _crossing() -> RaceRules:
    home, goal = STAR.point["white"], STAR.point["black"]
    return RaceRules(
        "crossing",
        "chinese-checkers",
        STAR,
        ("white",),
        (home,),
        (goal,),
        (STAR.points & ~(home | goal),),
        title="Crossing puzzle",
    )


def solve_crossing(
    width: int, *, progress: Callable[[int, int, int | None], None] | None = None
) -> Solution | None:
    """A short crossing by a beam from both ends that meets in the middle.

    Run backwards and turned half way round the star, a crossing is again a
    crossing (a move's reverse is a move, the board is symmetric): so the
    positions the beam reaches in j moves, turned, are positions j moves from
    the goal. A position met in i moves whose turned copy was kept at depth j
    closes a crossing of i + j moves. Each level the beam keeps ``width``
    positions; the search stops when no shorter meeting can come.
    ``progress(moves, kept, best)`` is told after each level.
    """
    rules = crossing_rules()
    solo = SoloMoves(rules, 0)
    weights = distance_weights(rules, 0)
    turn = _half_turn()
    home = rules.homes[0]
    # kept[marbles] = (depth, parent marbles, start bit, end bit)
    kept: dict[int, tuple[int, int, int, int]] = {home: (0, 0, 0, 0)}
    level = [(distance(weights, home), home)]
    best: tuple[Move, ...] | None = None
    depth = 0
    positions = 0
    while level and (best is None or 2 * depth + 1 < len(best)):
        depth += 1
        children: dict[int, tuple[int, int, int, int]] = {}
        near: list[tuple[int, int]] = []
        for far, marbles in level:
            for start, end in solo.ends(marbles):
                after = marbles ^ start ^ end
                if after in kept or after in children:
                    continue
                children[after] = (depth, marbles, start, end)
                near.append(
                    (far - weights[start.bit_length() - 1] + weights[end.bit_length() - 1], after)
                )
                met = kept.get(_turned(after, turn))
                if met is not None and (best is None or depth + met[0] < len(best)):
                    best = _crossing_moves(solo, kept, children, after, turn) or best
        positions += len(children)
        level = heapq.nsmallest(width, near, key=_first)
        kept.update((marbles, children[marbles]) for _, marbles in level)
        if progress is not None:
            progress(depth, len(level), None if best is None else len(best))
    return None if best is None else Solution(best, width, positions)


def _crossing_moves(
    solo: SoloMoves,
    kept: dict[int, tuple[int, int, int, int]],
    children: dict[int, tuple[int, int, int, int]],
    middle: int,
    turn: tuple[int, ...],
) -> tuple[Move, ...] | None:
    """The moves home → ``middle`` → goal, or None if a turned move breaks a rule.

    The second half replays the turned copy's moves backwards; a marble in its
    goal may only land in the goal, a rule the home end does not have, so a
    turned move can be illegal and the meeting is then not used.
    """

    def chain(marbles: int) -> list[tuple[int, int, int]]:
        steps: list[tuple[int, int, int]] = []
        while True:
            _, parent, start, end = children.get(marbles) or kept[marbles]
            if not start:
                return steps[::-1]
            steps.append((parent, start, end))
            marbles = parent

    moves = [solo.path(b, s.bit_length() - 1, e.bit_length() - 1) for b, s, e in chain(middle)]
    position = middle
    for before, start, end in reversed(chain(_turned(middle, turn))):
        # Turned: the copy went before → before ^ start ^ end; we go back the other way.
        source, target = turn[end.bit_length() - 1], turn[start.bit_length() - 1]
        try:
            moves.append(solo.path(position, source, target))
        except ValueError:
            return None
        position ^= (1 << source) | (1 << target)
        assert position == _turned(before, turn)
    return tuple(moves)


@cache
def _half_turn() -> tuple[int, ...]:
    """turn[hole]: the hole half way round the star (three 60° turns)."""
    rotate = STAR.rotate
    return tuple(rotate[rotate[rotate[hole]]] for hole in range(STAR.size))


def _turned(marbles: int, turn: tuple[int, ...]) -> int:
    result = 0
    for hole in bits(marbles):
        result |= 1 << turn[hole]
    return result
