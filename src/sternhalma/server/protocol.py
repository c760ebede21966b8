"""The websocket protocol of a table: what a browser may send, checked before use.

docs/protocol.md is the prose version. Clients send intentions; the server
answers with versioned events that carry the table's whole public state, so a
client that missed some only needs the newest. Every message is a JSON object
with a "type". Anything malformed becomes a ProtocolError whose message says
what was wrong; the table is never touched by a bad message.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

from sternhalma.errors import SternhalmaError
from sternhalma.errors import TableError as TableError  # the server's modules import it here
from sternhalma.invisible import first_invisible
from sternhalma.jsontext import JsonTextError, read_json

#: Bumped when a message changes shape incompatibly; sent in "welcome".
PROTOCOL_VERSION = 2
#: The longest websocket message a table reads (characters); longer ones get an error.
MAX_MESSAGE = 4096
#: The longest body of a POST (bytes).
MAX_BODY = 65536
#: A nickname's length limits, after trimming.
NICKNAME_LENGTH = (1, 24)


class ProtocolError(SternhalmaError):
    """A message that is not a command the table understands."""


@dataclass(frozen=True)
class Hello:
    """First message of a connection: who I am (token) and the last version I saw."""

    token: str | None
    since: int | None


@dataclass(frozen=True)
class MoveCommand:
    seat: int
    path: tuple[str, ...]
    #: The player confirmed a move that puts them out (rules.md#leaving-home-in-time).
    confirm: bool
    #: The version the client saw when the player chose the move (stale -> refused).
    version: int | None


@dataclass(frozen=True)
class SeatCommand:
    """undo, hint or resign, on behalf of a seat (None: the seat the server picks)."""

    kind: Literal["undo", "hint", "resign"]
    seat: int | None


@dataclass(frozen=True)
class Abort:
    """Call the game off before every player has made a first move (online tables)."""


@dataclass(frozen=True)
class Rematch:
    """Ask for a rematch (online tables: it starts once every seated player asked)."""


@dataclass(frozen=True)
class Sit:
    """Take the free online seat ``seat`` under ``nickname``; ``identity`` is the secret
    of a player this browser already is (ratings follow it)."""

    seat: int
    nickname: str
    identity: str | None


@dataclass(frozen=True)
class Leave:
    """Stand up from my online seat before the game starts."""


@dataclass(frozen=True)
class Ping:
    """Answered by "pong" with the table's version: a keep-alive and a sync point."""


@dataclass(frozen=True)
class Look:
    """Ask for the position after ``ply`` moves (the move list's "look at this position")."""

    ply: int


@dataclass(frozen=True)
class Claim:
    """Claim the seat of an online player who left (tables/claims.py): ``win`` or
    ``draw`` with two players, ``computer`` or ``out`` with more."""

    seat: int
    claim: str


@dataclass(frozen=True)
class Chat:
    """A line for the table's chat (players' room or spectators', by who sends it);
    ``identity`` names a spectator (the secret of a player this browser is)."""

    text: str
    identity: str | None


Command = (
    Hello | MoveCommand | SeatCommand | Abort | Rematch | Look | Sit | Leave | Ping | Claim | Chat
)

KNOWN = "hello, move, undo, hint, resign, abort, rematch, look, sit, leave, ping, claim, chat"
#: The longest chat line (characters, after trimming).
CHAT_LENGTH = 140


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
    if kind == "abort":
        return Abort()
    if kind == "rematch":
        return Rematch()
    if kind == "sit":
        seat = _seat(data, required=True)
        assert seat is not None
        return Sit(seat, parse_nickname(data.get("nickname")), _optional_str(data, "identity"))
    if kind == "leave":
        return Leave()
    if kind == "ping":
        return Ping()
    if kind == "claim":
        seat = _seat(data, required=True)
        claim = data.get("claim")
        if claim not in ("win", "draw", "computer", "out"):
            raise ProtocolError('"claim" must be "win", "draw", "computer" or "out"')
        assert seat is not None
        return Claim(seat, claim)
    if kind == "chat":
        return Chat(parse_chat(data.get("text")), _optional_str(data, "identity"))
    if kind == "look":
        ply = _optional_int(data, "ply", minimum=0)
        if ply is None:
            raise ProtocolError('"look" needs "ply", the number of moves to show')
        return Look(ply)
    if not isinstance(kind, str):
        raise ProtocolError(f'a message needs a "type"; known: {KNOWN}')
    raise ProtocolError(f"unknown message type {kind[:40]!r}; known: {KNOWN}")


def decode(text: str | bytes | None) -> object:
    """One websocket message as JSON; ProtocolError when it is too long or not JSON text."""
    if not isinstance(text, str):
        raise ProtocolError("a message must be JSON text, not binary")
    if len(text) > MAX_MESSAGE:
        raise ProtocolError(
            f"the message is too long ({len(text)} characters; at most {MAX_MESSAGE})"
        )
    try:
        return read_json(text)
    except JsonTextError as error:
        raise ProtocolError(f"a message must be JSON: {error}") from None


def parse_nickname(value: object) -> str:
    """A nickname to show to others: trimmed, inner spaces collapsed, no control or
    invisible characters (sternhalma/invisible.py), 1 to 24 characters.
    TableError("nickname") says what is wrong."""
    low, high = NICKNAME_LENGTH
    if not isinstance(value, str):
        raise TableError("nickname", "type a nickname to sit down")
    text = " ".join(value.split())
    # NFKC too: a compatibility character may stand for an invisible one (U+FFA0).
    hidden = first_invisible(text) or first_invisible(unicodedata.normalize("NFKC", text))
    if hidden is not None:
        raise TableError(
            "nickname",
            f"a nickname cannot contain invisible characters (U+{ord(hidden):04X}): "
            "others could not tell it from the name without it",
        )
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
        raise TableError("nickname", "a nickname cannot contain control or unassigned characters")
    if not low <= len(text) <= high:
        raise TableError("nickname", f"a nickname has {low} to {high} characters")
    return text


def parse_chat(value: object) -> str:
    """A chat line: trimmed, inner white space collapsed, no control characters, 1 to
    CHAT_LENGTH characters. It is shown as text, never read as markup."""
    if not isinstance(value, str):
        raise ProtocolError('"text" must be the line to say')
    text = " ".join(value.split())
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
        raise TableError("chat", "a chat line cannot contain control or unassigned characters")
    if not text:
        raise TableError("chat", "type something to say")
    if len(text) > CHAT_LENGTH:
        raise TableError("chat-long", f"a chat line has at most {CHAT_LENGTH} characters")
    return text


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
