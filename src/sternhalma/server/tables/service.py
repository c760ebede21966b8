"""Tables: every game is a table on the server, with seats, a clock and a versioned event log.

A seat is a person at the creating browser, the computer at a level, or an
online player holding the seat with its own secret token (tables/seats.py).
Nobody can act for a seat they do not hold. One table's commands run one at
a time under its lock; every change bumps the version, is written to the
database with its event (an optimistic version check, storage/store.py), and
only then broadcast with the whole public state through the bus.

``Tables`` puts the parts together; each is an object of its own, testable alone:

- ``copies`` (tables/copies.py): the tables in memory and ``commit``, the one path of
  every change; it tells its listeners (clocks, computer, presence) what changed;
- ``commands`` (tables/commands.py): create, move, undo, resign, abort, sit, leave, rematch;
- ``computer`` (tables/computer_turns.py): the computer's turn and hints;
- ``clocks`` (tables/clocks.py): the clock's watcher, flags and checkpoints;
- ``presence`` (tables/presence.py): who is at a table now (not versioned);
- ``following`` (tables/following.py): other processes' changes and the sweep (a cluster);
- ``claims`` (tables/claims.py): the others' claim on the seat of a player who left;
- ``chat`` (tables/chat.py): the players' and the spectators' chat;
- ``watching`` (tables/watching.py): the games being played, for the live list.

A table itself is its stored state (``Table``, tables/table.py) and what only runs
in this process (``LiveTable``, tables/live.py).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from sternhalma.clock import TimeSource, monotonic_ms
from sternhalma.server.bus import Bus, MemoryBus, RedisBus
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.store import Store
from sternhalma.server.tables.chat import TableChat
from sternhalma.server.tables.claims import Claims
from sternhalma.server.tables.clocks import Clocks
from sternhalma.server.tables.commands import Commands
from sternhalma.server.tables.computer_turns import ComputerTurns
from sternhalma.server.tables.copies import Copies
from sternhalma.server.tables.following import Following
from sternhalma.server.tables.presence import Presence
from sternhalma.server.tables.table import summary
from sternhalma.server.tables.watching import Watching
from sternhalma.server.thinking import Thinking

log = logging.getLogger(__name__)

#: Seconds after which a waiting table nobody was at leaves the lobby's list, and
#: after which it is removed.
UNVISITED_UNLISTED = 15 * 60.0
UNVISITED_REMOVED = 24 * 3600.0
#: Days a finished table that changed no rating is kept (``sternhalma serve --keep-finished-days``).
KEEP_FINISHED_DAYS = 30.0


class Tables:
    """Every table of this server process: the parts above, put together."""

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
        absence: float = 30.0,
        keep_finished: float = KEEP_FINISHED_DAYS * 24 * 3600,
    ) -> None:
        self.store = store
        #: Seconds a finished unrated table is kept (0: for good).
        self.keep_finished = keep_finished
        self.bus: Bus = bus or MemoryBus()
        cluster = isinstance(self.bus, RedisBus)
        self.copies = Copies(store, self.bus, now=now, checkpoint=checkpoint, cluster=cluster)
        self.copies.first_move_ms = round(first_move * 1000)
        self.copies.absence_ms = round(absence * 1000)
        self.presence = Presence(self.bus, self.copies.live)
        self.clocks = Clocks(self.copies, first_move=first_move)
        self.computer = ComputerTurns(self.copies, thinking, self.clocks, pause=pause)
        self.commands = Commands(self.copies, self.clocks)
        self.following = Following(self.copies, self.presence, self.computer, takeover=takeover)
        self.copies.listeners += [self.presence, self.clocks, self.computer]
        self.claims = Claims(self.copies)
        self.chat = TableChat(store, self.bus)
        self.watching = Watching(store, self.presence)
        if isinstance(self.bus, RedisBus):
            self.bus.observer = self.following.observe
            self.bus.on_reconnect = self.following.sweep

    async def resume(self) -> None:
        """At start: load the tables whose clocks run, so flags fall without a visitor."""
        for table_id in await self.store.running_with_clock():
            try:
                await self.copies.get(table_id)
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
        for a day are removed with their events, and so are finished tables that changed
        no rating once ``keep_finished`` seconds old. Returns the removed tables' ids."""
        here = [
            table_id
            for table_id in self.presence.tables_here()
            if (live := self.copies.live.get(table_id)) is not None
            and live.table.status == "waiting"
        ]
        await self.store.visit(here)
        removed = await self.store.remove_waiting(
            datetime.now(UTC) - timedelta(seconds=UNVISITED_REMOVED)
        )
        if self.keep_finished > 0:
            removed += await self.store.remove_finished(
                datetime.now(UTC) - timedelta(seconds=self.keep_finished)
            )
        for table_id in removed:
            live = self.copies.live.get(table_id)
            if live is not None:
                self.copies.drop(live)
        return removed

    def start_tidying(self, interval: float = 60.0) -> None:
        """Tidy every ``interval`` seconds until ``close``."""
        self.copies.every(interval, self.tidy, "tidying the waiting and old finished tables")

    async def close(self) -> None:
        """Stop: every running clock is saved as it is now and so paused until the next
        start (docs/deploy.md "Time while the server is down")."""
        await self.copies.close()
        await self.clocks.save_running()
