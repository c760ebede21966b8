"""The broadcast: how a table's messages reach every connection watching it.

Tables publish; connections subscribe per table. ``MemoryBus`` delivers
within this process. ``RedisBus`` (several processes) delivers to this
process's listeners at once and to the other processes through Redis pub/sub.
A message that pub/sub loses (Redis restarting, a slow subscriber) is not lost
for good: every event is in the database's event log, and each process
compares its tables' versions with the database every few seconds and sends
its clients a ``sync`` with what they missed (server/tables/following.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from sternhalma.errors import SternhalmaError
from sternhalma.jsontext import read_json

log = logging.getLogger(__name__)

#: Receives one message (a JSON-ready dict) for the connection that subscribed.
Listener = Callable[[dict[str, Any]], None]


class Shared(dict[str, Any]):
    """A message handed to every listener of a table: its JSON text is made once, by
    the first connection that sends it, instead of once per recipient."""

    __slots__ = ("_text",)

    @classmethod
    def of_text(cls, message: dict[str, Any], text: str) -> Shared:
        """A message that arrived as ``text`` (from another process): sent on as it came."""
        shared = cls(message)
        shared._text = text
        return shared

    def text(self) -> str:
        try:
            return self._text
        except AttributeError:
            self._text: str = _dumps(self)
            return self._text


def encode(message: dict[str, Any]) -> str:
    """The JSON text sent for ``message`` (made once for a shared message)."""
    return message.text() if isinstance(message, Shared) else _dumps(message)


def _dumps(message: dict[str, Any]) -> str:
    """Compact JSON, as Starlette's send_json makes it."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


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

    def watched(self) -> list[str]:
        """The tables with a listener in this process."""
        ...

    def deliver(self, table_id: str, message: dict[str, Any]) -> None:
        """Hand ``message`` to this process's listeners only (not to other processes)."""
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
        self.deliver(table_id, message)

    def listeners(self, table_id: str) -> int:
        return len(self._listeners.get(table_id, {}))

    def watched(self) -> list[str]:
        """The tables with a listener in this process."""
        return list(self._listeners)

    def deliver(self, table_id: str, message: dict[str, Any]) -> None:
        """Hand ``message`` to this process's listeners of the table."""
        listeners = self._listeners.get(table_id)
        if not listeners:
            return
        shared = message if isinstance(message, Shared) else Shared(message)
        for listener in list(listeners.values()):
            listener(shared)


#: What a process does with a message another process published (table id, message,
#: the publisher's origin), before its own listeners get it: the table keeps its copy
#: up to date (server/tables/following.py). It returns what the listeners get instead (presence:
#: everyone's, not just the publisher's), or None for nothing.
Observer = Callable[[str, dict[str, Any], str], dict[str, Any] | None]

#: Every table's channel starts with this; a process listens to all of them.
CHANNEL = "sternhalma:table:"


class RedisBus:
    """Redis pub/sub between server processes, one channel per table.

    Each message is published with this process's ``origin``, so a process skips its
    own (it delivered them locally already). When Redis is unreachable, publishing
    is skipped (the move is saved; other processes catch up from the database) and
    the subscriber reconnects by itself, calling ``on_reconnect`` so the process can
    resync whatever it missed meanwhile.
    """

    def __init__(self, url: str, *, retry: float = 0.5) -> None:
        from redis.asyncio import Redis

        self.url = url
        self.origin = secrets.token_hex(6)
        self._own = _envelope(self.origin)
        self.local = MemoryBus()
        self.retry = retry
        self.redis = Redis.from_url(url, socket_connect_timeout=2, socket_timeout=5)
        self.observer: Observer | None = None
        self.on_reconnect: Callable[[], Awaitable[None]] | None = None
        #: Whether the subscriber is connected now (tests and the log look at it).
        self.connected = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        #: Messages waiting to be published (channel, envelope), and who publishes them.
        self._outbox: list[tuple[str, str]] = []
        self._sender: asyncio.Task[None] | None = None
        self._warned = False

    async def start(self) -> None:
        """Connect (failing clearly when Redis is not there at all) and start listening."""
        from redis.exceptions import RedisError

        try:
            await self.redis.ping()
        except (RedisError, OSError) as error:
            raise BusUnavailable(f"Redis at {self.url} cannot be reached: {error}") from None
        self._reader = asyncio.get_running_loop().create_task(self._read())
        await asyncio.wait_for(self.connected.wait(), 10)

    async def close(self) -> None:
        if self._sender is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._sender, 5)
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader
        await self.redis.aclose()

    def subscribe(self, table_id: str, listener: Listener) -> Callable[[], None]:
        return self.local.subscribe(table_id, listener)

    def listeners(self, table_id: str) -> int:
        return self.local.listeners(table_id)

    def watched(self) -> list[str]:
        return self.local.watched()

    def deliver(self, table_id: str, message: dict[str, Any]) -> None:
        self.local.deliver(table_id, message)

    async def publish(self, table_id: str, message: dict[str, Any]) -> None:
        shared = Shared(message)
        await self.local.publish(table_id, shared)
        self._outbox.append((CHANNEL + table_id, f"{_envelope(self.origin)}{shared.text()}}}"))
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        """Publish what waits in the outbox, in order, many messages a round trip (a
        pipeline on one connection). One publish a connection ran out of connections
        under load and dropped messages; the others would then wait for the sweep."""
        from redis.exceptions import RedisError

        while self._outbox:
            batch, self._outbox = self._outbox, []
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
            except (RedisError, OSError) as error:
                if not self._warned:
                    log.warning(
                        "Redis unreachable, other processes resync from the database: %s", error
                    )
                    self._warned = True
                continue
            self._warned = False

    async def _read(self) -> None:
        """Listen to every table's channel; reconnect after any failure."""
        from redis.exceptions import RedisError

        first = True
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(CHANNEL + "*")
                self.connected.set()
                if not first and self.on_reconnect is not None:
                    log.warning("Redis is back; resyncing this process's tables")
                    await self.on_reconnect()
                first = False
                while True:
                    # A bounded wait: with no message for longer than the socket timeout,
                    # a blocking read would fail as if Redis were gone (redis-py 5).
                    item = await pubsub.get_message(timeout=1.0)
                    if item is not None and item.get("type") == "pmessage":
                        self._deliver(item["channel"], item["data"])
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                self.connected.clear()
                log.warning("Redis subscriber lost (%s); retrying", error)
            except Exception:
                self.connected.clear()
                log.exception("Redis subscriber failed; retrying")
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
            await asyncio.sleep(self.retry)

    def _deliver(self, channel: bytes | str, data: bytes | str) -> None:
        """Hand another process's message to the observer, then to this process's listeners."""
        if isinstance(channel, bytes):
            channel = channel.decode()
        try:
            if isinstance(data, bytes):
                data = data.decode()
            if data.startswith(self._own):  # delivered locally when it was published
                return
            envelope = read_json(data)
            origin, message = envelope["o"], envelope["m"]
            before = _envelope(origin)
            if not isinstance(message, dict) or not data.startswith(before):
                raise TypeError(message)
        except (ValueError, KeyError, TypeError):
            log.warning("a malformed message on %s was ignored", channel)
            return
        message = Shared.of_text(message, data[len(before) : -1])
        table_id = channel.removeprefix(CHANNEL)
        if self.observer is not None:
            try:
                instead = self.observer(table_id, message, origin)
            except Exception:
                log.exception("table %s could not take another process's message", table_id)
            else:
                if instead is None:
                    return
                message = instead
        self.local.deliver(table_id, message)


def _envelope(origin: str) -> str:
    """The start of a published message: ``{"o": origin, "m": message}`` is written as
    this, the message's JSON text and ``}``, so the text can be sent on as it came."""
    return f'{{"o":{json.dumps(origin)},"m":'


class BusUnavailable(SternhalmaError):
    """Redis cannot be reached when the server starts."""
