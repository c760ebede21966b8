"""Building positions for tests by hand."""

from __future__ import annotations

from sternhalma.position import Position
from sternhalma.rules import find_variant


def position(variant: str, turn: str, **marbles: str) -> Position:
    """A position with the given marbles (space-separated hole names per colour).

    Colours left out have no marbles. Counts are not checked, so a rule can be
    shown with just the marbles it needs.
    """
    rules = find_variant(variant)
    boards = tuple(rules.board.mask_of_names(marbles.get(c, "").split()) for c in rules.seats)
    return Position(rules, rules.seat_of(turn), boards)


def move_texts(pos: Position, start: str | None = None) -> set[str]:
    """The legal moves as text, optionally only those of the marble on ``start``."""
    rules = pos.rules
    texts = {rules.format_move(m) for m in rules.legal_moves(pos)}
    return {t for t in texts if start is None or t.split("-")[0] == start}


def ends(pos: Position, start: str) -> set[str]:
    return {t.split("-")[-1] for t in move_texts(pos, start)}
