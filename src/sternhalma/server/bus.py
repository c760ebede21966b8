"""The broadcast: how a table's messages reach every connection watching it.

Tables publish; connections subscribe per table. ``MemoryBus`` delivers
within this process. Several processes (issue 8) put Redis pub/sub behind the
same two methods; a message that pub/sub loses is not lost for good, because
every event is in the database's event log and a client that sees a gap in
the versions asks for it again (docs/protocol.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

#: Receives one message (a JSON-ready dict) for the connection that subscribed.
Listener = Callable[[dict[str, Any]], None]


class Bus(Protocol):
    def subscribe(self, table_id: str, listener: Listener) -> Callable[[], None]:
        """Deliver the table's messages to ``listener`` until the returned function is called."""
        ...

    async def publish(self, table_id: str, message: dict[str, Any]) -> None:
        """Deliver ``message`` to every listener of the table, in publishing order."""
        ...

    def listeners(self, table_id: str) -> int:
        """How many listeners this process has for the table."""
        ...


class MemoryBus:
    """The in-process bus: a dict of listeners per table."""

    def __init__(self) -> None:
        self._listeners: dict[str, dict[int, Listener]] = {}
        self._next = 0

    def subscribe(self, table_id: str, listener: Listener) -> Callable[[], None]:
        self._next += 1
        key = self._next
        self._listeners.setdefault(table_id, {})[key] = listener

        def unsubscribe() -> None:
            listeners = self._listeners.get(table_id)
            if listeners is not None:
                listeners.pop(key, None)
                if not listeners:
                    del self._listeners[table_id]

        return unsubscribe

    async def publish(self, table_id: str, message: dict[str, Any]) -> None:
        for listener in list(self._listeners.get(table_id, {}).values()):
            listener(message)

    def listeners(self, table_id: str) -> int:
        return len(self._listeners.get(table_id, {}))
