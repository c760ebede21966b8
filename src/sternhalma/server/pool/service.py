"""``Pools``: this process's seekers and its share of the pairing.

A seeker is a player whose pool websocket is open in this process. Joining writes
the seek (the database is the pool); every ``interval`` seconds the process pairs
each pool that has enough players (server/storage/seeks.py: the tables and the
seats in one transaction) and tells the paired seekers through the bus, wherever
their websocket is. The seat token never leaves the process that made it: the
seek stores its hash, and the new table's seat is held by that hash.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sternhalma.rating import ESTABLISHED_GAMES, is_provisional
from sternhalma.server.pool.planning import (
    PoolKey,
    Waiting,
    fill,
    pair_two,
    spread,
    with_computers,
)
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.seeks import Pairing, Planner, Seek, Seeks
from sternhalma.server.storage.tokens import hash_secret, new_secret
from sternhalma.server.tables.seats import Seat, parse_clock
from sternhalma.server.tables.service import Tables
from sternhalma.server.tables.table import Table

log = logging.getLogger(__name__)

#: The bus key of a seek's notices (the bus carries them like a table's messages).
CHANNEL = "pool:"


@dataclass(frozen=True)
class PoolSettings:
    #: Seconds between two pairing rounds of this process.
    interval: float = 0.25
    #: Seconds a player of a 3–6-player pool waits before computer seats are offered.
    computers_after: float = 60.0
    #: The computer's level in those seats.
    level: str = "medium"
    #: Seconds between two signs of life of this process's seeks; a seek without one
    #: for ``stale`` seconds belongs to a process that went away and is removed.
    touch: float = 5.0
    stale: float = 30.0


Send = Callable[[dict[str, Any]], None]


@dataclass(eq=False)
class Seeker:
    """A player waiting in this process: the seek, the seat token kept for them, and
    where their messages go."""

    seek: Seek
    key: PoolKey
    token: str
    send: Send
    joined: float = field(default_factory=time.monotonic)
    waiting: int | None = None
    offered: bool = False
    done: bool = False
    unsubscribe: Callable[[], None] | None = None


class Pools:
    """The pools as this process sees them (server/pool/__init__.py)."""

    def __init__(self, tables: Tables, settings: PoolSettings | None = None) -> None:
        self.tables = tables
        self.settings = settings or PoolSettings()
        self.seeks = Seeks(tables.store)
        self.local: dict[str, Seeker] = {}
        self._touched = time.monotonic()

    def start(self) -> None:
        """Pair every ``interval`` seconds until the tables close."""
        self.tables.copies.every(self.settings.interval, self.round, "pairing the pools")

    # -- a player ----------------------------------------------------------------
    async def join(
        self, key: PoolKey, nickname: str, secret: str | None, address: str, send: Send
    ) -> tuple[Seeker, dict[str, Any]]:
        """Put the player in the pool; the seeker and the "seeking" message (with the
        identity the browser keeps, and what the player should know about rating)."""
        store = self.tables.store
        identity = await store.identity(nickname, secret, address)
        rating, games = await self.seeks.rating(identity.id, key.variant)
        token = new_secret()
        seek = Seek(
            id=secrets.token_urlsafe(12),
            pool=key.text,
            player=identity.id,
            nickname=identity.nickname,
            rating=rating,
            origin=identity.origin,
            token_hash=hash_secret(token),
            computers=False,
            created_at=datetime.now(UTC),
        )
        seeker = Seeker(seek, key, token, send)
        seeker.unsubscribe = self.tables.bus.subscribe(
            CHANNEL + seek.id, lambda message: self._heard(seeker, message)
        )
        try:
            await self.seeks.add(seek, identity)
        except BaseException:
            seeker.unsubscribe()
            raise
        self.local[seek.id] = seeker
        notes = []
        if key.rated and is_provisional(games):
            notes.append({"code": "provisional", "games": games, "needed": ESTABLISHED_GAMES})
        if key.rated and key.rules.players > 2:
            notes.append({"code": "computers-unrated"})
        return seeker, {
            "type": "seeking",
            "pool": self.describe(key),
            "player": {"id": identity.id, "nickname": identity.nickname, "secret": identity.secret},
            "rating": round(rating),
            "provisional": is_provisional(games),
            "notes": notes,
        }

    async def leave(self, seeker: Seeker) -> None:
        """The player leaves the pool (or closed the page). A seek paired meanwhile has
        its table; the player was not told, and the table's first-move limit ends it."""
        self._forget(seeker)
        await self.seeks.remove([seeker.seek.id])

    def leave_soon(self, seeker: Seeker) -> None:
        """``leave`` for a closed page: at once in this process, in the database soon."""
        self._forget(seeker)
        self.tables.copies.spawn(self._remove(seeker.seek.id))

    async def agree(self, seeker: Seeker) -> None:
        if seeker.key.rules.players == 2:
            raise TableError("computers", "a two-player pool has no computer seats")
        if not seeker.offered:
            raise TableError("computers", "computer seats are offered after a while; wait")
        await self.seeks.agree(seeker.seek.id)

    def describe(self, key: PoolKey) -> dict[str, Any]:
        return {
            "variant": key.variant,
            "players": key.rules.players,
            "clock": key.clock,
            "rated": key.rated,
            "computers_after": self.settings.computers_after if key.rules.players > 2 else None,
        }

    def _forget(self, seeker: Seeker) -> None:
        seeker.done = True
        self.local.pop(seeker.seek.id, None)
        if seeker.unsubscribe is not None:
            seeker.unsubscribe()
            seeker.unsubscribe = None

    def _heard(self, seeker: Seeker, message: dict[str, Any]) -> None:
        """A notice for this seeker (from any process): it was paired."""
        table, seat = message.get("table"), message.get("seat")
        if message.get("type") == "pool-paired" and isinstance(table, str):
            self._tell(seeker, table, seat if isinstance(seat, int) else 0)

    def _tell(self, seeker: Seeker, table: str, seat: int) -> None:
        if seeker.done:
            return
        self._forget(seeker)
        seeker.send({"type": "paired", "table": table, "seat": seat, "token": seeker.token})
        self.tables.copies.spawn(self._remove(seeker.seek.id))

    async def _remove(self, seek_id: str) -> None:
        try:
            await self.seeks.remove([seek_id])
        except Exception:
            log.warning("a told seek could not be removed; it goes when stale", exc_info=True)

    # -- the rounds -------------------------------------------------------------
    async def round(self) -> None:
        """One round: pair what can be paired, tell the local seekers the counts and
        offers, and now and then show signs of life and look for lost notices."""
        counts = await self.seeks.counts()
        for pool, count in counts.items():
            try:
                key = PoolKey.parse(pool)
                key.rules  # noqa: B018 (a variant this version knows)
            except (ValueError, TableError):
                continue
            if count >= 2:
                paired = await self.seeks.pair(pool, self.planner(key), fresh=self.settings.stale)
                if paired:
                    counts[pool] -= len(paired)
                    await self._announce(paired)
        now = time.monotonic()
        for seeker in list(self.local.values()):
            waiting = max(0, counts.get(seeker.key.text, 1) - 1)
            if waiting != seeker.waiting:
                seeker.waiting = waiting
                seeker.send({"type": "waiting", "others": waiting})
            if (
                not seeker.offered
                and seeker.key.rules.players > 2
                and now - seeker.joined >= self.settings.computers_after
            ):
                seeker.offered = True
                seeker.send({"type": "computers-offer", "level": self.settings.level})
        if now - self._touched >= self.settings.touch:
            self._touched = now
            mine = list(self.local)
            await self.seeks.touch(mine)
            for seek in await self.seeks.paired(mine):
                found = self.local.get(seek.id)
                if found is not None and seek.table_id is not None:
                    self._tell(found, seek.table_id, seek.seat or 0)
            await self.seeks.forget_stale(self.settings.stale)

    async def _announce(self, paired: list[Seek]) -> None:
        """Tell every paired seeker (through the bus: its websocket may be elsewhere), and
        load the new tables here in the background, so their clocks and first-move
        limits run even if nobody comes (the next round does not wait for them)."""
        for seek in paired:
            await self.tables.bus.publish(
                CHANNEL + seek.id,
                {"type": "pool-paired", "table": seek.table_id, "seat": seek.seat},
            )
        tables = sorted({seek.table_id for seek in paired if seek.table_id is not None})
        self.tables.copies.spawn(self._load(tables))

    async def _load(self, tables: list[str]) -> None:
        for table_id in tables:
            try:
                await self.tables.copies.get(table_id)
            except Exception:
                log.exception("a paired table %s could not be loaded", table_id)

    def planner(self, key: PoolKey) -> Planner:
        """How ``key``'s waiting seeks become tables."""
        rules = key.rules
        same_address = self.tables.copies.same_address
        players = rules.players

        def plan(waiting: list[Seek]) -> list[Pairing]:
            by_id = {seek.id: seek for seek in waiting}
            views = [Waiting(s.id, s.rating, s.created_at, s.origin, s.computers) for s in waiting]
            groups: list[tuple[list[Waiting], list[int], bool]] = []
            if players == 2:
                now = datetime.now(UTC)
                for pair in pair_two(views, now, rated=key.rated, same_address=same_address):
                    first = secrets.randbelow(2)
                    groups.append(([pair[first], pair[1 - first]], [0, 1], False))
            else:
                full = fill(views, players, rated=key.rated, same_address=same_address)
                for group in full:
                    groups.append((group, list(range(players)), False))
                used = {w.id for group in full for w in group}
                rest = with_computers([w for w in views if w.id not in used], players)
                if rest:
                    groups.append((rest, spread(len(rest), players), len(rest) < players))
            return [
                self._table(key, [by_id[w.id] for w in group], seats, computers)
                for group, seats, computers in groups
            ]

        return plan

    def _table(self, key: PoolKey, people: list[Seek], at: list[int], computers: bool) -> Pairing:
        """A new table for ``people`` at seats ``at``; the computer in the others."""
        rules = key.rules
        seats = [Seat("computer", self.settings.level) for _ in range(rules.players)]
        for seek, seat in zip(people, at, strict=True):
            seats[seat] = Seat(
                "online",
                player=seek.player,
                nickname=seek.nickname,
                token_hash=seek.token_hash,
                origin=seek.origin,
            )
        table = Table(
            id=secrets.token_urlsafe(9),
            rules=rules,
            seats=seats,
            token_hash=hash_secret(new_secret()),  # nobody holds the person seats: there are none
            seed=secrets.randbits(31),
            rated=key.rated and not computers,
            control=parse_clock(key.clock),
            now=self.tables.copies.now,
            same_address=self.tables.copies.same_address,
        )
        table.start_clock()
        return table.stored(), {seek.id: seat for seek, seat in zip(people, at, strict=True)}

    def close(self) -> None:
        for seeker in list(self.local.values()):
            self._forget(seeker)
