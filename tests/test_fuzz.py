"""Fuzzing every door (hypothesis): HTTP requests, websocket messages, positions and
records on the command line (tests/fuzzing.py says what is thrown and what must come
back: never a 5xx, a traceback or an exit status but 0 and 2). Some inputs are checked
more closely: a new table request gets a table or a reason, and whatever the messages,
the table stays a legal game. bench/fuzz.py runs the same doors ten thousand times.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from fuzzing import SOCKET_REPLIES, Doors, new_fuzz_table, new_tables, open_doors, targets
from fuzzing import messages as command_messages
from helpers import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_server import Socket

from sternhalma.game import Game

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def doors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Doors]:
    with open_doors(tmp_path_factory.mktemp("fuzz") / "tables.db") as doors:
        yield doors


@pytest.fixture(scope="module")
def client(doors: Doors) -> Client:
    return doors.client


@pytest.mark.parametrize(
    ("door", "examples"), [("http", 120), ("socket", 40), ("position", 120), ("record", 120)]
)
def test_every_door_answers_hostile_input_cleanly(doors: Doors, door: str, examples: int) -> None:
    strategy, check = targets(doors)[door]
    settings(FUZZ, max_examples=examples)(given(strategy)(check))()


@FUZZ
@given(body=new_tables)
def test_any_new_table_request_gets_a_table_or_a_reason(client: Client, body: Any) -> None:
    response = client.post("/api/tables", json=body)
    assert response.status_code in (200, 400, 404), response.text
    data = response.json()
    if response.status_code == 200:
        assert data["state"]["variant"] == body["variant"]
    else:
        assert data["type"] == "error" and data["message"]


@FUZZ
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_as_a_request_body_are_refused_cleanly(client: Client, raw: bytes) -> None:
    response = client.post("/api/tables", content=raw, headers=JSON)
    assert response.status_code in (200, 400, 404)
    assert "message" in response.json() or "id" in response.json()


@FUZZ
@given(
    table_id=st.text(
        st.characters(exclude_categories=("Cs",), exclude_characters="/.%\\?#"),
        min_size=1,
        max_size=40,
    )
)
def test_any_table_id_is_found_or_not(client: Client, table_id: str) -> None:
    for suffix in ("", "/record"):
        response = client.get(f"/api/tables/{quote(table_id, safe='')}{suffix}")
        assert response.status_code == 404, response.text
        assert response.json()["type"] == "error"


@FUZZ
@given(sequence=st.lists(command_messages, min_size=1, max_size=6))
def test_any_websocket_messages_leave_a_legal_game(client: Client, sequence: list[Any]) -> None:
    table = new_fuzz_table(client, [{"kind": "online"}, {"kind": "computer", "level": "easy"}])
    with client.websocket_connect(f"/ws/tables/{table['id']}") as raw:
        ws = Socket(raw)
        raw.send_json({"type": "hello", "token": table["token"]})
        ws.receive_json()
        for message in sequence:
            raw.send_text(json.dumps(message))
            # A ping after each message: everything before its pong is the answer.
            raw.send_json({"type": "ping"})
            while (reply := ws.receive_json())["type"] != "pong":
                assert reply["type"] in SOCKET_REPLIES, reply
                if reply["type"] == "error":
                    assert reply["message"]
    state = client.get(f"/api/tables/{table['id']}").json()
    game = Game("classic-2")
    for move in state["moves"]:
        game.play(move["text"])
    assert state["over"] == game.is_over or state["result"]["ending"] in ("resignation", "flag")
