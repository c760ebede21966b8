"""Hard's search for the race games (every star race variant and Halma).

The search is the compiled core's (``_core/search.hpp``); this module is its
front: the settings of each search family, with their defaults (the one place
they are written; HardSettings holds one of each), and ``RaceSearch``, which
chooses the family for a position and hands the decision to the core. Where no
compiler built the core (and in the browser, under Pyodide) the plain Python
search of fallback.py decides instead, with no promise to choose the same move.

Four searches over the same evaluation (evaluate.py), chosen by the position:

- **alpha-beta** (two players in contact): negamax with iterative deepening, a
  transposition table and moves ordered by their gain; inner nodes keep only
  the ``breadth`` most promising moves (a rival's only ``reply_breadth``).
- **forecast** (two players, once we lead by far or the rival races): our
  moves only, but before each of them the rival plays the move a racing player
  plays, its biggest gain in rows (as Medium plays), so the search plans on the
  board as it will be. Far behind, the rival's blocking can no longer win it
  the game, and planning on its likely moves finishes sooner than guarding
  against its worst one.
- **playouts** (three or more meeting head on): our most promising options, each
  played out many times for a few moves, the rivals racing (which of their
  biggest gains by chance) and we playing our best move by the evaluation: a
  crowd's marbles are rungs and obstacles that move between our moves.
- **solo** (nobody left to meet, every rival marble behind all of ours; or
  three who never meet head on): the race is a puzzle, finish in the fewest
  moves, the rivals' marbles standing where they are. In classic-3 every goal
  is an empty point: the rivals only cross our way in the middle and never wait
  in our goal, so planning our own race on a beam three times as wide as the
  forecast's (which lists every rival's move before each of ours) comes first
  more often (67% against three-seat playouts; the forecast 48%).

The two searches over our own moves (solo, forecast) plan with a **beam**
(``SoloSettings.beam_depth``): ply by ply the best positions go on, so a plan
looks twenty moves ahead where depth-first search on the same nodes looks five.
A move is one int to the core, its gain, start and end packed so that sorting
the ints sorts by gain.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

from sternhalma import core
from sternhalma.boards.base import bits
from sternhalma.players.evaluate import (
    CROWD_WEIGHTS,
    DEFAULT_WEIGHTS,
    HALMA_WEIGHTS,
    RaceWeights,
    pack,
    race_evaluation,
    unpack,
)
from sternhalma.players.fallback import PlainSearch
from sternhalma.players.rows import row_table
from sternhalma.players.search import Limits, at_least
from sternhalma.position import Move, Position
from sternhalma.rules.race import RaceRules

#: The deepest alpha-beta search.
MAX_DEPTH = 16


def crowd_meets_head_on(rules: RaceRules) -> bool:
    """Whether three or more seats meet head on, some seat's goal another's home (four
    and six seats; not classic-3, whose goals are empty points). Only there Hard plays
    out; everywhere else the core's alpha-beta and beam decide, on the duel's allowance."""
    return rules.players > 2 and any(owner is not None for owner in rules.goal_owners)


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
    #: The race evaluation's weights on the star.
    weights: RaceWeights = DEFAULT_WEIGHTS
    #: The same on the Halma board.
    halma_weights: RaceWeights = HALMA_WEIGHTS

    def __post_init__(self) -> None:
        at_least(self, breadth=1, reply_breadth=1, race_lead=0, racer_moves=0)

    def weights_on(self, rules: RaceRules) -> RaceWeights:
        """The weights for ``rules``' board."""
        return self.halma_weights if rules.game == "halma" else self.weights


@dataclass(frozen=True)
class CrowdSettings:
    """Three or more meeting head on, in contact: playouts, the rivals racing."""

    #: How many moves of ours a playout lasts: the rivals' racing moves foretell a
    #: crowd's next few moves, not many (classic-6 against Medium, 400 games: first in
    #: 91% at 4, 87% at 8, 76% at 12 in 200; docs/measurements.md).
    playout_moves: int = 4
    #: How many of our options (those of biggest gain) are played out.
    playout_options: int = 8
    #: What the way to go of the opponent nearest to the goal counts at the end of a
    #: playout, in percent of ours.
    rival_weight: int = 25
    #: The race evaluation's weights (no group term: docs/players.md).
    weights: RaceWeights = CROWD_WEIGHTS

    def __post_init__(self) -> None:
        at_least(self, playout_moves=1, playout_options=1)


def race_weights(rules: RaceRules, duel: DuelSettings, crowd: CrowdSettings) -> RaceWeights:
    """The evaluation's weights for ``rules``: with three or more seats in the game the
    crowd's, whatever the search, else the duel's for the board."""
    return crowd.weights if rules.players > 2 else duel.weights_on(rules)


@dataclass(frozen=True)
class SoloSettings:
    """The searches over our own moves (solo, and the duel's forecast): a beam."""

    #: Plies the beam plans ahead, its width the node allowance allows. Racing alone
    #: from the start: 27 moves, the proven minimum, against depth-first search's 31-33.
    beam_depth: int = 24
    #: Three or more who never meet head on (classic-3) plan with the solo beam; on the
    #: compiled core it gets this many nodes a second of the time limit: 120,000 came
    #: first in as many games against today's Hard in the other seats as 240,000 (133
    #: and 134 of 200), at half the CPU (docs/measurements.md).
    crowd_nodes_per_second: int = 120_000

    def __post_init__(self) -> None:
        at_least(self, beam_depth=1, crowd_nodes_per_second=1)


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
        search with the compiled core (False: the plain fallback of fallback.py). With
        three or more seats in the game the crowd's weights count, whatever the search."""
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
        self.evaluation = race_evaluation(rules, race_weights(rules, duel, crowd))
        #: The deepest search that finished, which search ran (for the benchmarks) and
        #: alpha-beta's value of the chosen move at that depth (None for the others).
        self.depth_reached = 0
        self.mode = ""
        self.score: int | None = None
        #: The principal line (Info.line): alpha-beta's moves in turn, the beam's plan
        #: of our own moves; none for the playouts (and the fallback's crowd beam).
        self.line: tuple[Move, ...] = ()

    # -- the decision ----------------------------------------------------------
    def choose(self, position: Position, options: list[Move]) -> Move:
        """The best of ``options`` (legal moves of ``seat``), moves of equal gain in the
        caller's order (the seed's)."""
        marbles = position.marbles
        # Per seat s: sums[2s] its cost, sums[2s + 1] its rows to go (evaluate.py).
        sums = tuple(x for s in range(len(marbles)) for x in self.evaluation.sums(s, marbles[s]))
        self.mode = self._mode(marbles, sums)
        cost = self.evaluation.costs[self.me]
        by_key = {pack(cost[m[0]] - cost[m[-1]], m[0], m[-1]): m for m in options}
        # Stable sorts keep the caller's order (the seed's) among equal moves.
        order = sorted(by_key, key=lambda k: k >> 18, reverse=True)
        line: Sequence[int]
        if self.native is None:
            plain = PlainSearch(self)
            best, line = plain.choose(marbles, sums, order), plain.line
        else:
            best, line = self._compiled(marbles, order)
        self.line = self._moves_of_line(marbles, line)
        return by_key[best]

    def _mode(self, marbles: tuple[int, ...], sums: tuple[int, ...]) -> str:
        """Which search the position asks for."""
        if not self.rivals or self.separated(marbles):
            return "solo"
        if len(self.rivals) > 1:
            return "playout" if crowd_meets_head_on(self.rules) else "solo"
        rival = self.rivals[0]
        ahead = sums[2 * rival + 1] - sums[2 * self.me + 1]  # rows to go
        if self.racing or (self.race_lead and ahead >= self.race_lead):
            return "forecast"
        return "alphabeta"

    def beam_width(self, depth: int, left: int | None = None) -> int:
        """How many positions each ply of a beam ``depth`` plies deep keeps: the nodes
        ``left`` (by default what is left of the allowance) spread over its plies, each
        position costing a node and, unless we are alone, one more for every rival's move
        listed before ours."""
        per_position = 1 + (0 if self.mode == "solo" else len(self.rivals))
        if left is None:
            left = self.limits.nodes - self.limits.used
        return max(1, left // (depth * per_position))

    def _compiled(self, marbles: tuple[int, ...], order: list[int]) -> tuple[int, Sequence[int]]:
        """The decision in the compiled core (src/sternhalma/_core/search.hpp), and its
        principal line, packed."""
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
        settings.rival_weight = self.rival_weight
        # The core's int; more than memory. Only the beam (solo, forecast) reads it.
        settings.beam_width = min(self.beam_width(self.beam_depth), 2**31 - 1)
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
        return result.best, result.line

    def _moves_of_line(self, marbles: tuple[int, ...], line: Sequence[int]) -> tuple[Move, ...]:
        """The packed line as moves with their paths. Alpha-beta's alternate with the
        rival's; the beam's are ours, in the forecast with the rival's foreseen move before
        each after the first (0: it stays), which is played here but left out. It ends at
        a move not legal there."""
        board = list(marbles)
        seat = self.me
        moves: list[Move] = []
        for number, key in enumerate(line):
            if self.mode == "forecast" and number % 2:
                if key:
                    start, end = unpack(key)
                    board[self.rivals[0]] ^= (1 << start) | (1 << end)
                continue
            start, end = unpack(key)
            move = self.rules.path(Position(self.rules, seat, tuple(board)), seat, start, end)
            if move is None:
                break
            moves.append(move)
            board[seat] ^= (1 << start) | (1 << end)
            if self.mode == "alphabeta":
                seat = self.rivals[0] if seat == self.me else self.me
        return tuple(moves)

    def separated(self, marbles: tuple[int, ...]) -> bool:
        """Whether every rival marble is behind every marble of ours (in our rows)."""
        rows = row_table(self.rules)[self.me]
        ours = min(rows[h] for h in bits(marbles[self.me]))
        theirs = max((rows[h] for s in self.rivals for h in bits(marbles[s])), default=0)
        return theirs < ours
