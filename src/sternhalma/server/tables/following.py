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

import contextlib
import logging
from typing import Any

from sternhalma.errors import SternhalmaError
from sternhalma.game import GameError
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.store import DatabaseUnavailable
from sternhalma.server.tables.computer_turns import ComputerTurns
from sternhalma.server.tables.copies import Copies
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.presence import Presence

log = logging.getLogger(__name__)


class Following:
    """Another process's changes applied to this process's copies, and the sweep."""

    def __init__(
        self, copies: Copies, presence: Presence, computer: ComputerTurns, *, takeover: float
    ) -> None:
        self.copies = copies
        self.bus = copies.bus
        self.presence = presence
        self.computer = computer
        #: Seconds after which a computer's turn nobody played is taken over.
        self.takeover = takeover
        self._unavailable = False
        #: Copies found behind the database by the last sweep, and their versions then.
        self._behind: dict[str, int] = {}

    def observe(self, table_id: str, message: dict[str, Any], origin: str) -> dict[str, Any] | None:
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
        copies = self.copies
        live = copies.live.get(table_id)
        version = message.get("v")
        if not isinstance(version, int):
            return
        if table_id in copies.loading and version > copies.heard.get(table_id, 0):
            copies.heard[table_id] = version
        if live is None or version <= live.table.version:
            return
        if live.lock.locked():
            # A command of this process is under way: apply after it (in arrival order).
            copies.spawn(self._observe_later(live, message))
            return
        self._apply(live, message, version)

    async def _observe_later(self, live: LiveTable, message: dict[str, Any]) -> None:
        async with live.lock:
            version = message["v"]
            if not live.dropped and version > live.table.version:
                self._apply(live, message, version)

    def _apply(self, live: LiveTable, message: dict[str, Any], version: int) -> None:
        """Apply the next move or "thinking" to the copy; drop it for anything else."""
        table = live.table
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
                live.changed.set()
                live.cancel_stale_jobs()
                return
        self.copies.drop(live)
        self.copies.spawn(self._reload(live.id))

    async def _reload(self, table_id: str) -> None:
        """Rebuild a dropped copy from the database (its clock is watched again)."""
        with contextlib.suppress(SternhalmaError):
            await self.copies.get(table_id)

    def start(self, interval: float) -> None:
        """Sweep every ``interval`` seconds until the tables close."""
        self.copies.every(interval, self.sweep, "the sweep")

    async def sweep(self) -> None:
        """Make good what another process or a lost message left undone: copies behind
        the database are rebuilt and their viewers sent a ``sync`` with the events they
        missed; every running clock is watched here too; a computer's turn nobody has
        played for ``takeover`` seconds is played here (the version check decides if
        two processes try)."""
        copies = self.copies
        store = copies.store
        try:
            ids = sorted(set(copies.live) | set(self.bus.watched()))
            stored = await store.versions(ids)
            behind: dict[str, int] = {}
            for table_id in ids:
                live = copies.live.get(table_id)
                version = stored.get(table_id)
                if version is None or (
                    live is not None and (live.table.version == version or live.lock.locked())
                ):
                    continue
                # Under load many copies are a message behind for a few milliseconds: a
                # copy has missed one only if it is still behind at the next sweep.
                if live is not None and self._behind.get(table_id) != live.table.version:
                    behind[table_id] = live.table.version
                    continue
                await self._resync(table_id, live)
            self._behind = behind
            await self.presence.refresh()
            for table_id in await store.running_with_clock():
                if table_id not in copies.live:
                    await self._reload(table_id)
            for table_id in await store.stalled_computer_tables(self.takeover):
                if table_id in self.computer.here:
                    continue
                try:
                    live = await copies.get(table_id)
                except TableError as error:
                    if error.code == "broken-table":
                        continue  # logged where found; the other tables are taken over
                    raise
                if not live.lock.locked() and not live.dropped:
                    live.table.thinking = None
                    copies.changed(live)
        except DatabaseUnavailable as error:
            if not self._unavailable:
                log.warning("the sweep waits for the database: %s", error.detail)
            self._unavailable = True
            return
        self._unavailable = False

    async def _resync(self, table_id: str, live: LiveTable | None) -> None:
        """Rebuild the table from the database and send this process's viewers a sync
        with the events after the version they were last sent."""
        since = None
        if live is not None:
            since = live.table.version
            self.copies.drop(live)
        try:
            fresh = await self.copies.get(table_id)
        except TableError:
            return
        missed = None
        if since is not None and since < fresh.table.version:
            missed = await self.copies.store.events_since(table_id, since)
        self.bus.deliver(
            table_id,
            {"type": "sync", "v": fresh.table.version, "state": fresh.state(), "missed": missed},
        )
