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
    #: The computer's turns that failed in a row here: the next one waits before it
    #: tries again (tables/computer_turns.py ``retry_wait``).
    computer_failures: int = 0
    #: The seat whose turn the watcher last saw begin, and when (``now``, ms): a first
    #: move that does not come in time aborts the game (tables/clocks.py).
    turn_seat: int | None = None
    turn_since: int = 0
    #: Seats with a connection now, and how many others watch, over every process
    #: (tables/presence.py keeps them).
    present: list[int] = field(default_factory=list)
    watchers: int = 0
    #: Seats whose player is not here during the game, since when (``now``, ms): once
    #: ``absence_ms`` has passed the others may claim the seat (tables/claims.py).
    absent: dict[int, int] = field(default_factory=dict)
    #: The first-move limit and the wait before an absent seat can be claimed (ms).
    first_move_ms: int = 60_000
    absence_ms: int = 30_000

    @property
    def id(self) -> str:
        return self.table.id

    def state(self) -> dict[str, Any]:
        """Everything a viewer may see now: the table's state, who is here and the
        countdowns that can end the game."""
        state = self.table.state(self.present, self.watchers)
        state["countdowns"] = self.countdowns()
        return state

    def turn_began(self, turn: int, now: int) -> None:
        """Note when ``turn`` began (the first-move limit counts from then)."""
        if turn != self.turn_seat:
            self.turn_seat, self.turn_since = turn, now

    def countdowns(self) -> list[dict[str, Any]]:
        """What ends the game (or lets the others end it) when its time is up, for every
        viewer to see, clock or no clock: a first move awaited (the game is aborted), a
        seat whose player left (it can be claimed). ``left`` is in ms as of now."""
        table = self.table
        if table.status != "playing":
            return []
        now = table.now()
        found: list[dict[str, Any]] = []
        turn = table.game.turn
        if turn is not None:
            self.turn_began(turn, now)
            if table.first_move_pending(turn):
                left = self.first_move_ms - (now - self.turn_since)
                clock = table.game.clock
                if clock is not None:
                    left = min(left, clock.remaining(turn))
                found.append({"kind": "first-move", "seat": turn, "left": max(0, left)})
        for seat, since in sorted(self.absent.items()):
            left = self.absence_ms - (now - since)
            found.append({"kind": "absent", "seat": seat, "left": max(0, left)})
        return found

    def note_presence(self) -> None:
        """Start or stop the absence countdowns by who is here now: a seat of an online
        player still in a game everyone has begun, with no connection on any process."""
        table = self.table
        now = table.now()
        begun = table.status == "playing" and not table.can_abort()
        for s, seat in enumerate(table.seats):
            away = (
                begun
                and seat.kind == "online"
                and seat.taken
                and s not in self.present
                and table.game.status(s) == "playing"
            )
            if not away:
                self.absent.pop(s, None)
            elif s not in self.absent:
                self.absent[s] = now

    def message(self, event: dict[str, Any]) -> dict[str, Any]:
        """The broadcast of ``event``: the version and the state after it."""
        return {"type": "event", "v": self.table.version, "event": event, "state": self.state()}

    def cancel_stale_jobs(self) -> None:
        """Cancel the computer's jobs asked before the last change (or for a dropped copy):
        their answers would be for a position that is gone."""
        for job, generation in list(self.jobs.items()):
            if self.dropped or generation != self.table.generation:
                job.cancel()
