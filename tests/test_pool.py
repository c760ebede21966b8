"""The seek pool on one process (SQLite, MemoryBus): players who never shared a link are
paired and sent to a table already seated; 3–6-player pools fill, or start with
computer seats once everyone waiting agreed (server/pool/, docs/protocol.md)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from helpers import Client
from starlette.testclient import WebSocketTestSession
from test_server import receive_until

from sternhalma.server.pool.planning import PoolKey, Waiting, fill, pair_two, with_computers
from sternhalma.server.pool.service import PoolSettings
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import IdentityRules, Origin
from sternhalma.server.storage.store import database_url
from sternhalma.server.web.app import Settings, create_app

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def client_on(path: Path, **pool: Any) -> Client:
    settings = Settings(
        database_url=database_url(str(path)),
        workers=1,
        computer_pause=0,
        identities=IdentityRules(per_hour=1000, same_address=0),
        pool=PoolSettings(interval=0.05, **pool),
    )
    return Client(create_app(settings))


def seek(
    ws: WebSocketTestSession, nickname: str, variant: str = "classic-2", **extra: Any
) -> dict[str, Any]:
    ws.send_json(
        {
            "type": "seek",
            "variant": variant,
            "clock": "5+3",
            "rated": True,
            "nickname": nickname,
            **extra,
        }
    )
    reply: dict[str, Any] = receive_until(ws, lambda m: m["type"] in ("seeking", "error"))
    return reply


def paired(ws: WebSocketTestSession) -> dict[str, Any]:
    reply: dict[str, Any] = receive_until(ws, lambda m: m["type"] == "paired")
    return reply


def test_two_players_are_paired_and_seated_at_one_rated_table(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as client:
        with (
            client.websocket_connect("/ws/pool") as ana,
            client.websocket_connect("/ws/pool") as ben,
        ):
            first = seek(ana, "Ana")
            assert first["type"] == "seeking" and first["pool"]["players"] == 2
            assert first["provisional"] is True
            assert [n["code"] for n in first["notes"]] == ["provisional"]
            assert seek(ben, "Ben")["type"] == "seeking"
            a, b = paired(ana), paired(ben)
        assert a["table"] == b["table"] and {a["seat"], b["seat"]} == {0, 1}
        state = client.get(f"/api/tables/{a['table']}").json()
        assert state["status"] == "playing" and state["rated"] is True
        assert state["clock"] is not None
        names = {s["nickname"] for s in state["seats"]}
        assert names == {"Ana", "Ben"}
        # Each token holds its own seat: the player to move can move with it.
        mover = a if a["seat"] == state["turn"] else b
        with client.websocket_connect(f"/ws/tables/{a['table']}") as table:
            table.send_json({"type": "hello", "token": mover["token"]})
            welcome = receive_until(table, lambda m: m["type"] == "welcome")
            assert welcome["seats"] == [mover["seat"]]


def test_a_player_waits_in_one_pool_at_a_time_and_leaving_leaves(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as client:
        with client.websocket_connect("/ws/pool") as ana:
            joined = seek(ana, "Ana")
            secret = joined["player"]["secret"]
            assert seek(ana, "Ana")["code"] == "seeking"
            with client.websocket_connect("/ws/pool") as again:
                refused = seek(again, "Ana", identity=secret)
                assert refused["type"] == "error" and refused["code"] == "seeking"
            with client.websocket_connect("/ws/pool") as ben:
                seek(ben, "Ben", variant="classic-3")
                ben.send_json({"type": "leave"})
                receive_until(ben, lambda m: m["type"] == "left")
            ana.send_json({"type": "leave"})
            receive_until(ana, lambda m: m["type"] == "left")
            # Back in, from the other window, now that the first left.
        with client.websocket_connect("/ws/pool") as again:
            assert seek(again, "Ana", identity=secret)["type"] == "seeking"
        # Closing the page left the pool: nobody waits now (the server hears the close
        # a moment later).
        time.sleep(0.5)
        with client.websocket_connect("/ws/pool") as cem:
            seek(cem, "Cem")
            update = receive_until(cem, lambda m: m["type"] == "waiting")
            assert update["others"] == 0


def test_bad_seeks_get_clear_errors(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as client, client.websocket_connect("/ws/pool") as ws:
        assert seek(ws, "Ana", variant="nonsense")["code"] == "variant"
        assert seek(ws, "Ana", clock="")["code"] == "clock"
        assert seek(ws, "Ana", clock="5+x")["code"] == "clock"
        assert seek(ws, "Ana", variant="pairs-4")["code"] in (
            "rated",
            "variant",
        )
        assert seek(ws, "", variant="classic-2")["code"] == "nickname"
        ws.send_json({"type": "computers"})
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "not-seeking"
        ws.send_text("not json")
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "ProtocolError"


def test_four_players_fill_a_classic_4_table(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db") as client:
        sockets = [client.websocket_connect("/ws/pool") for _ in range(4)]
        opened = [s.__enter__() for s in sockets]
        try:
            for i, ws in enumerate(opened):
                seek(ws, f"P{i}", variant="classic-4")
            replies = [paired(ws) for ws in opened]
        finally:
            for s in sockets:
                s.__exit__(None, None, None)
        assert len({r["table"] for r in replies}) == 1
        assert sorted(r["seat"] for r in replies) == [0, 1, 2, 3]
        state = client.get(f"/api/tables/{replies[0]['table']}").json()
        assert state["status"] == "playing" and state["rated"] is True


def test_two_who_agree_start_with_computer_seats_unrated(tmp_path: Path) -> None:
    with client_on(tmp_path / "t.db", computers_after=0.3) as client:
        with (
            client.websocket_connect("/ws/pool") as ana,
            client.websocket_connect("/ws/pool") as ben,
        ):
            seek(ana, "Ana", variant="classic-4")
            ana.send_json({"type": "computers"})
            early = receive_until(ana, lambda m: m["type"] == "error")
            assert early["code"] == "computers"
            seek(ben, "Ben", variant="classic-4")
            for ws in (ana, ben):
                receive_until(ws, lambda m: m["type"] == "computers-offer")
            ana.send_json({"type": "computers"})
            receive_until(ana, lambda m: m["type"] == "computers-agreed")
            # One agreed: nothing starts until the other does too.
            ben.send_json({"type": "computers"})
            a, b = paired(ana), paired(ben)
        assert a["table"] == b["table"] and {a["seat"], b["seat"]} == {0, 2}
        state = client.get(f"/api/tables/{a['table']}").json()
        kinds = [s["kind"] for s in state["seats"]]
        assert kinds == ["online", "computer", "online", "computer"]
        assert state["rated"] is False


def test_the_rated_notes_say_why_a_game_would_not_be_rated(tmp_path: Path) -> None:
    settings = Settings(
        database_url=database_url(str(tmp_path / "t.db")),
        workers=1,
        identities=IdentityRules(per_hour=1000),
    )
    with Client(create_app(settings)) as client:
        table = client.post(
            "/api/tables",
            json={
                "variant": "classic-2",
                "seats": [{"kind": "online"}, {"kind": "online"}],
                "nickname": "Ana",
                "clock": "5+3",
                "rated": True,
            },
        ).json()
        notes = client.post("/api/rated-notes", json={"variant": "classic-2"}).json()
        assert notes["provisional"] is True and notes["games"] == 0
        unrated = client.post("/api/tables/unrated", json={"tables": [table["id"], "nope"]})
        assert unrated.json()["unrated"] == {table["id"]: "same-address"}
        bad = client.post("/api/rated-notes", json={"variant": 3})
        assert bad.status_code == 400


# -- the planner alone ------------------------------------------------------------
def waiting(name: str, rating: float, seconds_ago: float = 0, **extra: Any) -> Waiting:
    return Waiting(name, rating, NOW - timedelta(seconds=seconds_ago), Origin(None, None), **extra)


def test_near_ratings_are_paired_first_and_the_range_widens_with_waiting() -> None:
    seeks = [waiting("a", 1500), waiting("b", 1900), waiting("c", 1540), waiting("d", 1880)]
    pairs = pair_two(seeks, NOW, rated=True, same_address=0)
    assert {frozenset((x.id, y.id)) for x, y in pairs} == {frozenset("ac"), frozenset("bd")}
    apart = [waiting("a", 1500), waiting("b", 1900)]
    assert pair_two(apart, NOW, rated=True, same_address=0) == []
    waited = [waiting("a", 1500, seconds_ago=20), waiting("b", 1900)]
    assert len(pair_two(waited, NOW, rated=True, same_address=0)) == 1


def test_a_rated_pool_pairs_no_identities_from_one_address() -> None:
    made = NOW - timedelta(hours=1)
    same = [
        Waiting("a", 1500, NOW, Origin("h", made)),
        Waiting("b", 1500, NOW, Origin("h", made)),
    ]
    assert pair_two(same, NOW, rated=True, same_address=86400) == []
    assert len(pair_two(same, NOW, rated=False, same_address=86400)) == 1
    assert fill([*same, waiting("c", 1500)], 3, rated=True, same_address=86400) == []


def test_tables_fill_oldest_first_and_computers_need_two_who_agreed() -> None:
    seeks = [waiting(str(i), 1500, seconds_ago=10 - i) for i in range(7)]
    tables = fill(seeks, 3, rated=False, same_address=0)
    assert [[w.id for w in t] for t in tables] == [["0", "1", "2"], ["3", "4", "5"]]
    assert with_computers([waiting("a", 1500, computers=True), waiting("b", 1500)], 4) == []
    both = [waiting("a", 1500, computers=True), waiting("b", 1500, computers=True)]
    assert [w.id for w in with_computers(both, 4)] == ["a", "b"]


def test_a_pool_key_is_checked() -> None:
    assert PoolKey.checked("classic-3", "3+2", False).text == "classic-3|3+2|casual"
    with pytest.raises(TableError):
        PoolKey.checked("classic-2", "0.5+0", True)
