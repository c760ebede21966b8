"""One admission layer for every request that makes the server work (docs/deploy.md
"Admission").

Before any work starts, a request passes three checks, cheapest first; a request that
fails one is refused with one error and costs nothing more:

1. **Rates.** Per connection (``ConnectionLimits``: a token bucket on messages, hints
   and seat changes, in the connection), per client address and per identity
   (``Admission.admit``: moving windows from the ``limits`` library, kept in Redis
   when the server has one, so they hold across the processes of a cluster, and in
   this process's memory otherwise). Open connections are counted per address in
   each process.
2. **Work on this process.** Reading a record into its positions or listing a
   position's legal moves runs in a thread (``Admission.work``), at most
   ``Capacity.threads`` at once and ``Capacity.queued`` waiting; more is refused
   ("busy"), so nothing heavier than a check runs on the event loop.
3. **The thinking.** Analyses, reviews and hints together hold at most
   ``Capacity.places`` places of the computer's thinking (``Shared``: over the
   whole cluster with Redis), ``Capacity.queued`` waiting in each process; the
   computer's own moves never wait for a place, so they keep the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import redis.asyncio
from limits import RateLimitItemPerSecond
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from redis.exceptions import RedisError

from sternhalma.server.protocol import TableError
from sternhalma.server.thinking import Priority, Thinking, Work

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The close code of a websocket that kept sending over its rate.
CLOSE_FLOOD = 1008


@dataclass(frozen=True)
class Limits:
    """How fast one connection may send: a bucket of ``burst`` messages refilled at
    ``rate`` per second; over it each message waits ``pause`` seconds, and after
    ``strikes`` such messages the connection is closed. Sitting down and standing up
    (each writes to the database) are limited on their own: ``seat_changes`` in any
    ``seat_window`` seconds."""

    rate: float = 10.0
    burst: float = 40.0
    pause: float = 0.25
    strikes: int = 40
    #: Hints one connection may ask for in any ``hint_window`` seconds.
    hints: int = 3
    hint_window: float = 60.0
    seat_changes: int = 6
    seat_window: float = 60.0


@dataclass(frozen=True)
class AddressLimits:
    """What one client address (and, where the request names one, one identity) may
    hold at once and start. Behind a reverse proxy the address is the one it forwards
    (uvicorn trusts the proxy headers of 127.0.0.1)."""

    #: Open websockets (tables and analysis) in one server process.
    connections: int = 100
    #: New tables (created or rematched) in any ``window`` seconds.
    tables: int = 120
    window: float = 600.0
    #: Sits and stand-ups in any ``seat_window`` seconds.
    seat_changes: int = 30
    seat_window: float = 60.0
    #: Position analyses, legal-move and puzzle-move requests per minute.
    analyses: int = 240
    #: Reviews started and records read into positions per minute (a review is a
    #: job for each move of the record).
    reviews: int = 12
    #: Hints per minute (each connection: ``Limits.hints``).
    hints: int = 30


@dataclass(frozen=True)
class Capacity:
    """The bounded work of this server beside the rates."""

    #: Threads for the CPU work of requests (records, legal moves), and the requests
    #: that may wait for one (in each process); more are refused. One: that work holds
    #: the GIL, so a second thread adds no throughput and takes more time from the loop
    #: (docs/measurements.md, the floods from 10 addresses).
    threads: int = 1
    #: Places of the thinking that analyses, reviews and hints may hold at once (over
    #: the cluster with Redis); None: one fewer than this process's thinking
    #: processes (at least one) without Redis, one with it.
    places: int | None = None
    #: Requests waiting for a thread or a place in each process; more are refused.
    queued: int = 16


#: Each rate the layer keeps: the limit's field of ``AddressLimits`` and its window,
#: the error code and what the refused person reads.
SURFACES: dict[str, tuple[str, str | float, str, str]] = {
    "table": ("tables", "window", "too-many", "too many new tables from your address"),
    "seat": ("seat_changes", "seat_window", "too-many-sits", "you sat down and stood up too often"),
    "identity": (
        "identities",
        3600.0,
        "too-many-identities",
        "too many new players from your address this hour",
    ),
    "analysis": ("analyses", 60.0, "too-many-requests", "too many analyses from your address"),
    "review": ("reviews", 60.0, "too-many-requests", "too many reviews from your address"),
    "hint": ("hints", 60.0, "hint-limit", "too many hints from your address"),
}


class Busy(TableError):
    """The server's share for this kind of work is full: try again in a moment."""

    def __init__(self, message: str) -> None:
        super().__init__("busy", message)


def hashed(identity: str) -> str:
    """An identity's key in the limits (never the secret itself, which Redis would show)."""
    return hashlib.sha256(identity.encode("utf-8", "replace")).hexdigest()[:24]


class RateLimit:
    """A token bucket of ``burst`` tokens refilled at ``rate`` a second (one connection's)."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.at = clock()
        self.strikes = 0

    def take(self) -> bool:
        """Whether one more is within the limit now."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.strikes += 1
        return False


class ConnectionLimits:
    """One websocket's own limits: messages, hints, seat changes."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.messages = RateLimit(limits.rate, limits.burst, clock)
        self.hints = RateLimit(limits.hints / limits.hint_window, limits.hints, clock)
        self.seat_changes = RateLimit(
            limits.seat_changes / limits.seat_window, limits.seat_changes, clock
        )

    async def flooding(self) -> bool | None:
        """Admit one message: True when it is within the rate; False when it is over it
        (after a pause of ``Limits.pause``: the sender is slowed down); None when the
        connection has been over it too often and is to be closed."""
        if self.messages.take():
            return True
        if self.messages.strikes > self.limits.strikes:
            return None
        await asyncio.sleep(self.limits.pause)
        return False


class Admission:
    """The server's one admission layer (module docstring)."""

    def __init__(
        self,
        limits: AddressLimits,
        capacity: Capacity,
        *,
        redis_url: str | None = None,
        thinking_processes: int = 1,
        identities: int = 5,
    ) -> None:
        #: Requests that may make a new identity (a nickname without one) per address
        #: and hour, refused here before a flood of them reaches the database (the
        #: store's own rule on identities made is checked at its write).
        self.identities = identities
        self.limits = limits
        self.capacity = capacity
        self.redis_url = redis_url
        self.open: Counter[str] = Counter()
        storage: Storage = (
            RedisStorage(_limits_uri(redis_url), implementation="redispy")
            if redis_url is not None
            else MemoryStorage()
        )
        self.storage = storage
        self.limiter = MovingWindowRateLimiter(storage)
        self.items = {
            surface: RateLimitItemPerSecond(
                max(1, int(self._count(count))),
                max(1, math.ceil(window if isinstance(window, float) else getattr(limits, window))),
                namespace=f"sternhalma-{surface}",
            )
            for surface, (count, window, _, _) in SURFACES.items()
        }
        places = capacity.places
        if places is None:
            places = 1 if redis_url is not None else max(1, thinking_processes - 1)
        self.places: Places = (
            RedisPlaces(redis_url, places, capacity.queued)
            if redis_url is not None
            else Places(places, capacity.queued)
        )
        self.threads = asyncio.Semaphore(capacity.threads)
        self.queued = 0
        self._warned = False

    async def close(self) -> None:
        await self.places.close()

    # -- connections ---------------------------------------------------------------------
    def connect(self, address: str) -> bool:
        """Count one more open websocket from ``address``, if it is within the limit."""
        if self.open[address] >= self.limits.connections:
            return False
        self.open[address] += 1
        return True

    def disconnect(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    # -- rates ---------------------------------------------------------------------------
    async def admit(self, surface: str, address: str, identity: str | None = None) -> None:
        """Count one request of ``surface`` for ``address`` and ``identity``; a TableError
        (its surface's code) when either is over its limit. A refused request is not
        counted. When Redis cannot be reached the request is let through (and the
        operator told once): a restart of Redis must not refuse every player."""
        item = self.items[surface]
        keys = [f"a:{address}"] + ([f"i:{hashed(identity)}"] if identity else [])
        try:
            for key in keys:
                if not await self.limiter.test(item, key):
                    self._refuse(surface)
            for key in keys:
                if not await self.limiter.hit(item, key):
                    self._refuse(surface)
            self._warned = False
        except (RedisError, OSError, ConnectionError) as error:
            if not self._warned:
                log.warning("the limits on Redis cannot be reached (%s); admitting", error)
                self._warned = True

    def _count(self, name: str) -> int:
        return self.identities if name == "identities" else int(getattr(self.limits, name))

    def _refuse(self, surface: str) -> None:
        count, window, code, what = SURFACES[surface]
        seconds = window if isinstance(window, float) else getattr(self.limits, window)
        span = f"{seconds / 60:g} minutes" if seconds >= 120 else f"{seconds:g} seconds"
        raise TableError(code, f"{what}; at most {self._count(count)} in {span}, wait a little")

    # -- work ----------------------------------------------------------------------------
    async def work(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a thread, once one of ``Capacity.threads`` is free; Busy
        when ``Capacity.queued`` requests wait already."""
        if self.threads.locked() and self.queued >= self.capacity.queued:
            raise Busy("the server is busy; try again in a moment")
        self.queued += 1
        try:
            await self.threads.acquire()
        finally:
            self.queued -= 1
        try:
            return await asyncio.to_thread(function, *args)
        finally:
            self.threads.release()


def _limits_uri(redis_url: str) -> str:
    """The ``limits`` library's name for the async redis-py client on ``redis_url``."""
    scheme, _, rest = redis_url.partition("://")
    return f"async+{scheme}://{rest}"


class Places:
    """At most ``limit`` holders at once in this process, ``queued`` waiting; more are
    refused (Busy)."""

    def __init__(self, limit: int, queued: int) -> None:
        self.limit = limit
        self.queued = queued
        self.waiting = 0
        self.semaphore = asyncio.Semaphore(limit)

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        self._enter()
        try:
            await self.semaphore.acquire()
        finally:
            self.waiting -= 1
        try:
            yield
        finally:
            self.semaphore.release()

    def _enter(self) -> None:
        if self.waiting >= self.queued:
            raise Busy("the computer is busy with other analyses and hints; try again in a moment")
        self.waiting += 1

    async def close(self) -> None:
        pass


#: Take a place if fewer than ARGV[3] are held (holders whose lease ran out are let go
#: first): a sorted set of holders scored by the end of their lease.
_TAKE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], 3600000)
  return 1
end
return 0
"""


class RedisPlaces(Places):
    """Places held over the whole cluster: a sorted set in Redis whose members' leases
    are renewed while they hold, so a killed server's places come back by themselves."""

    KEY = "sternhalma:admission:places"
    #: Seconds a place's lease lasts without renewal, and between two renewals.
    LEASE = 15.0
    POLL = 0.05

    def __init__(self, redis_url: str, limit: int, queued: int) -> None:
        super().__init__(limit, queued)
        self.redis = redis.asyncio.Redis.from_url(redis_url)
        self.take = self.redis.register_script(_TAKE)

    @contextlib.asynccontextmanager
    async def hold(self) -> AsyncIterator[None]:
        self._enter()
        member = secrets.token_hex(8)
        try:
            while not await self._take(member):
                await asyncio.sleep(self.POLL)
        finally:
            self.waiting -= 1
        renewing = asyncio.get_running_loop().create_task(self._renew(member))
        try:
            yield
        finally:
            renewing.cancel()
            with contextlib.suppress(RedisError, OSError):
                await self.redis.zrem(self.KEY, member)

    async def _take(self, member: str) -> bool:
        now = time.time() * 1000
        try:
            return bool(
                await self.take(
                    keys=[self.KEY], args=[now, now + self.LEASE * 1000, self.limit, member]
                )
            )
        except (RedisError, OSError):
            await asyncio.sleep(1.0)  # Redis restarts: the queue of jobs waits for it too
            return False

    async def _renew(self, member: str) -> None:
        while True:
            await asyncio.sleep(self.LEASE / 3)
            with contextlib.suppress(RedisError, OSError):
                await self.redis.zadd(self.KEY, {member: time.time() * 1000 + self.LEASE * 1000})

    async def close(self) -> None:
        await self.redis.aclose()


class Shared(Thinking):
    """The computer's thinking as the server uses it: the computer's moves go straight
    through; analyses, reviews and hints first take one of the layer's places, so
    together they never hold more of the thinking than that."""

    def __init__(self, thinking: Thinking, places: Places) -> None:
        self.thinking = thinking
        self.places = places

    async def start(self) -> None:
        await self.thinking.start()

    async def close(self) -> None:
        await self.thinking.close()

    async def think(self, job: Work, priority: Priority, key: str) -> str:
        if priority == Priority.MOVE:
            return await self.thinking.think(job, priority, key)
        async with self.places.hold():
            return await self.thinking.think(job, priority, key)
