"""The computer's thinking, run in worker processes (never on the event loop).

A job is plain data (variant id, start position, moves so far, level, seed),
so it pickles cheaply; the worker rebuilds the referee by replaying the moves
and asks the player for its move.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from sternhalma.game import Game
from sternhalma.notation import position_from_json
from sternhalma.players import make_player

log = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass(frozen=True)
class Job:
    variant: str
    start: str | None
    moves_made: tuple[int, ...] | None
    moves: tuple[str, ...]
    deadline_rule: bool
    level: str
    seed: int


def rebuild(job: Job) -> Game:
    """The referee after the job's moves, replayed (and so checked) from the start."""
    game = Game(
        job.variant,
        start=position_from_json(job.start) if job.start else None,
        deadline_rule=job.deadline_rule,
        moves_made=job.moves_made,
    )
    for text in job.moves:
        game.play(text)
    return game


def choose(job: Job) -> str:
    """The move text the player of ``job.level`` chooses (runs in a worker process)."""
    game = rebuild(job)
    move = make_player(job.level, job.seed).choose(game)
    return game.position.rules.format_move(move)


def warm_up() -> bool:
    """Imports the engine and players in a fresh worker, so the first move is not slow."""
    return True


def watch_parent(parent: int) -> None:
    """Worker initializer: end this worker once the server that started it is gone. A
    clean stop shuts the pool down; a killed server would leave its workers behind."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


class Workers:
    """The worker processes the computer thinks in. A worker that dies (killed, out of
    memory) breaks its whole pool; the pool is then replaced and the job tried once
    more, so one lost worker does not silence every computer seat of the server."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        # "spawn": workers must not inherit the event loop's threads and sockets.
        return ProcessPoolExecutor(
            self.size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=watch_parent,
            initargs=(os.getpid(),),
        )

    async def warm_up(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.gather(*(loop.run_in_executor(self.pool, warm_up) for _ in range(self.size)))

    async def choose(self, job: Job) -> str:
        """The move text for ``job``, thought out in a worker."""
        text: str = await self.run(choose, job)
        return text

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` run in a worker (a module-level function, plain data)."""
        loop = asyncio.get_running_loop()
        pool = self.pool
        try:
            return await loop.run_in_executor(pool, function, *args)
        except BrokenProcessPool:
            if self.pool is pool:  # the first job to find it broken replaces it
                log.warning("a computer worker died; starting new workers")
                self.pool = self._new_pool()
                pool.shutdown(wait=False, cancel_futures=True)
            return await loop.run_in_executor(self.pool, function, *args)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
