"""Following other processes: several server processes (``cluster``: a Redis bus,
docs/deploy.md) share every table, each with a copy in memory.

Another process's event is applied to this process's copy as it arrives through
the bus (a move or "thinking"; anything else, or a gap in the versions, drops
the copy, which is then rebuilt from the database). The database's version
check decides every race. A sweep every few seconds compares the copies with
the database and sends its clients a ``sync`` when a message was lost, watches
every running clock (so a flag falls when the process that started the game is
gone) and takes over a computer's turn that nobody has played for ``takeover``
seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from sternhalma.errors import SternhalmaError
from sternhalma.game import GameError
from sternhalma.server.copies import Copies
from sternhalma.server.protocol import TableError
from sternhalma.server.store import DatabaseUnavailable
from sternhalma.server.table import Table

log = logging.getLogger(__name__)


class Following(Copies):
    """Another process's changes applied to this process's copies, and the sweep."""

    def _observe(
        self, table_id: str, message: dict[str, Any], origin: str
    ) -> dict[str, Any] | None:
        """Another process's message for a table; what this process's viewers get."""
        if message.get("type") == "presence":
            return self.presence.heard(table_id, message, origin)
        self._follow(table_id, message)
        return message

    def _follow(self, table_id: str, message: dict[str, Any]) -> None:
        """Bring this process's copy up to date with another process's change.

        The next move or "thinking" is applied to the copy (the referee checks the move
        again); anything else, a gap, or a copy busy with a command of its own drops
        the copy, and the database's copy replaces it."""
        table = self.tables.get(table_id)
        version = message.get("v")
        if not isinstance(version, int):
            return
        if table_id in self._loading and version > self._heard.get(table_id, 0):
            self._heard[table_id] = version
        if table is None or version <= table.version:
            return
        if table.lock.locked():
            # A command of this process is under way: apply after it (in arrival order).
            self._spawn(self._observe_later(table, message))
            return
        self._apply(table, message, version)

    async def _observe_later(self, table: Table, message: dict[str, Any]) -> None:
        async with table.lock:
            version = message["v"]
            if not table.dropped and version > table.version:
                self._apply(table, message, version)

    def _apply(self, table: Table, message: dict[str, Any], version: int) -> None:
        """Apply the next move or "thinking" to the copy; drop it for anything else."""
        event = message.get("event")
        if (
            message.get("type") == "event"
            and isinstance(event, dict)
            and version == table.version + 1
        ):
            try:
                if event.get("kind") == "move":
                    rules = table.rules
                    path = [rules.board.index(name) for name in event["path"]]
                    table.thinking = None
                    table.play(int(event["seat"]), rules.check_path(table.game.position, path))
                elif event.get("kind") == "thinking":
                    table.thinking = int(event["seat"])
                else:
                    raise LookupError(event.get("kind"))
            except (SternhalmaError, GameError, LookupError, TypeError, ValueError):
                pass
            else:
                table.version = version
                table.changed.set()
                table.cancel_stale_jobs()
                return
        self._drop(table)
        self._spawn(self._reload(table.id))

    def _drop(self, table: Table) -> None:
        """Forget this process's copy (without telling anybody)."""
        table.dropped = True
        table.changed.set()
        table.cancel_stale_jobs()
        if self.tables.get(table.id) is table:
            del self.tables[table.id]

    async def _reload(self, table_id: str) -> None:
        """Rebuild a dropped copy from the database (its clock is watched again)."""
        with contextlib.suppress(SternhalmaError):
            await self.get(table_id)

    def start(self, interval: float) -> None:
        """Sweep every ``interval`` seconds until ``close``."""

        async def sweeping() -> None:
            while True:
                await asyncio.sleep(interval)
                try:
                    await self.sweep()
                except Exception:
                    log.exception("the sweep failed")

        self._sweeper = asyncio.get_running_loop().create_task(sweeping())

    async def sweep(self) -> None:
        """Make good what another process or a lost message left undone: copies behind
        the database are rebuilt and their viewers sent a ``sync`` with the events they
        missed; every running clock is watched here too; a computer's turn nobody has
        played for ``takeover`` seconds is played here (the version check decides if
        two processes try)."""
        try:
            ids = sorted(set(self.tables) | set(self.bus.watched()))
            stored = await self.store.versions(ids)
            behind: dict[str, int] = {}
            for table_id in ids:
                table = self.tables.get(table_id)
                version = stored.get(table_id)
                if version is None or (
                    table is not None and (table.version == version or table.lock.locked())
                ):
                    continue
                # Under load many copies are a message behind for a few milliseconds: a
                # copy has missed one only if it is still behind at the next sweep.
                if table is not None and self._behind.get(table_id) != table.version:
                    behind[table_id] = table.version
                    continue
                await self._resync(table_id, table)
            self._behind = behind
            await self.presence.refresh()
            for table_id in await self.store.running_with_clock():
                if table_id not in self.tables:
                    await self._reload(table_id)
            for table_id in await self.store.stalled_computer_tables(self.takeover):
                if table_id in self._thinking:
                    continue
                try:
                    table = await self.get(table_id)
                except TableError as error:
                    if error.code == "broken-table":
                        continue  # logged where found; the other tables are taken over
                    raise
                if not table.lock.locked() and not table.dropped:
                    table.thinking = None
                    self._after_change(table)
        except DatabaseUnavailable as error:
            if not self._unavailable:
                log.warning("the sweep waits for the database: %s", error.detail)
            self._unavailable = True
            return
        self._unavailable = False

    async def _resync(self, table_id: str, table: Table | None) -> None:
        """Rebuild the table from the database and send this process's viewers a sync
        with the events after the version they were last sent."""
        since = None
        if table is not None:
            since = table.version
            self._drop(table)
        try:
            fresh = await self.get(table_id)
        except TableError:
            return
        missed = None
        if since is not None and since < fresh.version:
            missed = await self.store.events_since(table_id, since)
        self.bus.deliver(
            table_id,
            {"type": "sync", "v": fresh.version, "state": fresh.state(), "missed": missed},
        )
