"""sternhalma: Chinese checkers, capture Chinese checkers and Halma.

The public API of the rules engine; the referee, players and server build on it.
"""

from sternhalma.errors import (
    IllegalMoveError,
    InvalidMoveTextError,
    InvalidPositionError,
    SternhalmaError,
    UnknownVariantError,
)
from sternhalma.game import Game, GameError, Result
from sternhalma.notation import parse_move, position_from_json, position_to_json
from sternhalma.position import Move, Position
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.rules.base import Ruleset

__all__ = [
    "VARIANTS",
    "Game",
    "GameError",
    "IllegalMoveError",
    "InvalidMoveTextError",
    "InvalidPositionError",
    "Move",
    "Position",
    "Result",
    "Ruleset",
    "SternhalmaError",
    "UnknownVariantError",
    "find_variant",
    "parse_move",
    "position_from_json",
    "position_to_json",
]
