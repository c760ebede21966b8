"""A table as this process holds it in memory: its stored state (``Table``) and what
only runs here, never saved: the lock its commands take turns under, the event that
wakes its clock's watcher, the computer's jobs, and who is at the table now.

Copies (tables/copies.py) makes and drops them; the collaborators act on them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from sternhalma.server.tables.table import Table


@dataclass(eq=False)
class LiveTable:
    table: Table
    #: One command at a time per table.
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: Set when anything changes: the clock's watcher looks again.
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set when this copy is dropped from memory (the database has a newer one).
    dropped: bool = False
    #: The clock's watcher (tables/clocks.py).
    watcher: asyncio.Task[None] | None = None
    #: The computer's jobs under way for this table (its move, a hint), by the
    #: generation they were asked at: cancelled once the table moves on.
    jobs: dict[asyncio.Task[str], int] = field(default_factory=dict)
    #: The hint being worked out (one at a time per table).
    hinting: asyncio.Task[str] | None = None
    #: The seat whose turn the watcher last saw begin, and when (``now``, ms): a first
    #: move that does not come in time aborts the game (tables/clocks.py).
    turn_seat: int | None = None
    turn_since: int = 0
    #: Seats with a connection now, and how many others watch, over every process
    #: (tables/presence.py keeps them).
    present: list[int] = field(default_factory=list)
    watchers: int = 0

    @property
    def id(self) -> str:
        return self.table.id

    def state(self) -> dict[str, Any]:
        """Everything a viewer may see now: the table's state and who is here."""
        return self.table.state(self.present, self.watchers)

    def message(self, event: dict[str, Any]) -> dict[str, Any]:
        """The broadcast of ``event``: the version and the state after it."""
        return {"type": "event", "v": self.table.version, "event": event, "state": self.state()}

    def cancel_stale_jobs(self) -> None:
        """Cancel the computer's jobs asked before the last change (or for a dropped copy):
        their answers would be for a position that is gone."""
        for job, generation in list(self.jobs.items()):
            if self.dropped or generation != self.table.generation:
                job.cancel()
