# The compiled core (src/sternhalma/_core/module.cpp); used through sternhalma/core.py.
from collections.abc import Sequence

class RaceCore:
    def __init__(
        self,
        size: int,
        rays: Sequence[Sequence[Sequence[int]]],
        goals: Sequence[int],
        may_end: Sequence[int],
        long_jumps: bool,
    ) -> None: ...
    def moves(self, marbles: Sequence[int], seat: int) -> bytes: ...
    def apply(self, marbles: Sequence[int], seat: int, start: int, end: int) -> tuple[int, ...]: ...
