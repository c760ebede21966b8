"""Errors a player or a caller can read. All are ValueErrors."""


class SternhalmaError(ValueError):
    """Base of every error the engine raises for bad input."""


class InvalidMoveTextError(SternhalmaError):
    """Move text that is not a path of existing holes."""


class IllegalMoveError(SternhalmaError):
    """A well-formed move that the rules do not allow in this position."""


class InvalidPositionError(SternhalmaError):
    """A position (JSON or object) that cannot occur in the variant."""


class UnknownVariantError(SternhalmaError):
    """A variant id that is not in the registry."""


class TooManyMovesError(SternhalmaError):
    """A position with more legal moves than can sensibly be listed (capture chains)."""
