"""The computer's thinking (server/thinking/): the in-process pool and the job queue,
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
import pickle
import signal
import time
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from arq import create_pool
from arq.connections import RedisSettings
from arq.constants import abort_jobs_ss, result_key_prefix
from arq.jobs import (
    DeserializationError,
    JobStatus,
    deserialize_job,
    deserialize_result,
    serialize_job,
    serialize_result,
)
from arq.jobs import Job as QueuedJob
from helpers import PAST_THE_BOOK, run_apart
from services import Player, Redis, Server, Worker, moved

from sternhalma.game import Game
from sternhalma.notation import position_to_dict, position_to_json
from sternhalma.records import write_record
from sternhalma.server.thinking import Priority, ThinkingFailed
from sternhalma.server.thinking.analysis import WORK, AnalysisJob, analyse_job, start_job
from sternhalma.server.thinking.codec import Unreadable, WorkerError, dumps, loads
from sternhalma.server.thinking.heartbeat import RUNNING_KEY
from sternhalma.server.thinking.jobs import Job
from sternhalma.server.thinking.pool import BACKGROUND_NICE, Pool
from sternhalma.server.thinking.queue import HINT_QUEUE, MOVE_QUEUE, THINK, Queue
from sternhalma.server.thinking.slot import Slot

pytestmark = pytest.mark.timeout(120)


def job(level: str = "easy", seconds: float | None = None, moves: tuple[str, ...] = ()) -> Job:
    return Job("classic-2", None, None, moves, True, level, 7, seconds)


LONG = job("hard", seconds=600.0, moves=PAST_THE_BOOK)


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


def test_with_two_processes_hints_run_only_on_the_lower_priority_one() -> None:
    """Two thinking processes: a long hint holds the lower-priority one; a second hint
    waits rather than take the moves' own; a computer move runs at once beside the
    hint, on the process at the normal priority, interrupting nothing."""

    async def scenario() -> tuple[int, int, int, int]:
        pool = Pool(2)
        await pool.start()
        try:
            long_hint = asyncio.create_task(pool.think(LONG, Priority.HINT, "long hint"))
            await started(pool)
            other_hint = asyncio.create_task(pool.think(job(), Priority.HINT, "other hint"))
            await asyncio.sleep(0.5)
            waiting = len(pool.waiting)
            (hinting,) = pool.running
            hint_nice = os.getpriority(os.PRIO_PROCESS, hinting.process.pid or 0)
            (moving,) = pool.free
            move_nice = os.getpriority(os.PRIO_PROCESS, moving.process.pid or 0)
            await asyncio.wait_for(pool.think(job(), Priority.MOVE, "move"), 60)
            given_up = pool.given_up
            long_hint.cancel()
            await asyncio.wait_for(other_hint, 60)
            return waiting, hint_nice - move_nice, given_up, pool.busy
        finally:
            await pool.close()

    waiting, lower_by, given_up, busy = run_apart(scenario())
    assert waiting == 1  # the second hint did not take the moves' process
    # Ten lower, or as low as a process can go (19) when the tests themselves run niced.
    assert lower_by == min(BACKGROUND_NICE, 19 - os.nice(0))
    assert given_up == 0  # the move did not need the hint's process
    assert busy == 0


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
            asking = asyncio.create_task(
                pool.think(job("hard", 1.0, PAST_THE_BOOK), Priority.MOVE, "b")
            )
            await started(pool)
            busy = next(iter(pool.running)).process
            os.kill(busy.pid or 0, signal.SIGKILL)  # during a job
            second = await asyncio.wait_for(asking, 60)
            return first, second, {idle.pid, busy.pid, pool.free[0].process.pid}
        finally:
            await pool.close()

    first, second, pids = run_apart(scenario())
    assert legal(first) and legal(second, PAST_THE_BOOK)
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


def test_an_analysis_may_think_longer_than_a_move_before_it_counts_as_stuck() -> None:
    """A review's step on a Halma game takes seconds of CPU: with a timeout too short
    for it as a move, the analysis is still answered (``time_limit``), not failed."""
    halma = Game("halma-2")
    for _ in range(6):
        halma.play(halma.legal_moves()[0])
    start = AnalysisJob("start", (write_record(halma),))
    began = time.perf_counter()
    expected = as_json(start_job(write_record(halma)))
    timeout = (time.perf_counter() - began) / 2  # as long as a move may: too short for it

    async def scenario() -> tuple[str, float]:
        pool = Pool(1, timeout=timeout)
        await pool.start()
        try:
            began = time.perf_counter()
            answer = await pool.think(start, Priority.ANALYSIS, "review start")
            return answer, time.perf_counter() - began
        finally:
            await pool.close()

    answer, took = run_apart(scenario())
    assert json.loads(answer) == expected
    assert took > timeout, "the job must take longer than a move may for this test to tell"


def test_the_pool_sends_only_work_that_crosses_as_json() -> None:
    """A thinking process gets its job as the JSON the queue carries: a work of another
    kind fails, and the process serves the next job."""

    class Unknown:
        def answer(self, nodes: int | None) -> str:
            return "e4"

    async def scenario() -> str:
        pool = Pool(1)
        await pool.start()
        try:
            with pytest.raises(ThinkingFailed, match="Unknown is not work the thinking can send"):
                await pool.think(Unknown(), Priority.MOVE, "unknown")
            return await asyncio.wait_for(pool.think(job(), Priority.MOVE, "next"), 60)
        finally:
            await pool.close()

    assert legal(run_apart(scenario()))


# -- what crosses Redis: JSON, never a pickle (server/thinking/codec.py) --------------


class Trap:
    """Pickled, it would create ``marker`` when it is unpickled: what a payload that
    someone else wrote to Redis could do, with a worse command."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


def a_record() -> str:
    return write_record(after("m4-m5", "g15-g13"))


#: One of every kind of work, with every analysis of ``WORK``.
WORKS: list[Job | AnalysisJob] = [
    job(),
    Job("classic-2", None, (1, 0), ("l4-l5", "e13-e12"), False, "hard", 2**31 - 1, 1.25),
    Job("classic-2", position_to_json(after("l4-l5").position), None, (), True, "medium", 0, 3),
    AnalysisJob("analyse", (position_to_dict(after("l4-l5").position),)),
    AnalysisJob("start", (a_record(),)),
    AnalysisJob("move", (a_record(), 2)),
]


def test_every_kind_of_work_crosses_redis_as_json_and_back() -> None:
    assert {work.work for work in WORKS if isinstance(work, AnalysisJob)} == set(WORK)
    for work in WORKS:
        payload = serialize_job(THINK, (work,), {}, 1, 1700000000000, serializer=dumps)
        kind = "move" if isinstance(work, Job) else "analysis"
        assert json.loads(payload)["a"] == [as_json({"type": kind, **vars(work)})]
        back = deserialize_job(payload, deserializer=loads)
        assert back.function == THINK and back.args == (as_json_work(work),)
        result = serialize_result(
            THINK, (work,), {}, 1, 1, True, "l4-l5", 2, 3, "ref", MOVE_QUEUE, "id", serializer=dumps
        )
        info = deserialize_result(result, deserializer=loads)
        assert info.success and info.result == "l4-l5" and info.args == (as_json_work(work),)


def as_json_work(work: Job | AnalysisJob) -> Job | AnalysisJob:
    """``work`` as it comes back: an analysis's arguments are JSON values."""
    if isinstance(work, AnalysisJob):
        return AnalysisJob(work.work, tuple(as_json(list(work.args))))  # type: ignore[arg-type]
    return work


def test_a_failure_crosses_as_its_type_and_message_an_abort_as_arq_reads_it() -> None:
    try:
        raise DeserializationError("unable to deserialize job") from Unreadable("it is bad")
    except DeserializationError as error:
        unread = error
    for raised, expected in [
        (unread, "DeserializationError: unable to deserialize job (it is bad)"),
        (ThinkingFailed("the thinking process died"), "ThinkingFailed: the thinking process died"),
        (asyncio.CancelledError(), None),  # arq's Job.abort() looks for it
    ]:
        result = serialize_result(
            "<unknown>", (), {}, 1, 0, False, raised, 2, 3, "ref", MOVE_QUEUE, "i", serializer=dumps
        )
        info = deserialize_result(result, deserializer=loads)
        assert not info.success
        if expected is None:
            assert isinstance(info.result, asyncio.CancelledError)
        else:
            assert isinstance(info.result, WorkerError) and str(info.result) == expected


def payload(work: object, **envelope: object) -> bytes:
    data = {"t": 1, "f": THINK, "a": [work], "k": {}, "et": 1700000000000} | envelope
    return json.dumps(data).encode()


MOVE = {"type": "move"} | as_json(vars(job()))  # type: ignore[operator]


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (b"", "not JSON"),
        (b"[]", "a JSON object, not a list"),
        (b'{"f": "think"}', "not an arq job or result"),
        (payload(MOVE, k={"job": MOVE}), "no keyword arguments"),
        (payload(MOVE, t=True), "'t' is a bool"),
        (payload(MOVE, et="now"), "'et' is a str"),
        (payload([]), "a work is a JSON object, not a list"),
        (payload({"type": "Trap"}), "'Trap' is not a type of work"),
        (payload(MOVE | {"seed": "7"}), "move.seed is a str, not int"),
        (payload(MOVE | {"seed": True}), "move.seed is a bool, not int"),
        (payload(MOVE | {"moves": ["l4-l5", 3]}), r"move.moves\[1\] is a int, not str"),
        (payload(MOVE | {"seconds": "soon"}), "move.seconds is a str, not float"),
        (payload(MOVE | {"clock": [1]}), "move.clock is a list, not float"),
        (payload(MOVE | {"__class__": "os.system"}), "'move' work has no field __class__"),
        (payload({k: v for k, v in MOVE.items() if k != "level"}), "needs the field level"),
        (
            payload({"type": "analysis", "work": "system", "args": []}),
            "'system' is not an analysis",
        ),
        (payload({"type": "analysis", "work": "move", "args": ["r"]}), "do not fit"),
        (
            payload({"type": "analysis", "work": "move", "args": ["r", "2"]}),
            r"move\(number\) is a str",
        ),
        (payload({"type": "analysis", "work": "start", "args": "r"}), "analysis.args is a str"),
    ],
)
def test_a_payload_that_is_not_work_sternhalma_sends_is_refused(text: bytes, why: str) -> None:
    with pytest.raises(Unreadable, match=why):
        loads(text)
    with pytest.raises(DeserializationError):
        deserialize_job(text, deserializer=loads)


def test_a_pickle_is_refused_unread(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    trap = pickle.dumps({"t": 1, "f": THINK, "a": (Trap(marker),), "k": {}, "et": 1})
    with pytest.raises(Unreadable, match="it is a pickle"):
        loads(trap)
    with pytest.raises(Unreadable, match="not JSON"):
        loads(pickle.dumps(Trap(marker), protocol=0))
    assert not marker.exists(), "the pickle ran"


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


async def no_abort_marks(queue: Queue) -> None:
    """Wait until no abort mark is left in Redis: arq clears one when a worker reaches
    its job, and nothing would clear the mark of a job that will never run again."""
    assert queue.redis is not None
    for _ in range(200):
        await asyncio.gather(*queue._aborts)
        if not await queue.redis.zcard(abort_jobs_ss):
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"abort marks left: {await queue.redis.zrange(abort_jobs_ss, 0, -1)}")


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
            # A job given up just after it was answered: nothing to abort.
            queue._abort(queue.handle("t2:1:1", MOVE_QUEUE))
            await no_abort_marks(queue)
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


def test_a_job_that_runs_over_its_timeout_on_a_live_worker_is_tried_twice_then_given_up(
    redis: Redis, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The job timeout is the last resort, for a worker that is alive (its heartbeat
    goes on) but does not answer: the job is sent again, then the computer gives up,
    and the worker has given both tries up and serves the next job."""
    worker = Worker(redis.url, tmp_path / "worker.log")
    worker.start()

    async def scenario() -> str:
        queue = Queue(redis.url, timeout=1.0)
        await queue.start()
        try:
            with pytest.raises(ThinkingFailed, match="no worker answered"):
                await asyncio.wait_for(queue.think(LONG, Priority.MOVE, "slow"), 90)
            return await asyncio.wait_for(queue.think(job(), Priority.MOVE, "quick"), 60)
        finally:
            await queue.close()

    try:
        answer = run_apart(scenario())
    finally:
        worker.stop()
    assert legal(answer)
    lost = [r.getMessage() for r in caplog.records if r.getMessage().startswith("job slow:")]
    assert lost == ["job slow:1 ran over 1 s; sent again", "job slow:2 ran over 1 s"]


async def running_job(redis_url: str, prefix: str) -> tuple[str, str]:
    """Wait until a worker names itself beside a job whose id starts with ``prefix``:
    the job's id and the worker's name."""
    client = aioredis.Redis.from_url(redis_url)
    try:
        for _ in range(1200):
            for key in await client.keys(f"{RUNNING_KEY}{prefix}*"):
                name = await client.get(key)
                if name is not None:
                    return key.decode().removeprefix(RUNNING_KEY), name.decode()
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()
    raise AssertionError(f"no worker began a job {prefix}…")


async def enqueue(redis_url: str, work: Job, queue: str, job_id: str) -> None:
    pool = await create_pool(
        RedisSettings.from_dsn(redis_url), job_serializer=dumps, job_deserializer=loads
    )
    try:
        await pool.enqueue_job(THINK, work, _job_id=job_id, _queue_name=queue)
    finally:
        await pool.aclose()


async def status_then_abort(redis_url: str, queue: str, job_id: str) -> JobStatus:
    """A queued job's status; then it is aborted (and given up by its worker)."""
    pool = await create_pool(
        RedisSettings.from_dsn(redis_url), job_serializer=dumps, job_deserializer=loads
    )
    try:
        queued = QueuedJob(job_id, pool, _queue_name=queue, _deserializer=loads)
        status = await queued.status()
        await queued.abort(timeout=30)
        return status
    finally:
        await pool.aclose()


@pytest.mark.timeout(300)
def test_a_computer_move_on_a_killed_worker_is_played_once_by_another(
    redis: Redis, tmp_path: Path
) -> None:
    """A worker is killed (SIGKILL) while it thinks about a computer move. Its heartbeat
    stops, so the server sends the move again at once (its job timeout, 600 s, is far
    off). A second worker plays it ahead of a long hint asked for after the move, which
    wants the worker's one thinking process too, and the game goes on with every move
    played once."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    server = Server(database, redis.url, tmp_path / "server.log", think_timeout=600)
    first = Worker(redis.url, tmp_path / "first.log", nodes=10**9)  # a move: a minute
    second = Worker(redis.url, tmp_path / "second.log")
    player: Player | None = None
    try:
        server.start()
        first.start()
        first.wait_ready()
        seats = [{"kind": "person"}, {"kind": "computer", "level": "hard"}]
        table = server.post("/api/tables", {"variant": "classic-2", "seats": seats})
        player = Player(server, table["id"], table["token"])
        player.move(0, player.state["legal"][0])
        job_id, name = run_apart(running_job(redis.url, f"move:{table['id']}:"))
        assert first.process is not None
        assert name.split(":")[1] == str(first.process.pid), "the first worker has the move"
        thinkers = thinking_processes(first.process.pid)
        assert thinkers, "the worker thinks in a process of its own"
        first.kill()
        # Asked for once the first worker is gone: a worker that took it and died would
        # hold it (arq's in-progress mark) for minutes, and nobody here would send it again.
        run_apart(enqueue(redis.url, LONG, HINT_QUEUE, "elsewhere:hint"))
        second.start()

        answer = player.until(moved(1), timeout=120)
        assert [m["seat"] for m in answer["state"]["moves"]] == [0, 1]
        hint = run_apart(status_then_abort(redis.url, HINT_QUEUE, "elsewhere:hint"))
        assert hint in (JobStatus.queued, JobStatus.in_progress), "the move went first"
        # The game goes on, on the second worker.
        player.move(0, player.state["legal"][0])
        player.until(moved(1), timeout=120)
        player.drain()
    finally:
        if player is not None:
            player.close()
        server.stop()
        first.kill()
        second.stop()

    assert [m["seat"] for m in player.state["moves"]] == [0, 1, 0, 1]
    versions = [m["v"] for m in player.seen if moved()(m)]
    assert len(versions) == 4 and len(set(versions)) == 4, "each move was played once"
    assert not any(Path(f"/proc/{pid}").exists() for pid in thinkers), (
        "a killed worker's thinking process is still running"
    )
    log = (tmp_path / "server.log").read_text()
    assert f"job {job_id} lost its worker {name} (no heartbeat); sent again" in log


def test_a_pickled_job_on_the_queue_runs_nothing_and_the_worker_takes_the_next(
    redis: Redis, tmp_path: Path
) -> None:
    """Someone who can write to Redis queues a pickle (arq's default) that would create
    a file: the worker answers it as failed, unread, and serves the next job."""
    worker = Worker(redis.url, tmp_path / "worker.log")
    worker.start()
    marker = tmp_path / "marker"

    async def scenario() -> tuple[object, str]:
        pickled = await create_pool(RedisSettings.from_dsn(redis.url))  # pickles
        try:
            await pickled.enqueue_job(THINK, Trap(marker), _job_id="trap", _queue_name=MOVE_QUEUE)
        finally:
            await pickled.aclose()
        queue = Queue(redis.url, timeout=30)
        await queue.start()
        try:
            trap = queue.handle("trap", MOVE_QUEUE)
            for _ in range(1200):
                if await trap.status() == JobStatus.complete:
                    break
                await asyncio.sleep(0.05)
            info = await trap.result_info()
            assert info is not None and not info.success
            answer = await asyncio.wait_for(queue.think(job(), Priority.MOVE, "next"), 60)
            return info.result, answer
        finally:
            await queue.close()

    try:
        refused, answer = run_apart(scenario())
    finally:
        code = worker.stop()
    assert not marker.exists(), "the pickle ran in the worker"
    assert (
        "it is a pickle (the job queue carries JSON only); refused unread"
        in (tmp_path / "worker.log").read_text()
    )
    assert isinstance(refused, WorkerError) and "it is a pickle" in str(refused)
    assert legal(answer)
    assert code == 0, (tmp_path / "worker.log").read_text()[-2000:]


def test_a_pickled_result_runs_nothing_in_the_server(redis: Redis, tmp_path: Path) -> None:
    """A result in Redis is read as JSON too: a pickle there fails the job, unread."""
    marker = tmp_path / "marker"

    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis.url)
        try:
            await client.set(result_key_prefix + "planted:1", pickle.dumps(Trap(marker)))
        finally:
            await client.aclose()
        queue = Queue(redis.url, timeout=30)
        await queue.start()
        try:
            with pytest.raises(ThinkingFailed, match="answer cannot be read: it is a pickle"):
                await asyncio.wait_for(queue.think(job(), Priority.MOVE, "planted"), 60)
        finally:
            await queue.close()

    run_apart(scenario())
    assert not marker.exists(), "the pickle ran in the server"


def test_a_give_up_that_comes_after_its_job_ended_leaves_the_process_alive() -> None:
    """The parent gives a job up just as the process begins it (the process answers
    "gave-up" at once), and a second give-up signal for that job arrives while the
    process waits for the next job: the process must stay and answer the next one."""

    async def scenario() -> tuple[str, bool, str]:
        slot = Slot()
        await slot.ready()
        try:
            slot.given_up.value = slot.number + 1  # the next job is given up before it begins
            kind, _ = await slot.run(job())
            slot.interrupt()  # a late signal for the job that has ended
            await asyncio.sleep(0.5)
            alive = slot.alive
            done, answer = await asyncio.wait_for(slot.run(job()), 60)
            return kind, alive, f"{done}:{answer}"
        finally:
            slot.kill()

    kind, alive, answer = run_apart(scenario())
    assert kind == "gave-up"
    assert alive, "the thinking process died of a give-up that came after its job"
    assert answer.startswith("done:") and legal(answer.removeprefix("done:"))
