"""``Queue``: the arq job queue on Redis (``sternhalma serve --redis-url``), served by
``sternhalma worker`` (server/thinking/worker.py) on any machine.

Each priority has a queue, so a free worker always takes a move first. Each worker
keeps a heartbeat key alive in Redis and names itself beside every job it starts
(``Heartbeat``, server/thinking/heartbeat.py); a job whose worker's heartbeat has
stopped (the worker was killed), or that ran past ``timeout`` (a worker alive but
stuck), is sent again under a new id, keeping its place in the line, and the first
one aborted. Who plays the answer is decided by the table's versioned commit, so a
move computed twice is still played once. Jobs and results cross Redis as JSON
(server/thinking/codec.py), never pickled.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.jobs import DeserializationError, JobStatus
from arq.jobs import Job as QueuedJob
from redis.exceptions import RedisError

from sternhalma.server.thinking import (
    TRIES,
    Priority,
    Thinking,
    ThinkingFailed,
    Work,
    time_limit,
)
from sternhalma.server.thinking.codec import dumps, loads
from sternhalma.server.thinking.heartbeat import ALIVE, BEAT, RUNNING_KEY, WORKER_KEY

log = logging.getLogger(__name__)
T = TypeVar("T")

#: The queues of the arq job queue, by priority.
MOVE_QUEUE = "sternhalma:moves"
HINT_QUEUE = "sternhalma:hints"
ANALYSIS_QUEUE = "sternhalma:analyses"
#: The worker function's name in the queue.
THINK = "think"
#: Seconds between two looks at a queued job's state.
POLL = 0.05
#: Seconds a job may wait in the queue before it is dropped unstarted.
EXPIRES = 300.0
#: A job's states before a worker has finished it.
UNFINISHED = (JobStatus.deferred, JobStatus.queued, JobStatus.in_progress)

#: The queue of each priority.
QUEUES = {Priority.MOVE: MOVE_QUEUE, Priority.HINT: HINT_QUEUE, Priority.ANALYSIS: ANALYSIS_QUEUE}


class JobLost(Exception):
    """A queued job's worker is gone, the job ran past its timeout, or it vanished from
    Redis; the message says which."""


class Queue(Thinking):
    """The arq job queue on Redis; ``sternhalma worker`` processes serve it."""

    def __init__(self, redis_url: str, *, timeout: float) -> None:
        self.redis_url = redis_url
        #: Seconds a started move or hint may run before it is sent again (an analysis
        #: longer, ``time_limit``).
        self.timeout = timeout
        self.redis: ArqRedis | None = None
        self._aborts: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self.redis = await create_pool(
            RedisSettings.from_dsn(self.redis_url), job_serializer=dumps, job_deserializer=loads
        )

    async def close(self) -> None:
        await asyncio.gather(*self._aborts, return_exceptions=True)
        if self.redis is not None:
            await self.redis.aclose()

    async def think(self, job: Work, priority: Priority, key: str) -> str:
        assert self.redis is not None, "start() first"
        queue = QUEUES[priority]
        first = datetime.now(UTC)
        asked = asyncio.get_running_loop().time()
        for attempt in range(1, TRIES + 1):
            job_id = f"{key}:{attempt}"
            # A job sent again keeps its place in the line (it is due since the first).
            queued = await self._retrying(
                functools.partial(
                    self.redis.enqueue_job,
                    THINK,
                    job,
                    _job_id=job_id,
                    _queue_name=queue,
                    _defer_until=first,
                    _expires=EXPIRES,
                )
            )
            if queued is None:  # another server process asked for the same job: share it
                queued = self.handle(job_id, queue)
            try:
                answer = await self._answer(queued, time_limit(self.timeout, priority))
            except JobLost as lost:
                again = "; sent again" if attempt < TRIES else ""
                log.warning("job %s %s%s", job_id, lost, again)
                self._abort(queued)
                continue
            except asyncio.CancelledError:
                self._abort(queued)
                raise
            if attempt > 1:
                waited = asyncio.get_running_loop().time() - asked
                log.warning(
                    "job %s answered on try %d, %.1f s after it was asked", key, attempt, waited
                )
            return answer
        raise ThinkingFailed(f"no worker answered job {key} in {TRIES} tries")

    def handle(self, job_id: str, queue: str) -> QueuedJob:
        """The queued job ``job_id`` (to look at or abort)."""
        assert self.redis is not None, "start() first"
        return QueuedJob(job_id, self.redis, _queue_name=queue, _deserializer=loads)

    async def _answer(self, queued: QueuedJob, limit: float | None) -> str:
        """The job's result. JobLost once the worker that began it has no heartbeat,
        or it has run ``limit`` seconds (the time it waits in the queue for a free
        worker does not count)."""
        loop = asyncio.get_running_loop()
        started: float | None = None  # when a worker began the job, as seen from here
        worker: str | None = None  # that worker's name
        looked = 0.0
        while True:
            status = await self._retrying(queued.status)
            if status == JobStatus.complete:
                try:
                    info = await self._retrying(queued.result_info)
                except DeserializationError as error:
                    raise ThinkingFailed(
                        f"the worker's answer cannot be read: {error.__cause__}"
                    ) from None
                if info is not None and info.success and isinstance(info.result, str):
                    return info.result
                raise ThinkingFailed(f"the worker failed: {info.result if info else 'no result'}")
            if status == JobStatus.not_found:
                raise JobLost("vanished from Redis (it expired unstarted, or Redis restarted)")
            if status != JobStatus.in_progress:  # waiting (again, if its worker was stopped)
                started = worker = None
            else:
                now = loop.time()
                started = now if started is None else started
                if limit is not None and now - started > limit:
                    raise JobLost(f"ran over {limit:g} s")
                if now - looked >= BEAT:
                    looked = now
                    worker = worker or await self._worker_of(queued.job_id)
                    if worker is None and now - started > ALIVE:
                        raise JobLost("was taken by a worker that never began it")
                    if worker is not None and not await self._alive(worker):
                        raise JobLost(f"lost its worker {worker} (no heartbeat)")
            await asyncio.sleep(POLL)

    async def _worker_of(self, job_id: str) -> str | None:
        """The name of the worker running ``job_id`` (``Heartbeat.running``)."""
        assert self.redis is not None, "start() first"
        name = await self._retrying(functools.partial(self.redis.get, RUNNING_KEY + job_id))
        return name.decode() if name is not None else None

    async def _alive(self, worker: str) -> bool:
        """Whether ``worker``'s heartbeat goes on (``Heartbeat.beat``)."""
        assert self.redis is not None, "start() first"
        return bool(await self._retrying(functools.partial(self.redis.exists, WORKER_KEY + worker)))

    async def _retrying(self, call: Callable[[], Awaitable[T]]) -> T:
        """``call()``, again every second while Redis cannot be reached (a restart); the
        clock's fallback (server/tables/computer_turns.py) bounds the wait at clocked tables."""
        warned = False
        while True:
            try:
                return await call()
            except (RedisError, OSError) as error:
                if not warned:
                    log.warning("the job queue on Redis cannot be reached (%s); waiting", error)
                    warned = True
                await asyncio.sleep(1.0)

    def _abort(self, queued: QueuedJob) -> None:
        """Abort in the background (the caller may be cancelled): a queued job is
        dropped when a worker reaches it, a running one given up. A job already
        answered or gone is left alone: nothing would remove its abort mark (arq
        clears a mark when a worker reaches the job)."""

        async def abort() -> None:
            with contextlib.suppress(Exception):
                if await queued.status() in UNFINISHED:
                    await queued.abort(timeout=0, poll_delay=POLL)

        task = asyncio.get_running_loop().create_task(abort())
        self._aborts.add(task)
        task.add_done_callback(self._aborts.discard)
