"""The pool's rows (``seeks``, schema.py): joining, leaving, agreeing to computer seats,
and pairing under a transaction.

Pairing reads a pool's waiting seeks, chooses, writes each new table and marks its
seeks in one transaction. On PostgreSQL the rows are read ``FOR UPDATE SKIP
LOCKED``: processes pairing the same pool at once take disjoint players, and a
player who leaves waits for a pairing under way and then finds the seek paired.
On SQLite the store's single writer orders everything. A player is therefore
paired once or not at all, however many processes pair (docs/deploy.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from sternhalma.rating import START_RATING
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.database import reachable
from sternhalma.server.storage.identities import Identity, Origin, claim
from sternhalma.server.storage.schema import RatingRow, SeekRow, TableRow
from sternhalma.server.storage.store import Store, StoredTable
from sternhalma.server.storage.stored import columns


@dataclass(frozen=True)
class Seek:
    """One waiting player, as stored."""

    id: str
    pool: str
    player: str
    nickname: str
    rating: float
    origin: Origin
    token_hash: str
    computers: bool
    created_at: datetime
    table_id: str | None = None
    seat: int | None = None


#: A pairing: the table to write and, for each of its seeks, the seat it takes.
Pairing = tuple[StoredTable, dict[str, int]]
#: Chooses the pairings of one pool from its waiting seeks.
Planner = Callable[[list[Seek]], list[Pairing]]


def _seek(row: Any) -> Seek:
    """A seek from its row (an ORM row or a Core row: the same names)."""
    return Seek(
        row.id,
        row.pool,
        row.player_id,
        row.nickname,
        row.rating,
        Origin(row.address_hash, _aware(row.identity_made)),
        row.token_hash,
        bool(row.computers),
        _aware(row.created_at) or datetime.now(UTC),
        row.table_id,
        row.seat,
    )


class Seeks:
    """The pool's rows in the store's database."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.url = store.url  # for ``reachable``'s message

    @reachable
    async def rating(self, player: str, category: str) -> tuple[float, int]:
        """The player's rating and rated games in ``category`` (a newcomer's 1500, 0)."""
        async with self.store.sessions() as session:
            row = await session.get(RatingRow, (player, category))
        return (START_RATING, 0) if row is None else (row.rating, row.games)

    @reachable
    async def add(self, seek: Seek, identity: Identity) -> None:
        """Put the player in the pool (and, a new player or a new nickname, write the
        identity in the same transaction). TableError("seeking") when the player waits
        already (another window)."""
        now = datetime.now(UTC)
        try:
            async with self.store._write, self.store.writes.begin() as session:
                connection = await session.connection()
                await connection.run_sync(claim, identity, self.store.identities, now)
                session.add(
                    SeekRow(
                        id=seek.id,
                        pool=seek.pool,
                        player_id=seek.player,
                        nickname=seek.nickname,
                        rating=seek.rating,
                        address_hash=seek.origin.address_hash,
                        identity_made=seek.origin.created_at,
                        token_hash=seek.token_hash,
                        computers=False,
                        created_at=seek.created_at,
                        seen_at=now,
                    )
                )
        except IntegrityError:
            raise TableError(
                "seeking", "you are waiting in the pool already (in another window?)"
            ) from None

    @reachable
    async def remove(self, seek_ids: list[str]) -> None:
        """Take seeks out of the pool, paired or not (a paired one was told)."""
        if seek_ids:
            async with self.store._write, self.store.writes.begin() as session:
                await session.execute(delete(SeekRow).where(SeekRow.id.in_(seek_ids)))

    @reachable
    async def agree(self, seek_id: str) -> None:
        """The player agrees to start with computer seats."""
        async with self.store._write, self.store.writes.begin() as session:
            await session.execute(
                update(SeekRow)
                .where(SeekRow.id == seek_id, SeekRow.table_id.is_(None))
                .values(computers=True)
            )

    @reachable
    async def touch(self, seek_ids: list[str]) -> None:
        """These seeks' websockets are still open (a process that went away stops this)."""
        if seek_ids:
            async with self.store._write, self.store.writes.begin() as session:
                await session.execute(
                    update(SeekRow)
                    .where(SeekRow.id.in_(seek_ids))
                    .values(seen_at=datetime.now(UTC))
                )

    @reachable
    async def counts(self) -> dict[str, int]:
        """How many wait in each pool (not yet paired)."""
        async with self.store.sessions() as session:
            rows = await session.execute(
                select(SeekRow.pool, func.count())
                .where(SeekRow.table_id.is_(None))
                .group_by(SeekRow.pool)
            )
            return {pool: count for pool, count in rows}

    @reachable
    async def paired(self, seek_ids: list[str]) -> list[Seek]:
        """Which of ``seek_ids`` are paired (a notice the bus lost is found here)."""
        if not seek_ids:
            return []
        async with self.store.sessions() as session:
            rows = await session.scalars(
                select(SeekRow).where(SeekRow.id.in_(seek_ids), SeekRow.table_id.is_not(None))
            )
            return [_seek(row) for row in rows]

    @reachable
    async def forget_stale(self, older_than: float) -> int:
        """Remove the seeks nobody looked after for ``older_than`` seconds (their process
        went away); how many."""
        before = datetime.now(UTC) - timedelta(seconds=older_than)
        async with self.store._write, self.store.writes.begin() as session:
            removed = await session.execute(delete(SeekRow).where(SeekRow.seen_at < before))
            return int(getattr(removed, "rowcount", 0) or 0)

    @reachable
    async def pair(self, pool: str, planner: Planner, *, fresh: float) -> list[Seek]:
        """Pair the waiting seeks of ``pool`` (seen within ``fresh`` seconds) as
        ``planner`` chooses: each table and its seeks' seats are written in one
        transaction. The paired seeks, with their tables and seats."""
        async with self.store._write, self.store.writes.begin() as session:
            connection = await session.connection()
            return await connection.run_sync(_pair, pool, planner, fresh)


def _pair(connection: Connection, pool: str, planner: Planner, fresh: float) -> list[Seek]:
    now = datetime.now(UTC)
    rows = connection.execute(
        select(*SeekRow.__table__.columns)
        .where(
            SeekRow.pool == pool,
            SeekRow.table_id.is_(None),
            SeekRow.seen_at >= now - timedelta(seconds=fresh),
        )
        .order_by(SeekRow.created_at)
        .with_for_update(skip_locked=True)
    )
    waiting = [_seek(row) for row in rows]
    if not waiting:
        return []
    known = {seek.id: seek for seek in waiting}
    paired = []
    for table, seats in planner(waiting):
        if not seats or any(seek_id not in known for seek_id in seats):
            continue
        values: dict[str, Any] = columns(table)
        connection.execute(
            insert(TableRow).values(
                id=table.id, created_at=now, updated_at=now, visited_at=now, **values
            )
        )
        for seek_id, seat in seats.items():
            connection.execute(
                update(SeekRow).where(SeekRow.id == seek_id).values(table_id=table.id, seat=seat)
            )
            seek = known.pop(seek_id)
            paired.append(replace(seek, table_id=table.id, seat=seat))
    return paired


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite gives back times without their zone; they were written in UTC."""
    if moment is None:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@reachable
async def player_of(store: Store, secret_hash: str) -> tuple[str, Origin] | None:
    """The player whose identity's secret hashes to ``secret_hash``: id and origin."""
    from sternhalma.server.storage.schema import PlayerRow

    async with store.sessions() as session:
        row = (
            await session.execute(
                select(PlayerRow.id, PlayerRow.address_hash, PlayerRow.created_at).where(
                    PlayerRow.secret_hash == secret_hash
                )
            )
        ).first()
    if row is None:
        return None
    return str(row.id), Origin(row.address_hash, _aware(row.created_at))
