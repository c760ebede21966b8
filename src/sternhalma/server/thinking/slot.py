"""``Slot``: one thinking process, spawned once and reused job after job.

Jobs go to the process, and answers come back, as JSON text on a pipe
(server/thinking/codec.py), the form they take on Redis: a work the queue could not
carry fails here too.

A job (``Work``: plain data that answers itself with text) is stopped without losing
the process: SIGUSR1 makes the process give up the job it is on (the search is pure
Python between its steps); a process that does not answer is killed and replaced.
``Pool`` (server/thinking/pool.py) schedules jobs on slots, in the server
(``make run``) or in ``sternhalma worker``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from sternhalma.jsontext import JsonTextError, read_json
from sternhalma.server.thinking import Work
from sternhalma.server.thinking.codec import read_work, write_work

#: Seconds a thinking process has to give up a job before it is killed.
GIVE_UP = 2.0


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


def slot_main(
    conn: Connection, parent: int, nodes: int | None, given_up: Any, nice: int = 0
) -> None:
    """A thinking process: answer each numbered job with ("done", its answer),
    ("gave-up", None) or ("error", message), one answer per job. ``nice`` lowers
    its CPU priority for good (no unprivileged process can raise it again)."""
    global _given_up
    _given_up = given_up
    if nice:
        os.nice(nice)
    watch_parent(parent)
    signal.signal(signal.SIGUSR1, _give_up)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C: the parent stops us
    _send(conn, ("ready", None))
    while True:
        try:
            number, work = read_json(conn.recv_bytes())
        except (EOFError, OSError):
            return
        try:
            _send(conn, _answer(number, work, nodes))
        except OSError:  # the parent was killed: nobody waits for the answer
            return


def _answer(number: int, work: object, nodes: int | None) -> tuple[str, str | None]:
    """One job's answer. A give-up interrupts only this job: ``_current`` is 0 again
    when this returns (the handler clears it before it raises, and ``finally`` on
    every other way out), so a late signal finds no job and is ignored."""
    reply: tuple[str, str | None] | None = None
    try:
        try:
            _current[0] = number
            if _given_up.value >= number:
                raise GiveUp
            reply = ("done", read_work(work).answer(nodes))
        except Exception as error:
            reply = ("error", f"{type(error).__name__}: {error}")
        finally:
            _current[0] = 0
    except GiveUp:
        pass  # (the handler raises at most once per job: it clears _current first)
    return reply or ("gave-up", None)


def _send(conn: Connection, reply: tuple[str, str | None]) -> None:
    conn.send_bytes(json.dumps(reply).encode())


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class SlotLost(Exception):
    """The thinking process died (killed, out of memory) or stopped answering."""


class Slot:
    """One thinking process, driven from the event loop; ``nice`` > 0: a process
    that yields the CPU to the others (the server's loop, the computer's moves)."""

    def __init__(self, nodes: int | None = None, *, nice: int = 0) -> None:
        self.nice = nice
        # "spawn": the process must not inherit the event loop's threads and sockets.
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        #: Jobs are numbered; the child gives up every job up to ``given_up``.
        self.number = 0
        self.given_up = context.RawValue("q", 0)
        self.process = context.Process(
            target=slot_main,
            args=(child, os.getpid(), nodes, self.given_up, nice),
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
        try:
            message = json.dumps([self.number + 1, write_work(job)], allow_nan=False)
        except (TypeError, ValueError) as error:
            return ("error", f"the job cannot be sent: {error}")
        self.number += 1
        try:
            self.conn.send_bytes(message.encode())
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
            kind, value = read_json(self.conn.recv_bytes())
        except (EOFError, OSError):
            self.kill()
            raise SlotLost("the thinking process died") from None
        except JsonTextError as error:  # pragma: no cover - slot_main writes JSON
            self.kill()
            raise SlotLost(f"the thinking process answered what cannot be read: {error}") from None
        return kind, value

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)
        self.conn.close()
