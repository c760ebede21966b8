"""Fuzzing the server's inputs (hypothesis): HTTP bodies and websocket messages.

Whatever arrives, the server answers with JSON (a table or a readable error),
never fails with a 500 or closes the game, and the table stays a legal game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_server import Socket

from sternhalma.game import Game
from sternhalma.server.app import Settings, create_app
from sternhalma.server.connection import Limits
from sternhalma.server.identities import IdentityRules
from sternhalma.server.store import database_url

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner),
    max_leaves=20,
)
holes = st.sampled_from(["l4", "l5", "k4", "k5", "m1", "e14", "e13", "zz9", "", "I9", "i9"])
kinds = st.sampled_from(["person", "online", "computer", "robot", None, 3])
seats = st.lists(
    st.fixed_dictionaries(
        {"kind": kinds}, optional={"level": st.sampled_from(["easy", "hard", "x", 1])}
    ),
    max_size=7,
)
bodies = st.fixed_dictionaries(
    {
        "variant": st.sampled_from(["classic-2", "classic-3", "capture-2", "halma-2", "x", 7]),
        "seats": seats | json_values,
    },
    optional={
        "clock": st.sampled_from(["5+3", "0", "1+1", "abc", "", None, 5, "999+0"]),
        "rated": st.booleans() | json_values,
        "nickname": st.text(max_size=30) | json_values,
        "sit": st.integers(-2, 7) | json_values,
        "identity": st.text(max_size=40) | json_values,
        "start": json_values,
        "moves_made": json_values,
        "deadline_rule": json_values,
    },
)
messages = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {
            "type": st.sampled_from(
                ["hello", "move", "undo", "hint", "resign", "rematch", "look", "sit", "leave"]
            )
        },
        optional={
            "seat": st.integers(-3, 8) | json_values,
            "path": st.lists(holes, max_size=4) | json_values,
            "v": st.integers(-1, 50) | json_values,
            "ply": st.integers(-1, 50) | json_values,
            "token": st.text(max_size=40) | json_values,
            "since": st.integers(-1, 50) | json_values,
            "nickname": st.text(max_size=30) | json_values,
            "confirm": json_values,
        },
    ),
)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("fuzz") / "tables.db"
    options = Settings(
        database_url=database_url(str(path)),
        workers=1,
        computer_pause=0,
        limits=Limits(rate=1000.0, burst=1000.0),
        # Every table here comes from one address, under any nickname.
        identities=IdentityRules(per_hour=1_000_000, same_address=0),
    )
    with TestClient(create_app(options)) as client:
        yield client


@FUZZ
@given(body=bodies)
def test_any_new_table_request_gets_a_table_or_a_reason(client: TestClient, body: Any) -> None:
    response = client.post("/api/tables", json=body)
    assert response.status_code in (200, 400, 404), response.text
    data = response.json()
    if response.status_code == 200:
        assert data["state"]["variant"] == body["variant"]
    else:
        assert data["type"] == "error" and data["message"]


@FUZZ
@given(raw=st.binary(max_size=200) | st.text(max_size=200).map(str.encode))
def test_any_bytes_as_a_request_body_are_refused_cleanly(client: TestClient, raw: bytes) -> None:
    response = client.post("/api/tables", content=raw)
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
def test_any_table_id_is_found_or_not(client: TestClient, table_id: str) -> None:
    for suffix in ("", "/record"):
        response = client.get(f"/api/tables/{quote(table_id, safe='')}{suffix}")
        assert response.status_code == 404, response.text
        assert response.json()["type"] == "error"


#: The identity the websocket fuzz test's tables are created under.
FUZZ_IDENTITY: dict[str, str] = {}


@FUZZ
@given(sequence=st.lists(messages, min_size=1, max_size=6))
def test_any_websocket_messages_leave_a_legal_game(client: TestClient, sequence: list[Any]) -> None:
    table = client.post(
        "/api/tables",
        json={
            "variant": "classic-2",
            "seats": [{"kind": "online"}, {"kind": "computer", "level": "easy"}],
            "nickname": "Fuzz",
            "identity": FUZZ_IDENTITY.get("secret"),
        },
    ).json()
    FUZZ_IDENTITY.update(table["player"])  # a nickname belongs to one identity
    with client.websocket_connect(f"/ws/tables/{table['id']}") as raw:
        ws = Socket(raw)
        raw.send_json({"type": "hello", "token": table["token"]})
        ws.receive_json()
        for message in sequence:
            raw.send_text(json.dumps(message))
            # A ping after each message: everything before its pong is the answer.
            raw.send_json({"type": "ping"})
            while (reply := ws.receive_json())["type"] != "pong":
                assert reply["type"] in (
                    "event",
                    "error",
                    "welcome",
                    "look",
                    "seated",
                    "confirm",
                    "sync",
                ), reply
                if reply["type"] == "error":
                    assert reply["message"]
    state = client.get(f"/api/tables/{table['id']}").json()
    game = Game("classic-2")
    for move in state["moves"]:
        game.play(move["text"])
    assert state["over"] == game.is_over or state["result"]["ending"] in ("resignation", "flag")
