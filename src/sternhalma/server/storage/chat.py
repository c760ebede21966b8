"""A table's chat as stored: lines in the players' room or the spectators', kept with
the table (a reload, or another server process, shows them), and who a spectator is.

The tables' side (who may say what, the limits, what each viewer hears) is in
tables/chat.py; this module only reads and writes ``chat_lines``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from sternhalma.server.storage.database import reachable
from sternhalma.server.storage.schema import ChatRow, PlayerRow
from sternhalma.server.storage.store import Store
from sternhalma.server.storage.tokens import hash_secret

#: The rooms of a table's chat.
ROOMS = ("players", "spectators")


@dataclass(frozen=True)
class Speaker:
    """Who says a line: a player (public id) under a nickname, at a seat or watching."""

    player: str | None
    nickname: str
    seat: int | None


class ChatStore:
    """Reads and writes the chat lines of tables."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.url = store.url

    @reachable
    async def add(self, table_id: str, room: str, speaker: Speaker, text: str) -> dict[str, Any]:
        """Keep a line; the line as viewers get it."""
        row = ChatRow(
            table_id=table_id,
            room=room,
            player_id=speaker.player,
            nickname=speaker.nickname,
            seat=speaker.seat,
            text=text,
            at=datetime.now(UTC),
        )
        async with self.store.writing() as session:
            session.add(row)
            await session.flush()
            return line(row)

    @reachable
    async def lines(
        self, table_id: str, rooms: tuple[str, ...], limit: int = 100
    ) -> list[dict[str, Any]]:
        """The last ``limit`` lines of a table in ``rooms``, oldest first."""
        if not rooms:
            return []
        async with self.store.sessions() as session:
            rows = (
                await session.scalars(
                    select(ChatRow)
                    .where(ChatRow.table_id == table_id, ChatRow.room.in_(rooms))
                    .order_by(ChatRow.id.desc())
                    .limit(limit)
                )
            ).all()
        return [line(row) for row in reversed(rows)]

    @reachable
    async def player(self, secret: str) -> tuple[str, str] | None:
        """The player (id, nickname) whose identity is ``secret``, if there is one."""
        async with self.store.sessions() as session:
            row = (
                await session.execute(
                    select(PlayerRow.id, PlayerRow.nickname).where(
                        PlayerRow.secret_hash == hash_secret(secret)
                    )
                )
            ).first()
        return None if row is None else (row.id, row.nickname)


def line(row: ChatRow) -> dict[str, Any]:
    return {
        "id": row.id,
        "room": row.room,
        "player": row.player_id,
        "nickname": row.nickname,
        "seat": row.seat,
        "text": row.text,
        "at": row.at.isoformat(),
    }
