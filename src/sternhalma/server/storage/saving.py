"""How one commit is written: a table's new snapshot if its version is still the expected
one, its event under the next version, and (a rated game that ended) the ratings, all in
one transaction. Commits that arrive together share a transaction (``Store.commit``).

Core statements built once: this runs for every move, and the ORM's unit of work
cost several times the database's own work here.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session, aliased

from sternhalma.rating import REPEAT_DAYS, Rating, rate_game
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.database import VersionConflict
from sternhalma.server.storage.identities import (
    Identity,
    IdentityRules,
    check_claim,
    claim,
    played,
)
from sternhalma.server.storage.schema import EventRow, RatingChangeRow, RatingRow, TableRow
from sternhalma.server.storage.stored import RatedGame, StoredTable, columns, rating_change


@dataclass
class PendingCommit:
    """A commit waiting for the next transaction (Store._write_batches)."""

    table: StoredTable
    change: dict[str, Any]
    expected: int
    rated: RatedGame | None
    outcome: asyncio.Future[list[dict[str, Any]] | None]
    #: A player who sits down (written only with the sit), and the rules it is held to.
    identity: Identity | None = None
    identities: IdentityRules = field(default_factory=IdentityRules)
    #: Players who started or finished a game now.
    played: tuple[str, ...] = ()


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


def save_all(connection: Connection, batch: list[PendingCommit]) -> list[Any]:
    """The commits of one transaction (Store._write_batch)."""
    now = datetime.now(UTC)
    outcomes: list[Any] = []
    for item in batch:
        try:
            outcomes.append(_save(connection, item, now))
        except (VersionConflict, TableError) as refused:  # raised before it wrote anything
            outcomes.append(refused)
    return outcomes


def _save(
    connection: Connection, commit: PendingCommit, now: datetime
) -> list[dict[str, Any]] | None:
    """The statements of one commit (see Store.commit)."""
    table, change, expected, rated = commit.table, commit.change, commit.expected, commit.rated
    if commit.identity is not None:
        check_claim(connection, commit.identity, commit.identities, now)
    written = connection.execute(
        _SAVE_TABLE, {"_id": table.id, "_expected": expected, "updated_at": now, **columns(table)}
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
    if commit.identity is not None:
        claim(connection, commit.identity, commit.identities, now)
    played(connection, commit.played, now)
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
    repeats = [
        [0 if i == j else _together(session, a, b, now) for j, b in enumerate(game.players)]
        for i, a in enumerate(game.players)
    ]
    after = rate_game(
        [Rating(r.rating, r.deviation, r.volatility) for r in rows], game.places, repeats
    )
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
        changes.append(rating_change(change))
        row.rating, row.deviation, row.volatility = (
            rating.rating,
            rating.deviation,
            rating.volatility,
        )
        row.games += 1
        row.updated_at = now
    return changes


def _together(session: Session, first: str, second: str, now: datetime) -> int:
    """The rated games ``first`` and ``second`` played together in the last REPEAT_DAYS
    days (a repeated pairing counts less: rating.repeat_weight)."""
    mine, theirs = aliased(RatingChangeRow), aliased(RatingChangeRow)
    return int(
        session.execute(
            select(func.count())
            .select_from(mine)
            .join(theirs, theirs.table_id == mine.table_id)
            .join(TableRow, TableRow.id == mine.table_id)
            .where(
                mine.player_id == first,
                theirs.player_id == second,
                TableRow.updated_at > now - timedelta(days=REPEAT_DAYS),
            )
        ).scalar_one()
    )
