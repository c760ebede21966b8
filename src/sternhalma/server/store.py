"""Tables, their event log, players and ratings on disk (SQLAlchemy 2 async + Alembic).

- ``tables``: one row per table, the snapshot that rebuilds it: variant, seats
  (with the online players' nicknames and hashed seat tokens), start, the
  actions played (moves, resignations, flags; the referee replays them), the
  clock's banks, the result, the rematch, and the table's **version**.
- ``table_events``: the event log, one row per version of a table. A
  reconnecting client is sent the events it missed from here.
- ``players``: a nickname and the hash of the secret identity its browser keeps.
- ``ratings`` (a player's rating per category) and ``rating_changes`` (what
  each rated game did to each player's rating).

Every change of a table is one transaction: the snapshot is updated only if
its version is still the one the change was made on (an optimistic check), and
the event is inserted under the next version (the log's primary key), so two
server processes can never both apply a move. A rated game's rating update is
part of the same transaction as the event that ended it.

The schema is made and upgraded by the Alembic migrations in
``server/migrations/`` when the server starts; a database file of part 1 (made
before migrations existed) is recognised and upgraded too.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    inspect,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from sternhalma.errors import SternhalmaError
from sternhalma.rating import Rating, is_provisional, rate_game
from sternhalma.server.protocol import TableError

log = logging.getLogger(__name__)


class DatabaseUrlError(SternhalmaError):
    """A --database-url that is neither a file path nor a database URL."""


class DatabaseSchemaError(SternhalmaError):
    """A database whose tables were made by another version of sternhalma."""


class VersionConflict(SternhalmaError):
    """The table changed in the database since this process last read it."""


class DatabaseUnavailable(TableError):
    """The database cannot be reached (PostgreSQL down or restarting): nothing was
    changed, and the player is told to try again."""

    def __init__(self) -> None:
        super().__init__(
            "unavailable",
            "the server cannot reach its database just now; nothing changed, try again shortly",
        )


P = ParamSpec("P")
R = TypeVar("R")


def reachable(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn a lost or refused database connection into DatabaseUnavailable (a readable
    error for the player) instead of an exception that would close the websocket."""

    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except (OperationalError, InterfaceError, OSError, TimeoutError) as error:
            raise DatabaseUnavailable() from error
        except DBAPIError as error:
            if error.connection_invalidated or _connection_lost(error):
                raise DatabaseUnavailable() from error
            raise

    return guarded


def _connection_lost(error: DBAPIError) -> bool:
    """Whether the driver's error means the server went away (asyncpg raises these as
    plain DBAPI errors, e.g. "connection was closed in the middle of operation")."""
    name = type(error.orig).__name__ if error.orig is not None else ""
    return (
        name
        in {
            "ConnectionDoesNotExistError",
            "AdminShutdownError",
            "CannotConnectNowError",
            "ConnectionFailureError",
            "InterfaceError",
        }
        or "closed" in str(error).lower()
    )


def wall_ms() -> int:
    """Milliseconds since the epoch: when something was saved (clock checkpoints)."""
    return time.time_ns() // 1_000_000


def hash_secret(secret: str) -> str:
    """Only hashes of seat tokens and identities are stored (SHA-256, hex)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_secret() -> str:
    """A long random secret (seat tokens, identities): 32 URL-safe characters."""
    return secrets.token_urlsafe(24)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    variant: Mapped[str] = mapped_column(String(40))
    #: JSON list of seats: {"kind": "person"}, {"kind": "computer", "level": "easy"} or
    #: {"kind": "online", "player": id, "nickname": "...", "token_hash": "..."}.
    seats: Mapped[str] = mapped_column(Text)
    #: Position JSON (RULES.md §4) when the table did not start from the initial position.
    start: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: JSON list: own moves per seat made before ``start`` (a game set up mid-way).
    moves_made: Mapped[str | None] = mapped_column(Text, nullable=True)
    deadline_rule: Mapped[bool] = mapped_column(Boolean, default=True)
    #: SHA-256 of the creating browser's secret (it holds the person seats).
    token_hash: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Integer)
    #: JSON list of actions: {"seat": 0, "move": "m1-m3-k5"}, {"seat": 1, "resign": true},
    #: {"seat": 1, "flag": true}.
    actions: Mapped[str] = mapped_column(Text, default="[]")
    version: Mapped[int] = mapped_column(Integer, default=0)
    over: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # -- part 2 (migration 0002) --
    #: waiting (online seats free), playing or over.
    status: Mapped[str] = mapped_column(String(16), default="playing", index=True)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The time control ("5+3"), or None for a table without a clock.
    clock_control: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: JSON list: each seat's time left (ms) as of ``clock_at``.
    clock_banks: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The seat whose time was running at ``clock_at`` (None: stopped).
    clock_running: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: When the banks were written (ms since the epoch).
    clock_at: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    #: JSON: {"places", "team_places", "ending", "reason", "seat"} once over.
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The rematch table's id, and the seats that asked for it (JSON list).
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rematch_offers: Mapped[str] = mapped_column(Text, default="[]")
    #: The table this one is a rematch of.
    previous: Mapped[str | None] = mapped_column(String(32), nullable=True)
    # -- issue 14 (migration 0003) --
    #: When a connection last came to or left the table (waiting tables nobody visits
    #: leave the lobby, and are removed after a day).
    visited_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class EventRow(Base):
    __tablename__ = "table_events"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(24))
    #: The event as sent to clients (JSON object).
    data: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PlayerRow(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    nickname: Mapped[str] = mapped_column(String(64))
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # -- issue 14 (migration 0003) --
    #: The nickname's case-folded confusable skeleton (server/nicknames.py) while this
    #: player holds it; None once another player took the nickname it had let go.
    name_key: Mapped[str | None] = mapped_column(String(200), nullable=True)
    #: SHA-256 of the address the identity was created from (None: from before 0003).
    address_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: When the player last finished or started a game (a nickname is let go 90 days after).
    last_game_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    __table_args__ = (
        Index("ix_players_name_key", "name_key", unique=True),
        Index("ix_players_address_hash", "address_hash", "created_at"),
    )


class RatingRow(Base):
    __tablename__ = "ratings"

    player_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("players.id", ondelete="CASCADE"), primary_key=True
    )
    #: The variant id (ratings of different variants are not comparable).
    category: Mapped[str] = mapped_column(String(40), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # -- issue 14 (migration 0003): Glicko-2 --
    deviation: Mapped[float] = mapped_column(Float, server_default="350.0")
    volatility: Mapped[float] = mapped_column(Float, server_default="0.06")


class RatingChangeRow(Base):
    __tablename__ = "rating_changes"

    table_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    player_id: Mapped[str] = mapped_column(String(32), ForeignKey("players.id"), index=True)
    category: Mapped[str] = mapped_column(String(40))
    before: Mapped[float] = mapped_column(Float)
    after: Mapped[float] = mapped_column(Float)
    #: The player's rated games in this category before this one.
    games: Mapped[int] = mapped_column(Integer)


@dataclass
class StoredClock:
    """A clock as saved: each seat's time left at ``at`` and whose time was running."""

    control: str
    banks: list[int]
    running: int | None
    at: int


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
    status: str = "playing"
    rated: bool = False
    clock: StoredClock | None = None
    result: dict[str, Any] | None = None
    rematch: str | None = None
    rematch_offers: list[int] = field(default_factory=list)
    previous: str | None = None
    #: The rating changes of a finished rated game, by seat (loaded, never written here).
    ratings: list[dict[str, Any]] | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class Player:
    """Someone who sat at an online table: a public id and a nickname."""

    id: str
    nickname: str


@dataclass(frozen=True)
class RatedGame:
    """A finished rated game: the category and, by seat, the player and the place."""

    category: str
    players: tuple[str, ...]
    places: tuple[int, ...]


@dataclass
class _Commit:
    """A commit waiting for the next transaction (Store._write_batches)."""

    table: StoredTable
    change: dict[str, Any]
    expected: int
    rated: RatedGame | None
    outcome: asyncio.Future[list[dict[str, Any]] | None]


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
    """Reads and writes tables, events, players and ratings; one engine per server process."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.sqlite = url.startswith("sqlite")
        if url.startswith("sqlite+aiosqlite:///") and ":memory:" not in url:
            Path(url.removeprefix("sqlite+aiosqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        self.postgres = url.startswith("postgresql")
        options: dict[str, Any] = {}
        if self.postgres:
            # A connection broken by a database restart is found before it is used.
            options = {"pool_pre_ping": True, "pool_size": 10, "max_overflow": 20}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.sqlite:
            event.listen(self.engine.sync_engine, "connect", _sqlite_connect)
            event.listen(self.engine.sync_engine, "begin", _sqlite_begin)
        self.sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        #: Sessions that write (on SQLite they begin with BEGIN IMMEDIATE).
        self.writer = self.engine.execution_options(writes=True)
        self.writes = async_sessionmaker(self.writer, expire_on_commit=False)
        #: SQLite has one writer at a time; in one process, writers queue here instead
        #: of waiting on the file lock. PostgreSQL takes writers side by side (row locks).
        self._write: contextlib.AbstractAsyncContextManager[Any] = (
            asyncio.Lock() if self.sqlite else contextlib.nullcontext()
        )
        #: Commits wait here for the next transaction (group commit). On an SQLite file
        #: they are written by one thread on a plain (synchronous) engine: one trip to
        #: the thread a group instead of one a statement.
        self._batch_engine: Engine | None = None
        self._batch_thread = ThreadPoolExecutor(1, thread_name_prefix="sternhalma-commit")
        self._batch: list[_Commit] = []
        self._batcher: asyncio.Task[None] | None = None
        if self.sqlite and ":memory:" not in url:
            plain = create_engine(url.replace("+aiosqlite", "", 1))
            event.listen(plain, "connect", _sqlite_connect)
            event.listen(plain, "begin", _sqlite_begin)
            self._batch_engine = plain.execution_options(writes=True)

    @reachable
    async def open(self) -> None:
        """Create or upgrade the schema (Alembic); refuse a database laid out differently.

        On PostgreSQL an advisory lock makes processes that start together migrate one
        after the other (the others then find the schema up to date)."""
        from sternhalma.server.migrations import upgrade

        async with self.writer.begin() as connection:
            if self.postgres:
                await connection.exec_driver_sql("SELECT pg_advisory_xact_lock(51474)")
            await connection.run_sync(upgrade, self.url)

    async def close(self) -> None:
        if self._batcher is not None:
            await asyncio.gather(self._batcher, return_exceptions=True)
        if self._batch_engine is not None:  # its connection belongs to the writer thread
            await asyncio.get_running_loop().run_in_executor(
                self._batch_thread, self._batch_engine.engine.dispose
            )
        self._batch_thread.shutdown()
        await self.engine.dispose()

    # -- tables ---------------------------------------------------------------------
    @reachable
    async def create(self, table: StoredTable) -> None:
        """Insert a new table (version 0, no events yet)."""
        now = datetime.now(UTC)
        async with self._write, self.writes.begin() as session:
            session.add(TableRow(id=table.id, created_at=now, updated_at=now, **_columns(table)))

    @reachable
    async def commit(
        self,
        table: StoredTable,
        change: dict[str, Any],
        *,
        expected: int,
        rated: RatedGame | None = None,
    ) -> list[dict[str, Any]] | None:
        """Write ``table`` (at ``table.version``) and its event, if the stored version is
        still ``expected``; VersionConflict otherwise. Returns the rating changes by seat
        when ``rated`` names a finished rated game."""
        pending = _Commit(
            table, change, expected, rated, asyncio.get_running_loop().create_future()
        )
        self._batch.append(pending)
        if self._batcher is None or self._batcher.done():
            self._batcher = asyncio.create_task(self._write_batches())
        return await pending.outcome

    async def _write_batches(self) -> None:
        """Group commit: the commits that arrive while one transaction is being written
        go together into the next one. A move then costs a transaction of its own only
        when the server is idle; under load the round trips (to SQLite's writer thread,
        or to PostgreSQL) are shared by every move of the group."""
        while self._batch:
            batch, self._batch = self._batch, []
            outcomes = await self._write_batch(batch)
            for pending, outcome in zip(batch, outcomes, strict=True):
                if pending.outcome.done():  # the command was cancelled meanwhile
                    continue
                if isinstance(outcome, Exception):
                    pending.outcome.set_exception(outcome)
                else:
                    pending.outcome.set_result(outcome)

    async def _write_batch(self, batch: list[_Commit]) -> list[Any]:
        """Each commit's rating changes, or its exception. A stale version fails only its
        own commit (nothing was written for it); any other failure undoes the whole
        transaction, and then each commit is tried alone, so it fails only its own."""
        try:
            async with self._write:
                if self._batch_engine is not None:
                    return await asyncio.get_running_loop().run_in_executor(
                        self._batch_thread, self._save_in_thread, batch
                    )
                async with self.writer.begin() as connection:
                    return await connection.run_sync(_save_all, batch)
        except Exception as error:
            if len(batch) == 1:
                return [error]
            log.warning("%d commits together failed (%r); trying each alone", len(batch), error)
            return [(await self._write_batch([item]))[0] for item in batch]

    def _save_in_thread(self, batch: list[_Commit]) -> list[Any]:
        assert self._batch_engine is not None
        with self._batch_engine.begin() as connection:
            return _save_all(connection, batch)

    @reachable
    async def checkpoint(self, table_id: str, version: int, clock: StoredClock) -> bool:
        """Save a running clock without a new version (a crash then loses at most the
        time since the last checkpoint); False if the table has moved on."""
        async with self._write, self.writes.begin() as session:
            written = await session.execute(
                update(TableRow)
                .where(TableRow.id == table_id, TableRow.version == version)
                .values(**_clock_columns(clock))
            )
            return bool(getattr(written, "rowcount", 0) == 1)

    @reachable
    async def load(self, table_id: str) -> StoredTable | None:
        async with self.sessions() as session:
            row = await session.get(TableRow, table_id)
            if row is None:
                return None
            table = _stored(row)
            changes = (
                await session.scalars(
                    select(RatingChangeRow)
                    .where(RatingChangeRow.table_id == table_id)
                    .order_by(RatingChangeRow.seat)
                )
            ).all()
            if changes:
                table.ratings = [_change(c) for c in changes]
            return table

    @reachable
    async def events_since(
        self, table_id: str, since: int, limit: int = 100
    ) -> list[dict[str, Any]] | None:
        """The events after version ``since`` ({"v", "event"}), or None when the log cannot
        give all of them (too many, or from before the log was kept)."""
        async with self.sessions() as session:
            rows = (
                await session.scalars(
                    select(EventRow)
                    .where(EventRow.table_id == table_id, EventRow.version > since)
                    .order_by(EventRow.version)
                    .limit(limit + 1)
                )
            ).all()
        if len(rows) > limit or (rows and rows[0].version != since + 1):
            return None
        return [{"v": row.version, "event": json.loads(row.data)} for row in rows]

    @reachable
    async def open_tables(self, limit: int = 50) -> list[StoredTable]:
        """Online tables waiting for players, the most recently changed first."""
        async with self.sessions() as session:
            rows = (
                await session.scalars(
                    select(TableRow)
                    .where(TableRow.status == "waiting")
                    .order_by(TableRow.updated_at.desc())
                    .limit(limit)
                )
            ).all()
            return [_stored(row) for row in rows]

    @reachable
    async def running_with_clock(self) -> list[str]:
        """Tables being played with a clock: the server watches them from its start."""
        async with self.sessions() as session:
            return list(
                (
                    await session.scalars(
                        select(TableRow.id).where(
                            TableRow.status == "playing", TableRow.clock_control.is_not(None)
                        )
                    )
                ).all()
            )

    @reachable
    async def versions(self, table_ids: list[str]) -> dict[str, int]:
        """The stored version of each of ``table_ids`` (a process compares its copies)."""
        if not table_ids:
            return {}
        async with self.sessions() as session:
            rows = await session.execute(
                select(TableRow.id, TableRow.version).where(TableRow.id.in_(table_ids))
            )
            return {row.id: row.version for row in rows}

    @reachable
    async def stalled_computer_tables(self, older_than: float) -> list[str]:
        """Tables being played with a computer seat that nobody changed for ``older_than``
        seconds: the process thinking for it may have gone away."""
        before = datetime.now(UTC) - timedelta(seconds=older_than)
        async with self.sessions() as session:
            return list(
                (
                    await session.scalars(
                        select(TableRow.id).where(
                            TableRow.status == "playing",
                            TableRow.seats.contains('"computer"'),
                            TableRow.updated_at < before,
                        )
                    )
                ).all()
            )

    # -- players and ratings -----------------------------------------------------------
    @reachable
    async def identify(self, nickname: str, secret: str | None) -> tuple[Player, str]:
        """The player whose identity is ``secret`` (renamed to ``nickname``), or a new one.

        Returns the player and the identity secret for the browser to keep.
        """
        now = datetime.now(UTC)
        async with self._write, self.writes.begin() as session:
            if secret:
                row = await session.scalar(
                    select(PlayerRow).where(PlayerRow.secret_hash == hash_secret(secret))
                )
                if row is not None and hmac.compare_digest(row.secret_hash, hash_secret(secret)):
                    row.nickname = nickname
                    row.seen_at = now
                    return Player(row.id, nickname), secret
            secret = new_secret()
            row = PlayerRow(
                id=secrets.token_urlsafe(9),
                nickname=nickname,
                secret_hash=hash_secret(secret),
                created_at=now,
                seen_at=now,
            )
            session.add(row)
            return Player(row.id, nickname), secret

    @reachable
    async def ratings(self, category: str | None = None, limit: int = 100) -> dict[str, Any]:
        """Players by rating, per category (only categories with rated games)."""
        async with self.sessions() as session:
            query = select(RatingRow, PlayerRow.nickname).join(
                PlayerRow, PlayerRow.id == RatingRow.player_id
            )
            if category is not None:
                query = query.where(RatingRow.category == category)
            rows = (
                await session.execute(
                    query.order_by(RatingRow.category, RatingRow.rating.desc(), PlayerRow.nickname)
                )
            ).all()
        categories: dict[str, list[dict[str, Any]]] = {}
        for rating, nickname in rows:
            players = categories.setdefault(rating.category, [])
            if len(players) < limit:
                players.append(
                    {
                        "player": rating.player_id,
                        "nickname": nickname,
                        "rating": round(rating.rating),
                        "games": rating.games,
                    }
                )
        return {"categories": [{"category": c, "players": p} for c, p in categories.items()]}


#: The Core tables behind the rows (for the statements every move runs).
_TABLES = cast(Table, TableRow.__table__)
#: A table's new columns, if its stored version is still the expected one.
_SAVE_TABLE = (
    _TABLES.update()
    .where(_TABLES.c.id == bindparam("_id"), _TABLES.c.version == bindparam("_expected"))
    .values(
        {
            c.name: bindparam(c.name)
            for c in _TABLES.c
            if c.name not in ("id", "created_at", "visited_at")
        }
    )
)
_ADD_EVENT = cast(Table, EventRow.__table__).insert()


def _save_all(connection: Connection, batch: list[_Commit]) -> list[Any]:
    """The commits of one transaction (Store._write_batch)."""
    now = datetime.now(UTC)
    outcomes: list[Any] = []
    for item in batch:
        try:
            outcomes.append(_save(connection, item, now))
        except VersionConflict as conflict:
            outcomes.append(conflict)
    return outcomes


def _save(connection: Connection, commit: _Commit, now: datetime) -> list[dict[str, Any]] | None:
    """The statements of one commit (see Store.commit). Core statements built once: this
    runs for every move, and the ORM's unit of work cost several times the database's
    own work here."""
    table, change, expected, rated = commit.table, commit.change, commit.expected, commit.rated
    written = connection.execute(
        _SAVE_TABLE, {"_id": table.id, "_expected": expected, "updated_at": now, **_columns(table)}
    )
    if written.rowcount != 1:
        raise VersionConflict(f"table {table.id} changed since version {expected}")
    connection.execute(
        _ADD_EVENT,
        {
            "table_id": table.id,
            "version": table.version,
            "kind": str(change.get("kind", "")),
            "data": json.dumps(change),
            "at": now,
        },
    )
    if rated is None:
        return None
    # The session's work is a savepoint of the caller's transaction, kept by its commit.
    with Session(bind=connection, join_transaction_mode="create_savepoint") as session:
        changes = _rate(session, table.id, rated, now)
        session.commit()
    return changes


def _rate(session: Session, table_id: str, game: RatedGame, now: datetime) -> list[dict[str, Any]]:
    """Update the players' ratings for a finished rated game; the changes by seat."""
    rows: list[RatingRow] = []
    for player in game.players:
        row = session.get(RatingRow, (player, game.category))
        if row is None:
            new = Rating()
            row = RatingRow(
                player_id=player,
                category=game.category,
                rating=new.rating,
                deviation=new.deviation,
                volatility=new.volatility,
                games=0,
                updated_at=now,
            )
            session.add(row)
        rows.append(row)
    after = rate_game([Rating(r.rating, r.deviation, r.volatility) for r in rows], game.places)
    changes = []
    for seat, (row, rating) in enumerate(zip(rows, after, strict=True)):
        change = RatingChangeRow(
            table_id=table_id,
            seat=seat,
            player_id=row.player_id,
            category=game.category,
            before=row.rating,
            after=rating.rating,
            games=row.games,
        )
        session.add(change)
        changes.append(_change(change))
        row.rating, row.deviation, row.volatility = (
            rating.rating,
            rating.deviation,
            rating.volatility,
        )
        row.games += 1
        row.updated_at = now
    return changes


def _change(row: RatingChangeRow) -> dict[str, Any]:
    """A rating change as the table's state shows it (rounded for people)."""
    return {
        "seat": row.seat,
        "player": row.player_id,
        "before": round(row.before),
        "after": round(row.after),
        "change": round(row.after - row.before, 1),
        "before_provisional": is_provisional(row.games),
        "after_provisional": is_provisional(row.games + 1),
    }


def _clock_columns(clock: StoredClock | None) -> dict[str, Any]:
    if clock is None:
        return {"clock_control": None, "clock_banks": None, "clock_running": None, "clock_at": None}
    return {
        "clock_control": clock.control,
        "clock_banks": json.dumps(clock.banks),
        "clock_running": clock.running,
        "clock_at": clock.at,
    }


def _columns(table: StoredTable) -> dict[str, Any]:
    return {
        "variant": table.variant,
        "seats": json.dumps(table.seats),
        "start": table.start,
        "moves_made": None if table.moves_made is None else json.dumps(table.moves_made),
        "deadline_rule": table.deadline_rule,
        "token_hash": table.token_hash,
        "seed": table.seed,
        "actions": json.dumps(table.actions),
        "version": table.version,
        "over": table.status == "over",
        "status": table.status,
        "rated": table.rated,
        "result": None if table.result is None else json.dumps(table.result),
        "rematch": table.rematch,
        "rematch_offers": json.dumps(table.rematch_offers),
        "previous": table.previous,
        **_clock_columns(table.clock),
    }


def _stored(row: TableRow) -> StoredTable:
    clock = None
    if row.clock_control is not None and row.clock_banks is not None:
        clock = StoredClock(
            row.clock_control, json.loads(row.clock_banks), row.clock_running, row.clock_at or 0
        )
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
        status=row.status,
        rated=row.rated,
        clock=clock,
        result=None if row.result is None else json.loads(row.result),
        rematch=row.rematch,
        rematch_offers=json.loads(row.rematch_offers or "[]"),
        previous=row.previous,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _sqlite_connect(connection: Any, _record: Any) -> None:
    """WAL and a busy timeout, so a reader never blocks the writer for long; in WAL mode
    synchronous=NORMAL keeps every commit through a crash of the process (a power cut
    may lose the last ones) and makes a move's commit several times cheaper. The
    transactions are begun by ``_sqlite_begin`` (the driver's own are switched off)."""
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    """BEGIN IMMEDIATE for a transaction that will write: it takes the lock at once, so
    a read made inside it can never turn stale (which SQLite would refuse at the write).
    Readers begin a plain (deferred) transaction and run beside the writer (WAL)."""
    writes = connection.get_execution_options().get("writes", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def table_columns(connection: Connection, name: str) -> set[str]:
    """The column names of table ``name`` (empty when there is no such table)."""
    inspector = inspect(connection)
    if not inspector.has_table(name):
        return set()
    return {column["name"] for column in inspector.get_columns(name)}
