"""The computer's thinking (server/thinking.py): the in-process pool and the job queue,
for computer moves, hints and analyses.

The pool's thinking processes and ``sternhalma worker`` are real processes; the
queue runs on a redis-server started by tests/services.py. A "long" job is Hard
with a large budget, which would think for many seconds unless it is stopped;
nothing here measures time, waits have limits so a missing answer fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest
from arq.jobs import Job as QueuedJob
from arq.jobs import JobStatus
from helpers import run_apart
from services import Redis, Worker

from sternhalma.game import Game
from sternhalma.notation import position_to_dict
from sternhalma.records import write_record
from sternhalma.server.computer import Job
from sternhalma.server.review import AnalysisJob, analyse_job, start_job
from sternhalma.server.thinking import (
    HINT_QUEUE,
    MOVE_QUEUE,
    Pool,
    Priority,
    Queue,
    ThinkingFailed,
)

pytestmark = pytest.mark.timeout(120)


def job(level: str = "easy", budget: float | None = None, moves: tuple[str, ...] = ()) -> Job:
    return Job("classic-2", None, None, moves, True, level, 7, budget)


LONG = job("hard", budget=600.0)


def after(*moves: str) -> Game:
    game = Game("classic-2")
    for move in moves:
        game.play(move)
    return game


def as_json(data: object) -> object:
    """``data`` as it comes back through JSON text."""
    return json.loads(json.dumps(data))


def legal(text: str, moves: tuple[str, ...] = ()) -> bool:
    game = Game("classic-2")
    for move in moves:
        game.play(move)
    return bool(game.rules.parse_move(game.position, text))


async def started(pool: Pool, count: int = 1) -> None:
    """Wait until ``count`` jobs run in the pool."""
    for _ in range(1000):
        if pool.busy >= count:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{count} jobs did not start")


def test_the_pool_answers_a_legal_move() -> None:
    async def scenario() -> str:
        pool = Pool(1)
        await pool.start()
        try:
            return await pool.think(job(moves=("l4-l5",)), Priority.MOVE, "t:1")
        finally:
            await pool.close()

    assert legal(run_apart(scenario()), ("l4-l5",))


def test_an_analysis_job_answers_what_the_library_computes() -> None:
    position = position_to_dict(after("l4-l5").position)

    async def scenario() -> str:
        pool = Pool(1)
        await pool.start()
        try:
            work = AnalysisJob("analyse", (position,))
            return await pool.think(work, Priority.ANALYSIS, "a:1")
        finally:
            await pool.close()

    answer = json.loads(run_apart(scenario()))
    assert answer == as_json(analyse_job(position))
    assert answer["turn"] == "black" and answer["best"]["path"][0] in position["marbles"]["black"]


def test_a_computer_move_comes_before_hints_and_takes_a_process_from_one() -> None:
    """One thinking process, busy with a long hint; another hint waits; a computer
    move then asks: it is answered first, and the hint it interrupted waits again."""

    async def scenario() -> list[str]:
        pool = Pool(1)
        await pool.start()
        done: list[str] = []

        async def ask(name: str, what: Job, priority: Priority) -> None:
            await pool.think(what, priority, name)
            done.append(name)

        try:
            long_hint = asyncio.create_task(ask("long hint", LONG, Priority.HINT))
            await started(pool)
            other_hint = asyncio.create_task(ask("other hint", job(), Priority.HINT))
            await asyncio.sleep(0.1)
            await asyncio.wait_for(ask("move", job(), Priority.MOVE), 60)
            # The interrupted hint runs again before the later one.
            await started(pool)
            assert not long_hint.done() and not other_hint.done()
            long_hint.cancel()
            await asyncio.wait_for(other_hint, 60)
            return done
        finally:
            await pool.close()

    assert run_apart(scenario()) == ["move", "other hint"]


def test_a_waiting_analysis_comes_after_a_computer_move_and_a_hint() -> None:
    """One thinking process, busy with a long hint; an analysis waits; a computer move
    asks and takes the process; then the hint runs again before the analysis."""

    async def scenario() -> tuple[list[str], Priority]:
        pool = Pool(1)
        await pool.start()
        done: list[str] = []

        async def ask(name: str, what: Job | AnalysisJob, priority: Priority) -> None:
            await pool.think(what, priority, name)
            done.append(name)

        try:
            long_hint = asyncio.create_task(ask("long hint", LONG, Priority.HINT))
            await started(pool)
            start = AnalysisJob("start", (write_record(after()),))
            analysis = asyncio.create_task(ask("analysis", start, Priority.ANALYSIS))
            await asyncio.sleep(0.1)
            await asyncio.wait_for(ask("move", job(), Priority.MOVE), 60)
            await started(pool)
            after_move = next(iter(pool.running.values())).priority
            assert not long_hint.done() and not analysis.done()
            long_hint.cancel()
            await asyncio.wait_for(analysis, 60)
            return done, after_move
        finally:
            await pool.close()

    done, after_move = run_apart(scenario())
    assert done == ["move", "analysis"]
    assert after_move == Priority.HINT


def test_a_cancelled_job_is_given_up_and_its_process_serves_the_next() -> None:
    async def scenario() -> tuple[int | None, int | None, str]:
        pool = Pool(1)
        await pool.start()
        try:
            before = pool.free[0].process.pid
            asking = asyncio.create_task(pool.think(LONG, Priority.HINT, "h"))
            await started(pool)
            asking.cancel()
            with pytest.raises(asyncio.CancelledError):
                await asking
            waiting = asyncio.create_task(pool.think(LONG, Priority.HINT, "h2"))
            await asyncio.sleep(0.05)
            waiting.cancel()  # possibly before it started: dropped from the line
            with pytest.raises(asyncio.CancelledError):
                await waiting
            answer = await asyncio.wait_for(pool.think(job(), Priority.MOVE, "m"), 60)
            after = pool.free[0].process.pid
            return before, after, answer
        finally:
            await pool.close()

    before, after, answer = run_apart(scenario())
    assert before == after, "giving a job up keeps the thinking process"
    assert legal(answer)


def test_a_killed_thinking_process_is_replaced_and_the_job_tried_again() -> None:
    async def scenario() -> tuple[str, str, set[int | None]]:
        pool = Pool(1)
        await pool.start()
        try:
            idle = pool.free[0].process
            os.kill(idle.pid or 0, signal.SIGKILL)  # between jobs
            idle.join(10)
            first = await asyncio.wait_for(pool.think(job(), Priority.MOVE, "a"), 60)
            asking = asyncio.create_task(pool.think(job("hard", 1.0), Priority.MOVE, "b"))
            await started(pool)
            busy = next(iter(pool.running)).process
            os.kill(busy.pid or 0, signal.SIGKILL)  # during a job
            second = await asyncio.wait_for(asking, 60)
            return first, second, {idle.pid, busy.pid, pool.free[0].process.pid}
        finally:
            await pool.close()

    first, second, pids = run_apart(scenario())
    assert legal(first) and legal(second)
    assert len(pids) == 3, "each killed process was replaced by a new one"


def test_a_job_that_runs_over_its_time_fails_after_a_second_try() -> None:
    async def scenario() -> str:
        pool = Pool(1, timeout=0.3)
        await pool.start()
        try:
            with pytest.raises(ThinkingFailed, match="ran over"):
                await pool.think(LONG, Priority.MOVE, "slow")
            return await asyncio.wait_for(pool.think(job(), Priority.MOVE, "quick"), 60)
        finally:
            await pool.close()

    assert legal(run_apart(scenario()))


# -- the job queue and ``sternhalma worker`` as a process of its own ------------------


async def started_in_queue(queued: QueuedJob) -> None:
    """Wait until a worker has taken the queued job."""
    for _ in range(600):
        if await queued.status() == JobStatus.in_progress:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {queued.job_id} did not start")


def thinking_processes(parent: int) -> list[int]:
    """The thinking processes (spawned children) of a worker process."""
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    return [
        int(pid) for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]


def test_a_worker_process_answers_moves_and_analyses_and_gives_up_cancelled_hints(
    redis: Redis, tmp_path: Path
) -> None:
    worker = Worker(redis.url, tmp_path / "worker.log")
    worker.start()
    record = write_record(after("m4-m5", "g15-g13"))

    async def scenario() -> tuple[str, str, str]:
        queue = Queue(redis.url, timeout=30)
        await queue.start()
        try:
            first = await asyncio.wait_for(
                queue.think(job(moves=("l4-l5",)), Priority.MOVE, "t1:1"), 60
            )
            start = AnalysisJob("start", (record,))
            analysis = await asyncio.wait_for(queue.think(start, Priority.ANALYSIS, "a1"), 60)
            # A long hint occupies the worker's one process; cancelling it frees it.
            hint = asyncio.create_task(queue.think(LONG, Priority.HINT, "t1:hint"))
            queued = queue.handle("t1:hint:1", HINT_QUEUE)
            await started_in_queue(queued)
            hint.cancel()
            with pytest.raises(asyncio.CancelledError):
                await hint
            second = await asyncio.wait_for(queue.think(job(), Priority.MOVE, "t2:1"), 60)
            return first, analysis, second
        finally:
            await queue.close()

    try:
        first, analysis, second = run_apart(scenario())
    finally:
        code = worker.stop()
    assert legal(first, ("l4-l5",)) and legal(second)
    assert json.loads(analysis) == as_json(start_job(record))
    assert code == 0, (tmp_path / "worker.log").read_text()[-2000:]


def test_a_job_on_a_killed_worker_runs_again_on_another(redis: Redis, tmp_path: Path) -> None:
    first = Worker(redis.url, tmp_path / "first.log")
    first.start()
    second = Worker(redis.url, tmp_path / "second.log")

    async def scenario() -> str:
        queue = Queue(redis.url, timeout=3)
        await queue.start()
        try:
            asking = asyncio.create_task(queue.think(job("hard", 2.0), Priority.MOVE, "k:1"))
            queued = queue.handle("k:1:1", MOVE_QUEUE)
            await started_in_queue(queued)
            assert first.process is not None
            thinkers = thinking_processes(first.process.pid)
            assert thinkers, "the worker thinks in a process of its own"
            first.kill()
            second.start()
            answer = await asyncio.wait_for(asking, 90)
            # The killed worker's thinking process did not linger.
            for _ in range(200):
                if not any(Path(f"/proc/{pid}").exists() for pid in thinkers):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("a killed worker's thinking process is still running")
            return answer
        finally:
            await queue.close()

    try:
        answer = run_apart(scenario())
    finally:
        first.kill()
        second.stop()
    assert legal(answer)
