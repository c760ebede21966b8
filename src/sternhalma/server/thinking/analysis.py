"""The analysis board's work for the computer's thinking: plain data in, plain data out.

An ``AnalysisJob`` names its work in ``WORK`` (moves to go, best move and race of a
position; the start of a record; one move of a review) with its arguments; a thinking
process (server/thinking/pool.py, or ``sternhalma worker``) answers it as JSON text.
The server's side of the analysis board is server/web/review.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sternhalma.analysis import analyse_position, race, race_rules, replay, review_move, to_go
from sternhalma.game import Game
from sternhalma.notation import position_from_dict
from sternhalma.position import Position
from sternhalma.records import read_record


def record_game(text: str) -> Game:
    """The game of a record (checked by the referee); a race game."""
    game = read_record(text).game
    race_rules(game.rules)
    return game


def game_at(position: Position) -> Game:
    """A referee standing at ``position`` (no deadline: it is an analysis, not a game)."""
    return Game(position.rules, start=position, deadline_rule=False)


def analyse_job(position: object) -> dict[str, Any]:
    """Moves to go, best move and race of a position."""
    return analyse_position(game_at(position_from_dict(position))).as_dict()


def start_job(text: str) -> dict[str, Any]:
    """Moves to go and race at a record's start."""
    game = record_game(text)
    rules = race_rules(game.rules)
    counts = [to_go(rules, s, own) for s, own in enumerate(game.start.marbles)]
    return {
        "to_go": {rules.seats[s]: c.as_dict() for s, c in enumerate(counts)},
        "race": race(rules, counts),
    }


def move_job(text: str, number: int) -> dict[str, Any]:
    """The review of move ``number`` (from 1) of a record."""
    game = record_game(text)
    before, move = list(replay(game))[number - 1]
    return review_move(before, move).as_dict(race_rules(game.rules))


#: The analysis work a job may name.
WORK: dict[str, Callable[..., dict[str, Any]]] = {
    "analyse": analyse_job,
    "start": start_job,
    "move": move_job,
}


@dataclass(frozen=True)
class AnalysisJob:
    """An analysis for the computer's thinking: the name of its work in ``WORK`` and
    the arguments (plain data, checked on the server before the job is made)."""

    work: str
    args: tuple[Any, ...]

    def answer(self, nodes: int | None) -> str:
        """The work's result as JSON text (``nodes`` is for computer moves only)."""
        return json.dumps(WORK[self.work](*self.args))
