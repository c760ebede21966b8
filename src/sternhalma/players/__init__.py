"""Computer players (docs/players.md): Easy, Medium (the source documents' levels), Hard (ours).

Every level has one interface, ``choose(game, limit=None) -> Choice``
(players/choice.py): pure CPU work that returns a legal move for the seat to
move and what finding it took, reproducible from the player's seed, within the
allowance the time manager (players/timeman.py) draws from the ``Limit``.
``make_player(level, seed)`` builds one by name.
"""

from __future__ import annotations

from sternhalma.errors import SternhalmaError, shown
from sternhalma.players.base import Player
from sternhalma.players.choice import Choice, Info, Limit, foreseen
from sternhalma.players.easy import EasyPlayer
from sternhalma.players.hard import HardPlayer
from sternhalma.players.medium import MediumPlayer

#: The levels by name, weakest first.
PLAYERS: dict[str, type[Player]] = {
    "easy": EasyPlayer,
    "medium": MediumPlayer,
    "hard": HardPlayer,
}
LEVELS: tuple[str, ...] = tuple(PLAYERS)


class UnknownLevelError(SternhalmaError):
    """A computer level that does not exist."""


def make_player(level: str, seed: int = 0) -> Player:
    """The computer player of ``level`` (``easy``, ``medium`` or ``hard``) with ``seed``."""
    return PLAYERS[level_name(level)](seed)


def level_name(level: str) -> str:
    """The level as the registry spells it; UnknownLevelError naming the levels otherwise."""
    key = level.strip().lower() if isinstance(level, str) else level
    if key not in PLAYERS:
        raise UnknownLevelError(f"unknown level {shown(level)}; the levels are {', '.join(LEVELS)}")
    return key


__all__ = [
    "LEVELS",
    "PLAYERS",
    "Choice",
    "EasyPlayer",
    "HardPlayer",
    "Info",
    "Limit",
    "MediumPlayer",
    "Player",
    "UnknownLevelError",
    "foreseen",
    "level_name",
    "make_player",
]
