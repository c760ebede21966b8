"""The one admission layer (server/web/admission.py): floods of reviews and bad JSON on
the analysis socket, rates per address and per identity, kept in Redis across
processes, and the thinking's places that analyses and hints share."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import Client, run_apart
from services import Redis
from starlette.websockets import WebSocketDisconnect

from sternhalma.game import Game
from sternhalma.records import write_record
from sternhalma.server.protocol import TableError
from sternhalma.server.storage.identities import IdentityRules
from sternhalma.server.storage.store import database_url
from sternhalma.server.web.admission import AddressLimits, Admission, Capacity
from sternhalma.server.web.app import Settings, create_app

pytestmark = pytest.mark.timeout(240)

ONLINE = {"kind": "online"}
#: The review flood's sockets, and the computer moves played meanwhile (a 6 s clock).
FLOODERS = 60
MOVES = 10


def halma_record(moves: int = 300, seed: int = 1) -> str:
    """A record of ``moves`` random Halma moves (replaying it is real work)."""
    game = Game("halma-2")
    choice = random.Random(seed)
    while len(game.moves) < moves and not game.is_over:
        game.play(choice.choice(game.legal_moves()))
    return write_record(game)


def make_client(database: Path, **settings: Any) -> TestClient:
    options: dict[str, Any] = {
        "database_url": database_url(str(database)),
        "workers": 1,
        "computer_pause": 0,
        "identities": IdentityRules(per_hour=1000, same_address=0),
        **settings,
    }
    return Client(create_app(Settings(**options)))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(tmp_path_factory.mktemp("admission") / "tables.db") as client:
        yield client


def test_deep_or_huge_json_on_the_analysis_socket_gets_an_error_and_the_socket_goes_on(
    client: TestClient,
) -> None:
    with client.websocket_connect("/ws/analysis") as socket:
        for text in ("[" * 30_000 + "]" * 30_000, '{"type": "analyse", "id": ' + "9" * 5000 + "}"):
            socket.send_text(text)
            reply = socket.receive_json()
            assert reply["type"] == "error" and "JSON" in reply["message"], reply
        socket.send_bytes(b"\xff\xfe")
        assert "UTF-8" in socket.receive_json()["message"]
        socket.send_json({"type": "nothing"})
        reply = socket.receive_json()
        assert reply["type"] == "error" and "unknown message type" in reply["message"]


def test_records_and_reviews_from_one_address_are_limited(tmp_path: Path) -> None:
    limits = AddressLimits(reviews=2)
    record = halma_record(20)
    with make_client(tmp_path / "limits.db", per_address=limits) as client:
        for _ in range(2):
            assert client.post("/api/analysis/record", json={"record": record}).status_code == 200
        refused = client.post("/api/analysis/record", json={"record": record})
        assert refused.status_code == 429 and refused.json()["code"] == "too-many-requests"
        with client.websocket_connect("/ws/analysis") as socket:
            socket.send_json({"type": "review", "record": record})
            reply = socket.receive_json()
            assert reply["code"] == "too-many-requests" and "at most 2" in reply["message"]


def test_one_identity_from_several_addresses_is_limited_and_refusals_are_not_counted() -> None:
    async def scenario() -> list[str]:
        admission = Admission(AddressLimits(tables=2), Capacity())
        seen = []
        for address in ("10.0.0.1", "10.0.0.2", "10.0.0.3"):
            try:
                await admission.admit("table", address, "secret-of-ayse")
                seen.append("ok")
            except TableError as error:
                seen.append(error.code)
        await admission.admit("table", "10.0.0.3")  # the address had nothing counted
        await admission.close()
        return seen

    assert run_apart(scenario()) == ["ok", "ok", "too-many"]


def test_limits_and_places_hold_across_processes_sharing_redis() -> None:
    """Two server processes on one Redis: what one counted, the other sees."""
    redis = Redis()
    redis.start()

    async def scenario() -> tuple[list[str], bool]:
        one, two = (
            Admission(AddressLimits(reviews=3), Capacity(places=1), redis_url=redis.url)
            for _ in range(2)
        )
        seen = []
        try:
            for admission in (one, two, one, two):
                try:
                    await admission.admit("review", "192.0.2.7")
                    seen.append("ok")
                except TableError as error:
                    seen.append(error.code)
            async with one.places.hold():
                waiting = asyncio.create_task(_hold(two))
                await asyncio.sleep(0.3)
                blocked = not waiting.done()  # the one place is held by the other process
            await asyncio.wait_for(waiting, 10)
            return seen, blocked
        finally:
            await one.close()
            await two.close()

    try:
        seen, blocked = run_apart(scenario())
    finally:
        redis.stop()
    assert seen == ["ok", "ok", "ok", "too-many-requests"]
    assert blocked


async def _hold(admission: Admission) -> None:
    async with admission.places.hold():
        pass


def test_a_flood_of_reviews_does_not_cost_a_clocked_computer_its_moves(tmp_path: Path) -> None:
    """60 analysis sockets send a 300-move Halma record for review, again after every
    refusal, while a person plays a clocked game against Hard: every computer move
    comes, and the computer never loses on time."""
    record = halma_record()
    stop = threading.Event()
    sent = [0]

    with make_client(tmp_path / "flood.db", workers=2) as client:

        def flood() -> None:
            with (
                client.websocket_connect("/ws/analysis") as socket,
                contextlib.suppress(WebSocketDisconnect),
            ):
                while not stop.is_set():
                    socket.send_json({"type": "review", "record": record})
                    sent[0] += 1
                    while socket.receive_json()["type"] not in ("error", "review-done"):
                        if stop.is_set():
                            return

        flooders = [threading.Thread(target=flood, daemon=True) for _ in range(FLOODERS)]
        for thread in flooders:
            thread.start()
        try:
            body = {
                "variant": "classic-2",
                "seats": [ONLINE, {"kind": "computer", "level": "hard"}],
                "nickname": "Ayşe",
                "clock": "0.1+0",
            }
            table = client.post("/api/tables", json=body).json()
            replies, flags = play(client, table, moves=MOVES)
        finally:
            stop.set()
        for thread in flooders:
            thread.join(30)
    assert sent[0] > FLOODERS, "the flood was sent"
    assert 1 not in flags, "the computer lost on time"
    assert replies == MOVES, "every computer move came"


def play(client: TestClient, table: dict[str, Any], moves: int) -> tuple[int, list[int]]:
    """Play ``moves`` moves as seat 0 (the first legal move); the computer's replies and
    the seats that lost on time."""
    replies = 0
    flags: list[int] = []
    with client.websocket_connect(f"/ws/tables/{table['id']}") as ws:
        ws.send_json({"type": "hello", "token": table["token"]})
        while replies < moves and not flags:
            message = ws.receive_json()
            event = message.get("event") or {}
            if event.get("kind") == "flag":
                flags.append(event.get("seat"))
            if event.get("kind") == "move" and event.get("seat") == 1:
                replies += 1
            state = message.get("state")
            if not isinstance(state, dict) or state.get("over"):
                if isinstance(state, dict):
                    break
                continue
            if state["turn"] == 0 and state["legal"] and state["thinking"] is None:
                ws.send_json(
                    {"type": "move", "seat": 0, "path": state["legal"][0], "v": state["v"]}
                    | {"confirm": True}
                )
    return replies, flags
