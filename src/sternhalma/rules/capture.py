"""Capture Chinese checkers (rules.md#capture-chinese-checkers): shared pieces, jumps, captures.

All 60 pieces start on the hexagon around the empty centre and belong to
nobody. A move is a chain of jumps by one piece; every jumped piece is
removed at once and credited to the mover, so a chain may land on a hole it
visited before (even its start), but never jumps the same piece twice. A
move is identified by its whole path: two chains between the same holes
capture different pieces. The game ends when no jump exists; the most
captures wins.

Move generation walks every chain depth first over bitboards. The number of
paths grows fast once the board thins out; ``distinct_moves`` keeps one path
per resulting position for callers that only need the positions (search).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice, pairwise

from sternhalma.boards.base import bits
from sternhalma.boards.star import STAR
from sternhalma.errors import IllegalMoveError, TooManyMovesError
from sternhalma.position import Move, Position
from sternhalma.rules.base import Ruleset

#: Seats in turn order for 2..6 players (rules.md#capture-chinese-checkers, a Decision for 5).
CAPTURE_SEATING: dict[int, tuple[str, ...]] = {
    2: ("white", "black"),
    3: ("white", "blue", "yellow"),
    4: ("white", "red", "black", "yellow"),
    5: ("white", "red", "blue", "black", "yellow"),
    6: ("white", "red", "blue", "black", "yellow", "green"),
}

#: Pieces on the board plus all captures, at every moment of a game.
TOTAL_PIECES = 60

#: The most paths ``legal_moves`` lists (about 150 MB); beyond, TooManyMovesError.
MOVE_LIST_LIMIT = 1_000_000

#: (bit of the jumped hole, bits that must be empty besides the landing hole).
_Hop = tuple[int, int]
#: One direction's jumps from a hole, nearest jumped hole first:
#: (bit of the jumped hole, bits that must be empty including the landing, landing hole or -1).
_Ray = tuple[tuple[int, int, int], ...]
#: What distinct move generation remembers: (hole, remaining pieces) states, boards produced.
_Dedup = tuple[set[tuple[int, int]], set[int]]


class CaptureRules(Ruleset):
    game = "capture"
    moves_by_path = True

    def __init__(self, id: str, players: int, *, long_jumps: bool = False, title: str = "") -> None:
        super().__init__(id, STAR, CAPTURE_SEATING[players], long_jumps=long_jumps, title=title)
        self.options: tuple[str, ...] = ("longjump",) if long_jumps else ()
        self.start_pieces = STAR.hexagon & ~(1 << STAR.index("i9"))
        assert self.start_pieces.bit_count() == TOTAL_PIECES
        hops: list[dict[int, _Hop]] = []
        rays: list[tuple[_Ray, ...]] = []
        for per_direction in STAR.rays:
            from_here: dict[int, _Hop] = {}
            directions = []
            for ray in per_direction:
                entries = []
                # A piece k holes away is jumped (long jumps) when the k holes
                # before it and the k after it are empty; landing 2k + 1 holes away.
                for k, over in enumerate(ray if long_jumps else ray[:1]):
                    far = 2 * k + 1
                    if far >= len(ray):
                        entries.append((1 << over, 0, -1))  # blocks, no room to land
                        continue
                    around = STAR.mask(ray[k + 1 : far])
                    from_here[ray[far]] = (1 << over, STAR.mask(ray[:k]) | around)
                    entries.append((1 << over, around | 1 << ray[far], ray[far]))
                if entries:
                    directions.append(tuple(entries))
            hops.append(from_here)
            rays.append(tuple(directions))
        #: hops[a][b]: the jump a-b as (jumped bit, bits that must be empty besides b).
        self._hops: tuple[dict[int, _Hop], ...] = tuple(hops)
        #: rays[a]: per direction, the jumps from a to try in order (generation).
        self._rays: tuple[tuple[_Ray, ...], ...] = tuple(rays)

    def initial(self) -> Position:
        return Position(self, 0, (), self.start_pieces, (0,) * self.players)

    # -- move generation --------------------------------------------------------
    def legal_moves(self, position: Position, *, limit: int = MOVE_LIST_LIMIT) -> list[Move]:
        """Every distinct path (a path is the move: it decides what is captured).

        TooManyMovesError when there are more than ``limit``: a thinned-out
        board can hold millions of chains. ``iter_moves`` streams them,
        ``distinct_moves`` keeps one per resulting position, ``count_moves``
        counts them, and ``check_path`` checks one without listing any.
        """
        moves = list(islice(self.iter_moves(position), limit + 1))
        if len(moves) > limit:
            raise TooManyMovesError(
                f"this position has more than {limit:,} different capture chains, "
                "too many to list; play a path, or ask for one move per resulting position"
            )
        return moves

    def iter_moves(self, position: Position, *, distinct: bool = False) -> Iterator[Move]:
        """The legal moves one by one, so a caller can stop early.

        With ``distinct``, one path for each different resulting position
        (search needs no more): different chains, even of different pieces,
        often capture the same pieces and leave the same board.
        """
        pieces = position.pieces
        # A (hole, remaining pieces) state fixes everything that can follow,
        # whichever piece started the chain; the board after a chain is the
        # remaining pieces plus the landing hole.
        dedup: _Dedup | None = (set(), set()) if distinct else None
        for start in bits(pieces):
            yield from self._chains(start, pieces ^ (1 << start), dedup)

    def distinct_moves(self, position: Position) -> list[Move]:
        """One path per resulting position (far fewer than ``legal_moves`` mid-game)."""
        return list(self.iter_moves(position, distinct=True))

    def _chains(self, start: int, rest: int, dedup: _Dedup | None) -> Iterator[Move]:
        """Every chain of the piece on ``start`` over the pieces ``rest`` (depth first).

        With ``dedup`` (states seen, boards produced): a chain reaching a
        state already seen is cut, since everything after it was already
        produced, and a chain whose board was already produced is not yielded.
        """
        table = self._rays
        stack: list[tuple[int, int, tuple[int, ...]]] = [(start, rest, (start,))]
        pop, push = stack.pop, stack.append
        while stack:
            hole, left, path = pop()
            for direction in table[hole]:
                for over, empty, land in direction:
                    if left & over:
                        if land >= 0 and not left & empty:
                            after = left ^ over
                            longer = (*path, land)
                            if dedup is None:
                                yield Move(longer)
                            else:
                                states, boards = dedup
                                if (land, after) in states:
                                    break
                                states.add((land, after))
                                board = after | 1 << land
                                if board not in boards:
                                    boards.add(board)
                                    yield Move(longer)
                            push((land, after, longer))
                        break

    def _landings(self, hole: int, left: int) -> Iterator[tuple[int, int]]:
        """(jumped bit, landing hole) of each jump from ``hole`` over the pieces ``left``."""
        for direction in self._rays[hole]:
            for over, empty, land in direction:
                if left & over:
                    if land >= 0 and not left & empty:
                        yield over, land
                    break

    def count_moves(self, position: Position) -> int:
        """How many paths ``legal_moves`` would list, without listing them.

        Paths from the same (hole, remaining pieces) state are counted once
        and reused, so this costs about as much as ``distinct_moves``.
        """
        memo: dict[tuple[int, int], int] = {}

        def count(hole: int, left: int) -> int:
            key = (hole, left)
            if key not in memo:
                memo[key] = sum(
                    1 + count(land, left ^ over) for over, land in self._landings(hole, left)
                )
            return memo[key]

        pieces = position.pieces
        return sum(count(start, pieces ^ (1 << start)) for start in bits(pieces))

    def continuations(self, position: Position, path: Sequence[int]) -> list[int]:
        """The holes where the chain ``path`` (a legal move, or just its start) can jump next.

        What a table lights up while a person plays a capture chain hop by hop.
        """
        if len(path) > 1:
            self.check_path(position, path)
        elif not path or not position.pieces >> path[0] & 1:
            return []
        left = position.pieces ^ (1 << path[0]) ^ self.captured_by(path)
        return [land for _, land in self._landings(path[-1], left)]

    def has_move(self, position: Position) -> bool:
        """Whether any jump exists (cheap: the first jump found answers)."""
        pieces = position.pieces
        for start in bits(pieces):
            for _ in self._landings(start, pieces ^ (1 << start)):
                return True
        return False

    def captured_by(self, move: Sequence[int]) -> int:
        """The bitboard of the pieces a legal ``move`` captures."""
        hops = self._hops
        taken = 0
        for a, b in pairwise(move):
            taken |= hops[a][b][0]
        return taken

    def apply_unchecked(self, position: Position, move: Move) -> Position:
        taken = self.captured_by(move)
        pieces = (position.pieces ^ (1 << move[0]) ^ taken) | (1 << move[-1])
        captured = list(position.captured)
        captured[position.turn] += taken.bit_count()
        return Position(self, self.next_seat(position.turn), (), pieces, tuple(captured))

    # -- checking a path given by a person ------------------------------------
    def check_path(self, position: Position, path: Sequence[int]) -> Move:
        names = self.board.names
        text = self.format_move(path)

        def illegal(reason: str) -> IllegalMoveError:
            return IllegalMoveError(f"{text} is not legal for {position.colour}: {reason}")

        if len(path) < 2:
            raise illegal("a move needs at least two holes")
        start = path[0]
        if not position.pieces >> start & 1:
            raise illegal(f"there is no piece on {names[start]}")
        left = position.pieces ^ (1 << start)
        for a, b in pairwise(path):
            hop = self._hops[a].get(b)
            if hop is None:
                raise illegal(self._not_a_jump(a, b))
            over, empty = hop
            middle = names[over.bit_length() - 1]
            if left >> b & 1:
                raise illegal(f"{names[b]} is occupied")
            if not left & over:
                captured_here = position.pieces & over
                raise illegal(
                    f"{middle} was already captured in this move"
                    if captured_here
                    else f"there is no piece on {middle} to jump"
                )
            if left & empty:
                raise illegal(
                    f"a long jump {names[a]}-{names[b]} needs exactly one piece, on {middle}, "
                    "and empty holes around it"
                )
            left ^= over
        return Move(path)

    def _not_a_jump(self, a: int, b: int) -> str:
        names = self.board.names
        if b in self.board.neighbours[a]:
            return f"{names[a]}-{names[b]} is a step; capture moves are jumps only"
        if a == b:
            return f"{names[a]}-{names[b]} does not move"
        in_line = any(b in ray for ray in self.board.rays[a])
        if in_line and not self.long_jumps:
            return f"{names[a]}-{names[b]} is not a jump (long jumps are off in {self.id})"
        if in_line:
            return f"{names[a]}-{names[b]} has no middle hole to jump over"
        return f"{names[a]}-{names[b]} is not a jump: the holes are not in a straight line"

    # -- facts the referee and the players use --------------------------------
    def standing(self, position: Position, seat: int) -> tuple[int, ...]:
        """Captured pieces: the most wins, equal counts share a place."""
        return (position.captured[seat],)

    def progress(self, position: Position, move: Move) -> int:
        """Pieces the move captures (one per hop)."""
        return len(move) - 1


def capture_variants() -> list[CaptureRules]:
    """capture-2 … capture-6, then the same with long jumps."""
    return [
        CaptureRules(
            f"capture-{players}{'-longjump' if long_jumps else ''}",
            players,
            long_jumps=long_jumps,
            title=f"Capture, {players} players{', long jumps' if long_jumps else ''}",
        )
        for long_jumps in (False, True)
        for players in CAPTURE_SEATING
    ]
