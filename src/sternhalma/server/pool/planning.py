"""Who plays whom: the pool's choices as pure functions of the waiting seeks.

Two-player pools pair the nearest ratings first, within a range that widens the
longer a player waits (lichess's pools do the same). 3–6-player pools fill a
table with the players who waited longest as soon as there are enough; players who
each agreed to computer seats may start together with fewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sternhalma.errors import UnknownVariantError
from sternhalma.rules import find_variant
from sternhalma.rules.base import Ruleset
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import Origin, share_an_address
from sternhalma.server.tables.seats import parse_clock

#: The rating range a two-player seek accepts at once, and how much it widens a second.
START_RANGE = 100.0
WIDEN_PER_SECOND = 25.0


@dataclass(frozen=True)
class PoolKey:
    """A kind of game: a variant (its player count is part of it), a clock, rated or not."""

    variant: str
    clock: str
    rated: bool

    @property
    def text(self) -> str:
        return f"{self.variant}|{self.clock}|{'rated' if self.rated else 'casual'}"

    @property
    def rules(self) -> Ruleset:
        return find_variant(self.variant)

    @classmethod
    def parse(cls, text: str) -> PoolKey:
        variant, clock, rated = text.split("|")
        return cls(variant, clock, rated == "rated")

    @classmethod
    def checked(cls, variant: object, clock: object, rated: object) -> PoolKey:
        """The pool a player asks for; TableError says what is wrong with it."""
        if not isinstance(variant, str):
            raise TableError("variant", "choose a variant")
        try:
            rules = find_variant(variant[:40])
        except UnknownVariantError as error:
            raise TableError("variant", str(error)) from None
        control = parse_clock(clock)
        if control is None:
            raise TableError("clock", "a game from the pool has a clock; choose one")
        if not isinstance(rated, bool):
            raise TableError("rated", "rated must be true or false")
        if rated and rules.teams:
            raise TableError("rated", f"{rules.id} is played in pairs, and pairs games are unrated")
        text = f"{control.bank_ms // 60_000}+{control.increment_ms // 1000}"
        if control.bank_ms % 60_000 or control.increment_ms % 1000:
            raise TableError("clock", "a pool's clock is whole minutes + whole seconds, like 5+3")
        return cls(rules.id, text, rated)


@dataclass(frozen=True)
class Waiting:
    """A seek as the planner sees it."""

    id: str
    rating: float
    since: datetime
    origin: Origin
    computers: bool = False


def rating_range(seek: Waiting, now: datetime) -> float:
    """How far from its rating a seek accepts an opponent after waiting until ``now``."""
    return START_RANGE + WIDEN_PER_SECOND * max(0.0, (now - seek.since).total_seconds())


def pair_two(
    seeks: list[Waiting], now: datetime, *, rated: bool, same_address: float
) -> list[tuple[Waiting, Waiting]]:
    """Pairs for a two-player pool: the longest waiting first, each with the nearest rating
    that either side's range accepts. A rated pool pairs no two identities made from one
    address (their game would not be rated)."""
    waiting = sorted(seeks, key=lambda s: (s.since, s.id))
    taken: set[str] = set()
    pairs = []
    for seek in waiting:
        if seek.id in taken:
            continue
        best: Waiting | None = None
        for other in waiting:
            if other.id == seek.id or other.id in taken:
                continue
            gap = abs(seek.rating - other.rating)
            if gap > max(rating_range(seek, now), rating_range(other, now)):
                continue
            if rated and share_an_address([seek.origin, other.origin], same_address):
                continue
            if best is None or gap < abs(seek.rating - best.rating):
                best = other
        if best is not None:
            taken |= {seek.id, best.id}
            pairs.append((seek, best))
    return pairs


def fill(
    seeks: list[Waiting], players: int, *, rated: bool, same_address: float
) -> list[list[Waiting]]:
    """Full tables for a 3–6-player pool, the longest waiting first; in a rated pool a
    player who would make the table unrated waits for the next one."""
    waiting = sorted(seeks, key=lambda s: (s.since, s.id))
    tables: list[list[Waiting]] = []
    table: list[Waiting] = []
    for seek in waiting:
        if rated and share_an_address([*(s.origin for s in table), seek.origin], same_address):
            continue
        table.append(seek)
        if len(table) == players:
            tables.append(table)
            table = []
    return tables


def with_computers(seeks: list[Waiting], players: int) -> list[Waiting]:
    """The people who start with computer seats: every waiting player who agreed (up to a
    table's worth, the longest waiting first), when there are at least two of them."""
    agreed = sorted((s for s in seeks if s.computers), key=lambda s: (s.since, s.id))
    return agreed[:players] if len(agreed) >= 2 else []


def spread(people: int, players: int) -> list[int]:
    """The seats of ``people`` at a table of ``players`` when computers fill the rest:
    spaced around the board (two of four sit opposite)."""
    return [i * players // people for i in range(people)]
