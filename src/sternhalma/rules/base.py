"""The interface every game's rules fill in.

A ``Ruleset`` instance is one variant (``classic-2``, ``capture-3``, ...):
an id in the registry plus the options that make it differ. The engine is
pure: it knows positions and moves, not players, clocks or the referee.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from sternhalma.boards.base import Board
from sternhalma.errors import IllegalMoveError, InvalidMoveTextError, shown
from sternhalma.position import Move, Position


class Ruleset(ABC):
    #: "chinese-checkers", "capture" or "halma".
    game: str
    #: Whether two moves between the same holes are the same move (race games)
    #: or differ by their path (capture: the path decides what is captured).
    moves_by_path: bool = False
    #: Options that position JSON writes beside the base id (``["longjump"]``);
    #: the registry id is the base id with "-option" appended for each.
    options: tuple[str, ...] = ()

    def __init__(
        self,
        id: str,
        board: Board,
        seats: Sequence[str],
        teams: Sequence[Sequence[int]] = (),
        long_jumps: bool = False,
        title: str = "",
    ) -> None:
        self.id = id
        self.board = board
        #: Seat colours in turn order; a seat is an index into this tuple.
        self.seats: tuple[str, ...] = tuple(seats)
        #: Partners, as tuples of seats; empty when everyone plays alone.
        self.teams: tuple[tuple[int, ...], ...] = tuple(tuple(t) for t in teams)
        self.long_jumps = long_jumps
        self.title = title or id

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def base_id(self) -> str:
        """The id without its options: what position JSON writes as "variant"."""
        return self.id.removesuffix("".join(f"-{option}" for option in self.options))

    def seat_of(self, colour: str) -> int:
        """The seat index of a colour; ValueError if it has no seat here."""
        try:
            return self.seats.index(colour.strip().lower())
        except ValueError:
            raise ValueError(
                f"{shown(colour)} has no seat in {self.id} (seats: {', '.join(self.seats)})"
            ) from None

    def team_of(self, seat: int) -> int | None:
        for team, members in enumerate(self.teams):
            if seat in members:
                return team
        return None

    # -- what each game defines -------------------------------------------
    @abstractmethod
    def initial(self) -> Position:
        """The starting position, first seat to move."""

    @abstractmethod
    def legal_moves(self, position: Position) -> list[Move]:
        """Every legal move of the seat to move (race: one per (start, end))."""

    @abstractmethod
    def check_path(self, position: Position, path: Sequence[int]) -> Move:
        """The move for ``path`` if it is legal, else IllegalMoveError saying why."""

    @abstractmethod
    def apply_unchecked(self, position: Position, move: Move) -> Position:
        """The next position, for a move known to be legal (search, referee)."""

    # -- what the referee asks (defaults fit a game without them) -----------
    #: The player's own move number from which no marble may stay at home
    #: (rules.md#leaving-home-in-time); None where the game has no such rule.
    deadline: int | None = None
    #: Two-player star rule: when the first seat finishes, the second gets one more move.
    last_reply: bool = False

    @property
    def ends_at_first_finish(self) -> bool:
        """Whether the game ends once one player (with teams: one whole team) has finished.

        Halma's rule (the rest are ranked by standing). Chinese checkers plays
        on for the next places. A subclass may override this with a class attribute.
        """
        return self.game == "halma"

    @property
    def repetition_is_draw(self) -> bool:
        """Whether a threefold repetition is a draw for everyone still playing (Halma,
        rules.md#the-end-of-the-game) rather than ranked by standing (Chinese checkers)."""
        return self.game == "halma"

    def has_finished(self, position: Position, seat: int, *, owner_counts: bool = True) -> bool:
        """Whether ``seat`` has reached its goal (a state: once true, the referee keeps it).

        ``owner_counts``: whether the marbles of the player whose home is the goal count
        toward filling it (the star's rule, rules.md#finishing; the referee knows).
        """
        return False

    @abstractmethod
    def standing(self, position: Position, seat: int) -> tuple[int, ...]:
        """How well ``seat`` stands when a game is ranked early; larger is better."""

    # -- shared ------------------------------------------------------------
    def next_seat(self, seat: int) -> int:
        return (seat + 1) % len(self.seats)

    def apply(self, position: Position, move: Sequence[int]) -> Position:
        """The position after ``move``; IllegalMoveError if it is not legal."""
        self._check_rules(position)
        return self.apply_unchecked(position, self.check_path(position, move))

    def progress(self, position: Position, move: Move) -> int:
        """How much ``move`` brings the mover closer to winning (0 where it means nothing)."""
        return 0

    def has_move(self, position: Position) -> bool:
        return bool(self.legal_moves(position))

    def distinct_moves(self, position: Position) -> list[Move]:
        """One legal move per resulting position: all a search or a computer player needs.

        Race moves already differ by (start, end); capture overrides this,
        since its many paths often lead to the same position.
        """
        return self.legal_moves(position)

    def is_legal(self, position: Position, move: Sequence[int]) -> bool:
        try:
            self.check_path(position, move)
        except IllegalMoveError:
            return False
        return True

    def format_move(self, move: Sequence[int]) -> str:
        return "-".join(self.board.names[hole] for hole in move)

    def parse_path(self, text: str) -> Move:
        """A path of existing holes from move text (``m1-m3-k5``; capture moves also
        ``i7xi9xg11``: ``x`` marks a capture, so the race games refuse it)."""
        cleaned = text.strip().lower()
        if not cleaned:
            raise InvalidMoveTextError("empty move: write the path of holes, like m1-m3-k5")
        if "x" in cleaned:
            if self.game != "capture":
                raise InvalidMoveTextError(
                    f"{shown(text.strip())}: x marks a capture, and {self.id} has none; "
                    "join the holes with '-'"
                )
            cleaned = cleaned.replace("x", "-")
        parts = [part.strip() for part in cleaned.split("-")]
        if len(parts) < 2:
            raise InvalidMoveTextError(
                f"{shown(text.strip())} is not a move: write at least two holes joined by '-'"
            )
        holes = []
        for part in parts:
            if part not in self.board.index_of:
                raise InvalidMoveTextError(
                    f"unknown {self._hole_word} {shown(part)}"
                    if part
                    else f"{shown(text)} has an empty hole name"
                )
            holes.append(self.board.index_of[part])
        return Move(holes)

    def parse_move(self, position: Position, text: str) -> Move:
        """The legal move written as ``text``; InvalidMoveTextError or IllegalMoveError."""
        self._check_rules(position)
        return self.check_path(position, self.parse_path(text))

    @property
    def _hole_word(self) -> str:
        return "square" if self.board.kind == "square" else "hole"

    @property
    def _piece_word(self) -> str:
        """What error messages call a man: Halma has pieces, Chinese checkers marbles."""
        return "piece" if self.board.kind == "square" else "marble"

    def _check_rules(self, position: Position) -> None:
        if position.rules is not self:
            raise IllegalMoveError(f"the position is {position.rules.id}, not {self.id}")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.id}>"
