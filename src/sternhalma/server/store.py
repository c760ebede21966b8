"""Tables on disk: one SQLite row per table, so a reload or a restart loses nothing.

Part 1 keeps what a table needs to be rebuilt: its variant, seats, optional
start position, the secret (hashed) that holds its person seats, and the
actions played so far (moves and resignations), which the referee replays.
SQLAlchemy 2 async with aiosqlite by default; any SQLAlchemy async URL works.
The schema is created on start; part 2 brings Alembic migrations with the
event log and the online seats.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Boolean, DateTime, Integer, String, Text, event, inspect
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sternhalma.errors import SternhalmaError


class DatabaseUrlError(SternhalmaError):
    """A --database-url that is neither a file path nor a database URL."""


class DatabaseSchemaError(SternhalmaError):
    """A database whose tables were made by another version of sternhalma."""


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40))
    #: JSON list of seats: {"kind": "person"} or {"kind": "computer", "level": "easy"}.
    seats: Mapped[str] = mapped_column(Text)
    #: Position JSON (RULES.md §4) when the table did not start from the initial position.
    start: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: JSON list: own moves per seat made before ``start`` (a game set up mid-way).
    moves_made: Mapped[str | None] = mapped_column(Text, nullable=True)
    deadline_rule: Mapped[bool] = mapped_column(Boolean, default=True)
    #: SHA-256 of the secret that the creating browser keeps.
    token_hash: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Integer)
    #: JSON list of actions: {"seat": 0, "move": "m1-m3-k5"} or {"seat": 1, "resign": true}.
    actions: Mapped[str] = mapped_column(Text, default="[]")
    version: Mapped[int] = mapped_column(Integer, default=0)
    over: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


@dataclass
class StoredTable:
    """A table as saved: everything needed to rebuild it."""

    id: str
    variant: str
    seats: list[dict[str, Any]]
    start: str | None
    moves_made: list[int] | None
    deadline_rule: bool
    token_hash: str
    seed: int
    actions: list[dict[str, Any]]
    version: int
    over: bool


def database_url(value: str) -> str:
    """An async SQLAlchemy URL from ``--database-url``: a URL, or a path to an SQLite file."""
    text = value.strip()
    if not text:
        raise DatabaseUrlError("the database URL is empty: give a file path or a URL")
    if "://" in text:
        if text.startswith("sqlite://"):
            return "sqlite+aiosqlite://" + text.removeprefix("sqlite://")
        return text
    return f"sqlite+aiosqlite:///{Path(text).expanduser().resolve()}"


class Store:
    """Reads and writes table rows; one engine per server process."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith("sqlite+aiosqlite:///") and ":memory:" not in url:
            Path(url.removeprefix("sqlite+aiosqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.engine: AsyncEngine = create_async_engine(url)
        if url.startswith("sqlite"):
            event.listen(self.engine.sync_engine, "connect", _sqlite_pragmas)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)

    async def open(self) -> None:
        """Create the tables if they are missing; refuse a file laid out differently."""
        async with self.engine.begin() as connection:
            await connection.run_sync(Base.metadata.create_all)
            columns = await connection.run_sync(
                lambda sync: {c["name"] for c in inspect(sync).get_columns(TableRow.__tablename__)}
            )
        missing = set(TableRow.__table__.columns.keys()) - columns
        if missing:
            raise DatabaseSchemaError(
                f"the database {self.url} was made by another version of sternhalma "
                f"(it lacks {', '.join(sorted(missing))}); use --database-url for a new file"
            )

    async def close(self) -> None:
        await self.engine.dispose()

    async def save(self, table: StoredTable) -> None:
        now = datetime.now(UTC)
        async with self.sessions.begin() as session:
            row = await session.get(TableRow, table.id)
            if row is None:
                row = TableRow(id=table.id, created_at=now)
                session.add(row)
            row.variant = table.variant
            row.seats = json.dumps(table.seats)
            row.start = table.start
            row.moves_made = None if table.moves_made is None else json.dumps(table.moves_made)
            row.deadline_rule = table.deadline_rule
            row.token_hash = table.token_hash
            row.seed = table.seed
            row.actions = json.dumps(table.actions)
            row.version = table.version
            row.over = table.over
            row.updated_at = now

    async def load(self, table_id: str) -> StoredTable | None:
        async with self.sessions() as session:
            row = await session.get(TableRow, table_id)
            if row is None:
                return None
            return StoredTable(
                id=row.id,
                variant=row.variant,
                seats=json.loads(row.seats),
                start=row.start,
                moves_made=None if row.moves_made is None else json.loads(row.moves_made),
                deadline_rule=row.deadline_rule,
                token_hash=row.token_hash,
                seed=row.seed,
                actions=json.loads(row.actions),
                version=row.version,
                over=row.over,
            )


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    """WAL and a busy timeout, so a reader never blocks the writer for long."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.close()
