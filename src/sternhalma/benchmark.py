"""Engine speed figures for ``sternhalma bench`` (printed, never asserted)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from sternhalma import core
from sternhalma.position import Position
from sternhalma.rules import VARIANTS
from sternhalma.rules.base import Ruleset
from sternhalma.rules.race import RaceRules


def sample_positions(rules: Ruleset, count: int, seed: int) -> list[Position]:
    """Seeded mid-game positions: 16 to 60 plies of random moves biased forward.

    Purely random play keeps the marbles at home; a race game's middle has
    them crossing the board, so most moves here are ones that make progress.
    A game that ends before (capture games are short) is sampled at a random
    ply of its second half instead, so every sample still has moves.
    """
    rng = random.Random(f"{rules.id}:{seed}")
    positions = []
    for _ in range(count):
        position = rules.initial()
        played: list[Position] = []
        for _ in range(rng.randint(16, 60)):
            moves = rules.legal_moves(position)
            if not moves:
                break
            played.append(position)
            if rng.random() < 0.85:
                best = max(rules.progress(position, m) for m in moves)
                moves = [m for m in moves if rules.progress(position, m) == best]
            position = rules.apply_unchecked(position, rng.choice(moves))
        if played and not rules.has_move(position):
            position = played[rng.randrange(len(played) // 2, len(played))]
        positions.append(position)
    return positions


@dataclass
class Figures:
    variant: str
    positions: int
    moves: int
    seconds: float
    applies: int
    apply_seconds: float
    #: Move lists of the compiled core in the same run (None: pure Python or not a race game).
    core_lists: int | None = None
    core_seconds: float = 0.0

    @property
    def positions_per_second(self) -> float:
        return self.positions / self.seconds

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds

    @property
    def applies_per_second(self) -> float:
        return self.applies / self.apply_seconds if self.apply_seconds else 0.0

    @property
    def core_positions_per_second(self) -> float | None:
        """Move lists a second of the compiled core (start, end), None when it is not in use."""
        return None if self.core_lists is None else self.core_lists / self.core_seconds

    @property
    def core_ratio(self) -> float | None:
        """How many times faster the compiled core lists moves than the Python engine."""
        fast = self.core_positions_per_second
        return None if fast is None else fast / self.positions_per_second


def _timed(work: Callable[[], int], minimum: float) -> tuple[int, int, float]:
    """Run ``work`` until ``minimum`` seconds pass; (rounds, total counted, seconds)."""
    rounds = total = 0
    start = time.perf_counter()
    while True:
        total += work()
        rounds += 1
        elapsed = time.perf_counter() - start
        if elapsed >= minimum:
            return rounds, total, elapsed


def measure(rules: Ruleset, count: int = 200, seed: int = 1, seconds: float = 1.0) -> Figures:
    positions = sample_positions(rules, count, seed)
    legal = rules.legal_moves

    def generate() -> int:
        return sum(len(legal(p)) for p in positions)

    rounds, moves, elapsed = _timed(generate, seconds)
    pairs = [(p, m) for p in positions for m in legal(p)[:3]]
    apply = rules.apply_unchecked

    def apply_all() -> int:
        for position, move in pairs:
            apply(position, move)
        return len(pairs)

    _, applies, apply_elapsed = _timed(apply_all, seconds / 2) if pairs else (0, 0, 0.0)
    figures = Figures(rules.id, rounds * len(positions), moves, elapsed, applies, apply_elapsed)
    if core.COMPILED and isinstance(rules, RaceRules):
        native = core.native_race_core(rules)
        boards = [(p.marbles, p.turn) for p in positions]

        def generate_compiled() -> int:
            return sum(len(native.moves(marbles, seat)) // 2 for marbles, seat in boards)

        core_rounds, _, figures.core_seconds = _timed(generate_compiled, seconds)
        figures.core_lists = core_rounds * len(positions)
    return figures


def run(variants: Iterable[str] | None = None, seconds: float = 1.0) -> list[Figures]:
    ids = list(variants) if variants else list(VARIANTS)
    return [measure(VARIANTS[i], seconds=seconds) for i in ids]
