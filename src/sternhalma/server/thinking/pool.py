"""``Pool``: thinking processes of this process (``make run``, and inside
``sternhalma worker``).

Jobs wait in priority order (computer moves, then hints, then analyses); a computer
move that finds every process busy takes one from an analysis or a hint, which
waits again. A process that dies, or runs past ``timeout``, is replaced and the
job tried once more.

With two processes or more, the first is the computer moves' own, at the normal
CPU priority: hints and analyses run only on the others, which run at a lower
one (``BACKGROUND_NICE``), so on a busy machine they yield the CPU to the
computer's moves and to the server's own loop. Moves may use every process.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from dataclasses import dataclass, field

from sternhalma.server.thinking import (
    TRIES,
    Priority,
    Thinking,
    ThinkingFailed,
    Work,
    time_limit,
)
from sternhalma.server.thinking.slot import Slot, SlotLost

log = logging.getLogger(__name__)

#: The niceness of the processes that hints and analyses may run on (see above).
BACKGROUND_NICE = 10


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
        #: Seconds a move or hint may run before its process is replaced (None: no
        #: limit; an analysis longer, ``time_limit``).
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
        nice = [0] + [BACKGROUND_NICE if self.size > 1 else 0] * (self.size - 1)
        slots = [Slot(self.nodes, nice=n) for n in nice]
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
        limit = time_limit(self.timeout, priority)
        failures = 0
        while True:
            slot = await self._acquire(priority, seq)
            running = self.running[slot] = _Running(priority)
            try:
                try:
                    async with asyncio.timeout(limit):
                        kind, value = await slot.run(job)
                finally:
                    del self.running[slot]
            except (SlotLost, TimeoutError) as error:
                slot.kill()
                self._release(slot)
                failures += 1
                what = "died" if isinstance(error, SlotLost) else f"ran over {limit} s"
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
        if not self.waiting and (slot := self._free_for(priority)):
            return slot
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

    def _free_for(self, priority: int) -> Slot | None:
        """Take a free process that may run a job of ``priority``: a move takes the
        moves' own first; hints and analyses only the lower-priority ones (any one
        in a pool of one)."""
        allowed = [
            slot for slot in self.free if priority == Priority.MOVE or slot.nice or self.size == 1
        ]
        if not allowed:
            return None
        slot = min(allowed, key=lambda slot: slot.nice)
        self.free.remove(slot)
        return slot

    def _dispatch(self) -> None:
        """Give free processes to the first waiting jobs (in priority order: a job
        that finds none it may use holds back the ones behind it)."""
        while self.waiting:
            ticket = self.waiting[0]
            if ticket.slot.done():  # (cancelled)
                heapq.heappop(self.waiting)
                continue
            slot = self._free_for(ticket.priority)
            if slot is None:
                return
            heapq.heappop(self.waiting)
            ticket.slot.set_result(slot)

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
            task = asyncio.get_running_loop().create_task(self._replace(slot.nice))
            self._spawning.add(task)
            task.add_done_callback(self._spawning.discard)
            return
        self.free.append(slot)
        self._dispatch()

    async def _replace(self, nice: int) -> None:
        slot = Slot(self.nodes, nice=nice)
        try:
            await slot.ready()
        except SlotLost:
            log.error("a new thinking process did not start")
            return
        self._release(slot)
