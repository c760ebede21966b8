"""One browser's websocket on one table: checked input, a rate limit, ordered output.

Every message is checked before it reaches the table (size, JSON, shape:
server/protocol.py); a bad one gets an error reply and the connection and
the game go on. A connection that sends faster than a person plays is slowed
down (each message over the limit waits) and, if it keeps on, closed.

A hint is worked out while the connection goes on reading: a connection asks for
a few a minute and one at a time, and when it closes its hint is cancelled (the
computer stops thinking about it).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from sternhalma.errors import SternhalmaError
from sternhalma.server.bus import encode
from sternhalma.server.protocol import (
    PROTOCOL_VERSION,
    Abort,
    Hello,
    Leave,
    Look,
    MoveCommand,
    Ping,
    ProtocolError,
    Rematch,
    SeatCommand,
    Sit,
    TableError,
    decode,
    error_message,
    parse_command,
)
from sternhalma.server.tables.live import LiveTable
from sternhalma.server.tables.service import Tables

#: Close codes (4000-4999 are the application's own).
CLOSE_FLOOD = 1008
CLOSE_NO_TABLE = 4404
CLOSE_TRY_LATER = 1013
#: Refusals that change nothing and need no new look at the board: sent without the
#: table's state, which a flood of them would otherwise cost the server to build.
WITHOUT_STATE = frozenset({"hint-busy", "hint-limit"})


@dataclass(frozen=True)
class Limits:
    """How fast one connection may send: a bucket of ``burst`` messages refilled at
    ``rate`` per second; over it each message waits ``pause`` seconds, and after
    ``strikes`` such messages the connection is closed. Sitting down and standing up
    (each writes to the database) are limited on their own: ``seat_changes`` in any
    ``seat_window`` seconds."""

    rate: float = 10.0
    burst: float = 40.0
    pause: float = 0.25
    strikes: int = 40
    #: Hints one connection may ask for in any ``hint_window`` seconds.
    hints: int = 3
    hint_window: float = 60.0
    seat_changes: int = 6
    seat_window: float = 60.0


@dataclass(frozen=True)
class AddressLimits:
    """What one client address may hold at once and start: open table connections, new
    tables in any ``window`` seconds, and sits and stand-ups in any ``seat_window``
    seconds. Behind a reverse proxy the address is the one it forwards (uvicorn trusts
    the proxy headers of 127.0.0.1)."""

    connections: int = 100
    tables: int = 120
    window: float = 600.0
    seat_changes: int = 30
    seat_window: float = 60.0


class Window:
    """At most ``count`` events per key in any ``seconds`` (a sliding window)."""

    def __init__(self, count: int, seconds: float, clock: Callable[[], float]) -> None:
        self.count = count
        self.seconds = seconds
        self.clock = clock
        self.times: dict[str, deque[float]] = {}

    def take(self, key: str) -> bool:
        """Count one more event of ``key``, if it is within the limit."""
        now = self.clock()
        since = now - self.seconds
        if len(self.times) > 10_000:  # forget keys that have been quiet
            self.times = {k: q for k, q in self.times.items() if q and q[-1] > since}
        times = self.times.setdefault(key, deque())
        while times and times[0] <= since:
            times.popleft()
        if len(times) >= self.count:
            return False
        times.append(now)
        return True


class PerAddress:
    """Counts connections, new tables and seat changes by client address (one process)."""

    def __init__(self, limits: AddressLimits, clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.open: Counter[str] = Counter()
        self.created = Window(limits.tables, limits.window, clock)
        self.seat_changes = Window(limits.seat_changes, limits.seat_window, clock)

    def connect(self, address: str) -> bool:
        """Count one more connection from ``address``, if it is within the limit."""
        if self.open[address] >= self.limits.connections:
            return False
        self.open[address] += 1
        return True

    def disconnect(self, address: str) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]

    def may_create(self, address: str) -> bool:
        """Count one more new table from ``address``, if it is within the limit."""
        return self.created.take(address)

    def count_table(self, address: str) -> None:
        """Count one more new table (or rematch) from ``address``; TableError("too-many")
        over the limit."""
        if not self.may_create(address):
            raise TableError(
                "too-many",
                f"too many new tables from your address; at most {self.limits.tables} "
                f"in {self.limits.window / 60:g} minutes",
            )


class RateLimit:
    """A token bucket of ``burst`` tokens refilled at ``rate`` a second, on the loop's clock."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = burst
        self.at = clock()
        self.strikes = 0

    def take(self) -> bool:
        """Whether one more is within the limit now."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.strikes += 1
        return False


class Connection:
    """One browser's websocket on one table."""

    def __init__(
        self,
        websocket: WebSocket,
        tables: Tables,
        table_id: str,
        limits: Limits,
        *,
        address: str = "unknown",
        per_address: PerAddress | None = None,
    ) -> None:
        self.websocket = websocket
        self.tables = tables
        self.table_id = table_id
        self.token: str | None = None
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.limits = limits
        clock = asyncio.get_running_loop().time
        self.limit = RateLimit(limits.rate, limits.burst, clock)
        self.hints = RateLimit(limits.hints / limits.hint_window, limits.hints, clock)
        #: The hint being worked out for this connection, if any.
        self.hinting: asyncio.Task[None] | None = None
        self.address = address
        self.per_address = per_address or PerAddress(AddressLimits())
        self.seat_changes = Window(limits.seat_changes, limits.seat_window, clock)

    async def run(self) -> None:
        try:
            await self.tables.copies.get(self.table_id)
        except TableError as error:
            await self.websocket.send_json(error_message(error))
            # No such table: the browser stops; the database unreachable: it retries.
            unavailable = error.code == "unavailable"
            await self.websocket.close(code=CLOSE_TRY_LATER if unavailable else CLOSE_NO_TABLE)
            return
        sender = asyncio.create_task(self._send_loop())
        unsubscribe = self.tables.bus.subscribe(self.table_id, self.outbox.put_nowait)
        key = id(self)
        try:
            while True:
                message = await self.websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not self.limit.take():
                    if self.limit.strikes > self.limits.strikes:
                        await self._flush()
                        await self.websocket.close(code=CLOSE_FLOOD, reason="too many messages")
                        break
                    self.outbox.put_nowait(
                        {
                            "type": "error",
                            "code": "flood",
                            "message": "too many messages; slow down",
                        }
                    )
                    await asyncio.sleep(self.limits.pause)
                    continue
                await self._handle(message.get("text", message.get("bytes")))
        except WebSocketDisconnect:
            pass
        finally:
            if self.hinting is not None:
                self.hinting.cancel()  # the asker left: stop thinking about it
            unsubscribe()
            with contextlib.suppress(Exception):
                await self.tables.presence.part(await self.tables.copies.get(self.table_id), key)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender

    async def _flush(self) -> None:
        """Send what is queued before closing."""
        while not self.outbox.empty():
            with contextlib.suppress(Exception):
                await self.websocket.send_text(encode(self.outbox.get_nowait()))

    async def _send_loop(self) -> None:
        while True:
            message = await self.outbox.get()
            await self.websocket.send_text(encode(message))

    async def _handle(self, text: str | bytes | None) -> None:
        try:
            await self._command(decode(text))
        except SternhalmaError as error:
            await self._refused(error)

    async def _refused(self, error: SternhalmaError) -> None:
        """Say why a command was refused, with the table as it is now."""
        reply = error_message(error)
        if not (isinstance(error, TableError) and error.code in WITHOUT_STATE):
            with contextlib.suppress(SternhalmaError):
                reply["state"] = (await self.tables.copies.get(self.table_id)).state()
        self.outbox.put_nowait(reply)

    def _ask_hint(self, live: LiveTable) -> None:
        """Start working out a hint, unless one is on its way or the connection has asked
        for its share this minute."""
        if self.hinting is not None and not self.hinting.done():
            raise TableError("hint-busy", "your hint is on its way")
        if not self.hints.take():
            raise TableError(
                "hint-limit",
                f"at most {self.limits.hints} hints in {self.limits.hint_window:g} seconds; "
                "wait a little",
            )

        async def hint() -> None:
            try:
                self.outbox.put_nowait(await self.tables.computer.hint(live, self.token))
            except SternhalmaError as error:
                await self._refused(error)

        self.hinting = asyncio.get_running_loop().create_task(hint())

    async def _command(self, data: object) -> None:
        command = parse_command(data)
        tables = self.tables
        live = await tables.copies.get(self.table_id)
        table = live.table
        if isinstance(command, Hello):
            self.token = command.token
            await self._welcome(live, command.since)
        elif isinstance(command, MoveCommand):
            question = await tables.commands.move(
                live,
                self.token,
                command.seat,
                command.path,
                confirm=command.confirm,
                version=command.version,
            )
            if question is not None:
                self.outbox.put_nowait(question)
        elif isinstance(command, SeatCommand):
            if command.kind == "undo":
                await tables.commands.undo(live, self.token)
            elif command.kind == "resign":
                await tables.commands.resign(live, self.token, command.seat)
            else:
                self._ask_hint(live)
        elif isinstance(command, Abort):
            await tables.commands.abort(live, self.token)
        elif isinstance(command, Rematch):
            await tables.commands.rematch(
                live, self.token, count_new=lambda: self.per_address.count_table(self.address)
            )
        elif isinstance(command, Look):
            self.outbox.put_nowait(
                {"type": "look", "ply": command.ply, "position": table.position_after(command.ply)}
            )
        elif isinstance(command, Sit):
            self._count_seat_change()
            reply = await tables.commands.sit(
                live,
                self.token,
                command.seat,
                command.nickname,
                command.identity,
                address=self.address,
            )
            self.token = reply["token"]
            self.outbox.put_nowait(reply)
            await tables.presence.join(live, id(self), table.seats_of(self.token))
        elif isinstance(command, Leave):
            self._count_seat_change()
            await tables.commands.leave(live, self.token)
            await tables.presence.join(live, id(self), [])
        elif isinstance(command, Ping):
            self.outbox.put_nowait({"type": "pong", "v": table.version})
        else:  # pragma: no cover - parse_command returns only the commands above
            raise ProtocolError("unknown command")

    def _count_seat_change(self) -> None:
        """Refuse a sit or leave over this connection's or this address's limit."""
        if not self.seat_changes.take("") or not self.per_address.seat_changes.take(self.address):
            raise TableError(
                "too-many-sits",
                "you sat down and stood up too often; wait a minute and try again",
            )

    async def _welcome(self, live: LiveTable, since: int | None) -> None:
        """The answer to hello: the seats this token holds, the events missed since
        ``since`` (when the log has them all) and the whole state."""
        table = live.table
        seats = table.seats_of(self.token)
        missed = None
        if since is not None and since <= table.version:
            missed = await self.tables.store.events_since(table.id, since)
        self.outbox.put_nowait(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "v": table.version,
                "seats": seats,
                "missed": missed,
                "state": live.state(),
            }
        )
        await self.tables.presence.join(live, id(self), seats)
