"""The pool's websocket (``/ws/pool``) and what the lobby asks before a rated game.

One connection is one player in at most one pool: ``seek`` joins, ``computers``
agrees to computer seats once they are offered, ``leave`` (or closing the page)
leaves. The pool itself is server/pool/; docs/protocol.md describes the messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect

from sternhalma.errors import SternhalmaError
from sternhalma.rating import ESTABLISHED_GAMES, is_provisional
from sternhalma.server.bus import encode
from sternhalma.server.pool.planning import PoolKey
from sternhalma.server.pool.service import Pools, Seeker
from sternhalma.server.protocol import (
    ProtocolError,
    TableError,
    decode,
    error_message,
    parse_nickname,
)
from sternhalma.server.storage.seeks import Seeks, player_of
from sternhalma.server.storage.tokens import hash_secret
from sternhalma.server.web.incoming import json_object

router = APIRouter()

#: Messages one pool connection may send in any ``WINDOW`` seconds before it is closed.
BURST = 30
WINDOW = 10.0
#: The rated tables one look at the lobby may ask about.
MAX_TABLES = 30


def _address(connection: Request | WebSocket) -> str:
    return connection.client.host if connection.client is not None else "unknown"


@router.websocket("/ws/pool")
async def pool_socket(websocket: WebSocket) -> None:
    address = _address(websocket)
    admission = websocket.app.state.admission
    if not admission.connect(address):
        await websocket.close(code=1008, reason="too many connections from your address")
        return
    try:
        await websocket.accept()
        await PoolConnection(websocket, websocket.app.state.pool, address).run()
    finally:
        admission.disconnect(address)


class PoolConnection:
    """One browser in the pool: its messages in, the pool's notices out, in order."""

    def __init__(self, websocket: WebSocket, pools: Pools, address: str) -> None:
        self.websocket = websocket
        self.pools = pools
        self.address = address
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.seeker: Seeker | None = None
        self.sent: list[float] = []

    async def run(self) -> None:
        writer = asyncio.get_running_loop().create_task(self._write())
        try:
            while True:
                text = await self.websocket.receive_text()
                now = time.monotonic()
                self.sent = [t for t in self.sent if now - t < WINDOW] + [now]
                if len(self.sent) > BURST:
                    await self.websocket.close(code=1008, reason="too many messages")
                    return
                try:
                    await self.handle(decode(text))
                except SternhalmaError as error:
                    self.outbox.put_nowait(error_message(error))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            if self.seeker is not None and not self.seeker.done:
                # Not awaited here: the closing connection's task may be cancelled.
                self.pools.leave_soon(self.seeker)
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    async def _write(self) -> None:
        while True:
            message = await self.outbox.get()
            await self.websocket.send_text(encode(message))

    async def handle(self, message: object) -> None:
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            raise ProtocolError('a message is an object with a "type"')
        kind = message["type"]
        if kind == "seek":
            if self.seeker is not None and not self.seeker.done:
                raise TableError("seeking", "you are waiting in a pool already; leave it first")
            key = PoolKey.checked(
                message.get("variant"), message.get("clock"), message.get("rated")
            )
            nickname = parse_nickname(message.get("nickname"))
            secret = message.get("identity")
            if secret is not None and not isinstance(secret, str):
                raise ProtocolError('"identity" must be the secret your browser keeps')
            self.seeker, reply = await self.pools.join(
                key, nickname, secret, self.address, self.outbox.put_nowait
            )
            self.outbox.put_nowait(reply)
        elif kind == "computers":
            if self.seeker is None or self.seeker.done:
                raise TableError("not-seeking", "you are not waiting in a pool")
            await self.pools.agree(self.seeker)
            self.outbox.put_nowait({"type": "computers-agreed"})
        elif kind == "leave":
            if self.seeker is not None and not self.seeker.done:
                await self.pools.leave(self.seeker)
            self.seeker = None
            self.outbox.put_nowait({"type": "left"})
        elif kind == "ping":
            self.outbox.put_nowait({"type": "pong"})
        else:
            raise ProtocolError(f"unknown message type {kind[:20]!r}")


@router.post("/api/rated-notes")
async def rated_notes(request: Request) -> dict[str, Any]:
    """Before a rated pool game: whether this browser's identity's rating in ``variant`` is
    still provisional (docs/ratings.md). Whether a table's game would be rated for it is
    the accounts' question (``POST /api/tables/unrated``)."""
    body = await json_object(request, 'send {"variant": ..., "identity": ...}')
    secret, variant = body.get("identity"), body.get("variant")
    if secret is not None and not isinstance(secret, str):
        raise ProtocolError('"identity" must be the secret your browser keeps')
    if not isinstance(variant, str):
        raise ProtocolError('"variant" must be a variant id, like "classic-2"')
    tables = request.app.state.tables
    found = await player_of(tables.store, hash_secret(secret)) if secret else None
    key = PoolKey.checked(variant, "5+3", False)
    games = 0 if found is None else (await Seeks(tables.store).rating(found[0], key.variant))[1]
    return {
        "variant": key.variant,
        "games": games,
        "needed": ESTABLISHED_GAMES,
        "provisional": is_provisional(games),
    }
