"""The rules lesson ("learn by doing", the /learn page): positions and the moves asked.

Each step is a position and the moves the player is asked to make, all from
the engine: the legal moves of the position and, for each, whether it is
what the step teaches (a step, a jump, a chain, ...). The positions are made
here, some built by hand from the start position, some found in a seeded
game between two Medium players, so the lesson is the same every time and
always agrees with the rules. The words are in the page's i18n files
(``learn.<step id>``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from sternhalma.analysis import replay
from sternhalma.boards.base import bits
from sternhalma.boards.star import STAR
from sternhalma.game import FINISHED, Game
from sternhalma.match import GameTask, play_game
from sternhalma.notation import position_to_dict
from sternhalma.position import Move, Position
from sternhalma.records import read_record
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules

#: The game the found positions come from.
LESSON_SEED = 3


def _race(variant: str) -> RaceRules:
    rules = find_variant(variant)
    assert isinstance(rules, RaceRules)
    return rules


def _is_step(rules: RaceRules, move: Move) -> bool:
    return len(move) == 2 and move[1] in rules.board.neighbours[move[0]]


@cache
def _played(variant: str) -> list[Game]:
    """The referee before each move of a seeded Medium-against-Medium game."""
    rules = find_variant(variant)
    task = GameTask(
        0,
        variant,
        tuple(range(rules.players)),
        ("medium",) * rules.players,
        LESSON_SEED,
        None,
        record=True,
    )
    report = play_game(task)
    assert report.record is not None
    return [before for before, _ in replay(read_record(report.record).game)]


def _found(variant: str, wanted: Callable[[Game, Move], bool]) -> Game:
    """The first position of the seeded game where white to move has a move ``wanted``."""
    for game in _played(variant):
        if game.position.turn == 0 and any(wanted(game, m) for m in game.legal_moves()):
            return game
    raise AssertionError(f"no lesson position in the seeded {variant} game")  # pragma: no cover


def _through_point(rules: RaceRules, move: Move) -> bool:
    """A move that passes a hole of another point (where it may not end)."""
    return any(not rules.may_end[0] >> hole & 1 for hole in move[1:-1])


def _front(rules: RaceRules, area: int) -> list[tuple[int, int]]:
    """(hole of ``area``, a neighbour outside it where white may end), front row first."""
    board = rules.board
    return [
        (hole, n)
        for hole in bits(area)
        for n in board.neighbours[hole]
        if not area >> n & 1 and rules.may_end[0] >> n & 1
    ]


def _middle(rules: RaceRules, taken: int) -> int:
    """A free hole in the middle of the star."""
    free = [h for h in bits(STAR.all & ~STAR.points) if not taken >> h & 1]
    return free[len(free) // 2]


def _finish_game() -> Game:
    """White one step from finishing in a goal that still holds one of black's marbles,
    after black's 30th move: that marble counts for white (rules.md#finishing)."""
    rules = _race("classic-2")
    goal, home = rules.goals[0], rules.homes[0]
    last, outside = _front(rules, goal)[0]
    black_left = max(h for h in bits(goal) if h != last)
    white = (goal & ~(1 << last) & ~(1 << black_left)) | (1 << outside)
    black = (1 << black_left) | (home & ~(1 << min(bits(home))))
    white |= 1 << _middle(rules, white | black)
    position = Position(rules, 0, (white, black))
    return Game(rules, start=position, deadline_rule=False, moves_made=(40, 40))


def _deadline_game() -> Game:
    """White's 30th move with one marble still at home (the leaving-home deadline): a
    position of the seeded game at that move, white's hindmost marble put back home."""
    rules = _race("classic-2")
    deadline = rules.deadline
    assert deadline is not None
    game = next(
        g for g in _played("classic-2") if g.position.turn == 0 and g.moves_made(0) == deadline - 1
    )
    marbles = list(game.position.marbles)
    taken = marbles[0] | marbles[1]
    home_hole = next(
        h for h, n in _front(rules, rules.homes[0]) if not taken >> h & 1 and not taken >> n & 1
    )
    rows = rules.distance_to_goal[0]
    hindmost = max(bits(marbles[0] & ~rules.homes[0]), key=lambda h: (rows[h], h))
    marbles[0] ^= (1 << hindmost) | (1 << home_hole)
    made = (deadline - 1, deadline - 1)
    return Game(rules, start=Position(rules, 0, tuple(marbles)), moves_made=made)


def _captures(rules: Ruleset, position: Position, move: Move) -> bool:
    """A move that takes a piece (every jump in the capture game)."""
    return sum(rules.apply_unchecked(position, move).captured) > sum(position.captured)


@cache
def lesson() -> list[dict[str, Any]]:
    """Every step: its id, variant, position and legal moves, each move marked ``ok``
    when it is the asked one (and ``finishes`` / ``out`` where the rules say so)."""
    steps: list[dict[str, Any]] = []

    def add(ident: str, game: Game, ok: Callable[[Game, Move], bool]) -> None:
        rules = game.rules
        names = rules.board.names
        moves = []
        for move in game.legal_moves():
            after = game.copy()
            out = game.would_put_out(move) if game.deadline is not None else False
            after.play(move)
            moves.append(
                {
                    "text": rules.format_move(move),
                    "path": [names[h] for h in move],
                    "after": position_to_dict(after.position),
                    "ok": ok(game, move),
                    "finishes": after.status(0) == FINISHED,
                    "out": out,
                }
            )
        assert any(m["ok"] for m in moves), ident
        steps.append(
            {
                "id": ident,
                "variant": rules.id,
                "game": rules.game,
                "position": position_to_dict(game.position),
                "moves": moves,
            }
        )

    star = _race("classic-2")
    start = Game(star)
    add("step", start, lambda g, m: _is_step(star, m))
    add("jump", start, lambda g, m: len(m) == 2 and not _is_step(star, m))
    add("chain", _found("classic-2", lambda g, m: len(m) >= 3), lambda g, m: len(m) >= 3)
    add(
        "points",
        _found("classic-2", lambda g, m: _through_point(star, m)),
        lambda g, m: _through_point(star, m),
    )
    goal = star.goals[0]

    def in_goal(g: Game, m: Move) -> bool:
        return bool(goal >> m[0] & 1)

    add("goal", _found("classic-2", in_goal), in_goal)
    finish = _finish_game()
    add("finish", finish, lambda g, m: g.copy().play(m) is not None and _finishes(g, m))
    deadline = _deadline_game()
    add("deadline", deadline, lambda g, m: not g.would_put_out(m))
    capture = Game(find_variant("capture-2"))
    add("capture", capture, lambda g, m: _captures(g.rules, g.position, m))
    halma = _race("halma-2")
    add(
        "halma",
        Game(halma),
        lambda g, m: (
            _is_step(halma, m) and _diagonal(halma.board.names[m[0]], halma.board.names[m[1]])
        ),
    )
    return steps


def _finishes(game: Game, move: Move) -> bool:
    after = game.copy()
    after.play(move)
    return after.status(0) == FINISHED


def _diagonal(a: str, b: str) -> bool:
    return a[0] != b[0] and a[1:] != b[1:]


def steps() -> Iterator[str]:
    """The step ids in order."""
    return (step["id"] for step in lesson())
