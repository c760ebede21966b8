"""Issue 23 without a browser: claiming the seat of a player who left (with the countdown
every viewer sees), the table's chat (rooms kept apart, limits, kept with the table), and
the live list of games being played.

The absence is timed on a time source the test sets (``FakeTime``), never by sleeping.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_online import ONLINE, FakeTime, create, make_client, reply_to, sit, socket
from test_server import PERSON, event_of, first_legal, receive_until

TIME = FakeTime()


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(
        tmp_path_factory.mktemp("claims") / "tables.db", now=TIME, absence=30.0
    ) as client:
        yield client


#: A first move for white and for black in classic-2.
LEGAL = {0: ["l4", "l5"], 1: ["e14", "e13"]}


def presence_until(ws: Any, present: list[int]) -> dict[str, Any]:
    """The first presence message (which ``Socket`` skips) showing ``present``."""
    for _ in range(40):
        message: dict[str, Any] = ws.ws.receive_json()
        if message["type"] == "presence" and message["present"] == present:
            return message
    raise AssertionError("the expected presence did not come")


def absent(message: dict[str, Any], seat: int) -> int | None:
    """The ms left before ``seat`` can be claimed, as a presence message tells it."""
    for countdown in message.get("countdowns", []):
        if countdown["kind"] == "absent" and countdown["seat"] == seat:
            left: int = countdown["left"]
            return left
    return None


def test_the_other_claims_the_win_after_the_countdown(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE], rated=True)
    with socket(client, table["id"], table["token"]) as white:
        with socket(client, table["id"]) as black:
            sit(black, 1, "Bram")
            start = receive_until(white, event_of("start"))
            # Before any first move a countdown says when the game is aborted.
            first = start["state"]["countdowns"]
            assert first == [{"kind": "first-move", "seat": 0, "left": 60_000}]
            white.send_json({"type": "move", "seat": 0, "path": LEGAL[0]})
            receive_until(black, event_of("move", 0))
            black.send_json({"type": "move", "seat": 1, "path": LEGAL[1]})
            receive_until(white, event_of("move", 1))
        # Black closed the tab: white is told, with the time before it can claim.
        gone = presence_until(white, [0])
        assert absent(gone, 1) == 30_000
        assert reply_to(white, {"type": "claim", "seat": 1, "claim": "win"})["code"] == "too-soon"
        TIME.ms += 29_000
        assert reply_to(white, {"type": "claim", "seat": 1, "claim": "win"})["code"] == "too-soon"
        TIME.ms += 1_000
        # Two players cannot hand the seat to the computer; nobody claims their own seat.
        assert reply_to(white, {"type": "claim", "seat": 1, "claim": "computer"})["code"] == "claim"
        assert reply_to(white, {"type": "claim", "seat": 0, "claim": "win"})["code"] == "seat"
        white.send_json({"type": "claim", "seat": 1, "claim": "win"})
        over = receive_until(white, event_of("claim", 1))["state"]
    assert over["over"] and over["result"]["ending"] == "abandoned"
    assert over["result"]["places"] == [1, 2]
    assert "Black left the game" in over["result"]["reason"]
    # A claimed win is rated like a resignation (docs/ratings.md).
    assert [c["seat"] for c in over["ratings"]] == [0, 1]
    assert over["ratings"][0]["after"] > over["ratings"][0]["before"]
    record = client.get(f"/api/tables/{table['id']}/record").text
    assert '[Ending "abandoned"]' in record and '[Left "black"]' in record


def test_a_draw_is_called_and_a_stranger_cannot_claim(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE])
    with socket(client, table["id"], table["token"]) as white:
        with socket(client, table["id"]) as black:
            sit(black, 1, "Bram")
            white.send_json({"type": "move", "seat": 0, "path": LEGAL[0]})
            receive_until(black, event_of("move", 0))
            black.send_json({"type": "move", "seat": 1, "path": LEGAL[1]})
            receive_until(white, event_of("move", 1))
        presence_until(white, [0])
        TIME.ms += 30_000
        with socket(client, table["id"]) as stranger:
            claim = {"type": "claim", "seat": 1, "claim": "win"}
            assert reply_to(stranger, claim)["code"] == "not-your-seat"
        white.send_json({"type": "claim", "seat": 1, "claim": "draw"})
        over = receive_until(white, event_of("claim", 1))["state"]
    assert over["result"]["ending"] == "draw-claimed" and over["result"]["places"] == [1, 1]


def test_three_players_hand_the_absent_seat_to_the_computer(client: TestClient) -> None:
    table = create(client, "classic-3", [ONLINE, ONLINE, ONLINE], rated=True)
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"]) as second,
    ):
        sit(second, 1, "Bram")
        with socket(client, table["id"]) as third:
            sit(third, 2, "Chen")
            state = receive_until(white, event_of("start"))["state"]
            for seat, ws in ((0, white), (1, second), (2, third)):
                ws.send_json({"type": "move", "seat": seat, "path": first_legal(state)})
                state = receive_until(white, event_of("move", seat))["state"]
        presence_until(white, [0, 1])
        TIME.ms += 30_000
        # Three players: a win cannot be claimed, only the computer or out.
        assert reply_to(white, {"type": "claim", "seat": 2, "claim": "win"})["code"] == "claim"
        white.send_json({"type": "claim", "seat": 2, "claim": "computer"})
        state = receive_until(white, event_of("claim", 2))["state"]
        assert not state["over"]
        seat = state["seats"][2]
        assert seat["kind"] == "computer" and seat["level"] == "medium"
        assert seat["nickname"] == "Chen" and seat["handed"]
        # The game goes on: white, black, then the computer plays the seat.
        white.send_json({"type": "move", "seat": 0, "path": first_legal(state)})
        moved = receive_until(second, event_of("move", 0))["state"]
        second.send_json({"type": "move", "seat": 1, "path": first_legal(moved)})
        receive_until(second, event_of("move", 2), limit=40)


def test_chat_rooms_limits_and_history(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE])
    hostile = "<img src=x onerror=alert(1)>"
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"]) as black,
        socket(client, table["id"]) as watcher,
    ):
        bram = sit(black, 1, "Bram")
        white.send_json({"type": "chat", "text": f"  hi   {hostile} "})
        line = receive_until(black, lambda m: m["type"] == "chat")["line"]
        assert receive_until(white, lambda m: m["type"] == "chat")["line"] == line
        assert line["text"] == f"hi {hostile}" and line["room"] == "players"
        assert line["nickname"] == "Ayşe" and line["seat"] == 0
        # A spectator needs a nickname; its lines stay in the spectators' room.
        said = reply_to(watcher, {"type": "chat", "text": "hello"})
        assert said["code"] == "chat-identity"
        watcher.send_json(
            {"type": "chat", "text": "go black", "identity": bram["player"]["secret"]}
        )
        assert receive_until(watcher, lambda m: m["type"] == "chat")["line"]["room"] == (
            "spectators"
        )
        white.send_json({"type": "ping"})
        # White hears nothing of the spectators' room during the game.
        assert receive_until(white, lambda m: m["type"] in ("chat", "pong"))["type"] == "pong"
        long = reply_to(white, {"type": "chat", "text": "x" * 141})
        assert long["code"] == "chat-long"
        for n in range(4):
            white.send_json({"type": "chat", "text": f"line {n}"})
            receive_until(white, lambda m: m["type"] == "chat")
        assert reply_to(white, {"type": "chat", "text": "one too many"})["code"] == "chat-fast"
    # Kept with the table: a new connection is told what was said in its room.
    with socket(client, table["id"], table["token"]) as again:
        texts = [line["text"] for line in again.welcome["chat"]]  # type: ignore[attr-defined]
        assert texts == [f"hi {hostile}", "line 0", "line 1", "line 2", "line 3"]
    with socket(client, table["id"]) as watcher:
        texts = [line["text"] for line in watcher.welcome["chat"]]  # type: ignore[attr-defined]
        assert texts == ["go black"]
    local = create(client, "classic-2", [PERSON, PERSON])
    with socket(client, local["id"], local["token"]) as here:
        assert reply_to(here, {"type": "chat", "text": "hi"})["code"] == "no-chat"


def test_the_live_list_shows_games_being_played(client: TestClient, tmp_path: Path) -> None:
    waiting = create(client, "classic-2", [ONLINE, ONLINE])
    table = create(client, "classic-2", [ONLINE, ONLINE], clock="5+3")
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"]) as black,
        socket(client, table["id"]),
    ):
        sit(black, 1, "Dirk")
        white.send_json({"type": "move", "seat": 0, "path": LEGAL[0]})
        receive_until(black, event_of("move", 0))
        games = client.get("/api/live").json()["games"]
        ids = [g["id"] for g in games]
        assert table["id"] in ids and waiting["id"] not in ids
        game = games[ids.index(table["id"])]
        assert game["variant"] == "classic-2" and game["moves"] == 1
        assert game["clock"] == "5+3" and game["spectators"] == 1
        assert [s["nickname"] for s in game["seats"]] == ["Ayşe", "Dirk"]
    # Ayşe has a rating in classic-2 from the first test: her games come first.
    games = client.get("/api/live").json()["games"]
    rated = [g["rating"] is not None for g in games]
    assert rated == sorted(rated, reverse=True)
