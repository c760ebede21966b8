"""What a viewer sees of a game at a table: the seats' progress, the move list, the
moves offered and the result, as the state of docs/protocol.md has them.

One place for both kinds of table: the server's (server/tables/table.py) and the
local game in the browser (browser.py). Plain engine data in, JSON-ready data out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sternhalma.game import Game
from sternhalma.players import Choice, foreseen
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules

#: How many of the moves its search foresees after the hinted move a hint shows.
HINT_LINE = 6


def seat_progress(game: Game, seat: int) -> dict[str, Any]:
    """A seat's colour, own moves, status, place and marbles home (race) or captures."""
    rules = game.rules
    position = game.position
    entry: dict[str, Any] = {
        "colour": rules.seats[seat],
        "moves": game.moves_made(seat),
        "status": game.status(seat),
        "place": game.places.get(seat),
    }
    if isinstance(rules, RaceRules):
        entry["home"] = rules.in_goal(position, seat)
        entry["of"] = rules.marbles_per_seat
    if position.captured:
        entry["captured"] = position.captured[seat]
    return entry


def legal_paths(game: Game) -> list[list[str]]:
    """The moves offered to a person: one path per resulting position (capture has many
    paths to the same position; the player needs only one of them)."""
    names = game.rules.board.names
    return [[names[h] for h in move] for move in game.rules.distinct_moves(game.position)]


def move_list(moves: Iterable[tuple[int, str]]) -> list[dict[str, Any]]:
    """The move list from (seat, move text) in order: ``{"ply", "seat", "text"}``."""
    return [{"ply": ply, "seat": seat, "text": text} for ply, (seat, text) in enumerate(moves, 1)]


def hint_line(game: Game, choice: Choice) -> list[tuple[int, str]]:
    """The first ``HINT_LINE`` moves ``choice``'s search foresees after its move, as (seat,
    move text): what a hint shows besides the move."""
    rules = game.rules
    return [(seat, rules.format_move(move)) for seat, move in foreseen(game, choice)[:HINT_LINE]]


def hint_reply(
    rules: Ruleset, version: int, seat: int, move: str, line: Iterable[tuple[int, str]]
) -> dict[str, Any]:
    """The ``hint`` message (docs/protocol.md) of a move text and its foreseen line;
    ValueError for a text that is no path or a seat the variant lacks."""

    def path(text: str) -> list[str]:
        return [rules.board.names[h] for h in rules.parse_path(text)]

    line = list(line)
    if any(not 0 <= mover < len(rules.seats) for mover, _ in line):
        raise ValueError(f"a hint's line names a seat {rules.id} does not have")

    return {
        "type": "hint",
        "v": version,
        "seat": seat,
        "path": path(move),
        "line": [{"seat": mover, "path": path(text)} for mover, text in line],
    }


def result_of(game: Game) -> dict[str, Any]:
    """A finished game's result: places, team places, ending, reason and seat."""
    result = game.result
    assert result is not None
    return {
        "places": list(result.places),
        "team_places": list(result.team_places),
        "ending": result.ending,
        "reason": result.reason,
        "seat": result.seat,
    }
