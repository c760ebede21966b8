"""This process's copies of the tables: read from the database, rebuilt by replaying
their actions, and every change committed before it is published.

``Copies`` is the base of ``Tables`` (server/tables.py): it holds what every
concern shares (the store, the bus, the copies in memory, the background tasks)
and the one path every change takes, ``_commit``. The concerns (commands,
clocks, the computer's turns, following other processes) are mixins over it,
each in its own module.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from typing import TYPE_CHECKING, Any

from sternhalma.clock import TimeSource, parse_time_control
from sternhalma.errors import SternhalmaError
from sternhalma.rules import find_variant
from sternhalma.server.bus import Bus
from sternhalma.server.identities import Identity
from sternhalma.server.presence import Presence
from sternhalma.server.protocol import TableError
from sternhalma.server.seats import Seat
from sternhalma.server.store import DatabaseUnavailable, Store, StoredTable, VersionConflict
from sternhalma.server.table import Action, Table, parse_moves_made
from sternhalma.server.thinking import Thinking

log = logging.getLogger(__name__)


class Copies:
    """The tables of this process and the database behind them (set up by ``Tables``)."""

    store: Store
    thinking: Thinking
    pause: float
    bus: Bus
    now: TimeSource
    checkpoint: float
    takeover: float
    first_move: float
    same_address: float
    cluster: bool
    tables: dict[str, Table]
    presence: Presence
    _tasks: set[asyncio.Task[None]]
    _thinking: set[str]
    _sweeper: asyncio.Task[None] | None
    _loading: Counter[str]
    _heard: dict[str, int]
    _unavailable: bool
    _behind: dict[str, int]

    if TYPE_CHECKING:
        # Given by the concerns (server/tables.py and server/clocks.py).
        def _after_change(self, table: Table, *, computer: bool = True) -> None: ...

        async def _flag_if_out(self, table: Table) -> None: ...

        def _banks(self, stored: StoredTable) -> list[int] | None: ...

    async def _insert(self, table: Table, creator: Identity | None = None) -> None:
        table.start_clock()
        await self.store.create(table.stored(), creator)
        self.tables[table.id] = table
        self._after_change(table)

    async def get(self, table_id: str) -> Table:
        """The table ``table_id``, from memory or rebuilt from the database."""
        table = self.tables.get(table_id)
        if table is not None:
            return table
        self._loading[table_id] += 1
        try:
            stored = await self.store.load(table_id)
            # A read that began before another process's change arrived through the
            # bus is read again (the change is saved before it is published).
            for _ in range(25):
                if stored is None or stored.version >= self._heard.get(table_id, 0):
                    break
                await asyncio.sleep(0.02)
                stored = await self.store.load(table_id)
        finally:
            self._loading[table_id] -= 1
            if not self._loading[table_id]:
                del self._loading[table_id]
                self._heard.pop(table_id, None)
        if stored is None:
            raise TableError("no-table", f"there is no table {table_id[:40]!r}")
        table = self.tables.get(table_id)  # loaded by another command meanwhile
        if table is not None:
            return table
        table = self._rebuild(stored)
        table.present, table.watchers = self.presence.everyone(table.id)  # a copy loaded again
        self.tables[table.id] = table
        # In a cluster the computer's turn belongs to the process that passed it the
        # turn; the sweep takes it over only when nobody played it for a while.
        self._after_change(table, computer=not self.cluster)
        return table

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

    async def _commit(
        self, table: Table, event: dict[str, Any], *, identity: Identity | None = None
    ) -> None:
        """Save the change and its event under the next version (with the ``identity`` of
        a player who sits down), then tell every viewer (nothing announced is ever lost on
        a restart), and let the computer or the clock act. A failed save drops this copy:
        the next command reloads the database's."""
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
            await self._forget(table)
            raise TableError("stale", "the game moved on; look at the board again") from None
        except DatabaseUnavailable as error:
            log.warning("table %s could not be saved: %s", table.id, error.detail)
            await self._forget(table)
            raise
        except TableError:  # refused while written (a nickname taken meanwhile)
            await self._forget(table)
            raise
        except Exception:
            log.exception("table %s could not be saved", table.id)
            await self._forget(table)
            raise TableError(
                "unsaved", "the server could not save that; nothing changed, try again"
            ) from None
        if changes is not None:
            table.ratings = changes
        table.cancel_stale_jobs()
        await self.bus.publish(table.id, table.message(event))
        table.changed.set()
        self._after_change(table)

    async def _forget(self, table: Table) -> None:
        """Drop a copy that is ahead of (or behind) the database and show viewers the
        database's state."""
        table.dropped = True
        table.changed.set()
        table.cancel_stale_jobs()
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
        try:
            fresh = await self.get(table.id)
        except SternhalmaError:
            return
        await self.bus.publish(
            table.id, {"type": "sync", "v": fresh.version, "state": fresh.state()}
        )

    def _spawn(self, coroutine: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task
