# The compiled core (src/sternhalma/_core/module.cpp); used through sternhalma/core.py.
import enum
from collections.abc import Sequence

class Search(enum.Enum):
    solo = 0
    alphabeta = 1
    forecast = 2
    playout = 3

class SearchSettings:
    me: int
    rivals: list[int]
    opponents: list[int]
    owner_counts: list[bool]
    search: Search
    breadth: int
    reply_breadth: int
    max_depth: int
    rival_weight: int
    beam_width: int
    beam_depth: int
    playout_moves: int
    playout_options: int
    nodes: int
    seconds: float
    def __init__(self) -> None: ...

class SearchResult:
    @property
    def best(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def used(self) -> int: ...
    @property
    def score(self) -> int: ...
    @property
    def line(self) -> list[int]: ...

class Evaluation:
    def __init__(
        self,
        costs: Sequence[Sequence[int]],
        to_go: Sequence[Sequence[int]],
        divisor: Sequence[int],
        group: int,
    ) -> None: ...

class RaceCore:
    def __init__(
        self,
        size: int,
        rays: Sequence[Sequence[Sequence[int]]],
        goals: Sequence[int],
        may_end: Sequence[int],
        long_jumps: bool,
        anti_blocking: bool,
        last_reply: bool,
        owners: Sequence[int] = (),
    ) -> None: ...
    def moves(self, marbles: Sequence[int], seat: int) -> bytes: ...
    def solo_beam(
        self, own: int, seat: int, weights: Sequence[int], width: int, max_moves: int
    ) -> tuple[bytes, int] | None: ...
    def finished(self, marbles: Sequence[int], seat: int, owner_counts: bool) -> bool: ...
    def apply(self, marbles: Sequence[int], seat: int, start: int, end: int) -> tuple[int, ...]: ...
    def search(
        self,
        evaluation: Evaluation,
        marbles: Sequence[int],
        settings: SearchSettings,
        order: Sequence[int],
    ) -> SearchResult: ...

class CaptureCore:
    def __init__(
        self, size: int, rays: Sequence[Sequence[Sequence[int]]], long_jumps: bool
    ) -> None: ...
    def distinct(self, pieces: int) -> list[list[int]]: ...
