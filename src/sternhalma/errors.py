"""Errors a player or a caller can read. All are ValueErrors."""

#: The most of a bad input an error message repeats.
SHOWN = 40


def shown(text: object, limit: int = SHOWN) -> str:
    """``text`` as an error message quotes it (repr): cut after ``limit`` characters,
    so a megabyte of bad input is not echoed whole in a one-line error."""
    value = str(text)
    if len(value) <= limit:
        return repr(value)
    return f"{value[:limit]!r}… ({len(value):,} characters)"


class SternhalmaError(ValueError):
    """Base of every error the engine raises for bad input."""


class TableError(SternhalmaError):
    """A well-formed command that a table refuses (not your seat, not your turn, ...).

    ``code`` lets the browser show the reason in the player's language.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


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
