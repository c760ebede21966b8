"""Search limits shared by Hard's searches: a node allowance and a wall clock (and the
check of their settings' lower bounds).

The node allowance makes a search reproducible (the same position and seed
give the same move on any machine); the clock is the safety net that keeps
a move within its time on a slow or busy machine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


def at_least(settings: object, **least: int) -> None:
    """A setting below what its search can use is a mistake, not a quiet clamp."""
    for name, low in least.items():
        value = getattr(settings, name)
        if value < low:
            raise ValueError(f"{name} is at least {low}, not {value}")


class OutOfTime(Exception):
    """Raised inside a search when its nodes or its time run out."""


@dataclass
class Limits:
    """How much a search may do: ``nodes`` positions and until ``stop`` (perf_counter)."""

    nodes: int
    stop: float
    used: int = field(default=0)

    @classmethod
    def of(cls, nodes: int, seconds: float | None) -> Limits:
        stop = time.perf_counter() + seconds if seconds is not None else float("inf")
        return cls(nodes, stop)

    def tick(self) -> None:
        """Count one node; OutOfTime when the allowance or the time is spent."""
        self.used += 1
        if self.used >= self.nodes or (not self.used & 63 and time.perf_counter() >= self.stop):
            raise OutOfTime

    @property
    def spent(self) -> bool:
        return self.used >= self.nodes or time.perf_counter() >= self.stop
