"""Where the computer thinks: one interface, two places (docs/deploy.md "Thinking").

``Thinking.think(job, priority, key)`` returns a job's answer: the move text of a
computer move or hint, the JSON text of an analysis (server/web/review.py). Cancelling
the call cancels the job: dropped before it starts, given up if it has started.
The server cancels a job when its table moves on, a hint's asker leaves, or an
analysis's page moves on or closes.

- ``Pool``: thinking processes of this process (``make run``, and inside
  ``sternhalma worker``). Jobs wait in priority order (computer moves, then hints,
  then analyses); a computer move that finds every process busy takes one from an
  analysis or a hint, which waits again. A process that dies, or runs past
  ``timeout``, is replaced and the job tried once more.
- ``Queue``: the arq job queue on Redis (``sternhalma serve --redis-url``), served
  by ``sternhalma worker`` on any machine. Each priority has a queue, so a free
  worker always takes a move first. Each worker keeps a heartbeat key alive in
  Redis and names itself beside every job it starts (``Heartbeat``); a job whose
  worker's heartbeat has stopped (the worker was killed), or that ran past
  ``timeout`` (a worker alive but stuck), is sent again under a new id, keeping
  its place in the line, and the first one aborted. Who plays the answer is
  decided by the table's versioned commit, so a move computed twice is still
  played once.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import heapq
import itertools
import logging
import os
import secrets
import socket
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import IntEnum
from typing import TypeVar

import redis.asyncio
from arq import create_pool
from arq.connections import ArqRedis, RedisSettings
from arq.jobs import Job as QueuedJob
from arq.jobs import JobStatus
from redis.exceptions import RedisError

from sternhalma.server.thinking.jobs import Slot, SlotLost, Work

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
#: How often a job is tried before the computer gives up.
TRIES = 2
#: Seconds between two beats of a worker's heartbeat, and how long one beat keeps
#: the worker alive: a killed worker is noticed this long after its last beat.
BEAT = 0.5
ALIVE = 3.0
#: Redis keys beside arq's: a worker's heartbeat, and the worker running a job.
WORKER_KEY = "sternhalma:worker:"
RUNNING_KEY = "sternhalma:running:"


class Priority(IntEnum):
    """Lower first: the computer's move for the seat to move before any hint, and a
    hint (a player waits for it) before any analysis."""

    MOVE = 0
    HINT = 1
    ANALYSIS = 2


#: The queue of each priority.
QUEUES = {Priority.MOVE: MOVE_QUEUE, Priority.HINT: HINT_QUEUE, Priority.ANALYSIS: ANALYSIS_QUEUE}


class ThinkingFailed(Exception):
    """The computer found no move for a job (every try failed)."""


class JobLost(Exception):
    """A queued job's worker is gone, the job ran past its timeout, or it vanished from
    Redis; the message says which."""


class Thinking(ABC):
    """The computer's thinking, wherever it runs."""

    @abstractmethod
    async def start(self) -> None:
        """Get ready (start processes, connect)."""

    @abstractmethod
    async def close(self) -> None:
        """Stop; jobs still waiting are cancelled."""

    @abstractmethod
    async def think(self, job: Work, priority: Priority, key: str) -> str:
        """The answer to ``job``. ``key`` names the job (table, version, kind) so
        that processes asking for the same job share it."""


@dataclass(order=True)
class _Ticket:
    """A job waiting for a thinking process."""

    priority: int
    seq: int
    slot: asyncio.Future[Slot] = field(compare=False)


@dataclass
class _Running:
    priority: int
    preempted: bool = False


class Pool(Thinking):
    """Thinking processes of this process, shared by priority."""

    def __init__(
        self, size: int, *, timeout: float | None = None, nodes: int | None = None
    ) -> None:
        self.size = size
        #: Seconds a job may run before its process is replaced (None: no limit).
        self.timeout = timeout
        self.nodes = nodes
        self.free: list[Slot] = []
        self.running: dict[Slot, _Running] = {}
        self.waiting: list[_Ticket] = []
        self._seq = itertools.count()
        self._spawning: set[asyncio.Task[None]] = set()
        self._closed = False
        #: Jobs given up while they ran: cancelled, or one a computer move took over.
        self.given_up = 0

    async def start(self) -> None:
        slots = [Slot(self.nodes) for _ in range(self.size)]
        await asyncio.gather(*(slot.ready() for slot in slots))
        self.free.extend(slots)

    async def close(self) -> None:
        self._closed = True
        for task in list(self._spawning):
            task.cancel()
        for ticket in self.waiting:
            ticket.slot.cancel()
        for slot in [*self.free, *self.running]:
            slot.kill()
        self.free.clear()

    @property
    def busy(self) -> int:
        """Jobs running now."""
        return len(self.running)

    async def think(self, job: Work, priority: Priority, key: str) -> str:
        seq = next(self._seq)
        failures = 0
        while True:
            slot = await self._acquire(priority, seq)
            running = self.running[slot] = _Running(priority)
            try:
                try:
                    async with asyncio.timeout(self.timeout):
                        kind, value = await slot.run(job)
                finally:
                    del self.running[slot]
            except (SlotLost, TimeoutError) as error:
                slot.kill()
                self._release(slot)
                failures += 1
                what = "died" if isinstance(error, SlotLost) else f"ran over {self.timeout} s"
                log.warning("a thinking process %s on job %s (try %d)", what, key, failures)
                if failures >= TRIES:
                    raise ThinkingFailed(f"the thinking process {what}") from None
                continue
            except asyncio.CancelledError:
                self.given_up += 1
                self._release(slot)
                raise
            self._release(slot)
            if kind == "done" and value is not None:
                return value
            if kind == "gave-up" and running.preempted:
                self.given_up += 1
                continue  # a computer move took the process: wait again, first of its kind
            raise ThinkingFailed(value or "the thinking process gave the job up")

    async def _acquire(self, priority: int, seq: int) -> Slot:
        if self._closed:
            raise ThinkingFailed("the server is stopping")
        if self.free and not self.waiting:
            return self.free.pop()
        ticket = _Ticket(priority, seq, asyncio.get_running_loop().create_future())
        heapq.heappush(self.waiting, ticket)
        self._dispatch()
        self._preempt()
        try:
            return await ticket.slot
        except asyncio.CancelledError:
            if ticket.slot.done() and not ticket.slot.cancelled():
                self._release(ticket.slot.result())
            elif ticket in self.waiting:  # (not already passed over by _dispatch)
                self.waiting.remove(ticket)
                heapq.heapify(self.waiting)
            raise

    def _dispatch(self) -> None:
        """Give free processes to the first waiting jobs."""
        while self.free and self.waiting:
            ticket = heapq.heappop(self.waiting)
            if not ticket.slot.done():
                ticket.slot.set_result(self.free.pop())

    def _preempt(self) -> None:
        """Computer moves waiting with every process busy take processes from analyses,
        then from hints."""
        moves = sum(1 for t in self.waiting if t.priority == Priority.MOVE and not t.slot.done())
        taking = sum(1 for r in self.running.values() if r.preempted)
        lowest_first = sorted(self.running.items(), key=lambda item: -item[1].priority)
        for slot, running in lowest_first:
            if moves <= taking:
                return
            if running.priority > Priority.MOVE and not running.preempted:
                running.preempted = True
                taking += 1
                slot.interrupt()

    def _release(self, slot: Slot) -> None:
        """A job is done with ``slot``: the next waiting job gets it (a dead one is
        replaced first)."""
        if self._closed:
            slot.kill()
            return
        if not slot.alive:
            task = asyncio.get_running_loop().create_task(self._replace())
            self._spawning.add(task)
            task.add_done_callback(self._spawning.discard)
            return
        self.free.append(slot)
        self._dispatch()

    async def _replace(self) -> None:
        slot = Slot(self.nodes)
        try:
            await slot.ready()
        except SlotLost:
            log.error("a new thinking process did not start")
            return
        self._release(slot)


class Queue(Thinking):
    """The arq job queue on Redis; ``sternhalma worker`` processes serve it."""

    def __init__(self, redis_url: str, *, timeout: float) -> None:
        self.redis_url = redis_url
        #: Seconds a started job may run before it is sent again.
        self.timeout = timeout
        self.redis: ArqRedis | None = None
        self._aborts: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        self.redis = await create_pool(RedisSettings.from_dsn(self.redis_url))

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
                answer = await self._answer(queued)
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
        return QueuedJob(job_id, self.redis, _queue_name=queue)

    async def _answer(self, queued: QueuedJob) -> str:
        """The job's result. JobLost once the worker that began it has no heartbeat,
        or it has run ``timeout`` seconds (the time it waits in the queue for a free
        worker does not count)."""
        loop = asyncio.get_running_loop()
        started: float | None = None  # when a worker began the job, as seen from here
        worker: str | None = None  # that worker's name
        looked = 0.0
        while True:
            status = await self._retrying(queued.status)
            if status == JobStatus.complete:
                info = await self._retrying(queued.result_info)
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
                if now - started > self.timeout:
                    raise JobLost(f"ran over {self.timeout:g} s")
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
