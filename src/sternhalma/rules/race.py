"""Race games: Chinese checkers on the star (every classic variant) and Halma.

One class, configured per variant: the board, the seats, each seat's home
and goal, the holes where a move may not end, long jumps, teams, the
leaving-home deadline and what "finished" means.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from sternhalma.boards.base import Board, bits
from sternhalma.errors import IllegalMoveError
from sternhalma.position import Move, Position
from sternhalma.rules.base import Ruleset


class RaceRules(Ruleset):
    def __init__(
        self,
        id: str,
        game: str,
        board: Board,
        seats: Sequence[str],
        homes: Sequence[int],
        goals: Sequence[int],
        forbidden: Sequence[int],
        *,
        teams: Sequence[Sequence[int]] = (),
        long_jumps: bool = False,
        deadline: int | None = None,
        anti_blocking: bool = True,
        last_reply: bool = False,
        title: str = "",
    ) -> None:
        super().__init__(id, board, seats, teams, long_jumps, title)
        self.game = game
        #: homes[s], goals[s]: bitboards of seat s's start and target holes.
        self.homes: tuple[int, ...] = tuple(homes)
        self.goals: tuple[int, ...] = tuple(goals)
        #: may_end[s]: holes where a move of seat s may end (not another point).
        self.may_end: tuple[int, ...] = tuple(board.all & ~mask for mask in forbidden)
        self.marbles_per_seat = homes[0].bit_count()
        #: The player's move number from which no marble may stay home (None: no such rule).
        self.deadline = deadline
        #: Star rule: a full goal with at least one own marble finishes. Halma:
        #: every own piece must stand in the goal.
        self.anti_blocking = anti_blocking
        #: goal_owners[s]: the seat whose home is seat s's goal, or None (three players:
        #: every goal is an empty point). In pairs variants it is s's partner.
        self.goal_owners: tuple[int | None, ...] = tuple(
            next((t for t, home in enumerate(homes) if t != s and home & goal), None)
            for s, goal in enumerate(goals)
        )
        #: The owner's own move count from which its marbles count toward filling its home
        #: as another seat's goal (rules.md#finishing: 30, 40 with 15 marbles, the
        #: deadline's number whether or not a table keeps the deadline on); None: at once.
        self.leaving = deadline
        self.last_reply = last_reply
        #: distance_to_goal[s][h]: steps from hole h to the nearest goal hole of seat s.
        self.distance_to_goal: tuple[tuple[int, ...], ...] = tuple(
            tuple(min(board.distance(h, g) for g in bits(goal)) for h in range(board.size))
            for goal in self.goals
        )
        self._steps: tuple[tuple[tuple[int, int, Move], ...], ...] = tuple(
            tuple((1 << n, n, Move((h, n))) for n in board.neighbours[h]) for h in range(board.size)
        )
        #: _neighbourhood[h]: the holes one step from h, as a bit mask.
        self._neighbourhood: tuple[int, ...] = tuple(
            sum(1 << n for n in board.neighbours[h]) for h in range(board.size)
        )

    def initial(self) -> Position:
        return Position(self, 0, self.homes)

    # -- move generation (the hot path) ------------------------------------
    def legal_moves(self, position: Position) -> list[Move]:
        seat = position.turn
        return self.moves_of(position, seat, position.marbles[seat])

    def has_move(self, position: Position) -> bool:
        """Whether the seat to move can move. The referee asks this after every move for
        every seat, so a free step (nearly always there) answers without listing moves."""
        seat = position.turn
        free = ~position.occupied
        goal = self.goals[seat]
        may_end = self.may_end[seat]
        marbles = position.marbles[seat]
        while marbles:
            low = marbles & -marbles
            marbles ^= low
            if free & (goal if goal & low else may_end) & self._neighbourhood[low.bit_length() - 1]:
                return True
        return bool(self.legal_moves(position))

    def moves_of(self, position: Position, seat: int, marbles: int) -> list[Move]:
        """The legal moves of ``seat``'s marbles in ``marbles`` (a subset of its own),
        each with a shortest path."""
        return self._moves(position.occupied, seat, marbles, paths=True)

    def path(self, position: Position, seat: int, start: int, end: int) -> Move | None:
        """``seat``'s move from hole ``start`` to hole ``end`` with a shortest path, or None
        when there is none: the searches keep only a move's two ends."""
        return next((m for m in self.moves_of(position, seat, 1 << start) if m[-1] == end), None)

    def move_ends(self, occupied: int, seat: int, marbles: int) -> list[tuple[int, int]]:
        """(start, end) of the same moves, in the same order, without their paths: what
        a search needs. ``occupied``: every marble on the board."""
        return self._moves(occupied, seat, marbles, paths=False)

    def _moves(self, occupied: int, seat: int, marbles: int, paths: bool) -> list[Any]:
        """The one move generator of the Python engine: for each marble its steps, then
        breadth first every hole a chain of jumps reaches (each hole once, so by a
        shortest path); a marble in its goal lands only in the goal, and no move ends
        in another point. ``paths``: Moves, else (start, end) pairs."""
        free = ~occupied
        goal = self.goals[seat]
        may_end = self.may_end[seat]
        everywhere = self.board.all
        steps = self._steps
        jumps = self.board.jumps
        long_jumps = self.long_jumps
        moves: list[Any] = []
        append = moves.append
        while marbles:
            low = marbles & -marbles
            marbles ^= low
            start = low.bit_length() - 1
            if goal & low:
                land_ok = end_ok = goal
            else:
                land_ok, end_ok = everywhere, may_end
            step_ok = free & end_ok
            for bit, end, move in steps[start]:
                if step_ok & bit:
                    append(move if paths else (start, end))
            others = occupied ^ low
            closed = occupied | ~land_ok
            reached = [start]  # the holes in the order reached
            came_from = [-1]  # the index in reached of the hole each was jumped from
            for index, hole in enumerate(reached):
                landings = self._long_landings(hole, others) if long_jumps else jumps[hole]
                for over, land, bit in landings:
                    if others & over and not closed & bit:
                        closed |= bit
                        reached.append(land)
                        came_from.append(index)
                        if end_ok & bit:
                            append(_path(reached, came_from) if paths else (start, land))
        return moves

    def _long_landings(self, hole: int, others: int) -> list[tuple[int, int, int]]:
        """Long jumps from ``hole`` over ``others`` (k = 0 included) as the board's jumps
        are given: (the bit of the hole jumped over, the landing hole, its bit)."""
        landings = []
        for ray in self.board.rays[hole]:
            for k, over in enumerate(ray):
                if others >> over & 1:
                    far = 2 * k + 1
                    if far < len(ray) and not any(others >> h & 1 for h in ray[k + 1 : far + 1]):
                        landings.append((1 << over, ray[far], 1 << ray[far]))
                    break
        return landings

    def apply_unchecked(self, position: Position, move: Move) -> Position:
        seat = position.turn
        marbles = list(position.marbles)
        marbles[seat] ^= (1 << move[0]) | (1 << move[-1])
        return Position(self, self.next_seat(seat), tuple(marbles))

    # -- checking a path given by a person ---------------------------------
    def check_path(self, position: Position, path: Sequence[int]) -> Move:
        names = self.board.names
        colour = self.seats[position.turn]
        text = self.format_move(path)

        piece, hole = self._piece_word, self._hole_word

        def illegal(reason: str) -> IllegalMoveError:
            return IllegalMoveError(f"{text} is not legal for {colour}: {reason}")

        if len(path) < 2:
            raise illegal(f"a move needs at least two {hole}s")
        start = path[0]
        owner = position.owner(start)
        if owner is None:
            raise illegal(f"there is no {piece} on {names[start]}")
        if owner != position.turn:
            raise illegal(f"the {piece} on {names[start]} is {self.seats[owner]}'s")
        low = 1 << start
        occupied = position.occupied
        others = occupied ^ low
        in_goal = bool(self.goals[position.turn] & low)
        goal = self.goals[position.turn]
        end = path[-1]
        if len(path) == 2 and end in self.board.neighbours[start]:
            if occupied >> end & 1:
                raise illegal(f"{names[end]} is occupied")
        else:
            visited = {start}
            for a, b in pairwise(path):
                if b in visited:
                    raise illegal(f"the chain lands on {names[b]} twice")
                visited.add(b)
                if others >> b & 1:
                    raise illegal(f"{names[b]} is occupied")
                reason = self._jump_problem(a, b, others)
                if reason:
                    raise illegal(reason)
                if in_goal and not goal >> b & 1:
                    raise illegal(
                        f"the {piece} on {names[start]} is in its goal "
                        f"and may only land on goal {hole}s"
                    )
        if not self.may_end[position.turn] >> end & 1:
            raise illegal(f"a move cannot end in another point ({names[end]})")
        if in_goal and not goal >> end & 1:
            raise illegal(
                f"the {piece} on {names[start]} is in its goal and may only move inside it"
            )
        return Move(path)

    def _jump_problem(self, a: int, b: int, others: int) -> str:
        """Why a-b is not a jump over ``others`` ('' when it is one)."""
        names = self.board.names
        for ray in self.board.rays[a]:
            if b not in ray:
                continue
            far = ray.index(b)
            if not self.long_jumps or far == 1:
                if far != 1:
                    break
                return "" if others >> ray[0] & 1 else f"{names[ray[0]]} is empty"
            if far % 2 == 0:
                return f"{names[a]}-{names[b]} has no middle hole to jump over"
            middle = far // 2
            between = [h for h in ray[:far] if others >> h & 1]
            if between != [ray[middle]]:
                return (
                    f"a long jump {names[a]}-{names[b]} needs exactly one marble, on "
                    f"{names[ray[middle]]}, and empty holes around it"
                )
            return ""
        if a in self.board.neighbours[b]:
            return f"{names[a]}-{names[b]} is a step, and steps and jumps do not mix"
        return f"{names[a]}-{names[b]} is not a step or a jump"

    # -- facts the referee and the players use ------------------------------
    def has_finished(self, position: Position, seat: int, *, owner_counts: bool = True) -> bool:
        """Star (anti-blocking): every goal hole taken and one of them by an own marble;
        Halma: every own piece in the goal.

        ``owner_counts``: whether the marbles of the goal's owner (``goal_owners``)
        count toward filling it. rules.md#finishing counts them only once the owner is
        no longer leaving (its move 30, or out, or finished), which the position alone
        does not say: the referee asks ``Game.owner_counts``. Before that a goal holding
        one of the owner's marbles is not full.
        """
        goal = self.goals[seat]
        own = position.marbles[seat]
        if self.anti_blocking:
            owner = self.goal_owners[seat]
            if not owner_counts and owner is not None and position.marbles[owner] & goal:
                return False
            return position.occupied & goal == goal and bool(own & goal)
        return own != 0 and own & goal == own

    def standing(self, position: Position, seat: int) -> tuple[int, ...]:
        """Own marbles in the goal (more is better), then distance (less is better)."""
        return self.in_goal(position, seat), -self.distance(position, seat)

    def in_goal(self, position: Position, seat: int) -> int:
        """How many of the seat's own marbles stand in its goal."""
        return (position.marbles[seat] & self.goals[seat]).bit_count()

    def progress(self, position: Position, move: Move) -> int:
        """Steps the move gains toward the mover's goal."""
        table = self.distance_to_goal[position.turn]
        return table[move[0]] - table[move[-1]]

    def distance(self, position: Position, seat: int) -> int:
        """Total steps the seat's marbles outside the goal still need (rules.md#ranking)."""
        table = self.distance_to_goal[seat]
        return sum(table[h] for h in bits(position.marbles[seat] & ~self.goals[seat]))


def _path(reached: list[int], came_from: list[int]) -> Move:
    """The path to the last hole reached, back along the holes each was jumped from."""
    path = []
    index = len(reached) - 1
    while index >= 0:
        path.append(reached[index])
        index = came_from[index]
    return Move(reversed(path))
