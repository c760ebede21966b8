# The compiled core (src/sternhalma/_core/module.cpp); used through sternhalma/core.py.
from collections.abc import Sequence

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
        me: int,
        rivals: Sequence[int],
        opponents: Sequence[int],
        mode: int,
        order: Sequence[int],
        nodes: int,
        seconds: float,
        breadth: int,
        reply_breadth: int,
        max_depth: int,
        rival_weight: int,
        beam_width: int = 1,
        beam_depth: int = 24,
        playout_moves: int = 8,
        playout_options: int = 8,
        owner_counts: Sequence[bool] = (),
    ) -> tuple[int, int, int]: ...
