"""What a viewer sees of a game at a table: the seats' progress, the move list, the
moves offered and the result, as the state of docs/protocol.md has them.

One place for both kinds of table: the server's (server/tables/table.py) and the
local game in the browser (browser.py). Plain engine data in, JSON-ready data out.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sternhalma.game import Game
from sternhalma.rules.race import RaceRules


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
