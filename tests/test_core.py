"""The compiled core against the Python engine (the reference), on every race variant
(and capture's chains on every capture variant).

The same legal moves (start, end) and the same result of apply on thousands of
seeded positions: positions of forward-biased play (marbles crossing the board,
arriving in their goals, where the goal lock holds) and random placements
(marbles anywhere, in other points, in their goals, packed into jump chains).
The same finishing on goals filled by a seat's own marbles and its goal owner's,
the owner's marbles counting and not (rules.md#finishing). Hard's search lives
in the compiled core only: it is checked against brute force (a plain minimax,
a breadth-first search for the fewest moves home), as is the pure-Python
fallback's.
``make test`` runs this file once more against a debug build of the core under
AddressSanitizer and UndefinedBehaviorSanitizer.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import pytest

from sternhalma import core
from sternhalma.benchmark import sample_positions
from sternhalma.boards.base import bits
from sternhalma.game import Game
from sternhalma.players.evaluate import WIN, pack, race_evaluation, unpack
from sternhalma.players.fallback import racing_move
from sternhalma.players.race import (
    CrowdSettings,
    DuelSettings,
    RaceSearch,
    SoloSettings,
    race_weights,
)
from sternhalma.players.search import Limits
from sternhalma.position import Position
from sternhalma.rules import VARIANTS
from sternhalma.rules.capture import CaptureRules
from sternhalma.rules.race import RaceRules

RACE = [rules for rules in VARIANTS.values() if isinstance(rules, RaceRules)]
PURE = os.environ.get("STERNHALMA_PURE", "") not in ("", "0")
compiled = pytest.mark.skipif(PURE, reason="STERNHALMA_PURE=1: the pure-Python engine only")


def played(rules: RaceRules, games: int, seed: int) -> Iterator[Position]:
    """Every position of ``games`` seeded games of forward-biased random play."""
    rng = random.Random(f"{rules.id}:{seed}")
    for _ in range(games):
        position = rules.initial()
        for _ in range(rng.randint(40, 260)):
            yield position
            moves = rules.legal_moves(position)
            if not moves:
                position = position.with_turn(rules.next_seat(position.turn))
                continue
            if rng.random() < 0.8:
                best = max(rules.progress(position, m) for m in moves)
                moves = [m for m in moves if rules.progress(position, m) >= best - 1]
            position = rules.apply_unchecked(position, rng.choice(moves))


def placed(rules: RaceRules, count: int, seed: int) -> Iterator[Position]:
    """Random placements: each seat's marbles on random holes, often near one another."""
    rng = random.Random(f"placed:{rules.id}:{seed}")
    size = rules.board.size
    for _ in range(count):
        free = list(range(size))
        if rng.random() < 0.5:  # crowd a region so that long chains exist
            centre = rng.randrange(size)
            free.sort(key=lambda h: rules.board.distance(centre, h))
            free = free[: max(len(rules.seats) * rules.marbles_per_seat * 2, size // 3)]
        rng.shuffle(free)
        marbles = []
        for _seat in rules.seats:
            count_here = rng.randint(1, rules.marbles_per_seat)
            marbles.append(rules.board.mask(free[:count_here]))
            free = free[count_here:]
        yield Position(rules, rng.randrange(len(rules.seats)), tuple(marbles))


def filled(rules: RaceRules, count: int, seed: int) -> Iterator[Position]:
    """Positions around a full goal: one seat's goal filled, all of it or all but one hole,
    by its own marbles and its goal owner's; an own marble mostly beside the empty hole;
    every other marble on a random free hole. That seat is mostly the one to move, so
    finishing moves are there to find."""
    rng = random.Random(f"filled:{rules.id}:{seed}")
    players = rules.players
    for _ in range(count):
        seat = rng.randrange(players)
        owner = rules.goal_owners[seat]
        left = [rules.marbles_per_seat] * players
        marbles = [0] * players
        goal = list(bits(rules.goals[seat]))
        rng.shuffle(goal)
        owners_share = rng.random()
        empty = rng.random() < 0.6
        for hole in goal[1:] if empty else goal:
            who = seat
            if (
                owner is not None
                and left[owner]
                and (rng.random() < owners_share or not left[seat])
            ):
                who = owner
            marbles[who] |= 1 << hole
            left[who] -= 1
        beside = [n for n in rules.board.neighbours[goal[0]] if not rules.goals[seat] >> n & 1]
        if empty and beside and left[seat] and rng.random() < 0.8:
            marbles[seat] |= 1 << rng.choice(beside)
            left[seat] -= 1
        free = [h for h in range(rules.board.size) if not any(m >> h & 1 for m in marbles)]
        rng.shuffle(free)
        for other in range(players):
            for _ in range(rng.randint(1, left[other]) if left[other] else 0):
                marbles[other] |= 1 << free.pop()
        turn = seat if rng.random() < 0.8 else rng.randrange(players)
        yield Position(rules, turn, tuple(marbles))


def reference_moves(position: Position) -> list[tuple[int, int]]:
    return sorted(move.key for move in position.rules.legal_moves(position))


@compiled
def test_the_compiled_core_is_in_use() -> None:
    assert core.COMPILED, "the compiled core was not built (make setup builds it)"
    assert core.NAME == "compiled (C++)"


@compiled
@pytest.mark.parametrize("rules", RACE, ids=lambda r: r.id)
def test_same_moves_and_apply_as_the_engine(rules: RaceRules) -> None:
    native = core.native_race_core(rules)
    positions = [*played(rules, 12, seed=1), *placed(rules, 600, seed=1)]
    assert len(positions) > 1500
    for position in positions:
        seat = position.turn
        found = core.pairs(native.moves(position.marbles, seat))
        assert len(found) == len(set(found)), position
        assert sorted(found) == reference_moves(position), position
        for move in position.rules.legal_moves(position)[:3]:
            after = rules.apply_unchecked(position, move)
            assert native.apply(position.marbles, seat, *move.key) == after.marbles


@pytest.mark.parametrize("rules", RACE, ids=lambda r: r.id)
def test_the_chosen_core_lists_the_engines_moves(rules: RaceRules) -> None:
    chosen = core.race_core(rules)
    for position in placed(rules, 40, seed=2):
        found = core.pairs(chosen.moves(position.marbles, position.turn))
        assert sorted(found) == reference_moves(position)


def test_the_positions_cover_the_goal_lock_and_other_points() -> None:
    # The differential positions include what the rules single out: marbles in
    # their goal (they may only move inside it) and marbles standing in another point.
    rules = VARIANTS["classic-6"]
    assert isinstance(rules, RaceRules)
    locked = sum(bool(p.marbles[p.turn] & rules.goals[p.turn]) for p in played(rules, 12, seed=1))
    elsewhere = sum(
        bool(p.marbles[p.turn] & ~rules.may_end[p.turn]) for p in placed(rules, 600, seed=1)
    )
    assert locked > 100
    assert elsewhere > 100


@compiled
def test_bad_bitboards_get_clear_errors() -> None:
    rules = VARIANTS["classic-2"]
    assert isinstance(rules, RaceRules)
    native = core.native_race_core(rules)
    marbles = rules.initial().marbles
    with pytest.raises(ValueError, match="not on the board"):
        native.moves((marbles[0] | 1 << 121, marbles[1]), 0)
    with pytest.raises(ValueError, match="not on the board"):
        native.moves((-1, marbles[1]), 0)
    with pytest.raises(ValueError, match="one bitboard per seat"):
        native.moves(marbles[:1], 0)
    with pytest.raises(ValueError, match="no such seat"):
        native.moves(marbles, 2)
    with pytest.raises(TypeError):
        native.moves(("white", marbles[1]), 0)
    with pytest.raises(ValueError, match="does not start on a marble"):
        native.apply(marbles, 0, 60, 61)


# -- capture's chains ------------------------------------------------------------------------
CAPTURE = [rules for rules in VARIANTS.values() if isinstance(rules, CaptureRules)]


@compiled
@pytest.mark.parametrize("rules", CAPTURE, ids=lambda r: r.id)
def test_the_core_lists_the_engines_capture_chains_in_its_order(rules: CaptureRules) -> None:
    # Capture's search keeps the first longest chains: the same list, in the same order.
    rng = random.Random(f"chains:{rules.id}")
    positions = sample_positions(rules, 40, seed=5)
    for _ in range(60):  # pieces anywhere, from a few to crowded
        pieces = sum(1 << h for h in rng.sample(range(rules.board.size), rng.randint(0, 60)))
        positions.append(Position(rules, 0, (), pieces, (0,) * rules.players))
    chains = 0
    for position in positions:
        found = core.distinct_captures(rules, position)
        assert found == rules.distinct_moves(position), position
        chains += len(found)
    assert chains > 1000


@compiled
def test_bad_pieces_get_clear_errors_from_the_capture_core() -> None:
    native = core.native_capture_core(VARIANTS["capture-2"])
    with pytest.raises(ValueError, match="not on the board"):
        native.distinct(1 << 121)
    with pytest.raises(ValueError, match="not on the board"):
        native.distinct(-1)
    with pytest.raises(TypeError):
        native.distinct("i9")
    with pytest.raises(ValueError, match="a ray leaves the board"):
        core._NATIVE.CaptureCore(2, [[[1]], [[2]]], False)
    with pytest.raises(ValueError, match="at most 8 rays"):
        core._NATIVE.CaptureCore(2, [[[1]] * 9, [[0]]], False)
    with pytest.raises(ValueError, match="rise or fall"):  # the long jumps' tables need it
        core._NATIVE.CaptureCore(3, [[[2, 1]], [[2]], [[1]]], False)


def native_tables(rules: RaceRules) -> Any:
    """Hard's evaluation tables for ``rules`` in the compiled core."""
    evaluation = RaceSearch(rules, 0, range(rules.players), Limits.of(1, None)).evaluation
    return core.native_evaluation(
        evaluation.costs, evaluation.to_go, evaluation.divisor, evaluation.group
    )


def native_settings(name: str, **fields: object) -> Any:
    """The compiled core's settings for the search ``name``: small counts, ``fields`` changed."""
    made = core.native_search_settings(name)
    values: dict[str, object] = {"me": 0, "rivals": [1], "opponents": [1], "breadth": 10}
    values |= {"reply_breadth": 10, "max_depth": 3, "rival_weight": 100, "beam_width": 5}
    values |= {"beam_depth": 4, "playout_moves": 2, "playout_options": 2, "nodes": 500}
    for name, value in (values | fields).items():
        setattr(made, name, value)
    return made


@compiled
def test_the_cores_search_takes_its_settings_as_one_struct_and_refuses_bad_ones() -> None:
    rules = VARIANTS["classic-2"]
    assert isinstance(rules, RaceRules)
    start, tables = rules.initial(), native_tables(rules)
    order = [pack(0, *move.key) for move in rules.legal_moves(start)]
    native = core.native_race_core(rules)
    result = native.search(tables, start.marbles, native_settings("alphabeta"), order)
    assert result.best in order and result.depth == 3 and 0 < result.used <= 500
    for search in ("solo", "forecast", "playout"):
        done = native.search(tables, start.marbles, native_settings(search), order)
        assert done.best in order and 0 < done.used <= 500
    with pytest.raises(KeyError):
        core.native_search_settings("brs")
    for fields, message in [
        ({"breadth": 0}, "breadth is at least 1"),
        ({"beam_depth": 0}, "beam_depth is at least 1"),
        ({"nodes": 0}, "nodes is at least 1"),
        ({"rivals": [0]}, "no such rival"),
        ({"opponents": [2]}, "an opponent is one of the rivals"),
    ]:
        with pytest.raises(ValueError, match=message):
            native.search(tables, start.marbles, native_settings("alphabeta", **fields), order)
    three = VARIANTS["classic-3"]
    assert isinstance(three, RaceRules)
    three_native, three_tables = core.native_race_core(three), native_tables(three)
    three_start = three.initial().marbles
    for search in ("alphabeta", "forecast"):
        crowd = native_settings(search, rivals=[1, 2], opponents=[1, 2])
        with pytest.raises(ValueError, match="and the forecast need exactly one rival"):
            three_native.search(three_tables, three_start, crowd, order)
    three_order = [pack(0, *move.key) for move in three.legal_moves(three.initial())]
    for search in ("solo", "playout"):  # the rivals standing, and racing between our moves
        crowd = native_settings(search, rivals=[1, 2], opponents=[1, 2])
        done = three_native.search(three_tables, three_start, crowd, three_order)
        assert done.best in three_order and 0 < done.used <= 500
    for wrong in (7, "alphabeta"):  # the search is one of the enum's
        with pytest.raises(TypeError):
            native_settings("alphabeta", search=wrong)


STAR_RACE = [rules for rules in RACE if rules.anti_blocking]


@compiled
@pytest.mark.parametrize("rules", RACE, ids=lambda r: r.id)
def test_same_finishing_as_the_engine_the_owners_marbles_counting_or_not(
    rules: RaceRules,
) -> None:
    native = core.native_race_core(rules)
    positions = [*filled(rules, 400, seed=1), *placed(rules, 100, seed=3)]
    differ = 0
    for position in positions:
        for seat in range(rules.players):
            answers = []
            for counts in (False, True):
                expected = rules.has_finished(position, seat, owner_counts=counts)
                assert native.finished(position.marbles, seat, counts) == expected, position
                answers.append(expected)
            differ += answers[0] != answers[1]
    # Where a goal has an owner, the positions show the rule at work.
    has_owner = rules.anti_blocking and any(o is not None for o in rules.goal_owners)
    assert (differ > 40) if has_owner else differ == 0


@pytest.mark.parametrize("rules", STAR_RACE, ids=lambda r: r.id)
def test_the_core_finishes_whom_the_referee_finishes_before_and_after_move_30(
    rules: RaceRules,
) -> None:
    # The referee decides whether the owner's marbles count (its own move 30, counted
    # from before a set-up start, or out, or finished); the core, told so, agrees.
    chosen = core.race_core(rules)
    waited = 0
    for position in filled(rules, 60, seed=2):
        full = [
            s for s in range(rules.players) if position.occupied & rules.goals[s] == rules.goals[s]
        ]
        for made in (rules.leaving - 1, rules.leaving):
            game = Game(rules, start=position, moves_made=[made] * rules.players)
            for seat in range(rules.players):
                if game.status(seat) == "out":
                    continue
                counts = game.owner_counts(seat)
                finished = game.status(seat) == "finished"
                assert finished == chosen.finished(game.position.marbles, seat, counts), position
                waited += seat in full and not finished and made < rules.leaving
    assert waited > 5 or all(o is None for o in rules.goal_owners)


# -- Hard's alpha-beta against a brute-force minimax -------------------------------------
class Minimax:
    """A plain negamax over the rules' move generator, every move at every node, no
    pruning and no table: the value Hard's alpha-beta must find at the same depth.

    The value for the seat to move at the horizon is the rival's cost less its own,
    each weighted (ours 100, the rival's ``rival_weight``, in percent); a move that
    finishes its mover is worth WIN less the plies to it, or a draw (0) when the first
    player finishes and the second can finish with its last reply (rules.md); a seat
    without moves passes.
    """

    def __init__(
        self, rules: RaceRules, me: int, rival_weight: int, owner_counts: tuple[bool, ...] = ()
    ) -> None:
        self.rules, self.me, self.rival_weight = rules, me, rival_weight
        self.owner_counts = owner_counts or (True,) * rules.players
        weights = race_weights(rules, DuelSettings(), CrowdSettings())
        self.evaluation = race_evaluation(rules, weights)

    def leaf(self, marbles: tuple[int, ...], turn: int) -> int:
        def cost(seat: int) -> int:
            weight = 100 if seat == self.me else self.rival_weight
            return weight * self.evaluation.value(seat, *self.evaluation.sums(seat, marbles[seat]))

        return cost(1 - turn) - cost(turn)

    def children(self, marbles: tuple[int, ...], turn: int) -> list[tuple[int, ...]]:
        position = Position(self.rules, turn, marbles)
        moves = self.rules.moves_of(position, turn, marbles[turn])
        return [self.rules.apply_unchecked(position, move).marbles for move in moves]

    def finished(self, marbles: tuple[int, ...], seat: int) -> bool:
        position = Position(self.rules, seat, marbles)
        return self.rules.has_finished(position, seat, owner_counts=self.owner_counts[seat])

    def finish(self, marbles: tuple[int, ...], seat: int, ply: int) -> int:
        last_reply = self.rules.last_reply and seat == 0
        if last_reply and any(self.finished(after, 1) for after in self.children(marbles, 1)):
            return 0
        return WIN - ply

    def value(self, marbles: tuple[int, ...], turn: int, depth: int, ply: int) -> int:
        """The value for ``turn`` to move, ``depth`` plies deep, ``ply`` plies from the root."""
        if depth == 0:
            return self.leaf(marbles, turn)
        children = self.children(marbles, turn)
        if not children:
            return -self.value(marbles, 1 - turn, depth - 1, ply + 1)
        return max(self.after(child, turn, depth, ply) for child in children)

    def after(self, child: tuple[int, ...], turn: int, depth: int, ply: int) -> int:
        """The value for ``turn`` of its move to ``child``."""
        if self.finished(child, turn):
            return self.finish(child, turn, ply)
        return -self.value(child, 1 - turn, depth - 1, ply + 1)


def few_marbles(rules: RaceRules, count: int, seed: int, most: int = 3) -> Iterator[Position]:
    """One to ``most`` marbles a seat in a crowded region (so that chains of jumps exist);
    in Halma about the goal of the seat to move, so that it may finish within a few plies.
    Seats 0 and 1 are to move; with three players the third's marbles stand among theirs."""
    rng = random.Random(f"few:{rules.id}:{seed}")
    board = rules.board
    while count:
        turn = rng.randrange(2)
        centre = rng.randrange(board.size)
        if not rules.anti_blocking:  # both seats' pieces about the goal of the seat to move
            centre = rng.choice(list(bits(rules.goals[turn])))
        marbles: list[int] = []
        for _seat in range(rules.players):
            near = sorted(range(board.size), key=lambda h: board.distance(centre, h))[:14]
            free = [h for h in near if not any(m >> h & 1 for m in marbles)]
            marbles.append(sum(1 << h for h in rng.sample(free, rng.randint(1, most))))
        position = Position(rules, turn, tuple(marbles))
        finished = any(rules.has_finished(position, seat) for seat in range(2))
        if not finished and rules.legal_moves(position):
            count -= 1
            yield position


def both_about_to_finish(rules: RaceRules, count: int, seed: int) -> Iterator[Position]:
    """Each seat's goal filled by its owner's marbles but one hole, and one own marble
    mostly a step from it: the first player's finish meets the last reply."""
    rng = random.Random(f"about-to-finish:{rules.id}:{seed}")
    board = rules.board
    while count:
        marbles = [rules.homes[0], rules.homes[1]]
        for seat in range(2):
            goal = rules.goals[seat]
            edge = [h for h in bits(goal) if any(not goal >> n & 1 for n in board.neighbours[h])]
            gap = rng.choice(edge)
            marbles[1 - seat] &= ~(1 << gap)
            occupied = marbles[0] | marbles[1]
            outside = [h for h in range(board.size) if not (occupied | goal) >> h & 1]
            beside = [h for h in board.neighbours[gap] if h in outside]
            marbles[seat] |= 1 << rng.choice(beside if rng.random() < 0.8 else outside)
        position = Position(rules, rng.randrange(2), tuple(marbles))
        finished = any(rules.has_finished(position, seat) for seat in range(2))
        if not finished and rules.legal_moves(position):
            count -= 1
            yield position


#: Hard's search on the compiled core (where it is built) and the pure-Python fallback.
CORES = (False, True) if core.COMPILED else (False,)


def against_minimax(start: Position, minimax: Minimax, depths: tuple[int, ...]) -> tuple[int, int]:
    """Each search of ``CORES`` at each of ``depths`` (every move at every node) finds the
    minimax's value and a move of that value. (The searches made, the depths whose best
    value is a finish); none where every rival marble is behind ours: that is solo."""
    rules = minimax.rules
    me = minimax.me
    duel = DuelSettings(
        breadth=999, reply_breadth=999, race_lead=0, rival_weight=minimax.rival_weight
    )
    crowd = CrowdSettings(rival_weight=minimax.rival_weight)
    options = rules.legal_moves(start)
    searched = finishes = 0
    for depth in depths:
        values = {
            move: minimax.after(rules.apply_unchecked(start, move).marbles, me, depth, 0)
            for move in options
        }
        best = max(values.values())
        finishes += best >= WIN - depth
        for compiled_core in CORES:
            search = RaceSearch(
                rules,
                me,
                (0, 1),
                Limits.of(10**12, None),
                duel=duel,
                crowd=crowd,
                max_depth=depth,
                owner_counts=minimax.owner_counts,
                compiled=compiled_core,
            )
            if search.separated(start.marbles):  # every rival marble behind ours: solo
                return searched, finishes
            move = search.choose(start, options)
            assert search.mode == "alphabeta"
            assert (search.depth_reached, search.score) == (depth, best), (start, depth)
            assert values[move] == best, (start, depth)
            searched += 1
    return searched, finishes


@pytest.mark.parametrize(
    ("variant", "positions", "count", "depths"),
    [
        ("classic-2", "few", 30, (1, 2, 3, 4)),
        ("classic-2", "fewer", 16, (5,)),  # deep enough for the table to meet transpositions
        ("halma-2", "few", 24, (1, 2, 3)),
        ("classic-2", "about-to-finish", 14, (1, 2, 3)),
        ("classic-3", "few", 12, (1, 2, 3)),  # two of three in play, the third standing
        ("fifteen-2", "few", 12, (1, 2, 3)),
        ("longjump-2", "few", 12, (1, 2, 3)),  # the chains by the lines' masks
    ],
)
def test_alpha_beta_finds_the_brute_force_minimax_value(
    variant: str, positions: str, count: int, depths: tuple[int, ...]
) -> None:
    """On small positions (few marbles, or a full goal's last hole), at depths 1 to 5, the
    core's alpha-beta (breadth, transposition table, iterative deepening) finds the value
    of a brute-force minimax, and a move of that value; so does the pure-Python fallback's
    (no table)."""
    rules = VARIANTS[variant]
    assert isinstance(rules, RaceRules)
    made = {
        "few": few_marbles,
        "fewer": lambda rules, count, seed: few_marbles(rules, count, seed, most=2),
        "about-to-finish": both_about_to_finish,
    }[positions]
    searched = finishes = 0
    for index, start in enumerate(made(rules, count, seed=1)):
        rival_weight = (100, 70)[index % 2]
        minimax = Minimax(rules, start.turn, rival_weight)
        searches, finished = against_minimax(start, minimax, depths)
        searched += searches
        finishes += finished
    assert searched >= count * len(depths) * len(CORES) // 2
    if positions == "about-to-finish" or variant == "halma-2":
        assert finishes > 0


@pytest.mark.skipif(not core.COMPILED, reason="the rule is the compiled core's alpha-beta")
def test_alpha_beta_plays_an_option_its_unfinished_iteration_proved_better() -> None:
    """The allowance runs out inside an iteration, which searches the last best option
    first: an option it has already proved better is played, with its value at that
    depth. Here 2,500 nodes end alpha-beta in its fifth iteration; a whole fourth
    iteration chooses otherwise, a whole fifth as the unfinished one did."""
    game = Game("classic-2")
    for text in [
        "m3-m5",
        "h14-i13",
        "m1-m3-k5",
        "e14-f13",
        "k3-i5",
        "f16-h14-j12",
        "l4-l5",
        "e16-e14-g12",
        "l2-l4-l6",
        "e15-g13-g11",
        "l5-k6",
        "f15-h13-j13-j11",
        "l3-j5-l5-l7",
    ]:
        game.play(text)
    rules, start = game.rules, game.position
    assert isinstance(rules, RaceRules)

    def search(nodes: int, depth: int) -> tuple[str, int, int | None]:
        searching = RaceSearch(rules, start.turn, (0, 1), Limits.of(nodes, None), max_depth=depth)
        move = searching.choose(start, rules.legal_moves(start))
        assert searching.mode == "alphabeta"
        return rules.format_move(move), searching.depth_reached, searching.score

    cut_short = search(2500, 16)
    assert cut_short[1] == 5
    assert search(10**9, 4)[0] != cut_short[0]
    assert search(10**9, 5) == cut_short


@pytest.mark.parametrize("variant", ["classic-2", "fifteen-2", "longjump-2"])
def test_beside_full_goals_alpha_beta_finds_the_minimax_value_the_owners_marbles_counting_or_not(
    variant: str,
) -> None:
    """A goal filled but a hole, partly by its owner's marbles: whether the owner's count
    (rules.md#finishing, told per seat) decides whether filling the hole finishes. The
    searches judge it as the referee does, at depths 1 and 2 (every move at every node)."""
    rules = VARIANTS[variant]
    assert isinstance(rules, RaceRules)
    rng = random.Random(f"owner-counts-minimax:{variant}")
    searched = finishes = 0
    for start in filled(rules, 30, seed=5):
        owner_counts = tuple(rng.random() < 0.5 for _ in rules.seats)
        minimax = Minimax(rules, start.turn, 100, owner_counts)
        if not rules.legal_moves(start) or any(minimax.finished(start.marbles, s) for s in (0, 1)):
            continue
        searches, finished = against_minimax(start, minimax, (1, 2))
        searched += searches
        finishes += finished
    assert searched >= 10 * len(CORES)
    assert finishes > 0


def fewest_moves_home(rules: RaceRules, seat: int, own: int, most: int) -> int | None:
    """The fewest moves that bring all of ``seat``'s marbles (alone on the board) into its
    goal, breadth first over every position; None when it takes more than ``most``."""
    level, seen = {own}, {own}
    for moves in range(most + 1):
        if any(own & rules.goals[seat] == own for own in level):
            return moves
        following = set()
        for marbles in level:
            for start, end in rules.move_ends(marbles, seat, marbles):
                after = marbles ^ (1 << start) ^ (1 << end)
                if after not in seen:
                    seen.add(after)
                    following.add(after)
        level = following
    return None


@pytest.mark.parametrize("variant", ["classic-2", "longjump-2", "halma-2"])
def test_alone_the_beam_takes_a_shortest_way_home(variant: str) -> None:
    """Nobody else on the board, a wide beam (every position a ply reaches) chooses a
    move after which the fewest moves home are one fewer: checked against a breadth-first
    search over every position, on the core and on the fallback."""
    rules = VARIANTS[variant]
    assert isinstance(rules, RaceRules)
    rng = random.Random(f"alone:{variant}")
    goal = list(bits(rules.goals[0]))
    near = [h for h in range(rules.board.size) if 0 < rules.distance_to_goal[0][h] <= 2]
    checked = 0
    while checked < 12:
        # Two or three marbles a step or two from the goal; on the star (a full goal
        # finishes) the others fill the rest of it, in Halma (every piece in) none.
        out = rng.randint(2, 3)
        own = sum(1 << h for h in rng.sample(near, out))
        if rules.anti_blocking:
            own |= sum(1 << h for h in rng.sample(goal, rules.marbles_per_seat - out))
        fewest = fewest_moves_home(rules, 0, own, 3)
        if fewest is None or fewest < 2:
            continue
        alone = Position(rules, 0, (own,) + (0,) * (rules.players - 1))
        options = rules.legal_moves(alone)
        for compiled_core in CORES:
            search = RaceSearch(
                rules,
                0,
                [0],
                Limits.of(10**7, None),
                solo=SoloSettings(beam_depth=fewest),
                compiled=compiled_core,
            )
            move = search.choose(alone, options)
            assert search.mode == "solo"
            after = own ^ (1 << move[0]) ^ (1 << move[-1])
            assert fewest_moves_home(rules, 0, after, fewest) == fewest - 1, (alone, move)
        checked += 1


@compiled
def test_the_forecasts_line_names_the_rivals_foreseen_moves() -> None:
    """The forecast's line: our plan with the rival's foreseen move before each of our
    moves after the first, its one move of most rows (the Python rule, ``racing_move``),
    or 0 (it stays) where it has several or none. Every move of ours is legal on the
    board those make."""
    rules = VARIANTS["classic-2"]
    assert isinstance(rules, RaceRules)
    native, tables = core.native_race_core(rules), native_tables(rules)
    to_go = race_evaluation(rules).to_go
    replies = set()
    for start in sample_positions(rules, 16, seed=5):
        me, rival = start.turn, 1 - start.turn
        order = [pack(0, *move.key) for move in rules.legal_moves(start)]
        settings = native_settings("forecast", me=me, rivals=[rival], opponents=[rival])
        settings.beam_width, settings.beam_depth, settings.nodes = 40, 6, 20_000
        result = native.search(tables, start.marbles, settings, order)
        assert result.line[0] == result.best and len(result.line) % 2 == 1
        board = list(start.marbles)
        for number, key in enumerate(result.line):
            seat = rival if number % 2 else me
            if seat == rival:
                racing = racing_move(rules, to_go[rival], board, rival)
                assert key == 0 if racing is None else unpack(key) == racing
                replies.add("one" if key else "stays")
                if not key:
                    continue
            else:
                here = Position(rules, seat, tuple(board))
                assert unpack(key) in {m.key for m in rules.moves_of(here, seat, board[seat])}
            board[seat] ^= (1 << unpack(key)[0]) | (1 << unpack(key)[1])
    assert replies == {"one", "stays"}
