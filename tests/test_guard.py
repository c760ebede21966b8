"""The server against a hostile client: bad input gets a clear error, never a 500 or a
traceback in the log; pages of other sites, and other names for this server, are refused."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from helpers import Client
from starlette.websockets import WebSocketDisconnect
from test_server import Socket

from sternhalma.server.storage.store import database_url
from sternhalma.server.web.app import Settings, create_app
from sternhalma.server.web.guard import SECURITY_HEADERS, host_allowed, host_names

JSON = {"content-type": "application/json"}
ONLINE = {"kind": "online"}
EASY = {"kind": "computer", "level": "easy"}
HUGE = "1" * 5000


def settings(path: Path, **options: Any) -> Settings:
    return Settings(
        database_url=database_url(str(path)),
        workers=1,
        computer_pause=0,
        allowed_origins=("https://play.example.org",),
        **options,
    )


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path = tmp_path_factory.mktemp("guard") / "tables.db"
    with Client(create_app(settings(path))) as client:
        yield client


@pytest.fixture
def quiet_log(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fails the test if the server logged an error or a traceback meanwhile."""
    caplog.set_level(logging.WARNING)
    yield
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not loud, [r.getMessage() for r in loud]


#: Ann's identity, once she has one: a nickname belongs to one identity.
ANN: dict[str, str] = {}


def new_table(client: TestClient, **extra: Any) -> dict[str, Any]:
    body = {"variant": "classic-2", "seats": [ONLINE, EASY], "nickname": "Ann", **extra}
    response = client.post("/api/tables", json={"identity": ANN.get("secret"), **body})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    ANN.update(data["player"])
    return data


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (f'{{"variant": "classic-2", "seats": [], "x": {HUGE}}}', "more than 24 digits"),
        (f'{{"variant": "classic-2", "seats": [{{"kind": "online", "n": {HUGE}}}]}}', "digits"),
        (
            '{"variant": "classic-2", "seats": [], "start": ' + "[" * 3000 + "]" * 3000 + "}",
            "nested more than 32 deep",
        ),
        ('{"variant": "classic-2", "seats": [], "identity": "\\ud800"}', "lone surrogate"),
        ('{"variant": "classic-2", "seats": [], "nickname": "\\udfff"}', "lone surrogate"),
        ('{"variant": "classic-2\\ud800", "seats": []}', "lone surrogate"),
        ('{"variant": "classic-2", "seats": [], "clock": 1e400}', "too long or too large"),
    ],
)
def test_a_hostile_new_table_request_is_a_clear_400(
    client: TestClient, quiet_log: None, body: str, message: str
) -> None:
    response = client.post("/api/tables", content=body.encode(), headers=JSON)
    assert response.status_code == 400, response.text
    assert response.json()["message"].startswith("the request body must be JSON: ")
    assert message in response.json()["message"]


@pytest.mark.parametrize(
    "message",
    [
        '{"type": "hello", "token": "\\ud800"}',
        '{"type": "sit", "seat": 0, "nickname": "Bob", "identity": "\\ud800"}',
        '{"type": "sit", "seat": 0, "nickname": "B\\udc00b"}',
        '{"type": "move", "seat": 0, "path": ["l4", "l5\\ud800"]}',
        f'{{"type": "look", "ply": {HUGE[:4000]}}}',
        '{"type": "look", "ply": ' + "[" * 1500 + "]" * 1500 + "}",
    ],
)
def test_a_hostile_websocket_message_gets_an_error_and_the_connection_goes_on(
    client: TestClient, quiet_log: None, message: str
) -> None:
    table = new_table(client)
    with client.websocket_connect(f"/ws/tables/{table['id']}") as raw:
        ws = Socket(raw)
        raw.send_text(message)
        reply = ws.receive_json()
        assert reply["type"] == "error"
        assert reply["message"].startswith("a message must be JSON: "), reply
        raw.send_json({"type": "ping"})
        assert ws.receive_json()["type"] == "pong"


# -- requests from other sites ---------------------------------------------------------------
def test_a_new_table_must_be_sent_as_json(client: TestClient) -> None:
    body = b'{"variant": "classic-2", "seats": [{"kind": "person"}, {"kind": "person"}]}'
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {} if content_type is None else {"content-type": content_type}
        response = client.post("/api/tables", content=body, headers=headers)
        assert response.status_code == 415, content_type
        assert response.json()["code"] == "json"
    sent = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert sent.status_code == 200
    charset = {"content-type": "Application/JSON; charset=utf-8"}
    assert client.post("/api/tables", content=body, headers=charset).status_code == 200


def test_a_page_of_another_site_cannot_start_a_table(client: TestClient) -> None:
    body = {"variant": "classic-2", "seats": [{"kind": "person"}, {"kind": "person"}]}
    for origin in ("https://evil.example", "null", "http://localhost:9999"):
        response = client.post("/api/tables", json=body, headers={"origin": origin})
        assert response.status_code == 403, origin
        assert response.json()["code"] == "origin"
    for origin in ("http://localhost", "https://play.example.org"):
        response = client.post("/api/tables", json=body, headers={"origin": origin})
        assert response.status_code == 200, origin


def test_other_names_for_this_server_are_refused_as_under_dns_rebinding(
    client: TestClient,
) -> None:
    table = new_table(client)
    evil = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}
    for method, path in (("GET", "/"), ("GET", "/api/variants"), ("POST", "/api/tables")):
        response = client.request(method, path, headers=evil, json={})
        assert response.status_code == 400, path
        assert response.json()["code"] == "host"
        assert "evil.example:8000" in response.json()["message"]
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/tables/{table['id']}", headers=evil),
    ):
        pass
    assert refused.value.code == 1008
    for host in ("localhost:8000", "127.0.0.1:8000", "[::1]:8000", "play.example.org"):
        assert client.get("/api/variants", headers={"host": host}).status_code == 200, host


def test_the_names_a_server_answers_to() -> None:
    names = host_names("games.lan", ["https://play.example.org", "http://other.example:8080"])
    assert names == {"localhost", "games.lan", "play.example.org", "other.example"}
    assert host_allowed("GAMES.lan:8000", names) and host_allowed("192.168.1.5:8000", names)
    for host in ("", "evil.example", "localhost.evil.example", "127.0.0.1.evil.example", "[::1"):
        assert not host_allowed(host, names), host


def test_every_response_carries_the_security_headers(client: TestClient) -> None:
    table = new_table(client)
    for path in (
        "/",
        "/api/variants",
        f"/api/tables/{table['id']}",
        f"/api/tables/{table['id']}/record",
        "/api/tables/nothing",
        "/static/js/api.js",
        "/static/i18n/en.json",
        "/static/nothing.js",
        "/nothing",
    ):
        headers = client.get(path).headers
        for name, value in SECURITY_HEADERS.items():
            assert headers[name] == value, (path, name)
    headers = client.post(
        "/api/tables", content=b"x", headers={"content-type": "text/plain"}
    ).headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"
    assert (
        client.get(f"/api/tables/{table['id']}/record")
        .headers["content-disposition"]
        .startswith("attachment")
    )


def test_the_api_description_is_served_only_for_debugging(
    client: TestClient, tmp_path: Path
) -> None:
    for path in ("/openapi.json", "/docs", "/redoc"):
        assert client.get(path).status_code == 404, path
    with Client(create_app(settings(tmp_path / "debug.db", debug=True))) as debugging:
        assert "/api/tables" in debugging.get("/openapi.json").json()["paths"]
        assert debugging.get("/docs").status_code == 404  # it would load another site's script


def test_a_request_with_two_host_headers_is_refused_like_another_site_s(
    client: TestClient,
) -> None:
    """Which of two names the request meant is anybody's guess: the guard does not pick
    the first (ours) and let the other through."""
    table = new_table(client)
    twice = [("host", "localhost"), ("host", "evil.example")]
    response = client.get("/api/variants", headers=httpx2.Headers(twice))
    assert response.status_code == 400 and response.json()["code"] == "host"
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/tables/{table['id']}", headers=httpx2.Headers(twice)),
    ):
        pass
    assert refused.value.code == 1008  # uvicorn answers the handshake with HTTP 403
