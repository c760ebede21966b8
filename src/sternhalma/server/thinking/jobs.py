"""The computer's thinking, run in thinking processes (never on the event loop).

A job is plain data that answers itself with text (``Work``): a computer move or
hint (``Job``: variant id, start position, moves so far, level, seed, seconds to
think; the thinking process rebuilds the referee by replaying the moves and asks
the player for its move), or an analysis (server/web/review.py ``AnalysisJob``: the
work's name and its arguments, answered with JSON text). It pickles cheaply.

A ``Slot`` is one such process, spawned once and reused job after job. A job
is stopped without losing the process: SIGUSR1 makes the process give up the
job it is on (the search is pure Python between its steps); a process that
does not answer is killed and replaced. server/thinking/ schedules jobs on
slots, in the server (``make run``) or in ``sternhalma worker``.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any, Protocol

from sternhalma.game import OWNER_LEAVING, Game
from sternhalma.notation import position_from_json
from sternhalma.players import HardPlayer, Player, make_player

#: Seconds a thinking process has to give up a job before it is killed.
GIVE_UP = 2.0


class Work(Protocol):
    """What a thinking process runs: plain data (pickled to the process, or through
    the job queue) that computes its answer as text."""

    def answer(self, nodes: int | None) -> str: ...


@dataclass(frozen=True)
class Job:
    """A computer move or hint."""

    variant: str
    start: str | None
    moves_made: tuple[int, ...] | None
    moves: tuple[str, ...]
    deadline_rule: bool
    level: str
    seed: int
    #: Seconds the player may think (None: its own default); set from a running clock.
    budget: float | None = None
    #: The table's finishing rule (sternhalma.game.FINISH_RULES; Table.replay).
    finish_rule: str = OWNER_LEAVING

    def answer(self, nodes: int | None) -> str:
        return choose(self, nodes)


def rebuild(job: Job) -> Game:
    """The referee after the job's moves, replayed (and so checked) from the start."""
    game = Game(
        job.variant,
        start=position_from_json(job.start) if job.start else None,
        deadline_rule=job.deadline_rule,
        moves_made=job.moves_made,
        finish_rule=job.finish_rule,
    )
    for text in job.moves:
        game.play(text)
    return game


def choose(job: Job, nodes: int | None = None) -> str:
    """The move text the player of ``job.level`` chooses. ``nodes`` fixes Hard's search
    size (benchmarks: the same work on any machine, the clock only a far cap)."""
    game = rebuild(job)
    player: Player = make_player(job.level, job.seed)
    budget = job.budget
    if nodes is not None and isinstance(player, HardPlayer):
        player, budget = HardPlayer(job.seed, nodes=nodes), 60.0
    move = player.choose(game, budget)
    return game.position.rules.format_move(move)


def watch_parent(parent: int) -> None:
    """End this process once the process that started it is gone. A clean stop ends
    the slots; a killed server or worker would leave them behind."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, name="watch-parent", daemon=True).start()


class GiveUp(BaseException):
    """Raised in a thinking process by SIGUSR1 while it works on a job (a BaseException,
    so no ``except Exception`` in the engine swallows it)."""


#: The number of the job this thinking process is on (0: none), and the number up to
#: which its parent has given jobs up (shared memory: a job given up before it began
#: is given up as soon as it begins).
_current = [0]
_given_up: Any = None


def _give_up(_signal: int, _frame: object) -> None:
    if _current[0] and _given_up.value >= _current[0]:
        _current[0] = 0
        raise GiveUp


def slot_main(conn: Connection, parent: int, nodes: int | None, given_up: Any) -> None:
    """A thinking process: answer each numbered job with ("done", its answer),
    ("gave-up", None) or ("error", message), one answer per job."""
    global _given_up
    _given_up = given_up
    watch_parent(parent)
    signal.signal(signal.SIGUSR1, _give_up)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C: the parent stops us
    conn.send(("ready", None))
    while True:
        try:
            number, job = conn.recv()
        except (EOFError, OSError):
            return
        reply: tuple[str, str | None]
        try:
            _current[0] = number
            if given_up.value >= number:
                raise GiveUp
            text = job.answer(nodes)
            _current[0] = 0
            reply = ("done", text)
        except GiveUp:
            reply = ("gave-up", None)
        except Exception as error:
            _current[0] = 0
            reply = ("error", f"{type(error).__name__}: {error}")
        try:
            conn.send(reply)
        except OSError:  # the parent was killed: nobody waits for the answer
            return


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class SlotLost(Exception):
    """The thinking process died (killed, out of memory) or stopped answering."""


class Slot:
    """One thinking process, driven from the event loop."""

    def __init__(self, nodes: int | None = None) -> None:
        # "spawn": the process must not inherit the event loop's threads and sockets.
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        #: Jobs are numbered; the child gives up every job up to ``given_up``.
        self.number = 0
        self.given_up = context.RawValue("q", 0)
        self.process = context.Process(
            target=slot_main,
            args=(child, os.getpid(), nodes, self.given_up),
            name="sternhalma-think",
            daemon=True,
        )
        self.process.start()
        child.close()  # so the parent sees EOF when the process dies

    @property
    def alive(self) -> bool:
        return self.process.is_alive() and not self.conn.closed

    async def ready(self) -> None:
        """Wait until the process has imported the engine (the first move is not slow)."""
        kind, _ = await self._reply()
        if kind != "ready":  # pragma: no cover - slot_main says "ready" first
            raise SlotLost(f"unexpected first answer {kind!r}")

    async def run(self, job: Work) -> tuple[str, str | None]:
        """The process's answer to ``job``. Cancelled: the process gives the job up (or is
        killed when it does not within GIVE_UP seconds) before this returns."""
        self.number += 1
        try:
            self.conn.send((self.number, job))
        except OSError:
            raise SlotLost("the thinking process is gone") from None
        try:
            return await self._reply()
        except asyncio.CancelledError:
            self.interrupt()
            try:
                await asyncio.wait_for(self._reply(), GIVE_UP)
            except (TimeoutError, SlotLost):
                self.kill()
            raise

    def interrupt(self) -> None:
        """Ask the process to give up its job (it answers "gave-up"), even one it has
        been sent but not begun."""
        self.given_up.value = self.number
        with contextlib.suppress(OSError):
            if self.process.pid is not None:
                os.kill(self.process.pid, signal.SIGUSR1)

    async def _reply(self) -> tuple[str, Any]:
        loop = asyncio.get_running_loop()
        try:
            while not self.conn.poll():
                readable: asyncio.Future[None] = loop.create_future()
                fd = self.conn.fileno()
                loop.add_reader(fd, _wake, readable)
                try:
                    await readable
                finally:
                    loop.remove_reader(fd)
            reply: tuple[str, Any] = self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise SlotLost("the thinking process died") from None
        return reply

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()
