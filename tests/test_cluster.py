"""Two `sternhalma serve` processes on one PostgreSQL and one Redis share every table.

The services and the servers are real processes on 127.0.0.1 (tests/services.py);
the players are scripted websocket clients. Nothing here measures time: waits
have limits so that something that never comes fails the test.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import run_apart
from services import (
    Cluster,
    Player,
    identity_of,
    moved,
    online_table,
    remember,
    seated_pair,
    sit,
    start_cluster,
)
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from sternhalma.server.storage.store import Store, StoredTable
from sternhalma.server.tables.service import Tables

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    running = start_cluster(tmp_path_factory.mktemp("cluster"))
    try:
        yield running
    finally:
        running.close()


def stored_events(cluster: Cluster, table_id: str) -> list[tuple[int, str]]:
    """The table's event log in PostgreSQL: (version, kind), oldest first."""

    async def read() -> list[tuple[int, str]]:
        engine = create_async_engine(cluster.postgres.url)
        try:
            async with engine.connect() as connection:
                rows = await connection.execute(
                    text("SELECT version, kind FROM table_events WHERE table_id = :id ORDER BY 1"),
                    {"id": table_id},
                )
                return [(row[0], row[1]) for row in rows]
        finally:
            await engine.dispose()

    return run_apart(read())


def sees(player: Player, present: list[int], watchers: int) -> None:
    """Wait until the newest presence the player was shown is ``present``, ``watchers``."""

    def shown() -> tuple[list[int], int] | None:
        for message in reversed(player.seen):
            state = message.get("state")
            if message["type"] == "presence":
                return message["present"], message["watchers"]
            if isinstance(state, dict):
                return state["present"], state["watchers"]
        return None

    if shown() != (present, watchers):
        player.until(lambda _: shown() == (present, watchers))


def test_who_is_here_adds_up_over_both_processes(cluster: Cluster) -> None:
    table, on_a, on_b = seated_pair(cluster)
    spectator = Player(cluster.b, table["id"])
    try:
        for player in (on_a, on_b, spectator):
            sees(player, [0, 1], 1)
        spectator.close()
        on_b.close()
        sees(on_a, [0], 0)
        assert cluster.a.get(f"/api/tables/{table['id']}")["present"] == [0]
    finally:
        for player in (on_a, on_b, spectator):
            player.close()


def test_players_on_two_processes_play_one_game(cluster: Cluster) -> None:
    table, on_a, on_b = seated_pair(cluster)
    try:
        assert on_b.state["status"] == "playing"
        played = []
        for ply in range(8):
            mover, other, seat = (on_a, on_b, 0) if ply % 2 == 0 else (on_b, on_a, 1)
            path = mover.state["legal"][0]
            mover.move(seat, path)
            seen = other.until(moved(seat))
            # The other process's client gets the move with the state after it.
            assert seen["event"]["path"] == path
            assert seen["v"] == seen["state"]["v"]
            mover.until_version(seen["v"])
            played.append("-".join(path))
        for player in (on_a, on_b):
            assert [m["text"] for m in player.state["moves"]] == played
        # Every client saw the versions in increasing order (never one twice, never back).
        for player in (on_a, on_b):
            versions = [m["v"] for m in player.seen if m["type"] == "event"]
            assert versions == sorted(set(versions))
        # Both processes serve the same table from the database.
        assert [m["text"] for m in cluster.b.get(f"/api/tables/{table['id']}")["moves"]] == played
        assert [m["text"] for m in cluster.a.get(f"/api/tables/{table['id']}")["moves"]] == played
    finally:
        on_a.close()
        on_b.close()


def at_once(players: tuple[Player, Player], path: list[str], seat: int) -> None:
    """Both players send the same move for ``seat`` at the same moment."""
    barrier = threading.Barrier(len(players))

    def send(player: Player) -> None:
        barrier.wait()
        player.move(seat, path)

    threads = [threading.Thread(target=send, args=(player,)) for player in players]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_the_same_move_sent_to_both_processes_at_once_is_played_once(cluster: Cluster) -> None:
    """The creator's two windows (one on each process) send a move at the same moment:
    the database's version check lets exactly one through, every round."""
    table, on_a, on_b = seated_pair(cluster)
    second_a = Player(cluster.a, table["id"], on_b.token)
    second_b = Player(cluster.b, table["id"], table["token"])
    try:
        for _ in range(6):
            white = on_a.state["legal"][0]
            at_once((on_a, second_b), white, 0)
            after_white = on_b.until(moved(0))["v"]
            on_a.until_version(after_white)
            second_b.until_version(after_white)
            black = on_b.state["legal"][0]
            at_once((on_b, second_a), black, 1)
            after_black = on_a.until(moved(1))["v"]
            for player in (on_b, second_a, second_b):
                player.until_version(after_black)
        # B's clients may hear the last move a moment before B's copy has applied it
        # (the copy waits for the losing command to finish): wait for the copy.
        deadline = time.monotonic() + 10
        while len(moves := cluster.b.get(f"/api/tables/{table['id']}")["moves"]) < 12:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert len(moves) == 12
        assert [m["seat"] for m in moves] == [0, 1] * 6
        events = stored_events(cluster, table["id"])
        assert [v for v, _ in events] == list(range(1, len(events) + 1))
        assert sum(1 for _, kind in events if kind == "move") == 12
        # The loser of each race (one per round) was told so, with the state to draw.
        for player in (on_a, on_b, second_a, second_b):
            player.drain()
        refusals = [
            m
            for player in (on_a, on_b, second_a, second_b)
            for m in player.seen
            if m["type"] == "error"
        ]
        assert len(refusals) == 12, [m["code"] for m in refusals]
        assert all(m["message"] and m["state"]["v"] >= 1 for m in refusals)
    finally:
        for player in (on_a, on_b, second_a, second_b):
            player.close()


def test_a_computer_seat_plays_on_when_its_process_is_gone(
    tmp_path: Path, cluster: Cluster
) -> None:
    """The process that passed the turn to the computer dies while it thinks: the
    other process takes the turn over and the computer moves."""
    from services import Server

    spare = Server(cluster.postgres.url, cluster.redis.url, tmp_path / "spare.log")
    spare.start()
    table = spare.post(
        "/api/tables",
        {
            "variant": "classic-2",
            "seats": [{"kind": "online"}, {"kind": "computer", "level": "easy"}],
            "nickname": "ayse",
            "identity": identity_of(spare, "ayse"),
        },
    )
    remember(spare, table["player"])
    on_spare = Player(spare, table["id"], table["token"])
    watcher = Player(cluster.a, table["id"])
    try:
        on_spare.move(0, on_spare.state["legal"][0])
        on_spare.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "thinking")
        spare.kill()  # within the computer's 0.6 s pause: its move was never saved
        answer = watcher.until(moved(1), timeout=60)
        assert answer["state"]["turn"] == 0
        assert [m["seat"] for m in answer["state"]["moves"]] == [0, 1]
        # The player reconnects to the surviving process and plays on.
        back = Player(cluster.a, table["id"], table["token"], since=on_spare.state["v"])
        assert back.welcome["seats"] == [0]
        back.move(0, back.state["legal"][0])
        back.until(moved(1), timeout=60)
        back.close()
    finally:
        on_spare.close()
        watcher.close()
        spare.kill()


def test_a_flag_falls_when_the_process_that_started_the_clock_is_gone(
    tmp_path: Path, cluster: Cluster
) -> None:
    from services import Server

    spare = Server(cluster.postgres.url, cluster.redis.url, tmp_path / "spare.log")
    spare.start()
    table = online_table(cluster.a, clock="0.1+0")  # 6 seconds each
    on_a = Player(cluster.a, table["id"], table["token"])
    on_spare = Player(spare, table["id"])
    try:
        sit(on_spare, 1, "bram")
        on_a.until(lambda m: m["type"] == "event" and m["event"]["kind"] == "start")
        # One move each (a clock that runs out before a first move aborts the game
        # instead); black's, on the spare process, starts white's clock there.
        on_a.move(0, on_a.state["legal"][0])
        on_spare.until(moved(0))
        on_spare.move(1, on_spare.state["legal"][0])
        on_a.until(moved(1))
        spare.kill()
        flag = on_a.until(
            lambda m: m["type"] == "event" and m["event"]["kind"] == "flag", timeout=60
        )
        assert flag["event"]["seat"] == 0
        assert flag["state"]["result"]["ending"] == "flag"
        assert flag["state"]["clock"]["remaining"][0] == 0
    finally:
        on_a.close()
        on_spare.close()
        spare.kill()


def test_a_copy_read_while_another_process_moves_shows_the_move(tmp_path: Path) -> None:
    """Process B reads a table from the database just as process A saves a move and
    announces it: B's read, begun before the save, is read again, so B's copy has the
    move. B keeps nothing about the tables it only hears of (a long-running cluster
    hears of every table)."""

    async def scenario() -> None:
        store = Store(f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}")
        await store.open()
        try:
            a = Tables(store, thinking=None)  # type: ignore[arg-type]
            b = Tables(store, thinking=None)  # type: ignore[arg-type]
            live, token, _ = await a.commands.create("classic-2", [{"kind": "person"}] * 2)
            table = live.table
            announced: list[dict[str, Any]] = []
            a.bus.subscribe(table.id, announced.append)

            async def a_moves() -> None:
                move = table.game.legal_moves()[0]
                path = tuple(table.rules.board.names[hole] for hole in move)
                seat = table.game.turn
                assert seat is not None
                await a.commands.move(live, token, seat, path, confirm=True, version=None)
                b.following.observe(table.id, announced[-1], "process a")

            await a_moves()
            assert b.copies.heard == {} and table.id not in b.copies.live

            before = await store.load(table.id)

            class ReadBeganEarlier:
                """B's first read returns what the database held before A's move."""

                first = True

                async def load(self, table_id: str) -> StoredTable | None:
                    if self.first:
                        self.first = False
                        await a_moves()
                        return before
                    return await store.load(table_id)

            b.copies.store = ReadBeganEarlier()  # type: ignore[assignment]
            copy = (await b.copies.get(table.id)).table
            assert copy.version == table.version == 2
            assert copy.moves_played() == table.moves_played()
            assert b.copies.heard == {}
        finally:
            await store.close()

    run_apart(scenario())


def account_call(server: Any, path: str, body: dict[str, Any] | None, cookies: Any) -> Any:
    """A request to ``server`` with a browser's cookie jar: (status, JSON)."""
    import json
    import urllib.error
    import urllib.request

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(cookies))
    request = urllib.request.Request(
        f"{server.url}{path}",
        data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="GET" if body is None else "POST",
    )
    try:
        with opener.open(request, timeout=20) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_log_in_on_one_process_and_play_on_the_other(cluster: Cluster) -> None:
    """Sessions and log-in limits live in PostgreSQL: any process knows them."""
    from http.cookiejar import CookieJar

    phone, laptop = CookieJar(), CookieJar()
    status, made = account_call(
        cluster.a, "/api/account/register", {"nickname": "Deniz", "password": "sea and sky"}, phone
    )
    assert status == 200, made
    # The laptop logs in on B; its session works on A too.
    status, logged = account_call(
        cluster.b, "/api/account/login", {"nickname": "deniz", "password": "sea and sky"}, laptop
    )
    assert status == 200 and logged["player"]["id"] == made["player"]["id"]
    assert account_call(cluster.a, "/api/account", None, laptop)[1]["player"]["nickname"] == "Deniz"
    # It plays on A with the play secret it got from B.
    remember(cluster.a, logged["player"])
    _table, on_a, on_b = seated_pair(cluster, nickname="Deniz")
    try:
        assert on_b.state["seats"][0]["player"] == made["player"]["id"]
        path = on_a.state["legal"][0]
        on_a.move(0, path)
        assert on_b.until(moved(0))["event"]["path"] == path
    finally:
        on_a.close()
        on_b.close()
    # Logging out on A ends the session B made.
    account_call(cluster.a, "/api/account/logout", {}, laptop)
    assert account_call(cluster.b, "/api/account", None, laptop)[1]["player"] is None
    # Wrong passwords sent to either process count together (5 an account).
    for server in (cluster.a, cluster.b, cluster.a, cluster.b, cluster.a):
        status, _ = account_call(
            server, "/api/account/login", {"nickname": "Deniz", "password": "wrong one"}, laptop
        )
        assert status == 401
    status, refused = account_call(
        cluster.b, "/api/account/login", {"nickname": "Deniz", "password": "sea and sky"}, laptop
    )
    assert status == 429 and refused["code"] == "too-many-attempts"
