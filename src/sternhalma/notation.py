"""Text forms: move text and position JSON (rules.md#move-text, rules.md#position-json).

Parsing never trusts its input: every problem raises a ValueError subclass
whose message says what is wrong.
"""

from __future__ import annotations

import json
from typing import Any

from sternhalma.errors import InvalidPositionError, shown
from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.position import Move, Position
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset


def parse_move(position: Position, text: str) -> Move:
    """The legal move written as ``text`` in ``position``."""
    return position.rules.parse_move(position, text)


def format_move(rules: Ruleset, move: Move) -> str:
    return rules.format_move(move)


def position_to_dict(position: Position) -> dict[str, Any]:
    rules = position.rules
    names = rules.board.names_of
    data: dict[str, Any] = {"variant": rules.base_id, "turn": position.colour}
    if rules.options:
        data["options"] = list(rules.options)
    if rules.game == "capture":
        data["pieces"] = names(position.pieces)
        data["captured"] = dict(zip(rules.seats, position.captured, strict=True))
    else:
        data["marbles"] = {
            colour: names(board)
            for colour, board in zip(rules.seats, position.marbles, strict=True)
        }
    return data


def position_to_json(position: Position) -> str:
    return json.dumps(position_to_dict(position))


def position_from_json(text: str) -> Position:
    """A position from its JSON text; InvalidPositionError says what is wrong."""
    try:
        data = read_json(text)
    except JsonTextError as error:
        raise InvalidPositionError(f"the position is not valid JSON: {error}") from None
    return position_from_dict(data)


def position_from_dict(data: object) -> Position:
    if not isinstance(data, dict):
        raise InvalidPositionError(
            "a position must be a JSON object with variant, turn and marbles"
        )
    variant = data.get("variant")
    if not isinstance(variant, str):
        raise InvalidPositionError('the position needs a "variant" string, like "classic-2"')
    try:
        rules = find_variant(_variant_id(variant, data.get("options", [])))
    except ValueError as error:
        raise InvalidPositionError(str(error)) from None
    turn = data.get("turn")
    if not isinstance(turn, str) or turn.strip().lower() not in rules.seats:
        raise InvalidPositionError(
            f'"turn" must be one of the seats of {rules.id}: {", ".join(rules.seats)}'
        )
    seat = rules.seats.index(turn.strip().lower())
    if rules.game == "capture":
        return _capture_from_dict(rules, seat, data)
    return _race_from_dict(rules, seat, data)


def _variant_id(variant: str, options: object) -> str:
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        raise InvalidPositionError('"options" must be a list of strings, like ["longjump"]')
    unknown = [o for o in options if o != "longjump"]
    if unknown:
        raise InvalidPositionError(
            f'unknown option {shown(unknown[0])}; the only option is "longjump"'
        )
    return f"{variant}-longjump" if options else variant


def _holes(rules: Ruleset, value: object, what: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidPositionError(f"{what} must be a list of hole names")
    holes = []
    for name in value:
        key = name.strip().lower()
        if key not in rules.board.index_of:
            raise InvalidPositionError(f"{what}: unknown hole {shown(name)}")
        holes.append(rules.board.index_of[key])
    return holes


def _race_from_dict(rules: Ruleset, seat: int, data: dict[str, Any]) -> Position:
    from sternhalma.rules.race import RaceRules

    assert isinstance(rules, RaceRules)
    marbles = data.get("marbles")
    if not isinstance(marbles, dict):
        raise InvalidPositionError('the position needs "marbles": an object of colour -> hole list')
    extra = [c for c in marbles if c not in rules.seats]
    if extra:
        raise InvalidPositionError(f"{shown(extra[0])} has no seat in {rules.id}")
    boards = []
    taken: dict[int, str] = {}
    names = rules.board.names
    for colour in rules.seats:
        if colour not in marbles:
            raise InvalidPositionError(f"the marbles of {colour} are missing")
        holes = _holes(rules, marbles[colour], f"{colour}'s marbles")
        for hole in holes:
            if hole in taken:
                raise InvalidPositionError(
                    f"two marbles on {names[hole]} ({taken[hole]} and {colour})"
                )
            taken[hole] = colour
        count = len(holes)
        allowed = rules.marbles_per_seat
        if count != allowed and not (count == 0 and rules.players >= 3):
            raise InvalidPositionError(f"{colour} has {count} marbles; {rules.id} needs {allowed}")
        boards.append(rules.board.mask(holes))
    if not boards[seat]:
        raise InvalidPositionError(
            f"{rules.seats[seat]} has no marbles and cannot be the one to move"
        )
    return Position(rules, seat, tuple(boards))


def _capture_from_dict(rules: Ruleset, seat: int, data: dict[str, Any]) -> Position:
    holes = _holes(rules, data.get("pieces"), '"pieces"')
    if len(set(holes)) != len(holes):
        raise InvalidPositionError("two pieces on one hole")
    captured = data.get("captured")
    if not isinstance(captured, dict) or set(captured) != set(rules.seats):
        raise InvalidPositionError(
            f'"captured" must give a count for each seat: {", ".join(rules.seats)}'
        )
    counts = [captured[c] for c in rules.seats]
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
        raise InvalidPositionError("captured counts must be whole numbers of at least 0")
    if len(holes) + sum(counts) != 60:
        raise InvalidPositionError(
            f"pieces ({len(holes)}) and captured ({sum(counts)}) must add up to 60"
        )
    return Position(rules, seat, (), rules.board.mask(holes), tuple(counts))
