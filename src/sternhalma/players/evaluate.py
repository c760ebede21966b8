"""Hard's evaluation: how far each seat still has to go.

A race position is judged by a per-seat *cost* of every hole, summed over the
seat's marbles. The cost is built from the progress rows (rows.py) and
grows faster than the rows themselves, so a marble left behind costs more
than the same distance spread over the others. On top, a *group* term keeps
the army together: the further a marble runs ahead of the others, the fewer
rungs it leaves for their jump ladders, and the last marble ends up walking
alone.

Both parts are sums over marbles (the group term needs the sum of the rows
still to go and is then a formula of it), so a move changes them by two
table look-ups each: search keeps them up to date without looking at the
whole board.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from sternhalma.boards.base import bits
from sternhalma.players.rows import row_table
from sternhalma.rules.race import RaceRules


@dataclass(frozen=True)
class RaceWeights:
    """Integer weights of the cost of one marble on one hole."""

    #: Per row still to go to the goal tip.
    rows: int = 12
    #: Per step to the nearest goal hole (off the axis costs more than the rows say).
    steps: int = 4
    #: Per squared row still to go, divided by the goal tip's row: the push on stragglers.
    straggler: int = 24
    #: Per hole off the line from the home tip to the goal tip: keeps the army together.
    centre: int = 2
    #: The group term: with ``straggler`` equal, the straggler push becomes the variance
    #: of the rows still to go (a marble far ahead costs as much as one far behind).
    group: int = 24


DEFAULT_WEIGHTS = RaceWeights()
#: Two-player Halma: no ``steps`` (a king's step on the square board, sideways as much as
#: toward the tip). Without them Hard beat the star's weights by 43 Elo [+10, +77] in a
#: sequential test (docs/measurements.md).
HALMA_WEIGHTS = RaceWeights(steps=0)
#: Larger than any evaluation: a finished seat.
WIN = 1 << 40
#: With three or more players the board is crowded and changes five moves out of
#: six: a big jump now beats keeping the army together (measured, bench/players.py).
CROWD_WEIGHTS = RaceWeights(group=0)


@dataclass(frozen=True)
class RaceEvaluation:
    """Everything the search needs to judge one seat: tables and the formula."""

    #: cost[seat][hole], see race_costs.
    costs: tuple[tuple[int, ...], ...]
    #: to_go[seat][hole]: rows still to go to the seat's goal tip (0 at the tip).
    to_go: tuple[tuple[int, ...], ...]
    #: Per seat: the number of marbles times the goal tip's row (the group term's divisor).
    divisor: tuple[int, ...]
    group: int

    def value(self, seat: int, cost: int, to_go: int) -> int:
        """What ``seat`` still has to do (lower is better) from its two sums."""
        return cost - self.group * to_go * to_go // self.divisor[seat]

    def sums(self, seat: int, marbles: int) -> tuple[int, int]:
        """(cost, rows to go) summed over the seat's marbles."""
        costs, to_go = self.costs[seat], self.to_go[seat]
        holes = list(bits(marbles))
        return sum(costs[h] for h in holes), sum(to_go[h] for h in holes)


@cache
def race_evaluation(rules: RaceRules, weights: RaceWeights = DEFAULT_WEIGHTS) -> RaceEvaluation:
    """The evaluation of ``rules`` with ``weights`` (built once per ruleset and weights)."""
    rows = row_table(rules)
    tips = [max(rows[seat][hole] for hole in bits(goal)) for seat, goal in enumerate(rules.goals)]
    return RaceEvaluation(
        costs=race_costs(rules, weights),
        to_go=tuple(tuple(max(tip - row, 0) for row in rows[s]) for s, tip in enumerate(tips)),
        divisor=tuple(rules.marbles_per_seat * tip for tip in tips),
        group=weights.group,
    )


@cache
def race_costs(
    rules: RaceRules, weights: RaceWeights = DEFAULT_WEIGHTS
) -> tuple[tuple[int, ...], ...]:
    """cost[seat][hole]: what a marble of ``seat`` on ``hole`` still costs (0 at the goal tip)."""
    tables = []
    points = _plane(rules)
    for seat, rows in enumerate(row_table(rules)):
        tip = max(rows[hole] for hole in bits(rules.goals[seat]))
        goal_tip = max(bits(rules.goals[seat]), key=rows.__getitem__)
        home_tip = min(bits(rules.homes[seat]), key=rows.__getitem__)
        off_axis = _distances_to_line(points, points[home_tip], points[goal_tip])
        to_goal = rules.distance_to_goal[seat]
        table = []
        for hole, row in enumerate(rows):
            to_go = max(tip - row, 0)
            table.append(
                weights.rows * to_go
                + weights.steps * to_goal[hole]
                + weights.straggler * to_go * to_go // tip
                + round(weights.centre * off_axis[hole])
            )
        tables.append(tuple(table))
    return tuple(tables)


def _plane(rules: RaceRules) -> list[tuple[float, float]]:
    """Every hole's centre in the plane, one hole apart (star: the hex grid)."""
    if rules.board.kind == "star":
        return [(q + r / 2, r * math.sqrt(3) / 2) for q, r in rules.board.cells]
    return [(float(a), float(b)) for a, b in rules.board.cells]


def _distances_to_line(
    points: list[tuple[float, float]], a: tuple[float, float], b: tuple[float, float]
) -> list[float]:
    """Each point's distance from the straight line through a and b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = math.hypot(dx, dy)
    return [abs(dx * (y - a[1]) - dy * (x - a[0])) / length for x, y in points]


# -- a move as the searches see it: its gain in cost, start and end in one int ----------
#: Packed move: ((gain + BIAS) << 18) | (start << 9) | end; holes fit in 9 bits.
BIAS = 1 << 20
HOLE = (1 << 9) - 1


def pack(gain: int, start: int, end: int) -> int:
    """One int for a move inside the search; larger gains sort higher."""
    return ((gain + BIAS) << 18) | (start << 9) | end


def unpack(key: int) -> tuple[int, int]:
    """(start, end) of a packed move."""
    return (key >> 9) & HOLE, key & HOLE
