"""The rules of a table rather than of the game: which seats a table may be made of,
who may take a move back and ask for a hint, and how an undo unwinds.

One place for both kinds of table: the server's (server/tables/) and the local game
in the browser (browser.py). Plain engine data in; a refusal is a TableError.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from sternhalma.errors import TableError
from sternhalma.game import Game
from sternhalma.players import LEVELS
from sternhalma.rules.base import Ruleset


class Taken(Protocol):
    """An entry of a table's history: who acted and the move's text (None: no move)."""

    seat: int
    move: str | None


Entry = TypeVar("Entry", bound=Taken)
Kind = TypeVar("Kind", bound=str)


def read_seats(
    rules: Ruleset, data: object, kinds: Sequence[Kind]
) -> list[tuple[Kind, str | None]]:
    """The seats of a new table from the lobby's JSON, as (kind, computer level);
    ``kinds`` are the kinds of seat this table may have."""
    if not isinstance(data, list) or len(data) != rules.players:
        raise TableError(
            "seats", f"{rules.id} needs exactly {rules.players} seats ({', '.join(rules.seats)})"
        )
    seats: list[tuple[Kind, str | None]] = []
    for colour, item in zip(rules.seats, data, strict=True):
        named = item.get("kind") if isinstance(item, dict) else None
        kind = next((k for k in kinds if k == named), None)
        if kind is None:
            named_kinds = [f'"{k}"' for k in kinds]
            allowed = ", ".join(named_kinds[:-1]) + " or " + named_kinds[-1]
            raise TableError("seats", f'{colour}: a seat here is {{"kind": {allowed}}}')
        level = None
        if kind == "computer":
            level = item.get("level", "easy")
            if not isinstance(level, str) or level not in LEVELS:
                raise TableError(
                    "level",
                    f"{colour}: unknown computer level {str(level)[:20]!r}; "
                    f"known: {', '.join(LEVELS)}",
                )
        seats.append((kind, level))
    return seats


def person_seats(kinds: Sequence[str]) -> list[int]:
    """The seats of the people at this screen."""
    return [s for s, kind in enumerate(kinds) if kind == "person"]


def against_computer(kinds: Sequence[str]) -> bool:
    """Undo and hints are offered only to people on one screen against the computer."""
    return "computer" in kinds and "person" in kinds


def can_undo(kinds: Sequence[str], game: Game, history: Sequence[Taken]) -> bool:
    """Whether a person's move is there to take back."""
    return (
        against_computer(kinds)
        and not game.is_over
        and any(kinds[a.seat] == "person" and a.move for a in history)
    )


def take_back(kinds: Sequence[str], game: Game, history: list[Entry]) -> list[str | None]:
    """Undo the last person's move and the computer's answers to it, newest first;
    ``history`` loses what was undone."""
    if not can_undo(kinds, game, history):
        raise TableError("no-undo", "there is no move of yours to take back")
    undone = []
    while history:
        action = history.pop()
        game.undo()
        undone.append(action.move)
        if kinds[action.seat] == "person":
            break
    return undone
