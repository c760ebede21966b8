"""Tables: every game is a table on the server, with seats, a clock and a versioned event log.

A seat is a person at the creating browser, the computer at a level, or an
online player holding the seat with its own secret token (server/seats.py).
Nobody can act for a seat they do not hold. One table's commands run one at
a time under its lock; every change bumps the version, is written to the
database with its event (an optimistic version check, server/store.py), and
only then broadcast with the whole public state through the bus.

``Tables`` is the one object the app and the connections use. It puts the
concerns together, each in its own module:

- server/table.py: one table's state (``Table``, ``Action``) and who may do what;
- server/copies.py: this process's copies, loading them and committing changes;
- server/commands.py: create, move, undo, resign, sit, leave, rematch;
- server/computer_turns.py: the computer's turn and hints;
- server/clocks.py: the clock's watcher, flags and checkpoints;
- server/presence.py: who is at a table now (not versioned);
- server/following.py: other processes' changes and the sweep (a cluster).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from datetime import UTC, datetime, timedelta
from typing import Any

from sternhalma.clock import TimeSource, monotonic_ms
from sternhalma.server.bus import Bus, MemoryBus, RedisBus
from sternhalma.server.clocks import Clocks
from sternhalma.server.commands import Commands
from sternhalma.server.computer_turns import HINT_LEVEL, ComputerTurns
from sternhalma.server.following import Following
from sternhalma.server.presence import PRESENCE_REPEAT, Presence
from sternhalma.server.protocol import TableError
from sternhalma.server.store import Store, hash_secret
from sternhalma.server.table import Action, Table, summary
from sternhalma.server.thinking import Thinking

__all__ = ["HINT_LEVEL", "PRESENCE_REPEAT", "Action", "Table", "Tables", "hash_token", "summary"]

log = logging.getLogger(__name__)

# Kept for callers of part 1.
hash_token = hash_secret

#: Seconds after which a waiting table nobody was at leaves the lobby's list, and
#: after which it is removed.
UNVISITED_UNLISTED = 15 * 60.0
UNVISITED_REMOVED = 24 * 3600.0


class Tables(Commands, ComputerTurns, Clocks, Following):
    """Every table of this server process: creation, loading, commands, clocks, the computer."""

    def __init__(
        self,
        store: Store,
        thinking: Thinking,
        *,
        pause: float = 0.6,
        bus: Bus | None = None,
        now: TimeSource = monotonic_ms,
        checkpoint: float = 10.0,
        takeover: float = 10.0,
        first_move: float = 60.0,
    ) -> None:
        self.store = store
        self.thinking = thinking
        #: Seconds between the turn passing to the computer and its move being shown.
        self.pause = pause
        self.bus: Bus = bus or MemoryBus()
        self.now = now
        #: Seconds between two saves of a running clock.
        self.checkpoint = checkpoint
        self.tables: dict[str, Table] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        #: Other processes share the tables (their events arrive through the bus).
        self.cluster = isinstance(self.bus, RedisBus)
        #: Seconds after which a computer's turn nobody played is taken over.
        self.takeover = takeover
        #: Seconds a player at an online table has for a first move (then: aborted).
        self.first_move = first_move
        #: Games between identities made from one address this close are not rated.
        self.same_address = store.identities.same_address
        #: Tables whose computer seat thinks in this process now.
        self._thinking: set[str] = set()
        self._sweeper: asyncio.Task[None] | None = None
        #: Tables being read from the database now (how many reads), and the newest
        #: version another process announced meanwhile: nothing is kept for the
        #: tables this process only hears about.
        self._loading: Counter[str] = Counter()
        self._heard: dict[str, int] = {}
        self._unavailable = False
        #: Copies found behind the database by the last sweep, and their versions then.
        self._behind: dict[str, int] = {}
        self.presence = Presence(self.bus, self.tables)
        if isinstance(self.bus, RedisBus):
            self.bus.observer = self._observe
            self.bus.on_reconnect = self.sweep

    async def resume(self) -> None:
        """At start: load the tables whose clocks run, so flags fall without a visitor."""
        for table_id in await self.store.running_with_clock():
            try:
                await self.get(table_id)
            except TableError as error:
                if error.code != "broken-table":  # a broken table is logged where found
                    log.exception("table %s could not be resumed", table_id)

    async def open_tables(self) -> list[dict[str, Any]]:
        """Online tables waiting for players where somebody already sits (a table whose
        players all stood up is not offered) and somebody was lately."""
        since = datetime.now(UTC) - timedelta(seconds=UNVISITED_UNLISTED)
        return [
            summary(stored)
            for stored in await self.store.open_tables(since)
            if any(seat.get("kind") == "online" and seat.get("token_hash") for seat in stored.seats)
        ]

    async def tidy(self) -> list[str]:
        """The waiting tables somebody is at now count as visited; those nobody visited
        for a day are removed with their events. Returns the removed tables' ids."""
        here = [
            table_id
            for table_id in self.presence.tables_here()
            if (table := self.tables.get(table_id)) is not None and table.status == "waiting"
        ]
        await self.store.visit(here)
        removed = await self.store.remove_waiting(
            datetime.now(UTC) - timedelta(seconds=UNVISITED_REMOVED)
        )
        for table_id in removed:
            table = self.tables.pop(table_id, None)
            if table is not None:
                table.dropped = True
                table.changed.set()
        return removed

    def start_tidying(self, interval: float = 60.0) -> None:
        """Tidy every ``interval`` seconds until ``close``."""

        async def tidying() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    await self.tidy()
                except Exception:
                    log.exception("tidying the waiting tables failed")

        self._spawn(tidying())

    async def join(self, table: Table, key: int, seats: list[int]) -> None:
        """A connection watches ``table`` holding ``seats`` (or moved to other seats)."""
        await self.presence.join(table, key, seats)

    async def part(self, table: Table, key: int) -> None:
        """A connection stopped watching ``table``."""
        await self.presence.part(table, key)

    def _after_change(self, table: Table, *, computer: bool = True) -> None:
        """Start the clock's watcher and (``computer``) the computer's turn when they are due."""
        if table.dropped:
            return
        self._watch_clock_when_due(table)
        if computer:
            self._computer_turn_when_due(table)

    def record(self, table: Table) -> str:
        return table.record()

    async def close(self) -> None:
        """Stop: every running clock is saved as it is now and so paused until the next
        start (docs/deploy.md "Time while the server is down")."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._save_running_clocks()
