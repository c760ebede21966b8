"""Limits that hold however a client goes about it (issue 25): a rematch is a new table,
finished tables do not pile up for good, and the new-identity limit is counted where the
identity is written, so clients racing each other get no more than one at a time would."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import sqlite3
from pathlib import Path

import pytest
from helpers import run_apart
from sqlalchemy import func, select
from test_fair_play import OPEN, new_game, play_first_moves
from test_online import create, make_client, reply_to, socket
from test_server import PERSON, event_of, receive_until
from test_store import new_table, postgres, url

from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import IdentityRules
from sternhalma.server.storage.schema import PlayerRow
from sternhalma.server.storage.store import Store
from sternhalma.server.web.admission import AddressLimits

__all__ = ["postgres", "url"]  # the store tests' fixtures: an SQLite file and PostgreSQL 15


def test_a_rematch_loop_counts_against_the_new_tables_limit(tmp_path: Path) -> None:
    """Two players ending games and rematching made a table a few milliseconds past
    ``--max-new-tables``: each rematch is now a new table from the address that asks last."""
    limits = AddressLimits(tables=3, window=600)
    with make_client(tmp_path / "loop.db", identities=OPEN, per_address=limits) as client:
        table = new_game(client)  # the first of 3 new tables
        white_token, black_token = table["token"], table["guest"]["token"]
        table_id = table["id"]
        made = [table_id]
        for _ in range(2):
            with (
                socket(client, table_id, white_token) as white,
                socket(client, table_id, black_token) as black,
            ):
                black.send_json({"type": "abort"})  # before the first moves
                receive_until(white, event_of("abort"))
                white.send_json({"type": "rematch"})
                receive_until(black, event_of("rematch-offer"))
                black.send_json({"type": "rematch"})
                table_id = receive_until(white, event_of("rematch"))["event"]["table"]
                made.append(table_id)
            # Seats rotate: the guest plays white next time.
            white_token, black_token = black_token, white_token
        assert len(set(made)) == 3
        with (
            socket(client, table_id, white_token) as white,
            socket(client, table_id, black_token) as black,
        ):
            black.send_json({"type": "abort"})
            receive_until(white, event_of("abort"))
            white.send_json({"type": "rematch"})
            receive_until(black, event_of("rematch-offer"))
            refused = reply_to(black, {"type": "rematch"})
            assert refused["code"] == "too-many"
            assert "at most 3 in 10 minutes" in refused["message"]
            assert refused["state"]["rematch"] is None  # nothing was made
        with sqlite3.connect(tmp_path / "loop.db") as connection:
            assert connection.execute("SELECT count(*) FROM tables").fetchone()[0] == 3
        # A table on one screen counts as well.
        local = client.post("/api/tables", json={"variant": "classic-2", "seats": [PERSON, PERSON]})
        assert local.status_code == 429


def test_old_finished_unrated_tables_are_removed_and_rated_games_kept(tmp_path: Path) -> None:
    database = tmp_path / "old.db"
    with make_client(database, identities=OPEN) as client:
        unrated = new_game(client, nickname="Ayşe", guest="Bram")
        rated = new_game(client, nickname="Cem", guest="Dila", rated=True)
        playing = new_game(client, nickname="Emre", guest="Fatma")
        recent = new_game(client, nickname="Gül", guest="Hakan")
        for table in (unrated, rated, recent):
            with (
                socket(client, table["id"], table["token"]) as white,
                socket(client, table["id"], table["guest"]["token"]) as black,
            ):
                play_first_moves(white, black)
                black.send_json({"type": "resign"})
                over = receive_until(white, event_of("resign", 1))["state"]
                assert (over["ratings"] is not None) == (table is rated)
        aborted_rated = create(client, "classic-2", [PERSON, PERSON], rated=False)
        with socket(client, aborted_rated["id"], aborted_rated["token"]) as ws:
            ws.send_json({"type": "resign", "seat": 0})
            receive_until(ws, event_of("resign"))
        old = [unrated["id"], rated["id"], playing["id"], aborted_rated["id"]]
        with sqlite3.connect(database) as connection:
            connection.executemany(
                "UPDATE tables SET updated_at = datetime('now', '-31 days') WHERE id = ?",
                [(table_id,) for table_id in old],
            )
        tables = client.app.state.tables  # type: ignore[attr-defined]
        removed = client.portal.call(tables.tidy)  # type: ignore[union-attr]
        assert sorted(removed) == sorted([unrated["id"], aborted_rated["id"]])
        for table_id in (unrated["id"], aborted_rated["id"]):
            assert client.get(f"/api/tables/{table_id}").status_code == 404
        for table_id in (rated["id"], playing["id"], recent["id"]):
            assert client.get(f"/api/tables/{table_id}").status_code == 200
        with sqlite3.connect(database) as connection:
            events = connection.execute(
                "SELECT count(*) FROM table_events WHERE table_id = ?", (unrated["id"],)
            ).fetchone()[0]
        assert events == 0
        # The rated game's result is still behind the ratings.
        assert client.get(f"/api/tables/{rated['id']}").json()["ratings"] is not None


def test_finished_tables_are_kept_for_good_with_a_retention_of_zero(tmp_path: Path) -> None:
    database = tmp_path / "keep.db"
    with make_client(database, identities=OPEN, keep_finished=0) as client:
        table = create(client, "classic-2", [PERSON, PERSON])
        with socket(client, table["id"], table["token"]) as ws:
            ws.send_json({"type": "resign", "seat": 0})
            receive_until(ws, event_of("resign"))
        with sqlite3.connect(database) as connection:
            connection.execute("UPDATE tables SET updated_at = '2020-01-01 00:00:00.000000'")
        tables = client.app.state.tables  # type: ignore[attr-defined]
        assert client.portal.call(tables.tidy) == []  # type: ignore[union-attr]
        assert client.get(f"/api/tables/{table['id']}").status_code == 200


# -- new identities racing each other -----------------------------------------------------


async def racing_identities(url: str, address: str) -> tuple[list[object], list[object], int]:
    """30 new tables, each by a new identity, all at once from one address, and 25 sits
    by new identities at once from another, through two stores (two server processes on
    one database). The outcomes of the creates and the sits, and the players made."""
    rules = IdentityRules(per_hour=5, same_address=0)
    stores = [Store(url, rules), Store(url, rules)]
    for store in stores:
        await store.open()
    try:
        tag = hashlib.sha256(address.encode()).hexdigest()[:6]

        async def create(n: int) -> None:
            store = stores[n % 2]
            identity = await store.identity(f"C{n:02d}{tag}", None, address)
            await store.create(new_table(f"c{tag}{n}"), identity)

        creates = await asyncio.gather(*(create(n) for n in range(30)), return_exceptions=True)
        # Tables to sit at, made without identities; then 25 sits by new identities.
        for n in range(25):
            await stores[0].create(new_table(f"s{tag}{n}"))

        async def sit(n: int) -> None:
            store = stores[n % 2]
            identity = await store.identity(f"S{n:02d}{tag}", None, address + " sits")
            table = dataclasses.replace(new_table(f"s{tag}{n}"), version=1)
            await store.commit(table, {"kind": "sit", "seat": 0}, expected=0, identity=identity)

        sits = await asyncio.gather(*(sit(n) for n in range(25)), return_exceptions=True)
        async with stores[0].sessions() as session:
            players = await session.scalar(
                select(func.count())
                .select_from(PlayerRow)
                .where(
                    PlayerRow.address_hash.in_(
                        [stores[0].hash_address(address + t) for t in ("", " sits")]
                    )
                )
            )
        return creates, sits, int(players or 0)
    finally:
        for store in stores:
            await store.close()


def test_racing_new_identities_from_one_address_stay_within_the_hourly_limit(
    url: str, request: pytest.FixtureRequest
) -> None:
    address = f"203.0.113.7 ({request.node.callspec.id})"
    creates, sits, players = run_apart(racing_identities(url, address))
    refused = [o for o in [*creates, *sits] if isinstance(o, TableError)]
    others = [o for o in [*creates, *sits] if o is not None and not isinstance(o, TableError)]
    assert others == []
    assert {error.code for error in refused} == {"too-many-identities"}
    assert [o for o in creates if o is None] == [None] * 5
    assert [o for o in sits if o is None] == [None] * 5
    assert len(refused) == 25 + 20
    assert players == 10
