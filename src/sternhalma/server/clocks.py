"""Clocks: a watcher per running table flags the seat to move when its time is gone
(even when nobody sends anything) and saves the clock every ``checkpoint`` seconds.
At an online table it also aborts the game when a first move does not come within
``first_move`` seconds of the turn, or before the clock runs out (docs/ratings.md):
nobody loses a game nobody began.

Clocks run on the server (sternhalma.clock, integer ms). While no server runs,
no clock runs: a table read from the database resumes with the banks last saved
(docs/deploy.md). The clock itself belongs to the table (server/table.py); this
module is what keeps it honest over time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sternhalma.server.copies import Copies
from sternhalma.server.protocol import TableError
from sternhalma.server.store import StoredTable, wall_ms
from sternhalma.server.table import Action, Table

log = logging.getLogger(__name__)


class Clocks(Copies):
    """The clock's watcher, flags, checkpoints and the banks a resumed clock starts with."""

    def _watch_clock_when_due(self, table: Table) -> None:
        """Start the watcher when the table's clock runs or a first move is awaited (and
        nobody watches it yet)."""
        if not self._watched(table):
            return
        if table.watcher is None or table.watcher.done():
            table.watcher = self._spawn(self._watch_clock(table))

    @staticmethod
    def _watched(table: Table) -> bool:
        return (
            not table.dropped
            and table.status == "playing"
            and (table.game.clock is not None or table.can_abort())
        )

    async def _watch_clock(self, table: Table) -> None:
        """While the table is played with a clock or can be aborted: flag the seat to move
        when its time is gone, abort when its first move does not come in time, and save
        the clock every ``checkpoint`` seconds."""
        saved = self.now()
        while self._watched(table):
            table.changed.clear()  # before looking: a change from now on wakes us
            turn = table.game.turn
            if turn is None:
                return
            if turn != table.turn_seat:
                table.turn_seat, table.turn_since = turn, self.now()
            waits = [self.first_move * 1000 - (self.now() - table.turn_since)]
            if not table.first_move_pending(turn):
                waits = []
            clock = table.game.clock
            if clock is not None:
                waits += [clock.remaining(turn), self.checkpoint * 1000 - (self.now() - saved)]
            timeout = (max(0, min(waits)) + 5) / 1000 if waits else None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(table.changed.wait(), timeout)
                continue  # something changed: look again
            async with table.lock:
                if table.dropped or table.status != "playing" or table.game.turn != turn:
                    continue
                late = self.now() - table.turn_since >= self.first_move * 1000
                if table.first_move_pending(turn) and late:
                    with contextlib.suppress(TableError):
                        await self._commit(table, table.abort(turn, "no-first-move"))
                    return
                if clock is not None and clock.is_out_of_time(turn):
                    with contextlib.suppress(TableError):
                        await self._flag_if_out(table)
                    return
                if clock is not None and self.now() - saved >= self.checkpoint * 1000:
                    saved = self.now()
                    await self._save_clock(table)

    async def _save_clock(self, table: Table) -> None:
        clock = table.stored_clock()
        if clock is None:
            return
        try:
            await self.store.checkpoint(table.id, table.version, clock)
        except Exception:
            log.exception("the clock of table %s could not be saved", table.id)

    async def _flag_if_out(self, table: Table) -> None:
        """Record a flag the referee finds (the seat to move is out of time); or, when that
        seat has not made its first move at an online table, abort the game instead."""
        game = table.game
        turn = game.turn
        if (
            turn is not None
            and game.clock is not None
            and game.clock.is_out_of_time(turn)
            and table.first_move_pending(turn)
        ):
            await self._commit(table, table.abort(turn, "no-first-move"))
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
        await self._commit(table, {"kind": "flag", "seat": result.seat})
        raise TableError("flag", f"{table.rules.seats[result.seat]}'s time ran out")

    def _banks(self, stored: StoredTable) -> list[int] | None:
        """The clock's banks to resume with. In a cluster another process may have run
        the clock until just now (it saves at least every ``checkpoint`` seconds): a
        save younger than three checkpoints charges the seat to move the time since."""
        clock = stored.clock
        if clock is None:
            return None
        banks = list(clock.banks)
        running = clock.running
        if self.cluster and running is not None and stored.status == "playing":
            elapsed = wall_ms() - clock.at
            if 0 < elapsed <= 3 * self.checkpoint * 1000 and 0 <= running < len(banks):
                banks[running] = max(0, banks[running] - elapsed)
        return banks

    async def _save_running_clocks(self) -> None:
        """Save every running clock as it is now (at stop: paused until the next start)."""
        for table in list(self.tables.values()):
            if table.status == "playing" and table.game.clock is not None:
                await self._save_clock(table)
