"""``Heartbeat``: a worker's sign of life in Redis, beside arq's keys.

Each ``sternhalma worker`` keeps a key alive in Redis and names itself beside every
job it starts; a server waiting for a job (``Queue``, server/thinking/queue.py) sends
it again as soon as the key of the job's worker is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator

import redis.asyncio
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

#: Seconds between two beats of a worker's heartbeat, and how long one beat keeps
#: the worker alive: a killed worker is noticed this long after its last beat.
BEAT = 0.5
ALIVE = 3.0
#: Redis keys beside arq's: a worker's heartbeat, and the worker running a job.
WORKER_KEY = "sternhalma:worker:"
RUNNING_KEY = "sternhalma:running:"


class Heartbeat:
    """A worker's sign of life beside arq's keys: a key that expires ``ALIVE`` seconds
    after the worker last renewed it, and for each job it runs, a key naming it. A
    server waiting for a job sends it again as soon as the key of the job's worker is
    gone, long before the job's timeout."""

    def __init__(self, redis_url: str) -> None:
        #: Unique to this worker process (the host and process id say where it ran).
        self.name = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.redis = redis.asyncio.Redis.from_url(redis_url)

    async def beat(self) -> None:
        """Renew the key every ``BEAT`` seconds, until cancelled (then remove it)."""
        warned = False
        try:
            while True:
                try:
                    await self.redis.set(WORKER_KEY + self.name, b"1", px=int(ALIVE * 1000))
                    warned = False
                except (RedisError, OSError) as error:
                    if not warned:
                        log.warning("the heartbeat cannot reach Redis (%s); trying on", error)
                        warned = True
                await asyncio.sleep(BEAT)
        finally:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.delete(WORKER_KEY + self.name)

    @contextlib.asynccontextmanager
    async def running(self, job_id: str, seconds: float) -> AsyncIterator[None]:
        """Name this worker beside the job ``job_id`` while it runs (at most
        ``seconds``). Without Redis the job still runs; its server then sends it
        again after a while, which costs thinking, never a move."""
        with contextlib.suppress(RedisError, OSError):
            await self.redis.set(RUNNING_KEY + job_id, self.name, px=int(seconds * 1000))
        try:
            yield
        finally:
            with contextlib.suppress(RedisError, OSError):
                await self.redis.delete(RUNNING_KEY + job_id)

    async def close(self) -> None:
        await self.redis.aclose()
