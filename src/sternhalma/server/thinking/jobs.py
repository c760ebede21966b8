"""The computer's moves and hints as work for a thinking process (never the event loop).

A job is plain data that answers itself with text (``Work``): a computer move or
hint (``Job``: variant id, start position, moves so far, level, seed, and the
limit: seconds to think, or the player's clock and increment; the thinking
process rebuilds the referee by replaying the moves and asks the player for its
move within that ``Limit``, whose allowance the time manager decides,
players/timeman.py; a move's answer is its text, a hint's a JSON object with the
moves the search foresees after it, ``read_hint``), or an analysis
(server/web/review.py ``AnalysisJob``: the work's name and its arguments, answered
with JSON text). A ``Slot`` (server/thinking/slot.py) runs it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sternhalma.game import OWNER_LEAVING, Game
from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.notation import position_from_json
from sternhalma.players import Limit, make_player
from sternhalma.table_view import hint_line


@dataclass(frozen=True)
class Job:
    """A computer move or hint."""

    variant: str
    start: str | None
    moves_made: tuple[int, ...] | None
    moves: tuple[str, ...]
    deadline_rule: bool
    level: str
    seed: int
    #: Seconds the player may think (None: its own default, or what the clock allows).
    seconds: float | None = None
    #: Seconds left on the player's clock and its increment a move (a clocked table).
    clock: float | None = None
    increment: float = 0.0
    #: The table's finishing rule (sternhalma.game.FINISH_RULES; Table.replay).
    finish_rule: str = OWNER_LEAVING
    #: A hint: the answer carries the moves the search foresees after its own.
    hint: bool = False

    @property
    def limit(self) -> Limit:
        return Limit(self.seconds, clock=self.clock, increment=self.increment)

    def answer(self, nodes: int | None) -> str:
        return choose(self, nodes)


def rebuild(job: Job) -> Game:
    """The referee after the job's moves, replayed (and so checked) from the start."""
    game = Game(
        job.variant,
        start=position_from_json(job.start) if job.start else None,
        deadline_rule=job.deadline_rule,
        moves_made=job.moves_made,
        finish_rule=job.finish_rule,
    )
    for text in job.moves:
        game.play(text)
    return game


def choose(job: Job, nodes: int | None = None) -> str:
    """The move text the player of ``job.level`` chooses; for a hint, JSON with its line
    too (``read_hint``). ``nodes`` fixes Hard's search size in place of the job's time
    (benchmarks: the same work on any machine)."""
    game = rebuild(job)
    limit = job.limit if nodes is None else Limit(nodes=nodes)
    choice = make_player(job.level, job.seed).choose(game, limit)
    move = game.rules.format_move(choice.move)
    if not job.hint:
        return move
    return json.dumps({"move": move, "line": hint_line(game, choice)})


def read_hint(answer: str) -> tuple[str, list[tuple[int, str]]]:
    """A hint job's answer: the move's text and the foreseen (seat, move text) after it.
    ValueError when the answer is not what ``choose`` writes."""
    try:
        value = read_json(answer)
    except JsonTextError as error:
        raise ValueError(f"a hint's answer is JSON: {error}") from None
    move = value.get("move") if isinstance(value, dict) else None
    line = value.get("line") if isinstance(value, dict) else None
    if not isinstance(move, str) or not isinstance(line, list):
        raise ValueError("a hint's answer is an object with a move text and a line")
    steps = []
    for step in line:
        if not (
            isinstance(step, list)
            and len(step) == 2
            and type(step[0]) is int
            and isinstance(step[1], str)
        ):
            raise ValueError("each move of a hint's line is a seat and a move text")
        steps.append((step[0], step[1]))
    return move, steps
