"""``sternhalma worker``: thinking processes that serve the job queue on Redis.

One worker process runs ``processes`` thinking processes (a ``Pool``, as the
server does without Redis) and three arq consumers sharing them: one takes
computer moves, one hints, one analyses. Each takes at most as many jobs as
there are thinking processes; the pool runs them in that order, and a move
that finds every process busy takes one from an analysis or a hint, so a move
never waits behind them. An aborted job is dropped before it starts or given
up while it runs. A heartbeat key in Redis, renewed twice a second, and a key
naming this worker beside each job it runs (``Heartbeat``) let the servers see
at once that a killed worker's jobs need another. Jobs and results are JSON
(server/thinking/codec.py): a job that is not one sternhalma sends (a pickle, say)
is answered as failed, unread, and the worker takes the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from arq.connections import RedisSettings
from arq.worker import Worker, func
from redis.exceptions import RedisError

from sternhalma.server.thinking import Priority, Work
from sternhalma.server.thinking.codec import dumps, loads
from sternhalma.server.thinking.heartbeat import Heartbeat
from sternhalma.server.thinking.pool import Pool
from sternhalma.server.thinking.queue import POLL, QUEUES, THINK

log = logging.getLogger(__name__)

#: Seconds a job may run on a worker before the worker gives it up itself (the
#: server sends it again sooner, after its own timeout).
JOB_LIMIT = 120
#: Seconds an answer is kept in Redis for the server to read.
KEEP_RESULT = 60


async def run_worker(redis_url: str, processes: int, *, nodes: int | None = None) -> None:
    """Serve the queue until SIGINT or SIGTERM."""
    pool = Pool(processes, nodes=nodes)
    await pool.start()
    heartbeat = Heartbeat(redis_url)

    settings = RedisSettings.from_dsn(redis_url)
    consumers = []
    for priority, queue in QUEUES.items():

        async def think_at(
            context: dict[str, Any], job: Work, priority: Priority = priority
        ) -> str:
            job_id = str(context["job_id"])
            async with heartbeat.running(job_id, JOB_LIMIT):
                return await pool.think(job, priority, key=job_id)

        consumers.append(
            Worker(
                [func(think_at, name=THINK)],  # type: ignore[arg-type]
                queue_name=queue,
                redis_settings=settings,
                max_jobs=processes,
                job_serializer=dumps,
                job_deserializer=loads,
                job_timeout=JOB_LIMIT,
                keep_result=KEEP_RESULT,
                poll_delay=POLL,
                max_tries=2,
                allow_abort_jobs=True,
                handle_signals=False,
                health_check_interval=10,
            )
        )
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    beating = loop.create_task(heartbeat.beat())
    runs = [loop.create_task(consume(consumer)) for consumer in consumers]
    log.info("sternhalma worker: %d thinking processes on %s", processes, redis_url)
    try:
        await stop.wait()
    finally:
        # The jobs under way go back to the queue at once for another worker (arq's own
        # stop: they are cancelled, given up, and put back), rather than waiting for the
        # servers' timeout.
        jobs: list[asyncio.Task[Any]] = []
        for consumer in consumers:
            consumer.allow_pick_jobs = False
            jobs += consumer.tasks.values()
            consumer.handle_sig(signal.SIGTERM)
        await asyncio.gather(*jobs, return_exceptions=True)
        for task in runs:
            task.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        for consumer in consumers:
            with contextlib.suppress(Exception):
                await consumer.close()
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)
        await heartbeat.close()
        await pool.close()


async def consume(consumer: Worker) -> None:
    """Run an arq consumer; when Redis goes away (a restart), wait and go on."""
    while True:
        try:
            await consumer.main()
        except (RedisError, OSError) as error:
            log.warning("the job queue on Redis failed (%s); trying again in 1 s", error)
            await asyncio.sleep(1.0)
