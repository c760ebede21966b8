"""The websocket protocol of a table: what a browser may send, checked before use.

docs/protocol.md is the prose version. Clients send intentions; the server
answers with versioned events that carry the table's whole public state, so a
client that missed some only needs the newest. Every message is a JSON object
with a "type". Anything malformed becomes a ProtocolError whose message says
what was wrong; the table is never touched by a bad message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from sternhalma.errors import SternhalmaError

#: Bumped when a message changes shape incompatibly; sent in "welcome".
PROTOCOL_VERSION = 1


class ProtocolError(SternhalmaError):
    """A message that is not a command the table understands."""


class TableError(SternhalmaError):
    """A well-formed command that the table refuses (not your seat, not your turn, ...).

    ``code`` lets the browser show the reason in the player's language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Hello:
    """First message of a connection: who I am (token) and the last version I saw."""

    token: str | None
    since: int | None


@dataclass(frozen=True)
class MoveCommand:
    seat: int
    path: tuple[str, ...]
    #: The player confirmed a move that puts them out (RULES.md "Leaving home in time").
    confirm: bool
    #: The version the client saw when the player chose the move (stale -> refused).
    version: int | None


@dataclass(frozen=True)
class SeatCommand:
    """undo, hint or resign, on behalf of a seat (None: the seat the server picks)."""

    kind: Literal["undo", "hint", "resign"]
    seat: int | None


@dataclass(frozen=True)
class Rematch:
    pass


@dataclass(frozen=True)
class Look:
    """Ask for the position after ``ply`` moves (the move list's "look at this position")."""

    ply: int


Command = Hello | MoveCommand | SeatCommand | Rematch | Look


def parse_command(data: object) -> Command:
    """A command from one decoded JSON message; ProtocolError says what is wrong."""
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object with a type")
    kind = data.get("type")
    if kind == "hello":
        return Hello(_optional_str(data, "token"), _optional_int(data, "since", minimum=0))
    if kind == "move":
        path = data.get("path")
        if (
            not isinstance(path, list)
            or len(path) < 2
            or not all(isinstance(p, str) and p for p in path)
        ):
            raise ProtocolError('"path" must be a list of at least two hole names')
        return MoveCommand(
            _seat(data, required=True) or 0,
            tuple(path),
            data.get("confirm") is True,
            _optional_int(data, "v", minimum=0),
        )
    if kind in ("undo", "hint", "resign"):
        return SeatCommand(kind, _seat(data, required=False))
    if kind == "rematch":
        return Rematch()
    if kind == "look":
        ply = _optional_int(data, "ply", minimum=0)
        if ply is None:
            raise ProtocolError('"look" needs "ply", the number of moves to show')
        return Look(ply)
    raise ProtocolError(
        f"unknown message type {kind!r}; known: hello, move, undo, hint, resign, rematch, look"
    )


def _optional_str(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise ProtocolError(f'"{key}" must be a string')
    return value


def _optional_int(data: dict[str, Any], key: str, *, minimum: int) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ProtocolError(f'"{key}" must be a whole number of at least {minimum}')
    return value


def _seat(data: dict[str, Any], *, required: bool) -> int | None:
    value = _optional_int(data, "seat", minimum=0)
    if value is None and required:
        raise ProtocolError('"seat" is missing: the seat index the command is for')
    return value


def error_message(error: Exception) -> dict[str, Any]:
    """The reply to a refused command: a code for translation and a readable message."""
    code = error.code if isinstance(error, TableError) else type(error).__name__
    return {"type": "error", "code": code, "message": str(error)}
