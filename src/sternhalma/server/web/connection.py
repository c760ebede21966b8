"""One browser's websocket on one table: checked input, admitted requests, ordered output.

Every message is checked before it reaches the table (size, JSON, shape:
server/protocol.py); a bad one gets an error reply and the connection and
the game go on. A connection that sends faster than a person plays is slowed
down (each message over the limit waits) and, if it keeps on, closed; hints, sits
and rematches also pass the admission layer's rates (server/web/admission.py).

A hint is worked out while the connection goes on reading: a connection asks for
a few a minute and one at a time, and when it closes its hint is cancelled (the
computer stops thinking about it).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from fastapi import WebSocket, WebSocketDisconnect

from sternhalma.errors import SternhalmaError
from sternhalma.server.bus import encode
from sternhalma.server.protocol import (
    PROTOCOL_VERSION,
    Abort,
    Chat,
    Claim,
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
from sternhalma.server.web.admission import CLOSE_FLOOD, Admission, ConnectionLimits, Limits

#: Close codes (4000-4999 are the application's own; CLOSE_FLOOD: admission.py).
CLOSE_NO_TABLE = 4404
CLOSE_TRY_LATER = 1013
#: Refusals that change nothing and need no new look at the board: sent without the
#: table's state, which a flood of them would otherwise cost the server to build.
WITHOUT_STATE = frozenset({"hint-busy", "hint-limit", "busy"})
#: The answer to a message over the connection's rate.
FLOOD = {"type": "error", "code": "flood", "message": "too many messages; slow down"}


class Connection:
    """One browser's websocket on one table."""

    def __init__(
        self,
        websocket: WebSocket,
        tables: Tables,
        table_id: str,
        limits: Limits,
        *,
        admission: Admission,
        address: str = "unknown",
    ) -> None:
        self.websocket = websocket
        self.tables = tables
        self.table_id = table_id
        self.token: str | None = None
        #: The seats this connection's token holds (which chat rooms it hears).
        self.seats: list[int] = []
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.limits = limits
        self.own = ConnectionLimits(limits, asyncio.get_running_loop().time)
        #: The hint being worked out for this connection, if any.
        self.hinting: asyncio.Task[None] | None = None
        self.address = address
        self.admission = admission

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
        unsubscribe = self.tables.bus.subscribe(self.table_id, self._hear)
        key = id(self)
        try:
            while True:
                message = await self.websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                admitted = await self.own.flooding()
                if admitted is None:
                    await self._flush()
                    await self.websocket.close(code=CLOSE_FLOOD, reason="too many messages")
                    break
                if not admitted:
                    self.outbox.put_nowait(FLOOD)
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

    def _hear(self, message: dict[str, Any]) -> None:
        """A table's message for this viewer, unless it is a chat line of a room this
        viewer does not hear (tables/chat.py)."""
        if message.get("type") == "chat":
            live = self.tables.copies.live.get(self.table_id)
            if live is None or not self.tables.chat.hears(live, self.seats, message):
                return
        self.outbox.put_nowait(message)

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

    async def _ask_hint(self, live: LiveTable) -> None:
        """Start working out a hint, unless one is on its way or the connection (or its
        address, or its player) has asked for its share this minute."""
        if self.hinting is not None and not self.hinting.done():
            raise TableError("hint-busy", "your hint is on its way")
        if not self.own.hints.take():
            raise TableError(
                "hint-limit",
                f"at most {self.limits.hints} hints in {self.limits.hint_window:g} seconds; "
                "wait a little",
            )
        await self.admission.admit("hint", self.address, self.token)

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
                await self._ask_hint(live)
        elif isinstance(command, Abort):
            await tables.commands.abort(live, self.token)
        elif isinstance(command, Rematch):
            await tables.commands.rematch(
                live,
                self.token,
                count_new=lambda: self.admission.admit("table", self.address, self.token),
            )
        elif isinstance(command, Look):
            self.outbox.put_nowait(
                {"type": "look", "ply": command.ply, "position": table.position_after(command.ply)}
            )
        elif isinstance(command, Sit):
            await self._count_seat_change(command.identity)
            if command.identity is None:
                await self.admission.admit("identity", self.address)
            reply = await tables.commands.sit(
                live,
                self.token,
                command.seat,
                command.nickname,
                command.identity,
                address=self.address,
            )
            self.token = reply["token"]
            self.seats = table.seats_of(self.token)
            reply["chat"] = await tables.chat.history(live, self.seats)
            self.outbox.put_nowait(reply)
            await tables.presence.join(live, id(self), self.seats)
        elif isinstance(command, Leave):
            await self._count_seat_change(None)
            await tables.commands.leave(live, self.token)
            self.seats = []
            await tables.presence.join(live, id(self), [])
            self.outbox.put_nowait(
                {"type": "chat-history", "lines": await tables.chat.history(live, [])}
            )
        elif isinstance(command, Ping):
            self.outbox.put_nowait({"type": "pong", "v": table.version})
        elif isinstance(command, Claim):
            await tables.claims.claim(live, self.token, command.seat, command.claim)
        elif isinstance(command, Chat):
            await tables.chat.say(live, self.token, command.text, command.identity)
        else:  # pragma: no cover - parse_command returns only the commands above
            raise ProtocolError("unknown command")

    async def _count_seat_change(self, identity: str | None) -> None:
        """Refuse a sit or leave over this connection's, address's or identity's limit."""
        if not self.own.seat_changes.take():
            raise TableError(
                "too-many-sits",
                "you sat down and stood up too often; wait a minute and try again",
            )
        await self.admission.admit("seat", self.address, identity)

    async def _welcome(self, live: LiveTable, since: int | None) -> None:
        """The answer to hello: the seats this token holds, the events missed since
        ``since`` (when the log has them all) and the whole state."""
        table = live.table
        seats = table.seats_of(self.token)
        missed = None
        if since is not None and since <= table.version:
            missed = await self.tables.store.events_since(table.id, since)
        self.seats = seats
        self.outbox.put_nowait(
            {
                "type": "welcome",
                "protocol": PROTOCOL_VERSION,
                "v": table.version,
                "seats": seats,
                "missed": missed,
                "state": live.state(),
                "chat": await self.tables.chat.history(live, seats),
            }
        )
        await self.tables.presence.join(live, id(self), seats)
