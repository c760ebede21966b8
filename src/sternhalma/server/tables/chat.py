"""A table's chat: the players' room and the spectators', kept apart during a game
(as lichess does), stored with the table (storage/chat.py) and told to the viewers
through the bus. None at tables on one screen.

Who hears what: a line of the players' room goes to the players only; a line of the
spectators' room to the spectators, and to the players too once the game is over.
Each speaker may say ``RATE`` lines in any ``WINDOW`` seconds (over every process's
connections of this one: a cluster has one limit per process). A line is text: the
browser never reads it as markup.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any

from sternhalma.server.bus import Bus
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.chat import ChatStore, Speaker
from sternhalma.server.storage.store import Store
from sternhalma.server.tables.live import LiveTable

#: Lines one speaker may say at one table in any WINDOW seconds.
RATE = 5
WINDOW = 10.0


class TableChat:
    """What is said at the tables."""

    def __init__(self, store: Store, bus: Bus, *, rate: int = RATE, window: float = WINDOW) -> None:
        self.lines = ChatStore(store)
        self.bus = bus
        self.rate = rate
        self.window = window
        self._said: dict[tuple[str, str], deque[float]] = {}

    async def say(
        self, live: LiveTable, token: str | None, text: str, identity: str | None
    ) -> None:
        """Say ``text`` at the table: in the players' room for a seated player, else in
        the spectators' (a spectator needs an online identity: its nickname is shown)."""
        table = live.table
        if not table.online:
            raise TableError("no-chat", "a table on one screen has no chat")
        held = table.seats_of(token)
        if held:
            seat = table.seats[held[0]]
            speaker = Speaker(seat.player, seat.nickname or table.rules.seats[held[0]], held[0])
            room = "players"
        else:
            found = await self.lines.player(identity) if identity else None
            if found is None:
                raise TableError(
                    "chat-identity", "sit at an online table once to have a nickname to chat with"
                )
            speaker = Speaker(found[0], found[1], None)
            room = "spectators"
        self._count(live.id, speaker.player or speaker.nickname)
        line = await self.lines.add(live.id, room, speaker, text)
        await self.bus.publish(live.id, {"type": "chat", "line": line})

    def _count(self, table_id: str, who: str) -> None:
        """Refuse a line over the speaker's limit at this table."""
        now = time.monotonic()
        if len(self._said) > 10_000:  # forget speakers who have been quiet
            self._said = {k: q for k, q in self._said.items() if q and q[-1] > now - self.window}
        said = self._said.setdefault((table_id, who), deque())
        while said and said[0] <= now - self.window:
            said.popleft()
        if len(said) >= self.rate:
            raise TableError(
                "chat-fast", f"at most {self.rate} lines in {self.window:g} seconds; wait a little"
            )
        said.append(now)

    @staticmethod
    def rooms(live: LiveTable, seats: list[int]) -> tuple[str, ...]:
        """The rooms a viewer holding ``seats`` hears."""
        if not live.table.online:
            return ()
        if not seats:
            return ("spectators",)
        return ("players", "spectators") if live.table.over else ("players",)

    def hears(self, live: LiveTable, seats: list[int], message: dict[str, Any]) -> bool:
        """Whether a viewer holding ``seats`` gets ``message`` (every message but the
        chat lines of rooms it does not hear)."""
        if message.get("type") != "chat":
            return True
        line = message.get("line")
        return isinstance(line, dict) and line.get("room") in self.rooms(live, seats)

    async def history(self, live: LiveTable, seats: list[int]) -> list[dict[str, Any]]:
        """The lines a viewer holding ``seats`` may read, oldest first."""
        return await self.lines.lines(live.id, self.rooms(live, seats))
