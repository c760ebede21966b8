"""Clocks: a watcher per running table flags the seat to move when its time is gone
(even when nobody sends anything) and saves the clock every ``checkpoint`` seconds.
At an online table it also aborts the game when a first move does not come within
``first_move`` seconds of the turn, or before the clock runs out (docs/ratings.md):
nobody loses a game nobody began.

Clocks run on the server (sternhalma.clock, integer ms). While no server runs,
no clock runs: a table read from the database resumes with the banks last saved
(docs/deploy.md). The clock itself belongs to the table (tables/table.py); this
module is what keeps it honest over time. ``Clocks`` listens to every change
(tables/copies.py) and starts the watcher when it is due.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sternhalma.server.protocol import TableError
from sternhalma.server.tables.copies import Copies
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.table import Action

log = logging.getLogger(__name__)


class Clocks:
    """The clock's watcher, flags and checkpoints."""

    def __init__(self, copies: Copies, *, first_move: float) -> None:
        self.copies = copies
        self.now = copies.now
        #: Seconds between two saves of a running clock.
        self.checkpoint = copies.checkpoint
        #: Seconds a player at an online table has for a first move (then: aborted).
        self.first_move = first_move

    def table_changed(self, live: LiveTable, *, loaded: bool) -> None:
        """Start the watcher when the table's clock runs or a first move is awaited (and
        nobody watches it yet)."""
        if not self._watched(live):
            return
        if live.watcher is None or live.watcher.done():
            live.watcher = self.copies.spawn(self._watch(live))

    @staticmethod
    def _watched(live: LiveTable) -> bool:
        table = live.table
        return (
            not live.dropped
            and table.status == "playing"
            and (table.game.clock is not None or table.can_abort())
        )

    async def _watch(self, live: LiveTable) -> None:
        """While the table is played with a clock or can be aborted: flag the seat to move
        when its time is gone, abort when its first move does not come in time, and save
        the clock every ``checkpoint`` seconds."""
        table = live.table
        saved = self.now()
        while self._watched(live):
            live.changed.clear()  # before looking: a change from now on wakes us
            turn = table.game.turn
            if turn is None:
                return
            live.turn_began(turn, self.now())
            waits = [self.first_move * 1000 - (self.now() - live.turn_since)]
            if not table.first_move_pending(turn):
                waits = []
            clock = table.game.clock
            if clock is not None:
                waits += [clock.remaining(turn), self.checkpoint * 1000 - (self.now() - saved)]
            timeout = (max(0, min(waits)) + 5) / 1000 if waits else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(live.changed.wait(), timeout)
                continue  # something changed: look again
            async with live.lock:
                if live.dropped or table.status != "playing" or table.game.turn != turn:
                    continue
                late = self.now() - live.turn_since >= self.first_move * 1000
                if table.first_move_pending(turn) and late:
                    with contextlib.suppress(TableError):
                        await self.copies.commit(live, table.abort(turn, "no-first-move"))
                    return
                if clock is not None and clock.is_out_of_time(turn):
                    with contextlib.suppress(TableError):
                        await self.flag_if_out(live)
                    return
                if clock is not None and self.now() - saved >= self.checkpoint * 1000:
                    saved = self.now()
                    await self._save(live)

    async def _save(self, live: LiveTable) -> None:
        table = live.table
        clock = table.stored_clock()
        if clock is None:
            return
        try:
            await self.copies.store.checkpoint(table.id, table.version, clock)
        except Exception:
            log.exception("the clock of table %s could not be saved", table.id)

    async def flag_if_out(self, live: LiveTable) -> None:
        """Record a flag the referee finds (the seat to move is out of time); or, when that
        seat has not made its first move at an online table, abort the game instead.
        Called under the table's lock."""
        table = live.table
        game = table.game
        turn = game.turn
        if (
            turn is not None
            and game.clock is not None
            and game.clock.is_out_of_time(turn)
            and table.first_move_pending(turn)
        ):
            await self.copies.commit(live, table.abort(turn, "no-first-move"))
            raise TableError("over", "the first move did not come in time: the game is aborted")
        if not game.is_over:
            game.check_time()
        result = game.result
        if result is None or result.ending != "flag" or result.seat is None:
            return
        if any(a.flag for a in table.actions):
            return
        table.actions.append(Action(result.seat, flag=True))
        table.generation += 1
        table.thinking = None
        await self.copies.commit(live, {"kind": "flag", "seat": result.seat})
        raise TableError("flag", f"{table.rules.seats[result.seat]}'s time ran out")

    async def save_running(self) -> None:
        """Save every running clock as it is now (at stop: paused until the next start)."""
        for live in list(self.copies.live.values()):
            if live.table.status == "playing" and live.table.game.clock is not None:
                await self._save(live)
