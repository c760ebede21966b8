"""Presence: which seats have a connection to a table now, and how many others watch.

Not versioned and never saved: it is told to the viewers through the bus as it
changes. In a cluster each process publishes its own part (``here``) and adds up
the parts the other processes told it; a part that stops being repeated is
forgotten, so a process that went away stops counting. Kept apart from the
table's versioned state because nothing here goes through the database.
"""

from __future__ import annotations

import time
from typing import Any

from sternhalma.server.bus import Bus
from sternhalma.server.tables.live import LiveTable

#: Seconds between repeats of a process's part of a table's presence (in a cluster).
PRESENCE_REPEAT = 10.0


class Presence:
    """Who is at each table, over the connections of this process and the others'."""

    def __init__(self, bus: Bus, live: dict[str, LiveTable]) -> None:
        self.bus = bus
        #: The tables in this process's memory (owned by ``Copies``; read here).
        self.live = live
        #: Connections here per table: connection key -> the seats it holds.
        self._viewers: dict[str, dict[int, list[int]]] = {}
        #: This process's part as last published (seats, watchers, when), and the
        #: other processes' parts by origin (seats, watchers, when heard).
        self._told: dict[str, tuple[list[int], int, float]] = {}
        self._elsewhere: dict[str, dict[str, tuple[list[int], int, float]]] = {}

    def table_changed(self, live: LiveTable, *, loaded: bool) -> None:
        """A copy read (again) from the database starts with everyone who is here."""
        if loaded:
            live.present, live.watchers = self.everyone(live.id)
        live.note_presence()

    async def join(self, live: LiveTable, key: int, seats: list[int]) -> None:
        """A connection watches ``table`` holding ``seats`` (or moved to other seats)."""
        self._viewers.setdefault(live.id, {})[key] = seats
        await self.publish(live)

    async def part(self, live: LiveTable, key: int) -> None:
        viewers = self._viewers.get(live.id, {})
        viewers.pop(key, None)
        if not viewers:
            self._viewers.pop(live.id, None)
        await self.publish(live)
        if live.id not in self._viewers:
            self._told.pop(live.id, None)

    def tables_here(self) -> list[str]:
        """The tables this process's connections are at."""
        return list(self._viewers)

    def here(self, table_id: str) -> tuple[list[int], int]:
        """The seats held and the watchers among this process's connections to a table."""
        viewers = self._viewers.get(table_id, {})
        seats = sorted({s for held in viewers.values() for s in held})
        return seats, sum(1 for held in viewers.values() if not held)

    def everyone(self, table_id: str) -> tuple[list[int], int]:
        """Seats held and watchers over every process (ours and what the others told)."""
        seats, watchers = self.here(table_id)
        present = set(seats)
        for theirs, their_watchers, _ in self._elsewhere.get(table_id, {}).values():
            present.update(theirs)
            watchers += their_watchers
        return sorted(present), watchers

    async def publish(self, live: LiveTable, *, again: bool = False) -> None:
        """Tell the viewers who is here. In a cluster each process also publishes its own
        part (``here``), from which the others add up everyone (``again``: repeat it,
        so a process that went away is forgotten when its part stops coming)."""
        here = self.here(live.id)
        everyone = self.everyone(live.id)
        told = self._told.get(live.id)
        last = ([], 0) if told is None else told[:2]
        if not again and everyone == (live.present, live.watchers) and last == here:
            return
        live.present, live.watchers = everyone
        live.note_presence()
        self._told[live.id] = (*here, time.monotonic())
        await self.bus.publish(
            live.id,
            {
                "type": "presence",
                "v": live.table.version,
                "present": everyone[0],
                "watchers": everyone[1],
                "countdowns": live.countdowns(),
                "here": {"present": here[0], "watchers": here[1]},
            },
        )

    def heard(self, table_id: str, message: dict[str, Any], origin: str) -> dict[str, Any] | None:
        """Another process's part of a table's presence: remember it, and give this
        process's viewers everyone's."""
        part = message.get("here")
        try:
            assert isinstance(part, dict)
            seats = sorted({int(s) for s in part["present"]})
            watchers = int(part["watchers"])
        except (AssertionError, KeyError, TypeError, ValueError):
            return None
        parts = self._elsewhere.setdefault(table_id, {})
        parts[origin] = (seats, watchers, time.monotonic())
        if not seats and not watchers:
            del parts[origin]
            if not parts:
                del self._elsewhere[table_id]
        present, everyone_watching = self.everyone(table_id)
        live = self.live.get(table_id)
        countdowns: list[dict[str, Any]] = []
        if live is not None:
            live.present, live.watchers = present, everyone_watching
            live.note_presence()
            countdowns = live.countdowns()
        return {
            "type": "presence",
            "v": message.get("v"),
            "present": present,
            "watchers": everyone_watching,
            "countdowns": countdowns,
        }

    async def refresh(self) -> None:
        """Sweep: repeat this process's part of each watched table's presence now and
        then, and forget the parts of processes that stopped repeating theirs."""
        now = time.monotonic()
        for table_id in list(self._viewers):
            live = self.live.get(table_id)
            told = self._told.get(table_id)
            if live is not None and (told is None or now - told[2] > PRESENCE_REPEAT):
                await self.publish(live, again=True)
        for table_id, parts in list(self._elsewhere.items()):
            for origin, (_, _, heard) in list(parts.items()):
                if now - heard > 3 * PRESENCE_REPEAT:
                    del parts[origin]
            if parts:
                continue
            del self._elsewhere[table_id]
            live = self.live.get(table_id)
            here = self.here(table_id)
            if live is not None and (live.present, live.watchers) != here:
                live.present, live.watchers = here
                live.note_presence()
                self.bus.deliver(
                    table_id,
                    {
                        "type": "presence",
                        "v": live.table.version,
                        "present": live.present,
                        "watchers": live.watchers,
                        "countdowns": live.countdowns(),
                    },
                )
