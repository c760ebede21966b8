"""Tables, their event log, players and ratings on disk (SQLAlchemy 2 async + Alembic).

The rows are in server/storage/schema.py, the records the store hands out in
server/storage/stored.py, how a commit is written in server/storage/saving.py, and the
connection (URL, SQLite settings, errors) in server/storage/database.py.

Every change of a table is one transaction: the snapshot is updated only if
its version is still the one the change was made on (an optimistic check), and
the event is inserted under the next version (the log's primary key), so two
server processes can never both apply a move. A rated game's rating update is
part of the same transaction as the event that ended it.

The schema is made and upgraded by the Alembic migrations in
``server/storage/migrations/`` when the server starts; a database file of part 1 (made
before migrations existed) is recognised and upgraded too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, create_engine, delete, event, func, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from sternhalma.jsontext import read_json
from sternhalma.rating import ESTABLISHED_GAMES
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.account_rows import address_key
from sternhalma.server.storage.database import (
    DatabaseSchemaError,
    DatabaseUnavailable,
    DatabaseUrlError,
    VersionConflict,
    database_url,
    reachable,
    sqlite_begin,
    sqlite_connect,
    unavailable,
)
from sternhalma.server.storage.identities import (
    Identity,
    IdentityRules,
    Origin,
    check_claim,
    claim,
    existing,
    hash_address,
)
from sternhalma.server.storage.saving import PendingCommit, save_all
from sternhalma.server.storage.schema import (
    Base,
    ChatRow,
    EventRow,
    PlayerRow,
    RatingChangeRow,
    RatingRow,
    TableRow,
    table_columns,
)
from sternhalma.server.storage.stored import (
    RatedGame,
    StoredClock,
    StoredTable,
    clock_columns,
    columns,
    rating_change,
    stored_table,
)
from sternhalma.server.storage.tokens import hash_secret, new_secret

# Names the rest of the server and the tests import from here.
__all__ = [
    "Base",
    "DatabaseSchemaError",
    "DatabaseUnavailable",
    "DatabaseUrlError",
    "RatedGame",
    "Store",
    "StoredClock",
    "StoredTable",
    "TableRow",
    "VersionConflict",
    "database_url",
    "table_columns",
]

log = logging.getLogger(__name__)


class Store:
    """Reads and writes tables, events, players and ratings; one engine per server process."""

    def __init__(
        self, url: str, identities: IdentityRules | None = None, address_secret: str | None = None
    ) -> None:
        self.url = url
        #: The key of address hashes: given, or this deployment's own (made at ``open``).
        self.address_secret = address_secret
        self.address_key = address_secret or ""
        #: New identities per address, nicknames let go (docs/ratings.md).
        self.identities = identities or IdentityRules()
        self.sqlite = url.startswith("sqlite")
        # An SQLite file's folder is made if need be (a file: URI is not a path).
        path = url.removeprefix("sqlite+aiosqlite:///")
        if path != url and ":memory:" not in url and not path.startswith("file:"):
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise unavailable(error, url) from None
        self.postgres = url.startswith("postgresql")
        options: dict[str, Any] = {}
        if self.postgres:
            # A connection broken by a database restart is found before it is used.
            options = {"pool_pre_ping": True, "pool_size": 10, "max_overflow": 20}
        self.engine: AsyncEngine = create_async_engine(url, **options)
        if self.sqlite:
            event.listen(self.engine.sync_engine, "connect", sqlite_connect)
            event.listen(self.engine.sync_engine, "begin", sqlite_begin)
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
        self._batch: list[PendingCommit] = []
        self._batcher: asyncio.Task[None] | None = None
        if self.sqlite and ":memory:" not in url:
            plain = create_engine(url.replace("+aiosqlite", "", 1))
            event.listen(plain, "connect", sqlite_connect)
            event.listen(plain, "begin", sqlite_begin)
            self._batch_engine = plain.execution_options(writes=True)
        #: Tables found broken (their rows cannot be read or replayed): each is logged once.
        self.broken: set[str] = set()

    def report_broken(self, table_id: str, error: TableError) -> None:
        """Log a table that cannot be restored, once per process. Its row stays as it is
        (nothing is lost); opening it gives the error, lists leave it out."""
        if table_id not in self.broken:
            self.broken.add(table_id)
            log.warning("%s", error)

    @reachable
    async def open(self) -> None:
        """Create or upgrade the schema (Alembic); refuse a database laid out differently.

        On PostgreSQL an advisory lock makes processes that start together migrate one
        after the other (the others then find the schema up to date). A write that
        changes nothing proves the database writable: a read-only file or a full disk
        is refused here, at start, not at the first move."""
        from sternhalma.server.storage.migrations import upgrade

        async with self.writer.begin() as connection:
            if self.postgres:
                await connection.exec_driver_sql("SELECT pg_advisory_xact_lock(51474)")
            await connection.run_sync(upgrade, self.url)
            self.address_key = await connection.run_sync(address_key, self.address_secret)
            await connection.exec_driver_sql("UPDATE alembic_version SET version_num = version_num")

    async def close(self) -> None:
        if self._batcher is not None:
            await asyncio.gather(self._batcher, return_exceptions=True)
        if self._batch_engine is not None:  # its connection belongs to the writer thread
            await asyncio.get_running_loop().run_in_executor(
                self._batch_thread, self._batch_engine.engine.dispose
            )
        self._batch_thread.shutdown()
        await self.engine.dispose()

    @contextlib.asynccontextmanager
    async def writing(self) -> AsyncIterator[AsyncSession]:
        """A write transaction, behind this process's other writers on SQLite (for the
        store's companions: storage/chat.py)."""
        async with self._write, self.writes.begin() as session:
            yield session

    # -- tables ---------------------------------------------------------------------
    @reachable
    async def create(self, table: StoredTable, identity: Identity | None = None) -> None:
        """Insert a new table (version 0, no events yet) and, in the same transaction, the
        creator's ``identity`` (an online table)."""
        now = datetime.now(UTC)
        async with self._write, self.writes.begin() as session:
            if identity is not None:
                connection = await session.connection()
                await connection.run_sync(check_claim, identity, self.identities, now)
                await connection.run_sync(claim, identity, self.identities, now)
            session.add(
                TableRow(
                    id=table.id, created_at=now, updated_at=now, visited_at=now, **columns(table)
                )
            )

    @reachable
    async def commit(
        self,
        table: StoredTable,
        change: dict[str, Any],
        *,
        expected: int,
        rated: RatedGame | None = None,
        identity: Identity | None = None,
        played: tuple[str, ...] = (),
    ) -> list[dict[str, Any]] | None:
        """Write ``table`` (at ``table.version``) and its event, if the stored version is
        still ``expected``; VersionConflict otherwise. Returns the rating changes by seat
        when ``rated`` names a finished rated game. In the same transaction: the
        ``identity`` of a player who sits down, and when the ``played`` players last
        started or finished a game."""
        pending = PendingCommit(
            table,
            change,
            expected,
            rated,
            asyncio.get_running_loop().create_future(),
            identity,
            self.identities,
            played,
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

    async def _write_batch(self, batch: list[PendingCommit]) -> list[Any]:
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
                    return await connection.run_sync(save_all, batch)
        except Exception as error:
            if len(batch) == 1:
                return [error]
            log.warning("%d commits together failed (%r); trying each alone", len(batch), error)
            return [(await self._write_batch([item]))[0] for item in batch]

    def _save_in_thread(self, batch: list[PendingCommit]) -> list[Any]:
        assert self._batch_engine is not None
        with self._batch_engine.begin() as connection:
            return save_all(connection, batch)

    @reachable
    async def checkpoint(self, table_id: str, version: int, clock: StoredClock) -> bool:
        """Save a running clock without a new version (a crash then loses at most the
        time since the last checkpoint); False if the table has moved on."""
        async with self._write, self.writes.begin() as session:
            written = await session.execute(
                update(TableRow)
                .where(TableRow.id == table_id, TableRow.version == version)
                .values(**clock_columns(clock))
            )
            return bool(getattr(written, "rowcount", 0) == 1)

    @reachable
    async def load(self, table_id: str) -> StoredTable | None:
        async with self.sessions() as session:
            row = await session.get(TableRow, table_id)
            if row is None:
                return None
            try:
                table = stored_table(row)
            except TableError as error:
                self.report_broken(table_id, error)
                raise
            changes = (
                await session.scalars(
                    select(RatingChangeRow)
                    .where(RatingChangeRow.table_id == table_id)
                    .order_by(RatingChangeRow.seat)
                )
            ).all()
            if changes:
                table.ratings = [rating_change(c) for c in changes]
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
        return [{"v": row.version, "event": read_json(row.data)} for row in rows]

    @reachable
    async def open_tables(self, visited_since: datetime, limit: int = 50) -> list[StoredTable]:
        """Online tables waiting for players that somebody was at since ``visited_since``,
        the most recently changed first."""
        async with self.sessions() as session:
            rows = (
                await session.scalars(
                    select(TableRow)
                    .where(TableRow.status == "waiting", _visited() >= visited_since)
                    .order_by(TableRow.updated_at.desc())
                    .limit(limit)
                )
            ).all()
            return self._readable(rows)

    def _readable(self, rows: Sequence[TableRow]) -> list[StoredTable]:
        """The tables of ``rows`` that can be read: a broken one is reported and left out,
        so one table cannot fail a list."""
        tables = []
        for row in rows:
            try:
                tables.append(stored_table(row))
            except TableError as error:
                self.report_broken(row.id, error)
        return tables

    @reachable
    async def visit(self, table_ids: list[str]) -> None:
        """Somebody is at these tables now."""
        if not table_ids:
            return
        async with self._write, self.writes.begin() as session:
            await session.execute(
                update(TableRow)
                .where(TableRow.id.in_(table_ids))
                .values(visited_at=datetime.now(UTC))
            )

    @reachable
    async def remove_waiting(self, visited_before: datetime) -> list[str]:
        """Remove the waiting tables nobody was at since ``visited_before`` (their events
        go with them); their ids."""
        async with self._write, self.writes.begin() as session:
            stale = list(
                (
                    await session.scalars(
                        select(TableRow.id).where(
                            TableRow.status == "waiting", _visited() < visited_before
                        )
                    )
                ).all()
            )
            if stale:
                await session.execute(delete(EventRow).where(EventRow.table_id.in_(stale)))
                await session.execute(delete(ChatRow).where(ChatRow.table_id.in_(stale)))
                await session.execute(delete(TableRow).where(TableRow.id.in_(stale)))
            return stale

    @reachable
    async def remove_finished(self, changed_before: datetime, limit: int = 500) -> list[str]:
        """Remove finished tables unchanged since ``changed_before`` that changed nobody's
        rating (unrated, or aborted), with their events; their ids. A rated result is kept
        for good (the ratings cite it). At most ``limit`` a call, so one transaction stays
        short; the tidying comes back for the rest."""
        rated = select(RatingChangeRow.table_id).where(RatingChangeRow.table_id == TableRow.id)
        async with self._write, self.writes.begin() as session:
            old = list(
                (
                    await session.scalars(
                        select(TableRow.id)
                        .where(
                            TableRow.over.is_(True),
                            TableRow.updated_at < changed_before,
                            ~rated.exists(),
                        )
                        .limit(limit)
                    )
                ).all()
            )
            if old:
                await session.execute(delete(EventRow).where(EventRow.table_id.in_(old)))
                await session.execute(delete(TableRow).where(TableRow.id.in_(old)))
            return old

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
    async def identity(self, nickname: str, secret: str | None, address: str) -> Identity:
        """Who sits down under ``nickname``: the player whose identity is ``secret``, or a
        new one made from ``address``. Nothing is written: the commit of the sit (or of
        the new table) writes it, so a refused sit leaves no trace (identities.claim).
        NicknameHeld or TableError("too-many-identities") refuse the sit."""
        now = datetime.now(UTC)
        secret_hash = hash_secret(secret) if secret else None
        address_hash = self.hash_address(address)
        async with self.sessions() as session:
            connection = await session.connection()
            found = await connection.run_sync(
                existing, nickname, secret_hash, address_hash, self.identities, now
            )
        if found is not None and secret is not None and secret_hash is not None:
            player, origin = found
            return Identity(player, nickname, secret, secret_hash, False, origin)
        secret = new_secret()
        return Identity(
            secrets.token_urlsafe(9),
            nickname,
            secret,
            hash_secret(secret),
            True,
            Origin(address_hash, now),
        )

    def hash_address(self, address: str) -> str:
        """What is kept of a client address: its hash keyed with the deployment's secret."""
        return hash_address(address, self.address_key)

    @reachable
    async def ratings(self, category: str | None = None, limit: int = 100) -> dict[str, Any]:
        """Players by rating, per category (only categories with some); each says whether
        the rating is still provisional (docs/ratings.md)."""
        async with self.sessions() as session:
            query = (
                select(RatingRow, PlayerRow.nickname)
                .join(PlayerRow, PlayerRow.id == RatingRow.player_id)
                .where(RatingRow.games > 0)
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
            if sum(p["provisional"] == (rating.games < ESTABLISHED_GAMES) for p in players) < limit:
                players.append(
                    {
                        "player": rating.player_id,
                        "nickname": nickname,
                        "rating": round(rating.rating),
                        "deviation": round(rating.deviation),
                        "games": rating.games,
                        "provisional": rating.games < ESTABLISHED_GAMES,
                    }
                )
        return {"categories": [{"category": c, "players": p} for c, p in categories.items()]}


def _visited() -> ColumnElement[datetime]:
    """When somebody was last at a table (its creation for a table of before 0003)."""
    return func.coalesce(TableRow.visited_at, TableRow.updated_at)
