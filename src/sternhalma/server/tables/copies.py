"""This process's copies of the tables, and the one path every change takes.

``Copies`` owns the tables in memory: it reads them from the database and
rebuilds them by replaying their actions, and ``commit`` is the only way a change
leaves a table: saved to the database under the next version (an optimistic
check, storage/store.py), then published through the bus, then told to the
listeners (the clock's watcher, the computer's turns, presence), which act on it.
A failed save drops the copy: the next command reloads the database's.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol

from sternhalma.clock import TimeSource, parse_time_control
from sternhalma.errors import SternhalmaError
from sternhalma.rules import find_variant
from sternhalma.server.bus import Bus
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import Identity
from sternhalma.server.storage.store import (
    DatabaseUnavailable,
    Store,
    StoredTable,
    VersionConflict,
)
from sternhalma.server.storage.stored import wall_ms
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.seats import Seat
from sternhalma.server.tables.table import Action, Table, parse_moves_made

log = logging.getLogger(__name__)


class Listener(Protocol):
    """Told after every change of a table in memory."""

    def table_changed(self, live: LiveTable, *, loaded: bool) -> None:
        """``live`` changed here (``loaded``: it was just read from the database)."""


class Copies:
    """The tables of this process and the database behind them."""

    def __init__(
        self,
        store: Store,
        bus: Bus,
        *,
        now: TimeSource,
        checkpoint: float,
        cluster: bool,
    ) -> None:
        self.store = store
        self.bus = bus
        self.now = now
        #: Seconds between two saves of a running clock (tables/clocks.py).
        self.checkpoint = checkpoint
        #: Games between identities made from one address this close are not rated.
        self.same_address = store.identities.same_address
        #: Other processes share the tables (their events arrive through the bus).
        self.cluster = cluster
        self.live: dict[str, LiveTable] = {}
        #: The first-move limit and the wait before a seat whose player left can be
        #: claimed, in ms (``Tables`` sets them; every copy shows their countdowns).
        self.first_move_ms = 60_000
        self.absence_ms = 30_000
        #: Told of every change, in order (``Tables`` registers them).
        self.listeners: list[Listener] = []
        self._tasks: set[asyncio.Task[None]] = set()
        #: Tables being read from the database now (how many reads), and the newest
        #: version another process announced meanwhile: nothing is kept for the
        #: tables this process only hears about.
        self.loading: Counter[str] = Counter()
        self.heard: dict[str, int] = {}

    def changed(self, live: LiveTable, *, loaded: bool = False) -> None:
        """Tell the listeners that ``live`` changed (or was just loaded)."""
        if live.dropped:
            return
        for listener in self.listeners:
            listener.table_changed(live, loaded=loaded)

    async def insert(self, table: Table, creator: Identity | None = None) -> LiveTable:
        """Save a new table (with its creator's identity) and hold it here."""
        table.start_clock()
        await self.store.create(table.stored(), creator)
        live = self.live[table.id] = self._live(table)
        self.changed(live)
        return live

    async def get(self, table_id: str) -> LiveTable:
        """The table ``table_id``, from memory or rebuilt from the database."""
        live = self.live.get(table_id)
        if live is not None:
            return live
        self.loading[table_id] += 1
        try:
            stored = await self.store.load(table_id)
            # A read that began before another process's change arrived through the
            # bus is read again (the change is saved before it is published).
            for _ in range(25):
                if stored is None or stored.version >= self.heard.get(table_id, 0):
                    break
                await asyncio.sleep(0.02)
                stored = await self.store.load(table_id)
        finally:
            self.loading[table_id] -= 1
            if not self.loading[table_id]:
                del self.loading[table_id]
                self.heard.pop(table_id, None)
        if stored is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}")
        live = self.live.get(table_id)  # loaded by another command meanwhile
        if live is not None:
            return live
        live = self.live[table_id] = self._live(self._rebuild(stored))
        self.changed(live, loaded=True)
        return live

    def _live(self, table: Table) -> LiveTable:
        return LiveTable(table, first_move_ms=self.first_move_ms, absence_ms=self.absence_ms)

    def _rebuild(self, stored: StoredTable) -> Table:
        rules = find_variant(stored.variant)
        try:
            table = Table(
                id=stored.id,
                rules=rules,
                seats=[Seat.from_stored(seat) for seat in stored.seats],
                token_hash=stored.token_hash,
                seed=stored.seed,
                start=stored.start,
                moves_made=parse_moves_made(rules, stored.moves_made),
                deadline_rule=stored.deadline_rule,
                rated=stored.rated,
                control=parse_time_control(stored.clock.control) if stored.clock else None,
                now=self.now,
                rematch=stored.rematch,
                rematch_offers=set(stored.rematch_offers),
                previous=stored.previous,
                ratings=stored.ratings,
                same_address=self.same_address,
            )
            if stored.created_at is not None:
                table.created = stored.created_at
            table.replay([Action.from_dict(a) for a in stored.actions], stored.result)
            # The clock resumes with the time each seat had when it was last saved:
            # the time no server ran is charged to nobody (docs/deploy.md).
            table.start_clock(self._banks(stored))
        except SternhalmaError as error:
            broken = TableError("broken-table", f"table {stored.id} cannot be restored: {error}")
            self.store.report_broken(stored.id, broken)
            raise broken from None
        table.version = stored.version
        return table

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

    async def commit(
        self, live: LiveTable, event: dict[str, Any], *, identity: Identity | None = None
    ) -> None:
        """Save the change and its event under the next version (with the ``identity`` of
        a player who sits down), then tell every viewer (nothing announced is ever lost on
        a restart), and let the listeners act. A failed save drops this copy: the next
        command reloads the database's."""
        table = live.table
        expected = table.version
        table.version += 1
        rated = table.rated_game()
        # A game started or finished: its players keep their nicknames (docs/ratings.md).
        played = event.get("kind") == "start" or rated is not None
        try:
            changes = await self.store.commit(
                table.stored(),
                event,
                expected=expected,
                rated=rated,
                identity=identity,
                played=tuple(s.player for s in table.seats if s.player) if played else (),
            )
        except VersionConflict:
            await self.forget(live)
            raise TableError("stale", "the game moved on; look at the board again") from None
        except DatabaseUnavailable as error:
            log.warning("table %s could not be saved: %s", table.id, error.detail)
            await self.forget(live)
            raise
        except TableError:  # refused while written (a nickname taken meanwhile)
            await self.forget(live)
            raise
        except Exception:
            log.exception("table %s could not be saved", table.id)
            await self.forget(live)
            raise TableError(
                "unsaved", "the server could not save that; nothing changed, try again"
            ) from None
        if changes is not None:
            table.ratings = changes
        live.cancel_stale_jobs()
        await self.bus.publish(table.id, live.message(event))
        live.changed.set()
        self.changed(live)

    def drop(self, live: LiveTable) -> None:
        """Forget this process's copy (without telling anybody)."""
        live.dropped = True
        live.changed.set()
        live.cancel_stale_jobs()
        if self.live.get(live.id) is live:
            del self.live[live.id]

    async def forget(self, live: LiveTable) -> None:
        """Drop a copy that is ahead of (or behind) the database and show viewers the
        database's state."""
        self.drop(live)
        try:
            fresh = await self.get(live.id)
        except SternhalmaError:
            return
        await self.bus.publish(
            live.id, {"type": "sync", "v": fresh.table.version, "state": fresh.state()}
        )

    def spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``coroutine`` in the background until it ends or ``close`` cancels it."""
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def every(self, interval: float, action: Callable[[], Awaitable[object]], what: str) -> None:
        """Run ``action`` every ``interval`` seconds until ``close``; a failure is logged
        and the next round comes all the same."""

        async def repeat() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    await action()
                except Exception:
                    log.exception("%s failed", what)

        self.spawn(repeat())

    async def close(self) -> None:
        """Cancel every background task and wait for them."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
