"""The store's group commit, on an SQLite file and on PostgreSQL 15: commits that arrive
together share a transaction, yet each succeeds or fails on its own."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_apart
from services import Postgres

from sternhalma.server.storage.store import (
    RatedGame,
    Store,
    StoredTable,
    VersionConflict,
)
from sternhalma.server.storage.tokens import hash_secret


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    server = Postgres()
    server.start()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    server: Postgres = request.getfixturevalue("postgres")
    return server.url


def new_table(table_id: str) -> StoredTable:
    return StoredTable(
        id=table_id,
        variant="classic-2",
        seats=[{"kind": "person", "level": None}] * 2,
        start=None,
        moves_made=None,
        deadline_rule=True,
        token_hash=hash_secret("secret"),
        seed=1,
        actions=[],
        version=0,
    )


def moved(table: StoredTable, move: str) -> StoredTable:
    """The table one version on, with ``move`` played."""
    seat = len(table.actions) % 2
    actions = [*table.actions, {"seat": seat, "move": move}]
    return dataclasses.replace(table, actions=actions, version=table.version + 1)


def event(move: str) -> dict[str, Any]:
    return {"kind": "move", "path": move.split("-")}


async def together(url: str, prefix: str) -> None:
    store = Store(url)
    await store.open()
    try:
        tables = [new_table(f"{prefix}{n}") for n in range(3)]
        for table in tables:
            await store.create(table)
        first = [moved(table, "m1-m2") for table in tables]

        # Three commits at once; the second was made on a version the table never had.
        outcomes = await asyncio.gather(
            store.commit(first[0], event("m1-m2"), expected=0),
            store.commit(first[1], event("m1-m2"), expected=5),
            store.commit(first[2], event("m1-m2"), expected=0),
            return_exceptions=True,
        )
        assert outcomes[0] is None and outcomes[2] is None
        assert isinstance(outcomes[1], VersionConflict)

        # A commit the database refuses (ratings for players it does not know) fails
        # alone: the move committed beside it is kept.
        unknown = RatedGame("classic-2", ("nobody", "ghost"), (1, 2))
        second = [moved(first[0], "a1-a2"), moved(first[2], "a1-a2")]
        outcomes = await asyncio.gather(
            store.commit(second[0], event("a1-a2"), expected=1),
            store.commit(second[1], event("a1-a2"), expected=1, rated=unknown),
            return_exceptions=True,
        )
        assert outcomes[0] is None
        assert isinstance(outcomes[1], Exception)
        assert not isinstance(outcomes[1], VersionConflict)

        ids = [table.id for table in tables]
        assert await store.versions(ids) == dict(zip(ids, [2, 0, 1], strict=True))
        kept = await store.load(ids[0])
        assert kept is not None and [a["move"] for a in kept.actions] == ["m1-m2", "a1-a2"]
        log = await store.events_since(ids[0], 0)
        assert log is not None and [entry["v"] for entry in log] == [1, 2]
        assert await store.events_since(ids[2], 1) == []
    finally:
        await store.close()


def test_commits_in_one_transaction_succeed_or_fail_each_on_its_own(
    url: str, request: pytest.FixtureRequest
) -> None:
    run_apart(together(url, prefix=request.node.callspec.id))
