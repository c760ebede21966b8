"""Online tables without a browser: seats by link, who may act, versions and missed events,
server clocks, flags, resignations, ratings, rematches, records, safety limits, the database.

The real app (create_app) runs through Starlette's test client; the computer thinks
in a real worker process. Clock arithmetic is checked on a time source the test
sets (``FakeTime``), never by measuring how long something took.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from fastapi.testclient import TestClient
from helpers import Client, head_revision, migrate
from sqlalchemy import create_engine
from starlette.websockets import WebSocketDisconnect
from test_server import EASY, PERSON, Socket, event_of, receive_until

from sternhalma.rating import Rating, rate_game
from sternhalma.records import read_record
from sternhalma.server.storage.identities import IdentityRules
from sternhalma.server.storage.store import Base, DatabaseSchemaError, database_url
from sternhalma.server.web.app import Settings, create_app
from sternhalma.server.web.connection import AddressLimits, Limits

ONLINE = {"kind": "online"}


class FakeTime:
    """A clock the test moves by hand (milliseconds)."""

    def __init__(self, start: int = 1_000_000) -> None:
        self.ms = start

    def __call__(self) -> int:
        return self.ms


def make_client(database: Path, **settings: Any) -> TestClient:
    """A server on ``database``. Every player comes from the test client's one address:
    unless a test says otherwise, that address may make any number of identities and
    their games are rated (docs/ratings.md)."""
    options: dict[str, Any] = {
        "database_url": database_url(str(database)),
        "workers": 1,
        "computer_pause": 0,
        "identities": IdentityRules(per_hour=1000, same_address=0),
        **settings,
    }
    return Client(create_app(Settings(**options)))


def identities(client: TestClient) -> dict[str, str]:
    """The identity secret of each nickname used last on ``client``'s server: a nickname
    belongs to one identity, so a test that sits down as "Bram" again is the same Bram."""
    known: dict[str, str] = client.__dict__.setdefault("identities", {})
    return known


def remember(client: TestClient, player: dict[str, Any] | None) -> None:
    if player is not None:
        identities(client)[player["nickname"]] = player["secret"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with make_client(tmp_path_factory.mktemp("online") / "tables.db") as client:
        yield client


def create(client: TestClient, variant: str, seats: list[dict[str, Any]], **extra: Any) -> Any:
    body = {"variant": variant, "seats": seats, "nickname": "Ayşe", **extra}
    body.setdefault("identity", identities(client).get(body["nickname"]))
    response = client.post("/api/tables", json=body)
    assert response.status_code == 200, response.text
    remember(client, response.json()["player"])
    return response.json()


@contextmanager
def socket(client: TestClient, table_id: str, token: str | None = None) -> Iterator[Socket]:
    """A websocket on the table after hello; the welcome is read and kept in ``.welcome``."""
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "token": token})
        wrapped = Socket(ws)
        wrapped.client = client  # type: ignore[attr-defined]
        wrapped.welcome = wrapped.receive_json()  # type: ignore[attr-defined]
        assert wrapped.welcome["type"] == "welcome"  # type: ignore[attr-defined]
        yield wrapped


def sit(ws: Socket, seat: int, nickname: str, identity: Any = "known") -> dict[str, Any]:
    """Sit down as the identity last known by that nickname (``identity``: None for a
    new one, or a secret)."""
    client: TestClient = ws.client  # type: ignore[attr-defined]
    if identity == "known":
        identity = identities(client).get(" ".join(nickname.split()))
    ws.send_json({"type": "sit", "seat": seat, "nickname": nickname, "identity": identity})
    reply: dict[str, Any] = receive_until(ws, lambda m: m["type"] in ("seated", "error"))
    if reply["type"] == "seated":
        remember(client, reply["player"])
    return reply


def reply_to(ws: Socket, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` and return the first answer that is not an event."""
    ws.send_json(message)
    answer: dict[str, Any] = receive_until(ws, lambda m: m["type"] != "event")
    return answer


# -- a table by link ----------------------------------------------------------------------


def test_an_online_table_waits_for_its_players_then_starts(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE], clock="5+3", rated=True)
    state = table["state"]
    assert state["status"] == "waiting" and state["online"] and state["rated"]
    assert state["seats"][0]["nickname"] == "Ayşe" and state["seats"][0]["taken"]
    assert not state["seats"][1]["taken"]
    assert table["player"]["nickname"] == "Ayşe" and len(table["player"]["secret"]) >= 32
    assert len(table["token"]) >= 32
    assert "token_hash" not in str(state)
    listed = client.get("/api/tables").json()["tables"]
    assert table["id"] in [t["id"] for t in listed]
    entry = next(t for t in listed if t["id"] == table["id"])
    assert entry["clock"] == "5+3" and entry["rated"]
    assert [s["taken"] for s in entry["seats"]] == [True, False]

    with socket(client, table["id"], table["token"]) as creator:
        assert creator.welcome["seats"] == [0]  # type: ignore[attr-defined]
        creator.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        assert receive_until(creator, lambda m: m["type"] == "error")["code"] == "not-started"
        with socket(client, table["id"]) as guest:
            assert guest.welcome["seats"] == []  # type: ignore[attr-defined]
            seated = sit(guest, 1, "  Bram  ")
            assert seated["type"] == "seated" and seated["seat"] == 1
            assert seated["player"]["nickname"] == "Bram"
            started = receive_until(creator, event_of("start"))["state"]
            assert started["status"] == "playing"
            assert started["clock"]["running"] == 0
            assert started["seats"][1]["nickname"] == "Bram"
            # The guest's new token holds seat 1 on a new connection too.
            with socket(client, table["id"], seated["token"]) as again:
                assert again.welcome["seats"] == [1]  # type: ignore[attr-defined]
    assert table["id"] not in [t["id"] for t in client.get("/api/tables").json()["tables"]]


def test_nobody_moves_for_a_seat_they_do_not_hold(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE])
    with socket(client, table["id"], table["token"]) as white, socket(client, table["id"]) as b:
        token = sit(b, 1, "Bram")["token"]
        receive_until(white, event_of("start"))
        # A forged move for white from black's connection, and a seat out of range.
        b.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        assert receive_until(b, lambda m: m["type"] == "error")["code"] == "not-your-seat"
        b.send_json({"type": "move", "seat": 7, "path": ["l4", "l5"]})
        assert receive_until(b, lambda m: m["type"] == "error")["code"] == "not-your-seat"
        with socket(client, table["id"], "a-guessed-token") as stranger:
            assert stranger.welcome["seats"] == []  # type: ignore[attr-defined]
            for command in (
                {"type": "move", "seat": 0, "path": ["l4", "l5"]},
                {"type": "resign", "seat": 0},
                {"type": "resign"},
                {"type": "leave"},
                {"type": "rematch"},
            ):
                assert reply_to(stranger, command)["code"] == "not-your-seat"
            # Every seat is taken: a stranger can only watch.
            assert sit(stranger, 1, "Mallory")["code"] == "not-waiting"
        white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(b, event_of("move", 0))
        b.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
        assert receive_until(white, event_of("move", 1))["state"]["turn"] == 0
    assert token
    assert [m["text"] for m in client.get(f"/api/tables/{table['id']}").json()["moves"]] == [
        "l4-l5",
        "e14-e13",
    ]


def test_bad_seats_and_sitting_are_refused_with_reasons(client: TestClient) -> None:
    def refused(body: dict[str, Any]) -> str:
        response = client.post("/api/tables", json={"nickname": "Ayşe", **body})
        assert response.status_code == 400, response.text
        message: str = response.json()["message"]
        return message

    mixed = refused({"variant": "classic-2", "seats": [PERSON, ONLINE]})
    assert "one screen or online" in mixed
    assert "computer" in refused({"variant": "classic-2", "seats": [ONLINE, EASY], "rated": True})
    casual_only = {"variant": "classic-2", "seats": [ONLINE] * 2, "deadline_rule": False}
    assert "leaving-home" in refused({**casual_only, "rated": True})
    casual = create(client, "classic-2", [ONLINE] * 2, deadline_rule=False)
    assert casual["state"]["deadline_rule"] is False
    assert "pairs" in refused({"variant": "pairs-4", "seats": [ONLINE] * 4, "rated": True})
    assert "time control" in refused({"variant": "classic-2", "seats": [ONLINE] * 2, "clock": "x"})
    assert "180 minutes" in refused({"variant": "classic-2", "seats": [ONLINE] * 2, "clock": "999"})
    assert "nickname" in refused({"variant": "classic-2", "seats": [ONLINE] * 2, "nickname": " "})
    no_name = client.post("/api/tables", json={"variant": "classic-2", "seats": [ONLINE] * 2})
    assert no_name.status_code == 400 and "nickname" in no_name.json()["message"]
    assert "not an online seat" in refused(
        {"variant": "classic-2", "seats": [ONLINE, EASY], "sit": 1}
    )

    table = create(client, "classic-3", [ONLINE, ONLINE, ONLINE])
    with socket(client, table["id"], table["token"]) as creator:
        assert sit(creator, 1, "Ayşe again")["code"] == "seated"
        with socket(client, table["id"]) as guest:
            assert sit(guest, 0, "Bram")["code"] == "seat-taken"
            # Nicknames tell the players at a table apart.
            taken = sit(guest, 2, " ayşe ")
            assert taken["code"] == "nickname-taken" and "Ayşe" in taken["message"]
            assert sit(guest, 5, "Bram")["code"] == "seat"
            guest.send_json({"type": "sit", "seat": 1, "nickname": "x" * 25})
            assert receive_until(guest, lambda m: m["type"] == "error")["code"] == "nickname"
            guest.send_json({"type": "sit", "seat": 1, "nickname": "a\u0000b"})
            assert "control" in receive_until(guest, lambda m: m["type"] == "error")["message"]
            # The same identity cannot take two seats of one table.
            same = sit(guest, 1, "Ayşe 2", identity=table["player"]["secret"])
            assert same["code"] == "seated"
            # Standing up frees the seat for somebody else.
            seated = sit(guest, 1, "Bram")
            guest.send_json({"type": "leave"})
            left = receive_until(creator, event_of("leave"))["state"]
            assert not left["seats"][1]["taken"] and left["status"] == "waiting"
            assert seated["type"] == "seated"


def test_a_reconnecting_client_gets_the_events_it_missed(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, EASY])
    with socket(client, table["id"], table["token"]) as ws:
        seen = ws.welcome["v"]  # type: ignore[attr-defined]
        assert ws.welcome["state"]["status"] == "playing"  # type: ignore[attr-defined]
    with socket(client, table["id"], table["token"]) as ws:
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(ws, event_of("move", 1))
    with client.websocket_connect(f"/ws/tables/{table['id']}") as raw:
        raw.send_json({"type": "hello", "token": table["token"], "since": seen})
        welcome = Socket(raw).receive_json()
    kinds = [e["event"]["kind"] for e in welcome["missed"]]
    assert [e["v"] for e in welcome["missed"]] == list(range(seen + 1, welcome["v"] + 1))
    assert kinds[-1] == "move" and "thinking" in kinds
    assert next(e["event"]["path"] for e in welcome["missed"] if e["event"]["kind"] == "move") == [
        "l4",
        "l5",
    ]
    assert welcome["seats"] == [0] and len(welcome["state"]["moves"]) == 2
    # A version the log cannot bridge gets the full state only.
    with client.websocket_connect(f"/ws/tables/{table['id']}") as raw:
        raw.send_json({"type": "hello", "since": welcome["v"] + 50})
        assert Socket(raw).receive_json()["missed"] is None


# -- clocks, flags, resignations, ratings --------------------------------------------------


def test_the_server_flags_a_player_whose_time_runs_out(client: TestClient) -> None:
    """Nobody sends anything after the first moves: the server's own timer ends the game
    (a 3 s clock; before the first moves it would abort the game instead)."""
    table = create(client, "classic-2", [ONLINE, ONLINE], clock="0.05+0", rated=True)
    with socket(client, table["id"], table["token"]) as white, socket(client, table["id"]) as b:
        sit(b, 1, "Bram")
        white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(b, event_of("move", 0))
        b.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
        flag = receive_until(white, event_of("flag"), limit=50)
        over = flag["state"]
        assert over["over"] and over["result"]["ending"] == "flag"
        assert over["result"]["places"] == [2, 1] and over["result"]["seat"] == 0
        assert over["seats"][0]["status"] == "flagged"
        assert over["clock"]["remaining"][0] == 0 and over["clock"]["running"] is None
        # First rated game for both: newcomers move apart by the same amount.
        lost, won = rate_game([Rating(), Rating()], [2, 1])
        changes = {c["seat"]: c for c in over["ratings"]}
        assert changes[0]["before"] == 1500 and changes[0]["after"] == round(lost.rating)
        assert changes[1]["after"] == round(won.rating) == 3000 - changes[0]["after"]
        white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        assert receive_until(white, lambda m: m["type"] == "error")["code"] == "over"
    record = read_record(client.get(f"/api/tables/{table['id']}/record").text)
    assert record.game.result is not None and record.game.result.ending == "flag"
    assert record.players == {"white": "Ayşe", "black": "Bram"}


def test_clocks_charge_the_mover_and_add_the_increment(tmp_path: Path) -> None:
    time = FakeTime()
    with make_client(tmp_path / "clock.db", now=time) as client:
        table = create(client, "classic-2", [ONLINE, ONLINE], clock="5+3")
        with (
            socket(client, table["id"], table["token"]) as white,
            socket(client, table["id"]) as black,
        ):
            sit(black, 1, "Bram")
            receive_until(white, event_of("start"))
            time.ms += 4_000
            white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
            clock = receive_until(black, event_of("move", 0))["state"]["clock"]
            assert clock == {
                "control": "5+3",
                "remaining": [300_000 - 4_000 + 3_000, 300_000],
                "running": 1,
            }
            time.ms += 10_500
            state = client.get(f"/api/tables/{table['id']}").json()
            assert state["clock"]["remaining"] == [299_000, 289_500]


def test_a_restart_keeps_every_move_and_pauses_the_clock_while_down(tmp_path: Path) -> None:
    """Stopping the server saves the clocks; the time it was down is charged to nobody."""
    database = tmp_path / "restart.db"
    time = FakeTime()
    with make_client(database, now=time) as first:
        table = create(first, "classic-2", [ONLINE, ONLINE], clock="5+3", rated=True)
        with (
            socket(first, table["id"], table["token"]) as white,
            socket(first, table["id"]) as black,
        ):
            guest = sit(black, 1, "Bram")
            receive_until(white, event_of("start"))
            time.ms += 2_000
            white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
            receive_until(black, event_of("move", 0))
            time.ms += 7_000  # black thinks 7 s, then the server stops
        version = first.get(f"/api/tables/{table['id']}").json()["v"]
    time.ms += 3_600_000  # an hour without a server
    with make_client(database, now=time) as second:
        state = second.get(f"/api/tables/{table['id']}").json()
        assert state["v"] == version and state["status"] == "playing"
        assert [m["text"] for m in state["moves"]] == ["l4-l5"]
        assert state["clock"]["remaining"] == [301_000, 293_000]
        assert state["clock"]["running"] == 1
        with socket(second, table["id"], guest["token"]) as black:
            assert black.welcome["seats"] == [1]  # type: ignore[attr-defined]
            time.ms += 1_000
            black.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"], "v": version})
            after = receive_until(black, event_of("move", 1))["state"]
            assert after["clock"]["remaining"] == [301_000, 295_000]
            assert after["seats"][1]["nickname"] == "Bram"


def test_resignation_ends_a_rated_game_and_moves_the_ratings(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE], rated=True)
    identity = table["player"]["secret"]
    with socket(client, table["id"], table["token"]) as white, socket(client, table["id"]) as b:
        bram = sit(b, 1, "Bram")
        receive_until(white, event_of("start"))
        white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(b, event_of("move", 0))
        b.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
        receive_until(white, event_of("move", 1))
        b.send_json({"type": "resign"})
        over = receive_until(white, event_of("resign"))["state"]
        assert over["result"]["ending"] == "resignation" and over["result"]["places"] == [1, 2]
        changes = {c["seat"]: c for c in over["ratings"]}
        assert changes[0]["change"] > 0 > changes[1]["change"]
        assert changes[0]["player"] == table["player"]["id"]
    # The same people again, with their identities: ratings build on the last ones.
    again = create(client, "classic-2", [ONLINE, ONLINE], rated=True, identity=identity)
    assert again["player"]["id"] == table["player"]["id"]
    with socket(client, again["id"], again["token"]) as white, socket(client, again["id"]) as b:
        sit(b, 1, "Bram", identity=bram["player"]["secret"])
        receive_until(white, event_of("start"))
        white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(b, event_of("move", 0))
        b.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
        receive_until(white, event_of("move", 1))
        white.send_json({"type": "resign"})
        second = {c["seat"]: c for c in receive_until(b, event_of("resign"))["state"]["ratings"]}
    assert second[0]["before"] == changes[0]["after"]
    assert second[1]["before"] == changes[1]["after"]
    # Two games make no established rating: the ratings page does not list them yet.
    board = client.get("/api/ratings", params={"category": "classic-2"}).json()["categories"]
    listed = {p["player"] for category in board for p in category["players"]}
    assert bram["player"]["id"] not in listed
    assert client.get("/api/ratings", params={"category": "nope-9"}).status_code == 404


def test_three_players_are_rated_pairwise_by_place(client: TestClient) -> None:
    table = create(
        client, "classic-3", [ONLINE, ONLINE, ONLINE], rated=True, nickname="Wendy", identity=None
    )
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"]) as blue,
        socket(client, table["id"]) as yellow,
    ):
        sit(blue, 1, "Blue")
        sit(yellow, 2, "Yellow")
        state = receive_until(white, event_of("start"))["state"]
        for seat, ws in enumerate((white, blue, yellow)):  # everyone moves once: no abort
            ws.send_json({"type": "move", "seat": seat, "path": state["legal"][0]})
            state = receive_until(ws, event_of("move", seat))["state"]
        blue.send_json({"type": "resign"})
        over = receive_until(yellow, event_of("resign"))["state"]
    places = over["result"]["places"]
    assert places[1] == 3
    games = [c["before"] for c in sorted(over["ratings"], key=lambda c: c["seat"])]
    expected = rate_game([Rating()] * 3, places)
    assert [c["change"] for c in sorted(over["ratings"], key=lambda c: c["seat"])] == [
        round(e.rating - 1500, 1) for e in expected
    ]
    assert games == [1500, 1500, 1500]


def test_tables_with_the_computer_or_people_on_one_screen_are_never_rated(
    client: TestClient,
) -> None:
    table = create(client, "classic-2", [ONLINE, EASY])
    with socket(client, table["id"], table["token"]) as ws:
        ws.send_json({"type": "resign"})
        over = receive_until(ws, event_of("resign"))["state"]
        assert over["ratings"] is None and not over["rated"]
        assert not over["can_hint"] and not over["can_undo"]  # no help online


def test_a_rematch_starts_when_everyone_asks_and_the_seats_rotate(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, ONLINE], clock="3+2")
    with socket(client, table["id"], table["token"]) as white, socket(client, table["id"]) as b:
        bram = sit(b, 1, "Bram")
        receive_until(white, event_of("start"))
        white.send_json({"type": "rematch"})
        assert receive_until(white, lambda m: m["type"] == "error")["code"] == "not-over"
        white.send_json({"type": "abort"})  # an aborted game may be played again too
        receive_until(b, event_of("abort"))
        b.send_json({"type": "rematch"})
        offer = receive_until(white, event_of("rematch-offer"))["state"]
        assert offer["rematch_offers"] == [1] and offer["rematch"] is None
        white.send_json({"type": "rematch"})
        new_id = receive_until(b, event_of("rematch"))["event"]["table"]
    with socket(client, new_id, bram["token"]) as b, socket(client, new_id, table["token"]) as w:
        assert b.welcome["seats"] == [0]  # type: ignore[attr-defined]
        assert w.welcome["seats"] == [1]  # type: ignore[attr-defined]
        state = w.welcome["state"]  # type: ignore[attr-defined]
        assert [s["nickname"] for s in state["seats"]] == ["Bram", "Ayşe"]
        assert state["status"] == "playing" and state["clock"]["control"] == "3+2"
        assert state["previous"] == table["id"]


def test_a_finished_game_stays_viewable_and_its_record_downloads(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, EASY])
    with socket(client, table["id"], table["token"]) as ws:
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(ws, event_of("move", 1))
        ws.send_json({"type": "resign"})
        receive_until(ws, event_of("resign"))
    response = client.get(f"/api/tables/{table['id']}/record")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    record = read_record(response.text)
    assert record.players == {"white": "Ayşe", "black": "Computer (Easy)"}
    assert record.game.result is not None and record.game.result.ending == "resignation"
    assert len(record.game.moves) == 2
    state = client.get(f"/api/tables/{table['id']}").json()
    assert state["over"] and len(state["moves"]) == 2
    assert client.get("/api/tables/nope/record").status_code == 404


def test_a_record_names_the_people_at_the_screen_and_the_computer_as_the_table_does(
    client: TestClient,
) -> None:
    person = {"kind": "person"}
    table = create(client, "classic-3", [person, {"kind": "computer", "level": "medium"}, person])
    with socket(client, table["id"], table["token"]) as ws:
        ws.send_json({"type": "resign", "seat": 0})
        receive_until(ws, event_of("resign"))
    record = read_record(client.get(f"/api/tables/{table['id']}/record").text)
    assert record.players == {
        "white": "Person at this screen",
        "blue": "Computer (Medium)",
        "yellow": "Person at this screen",
    }


# -- safety -----------------------------------------------------------------------------


def test_bad_messages_get_errors_and_the_game_goes_on(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, EASY])
    with socket(client, table["id"], table["token"]) as ws:
        for text, words in (
            ("x" * 5000, "too long"),
            ("[1, 2", "must be JSON"),
            ("[" * 3000 + "]" * 3000, "too long"),
            ('{"type": "move", "seat": 0, "path": [1, 2]}', '"path"'),
            ('{"type": "sit", "seat": "zero"}', '"seat"'),
            ('{"type": 5}', 'needs a "type"'),
            ('"hello"', "JSON object"),
        ):
            ws.send_text(text)
            error = receive_until(ws, lambda m: m["type"] == "error")
            assert words in error["message"], (text[:20], error)
        ws.ws.send_bytes(b'{"type": "ping"}')
        assert "binary" in receive_until(ws, lambda m: m["type"] == "error")["message"]
        assert reply_to(ws, {"type": "ping"})["type"] == "pong"
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        assert len(receive_until(ws, event_of("move", 1))["state"]["moves"]) == 2


def test_a_flooding_connection_is_slowed_down_then_closed(tmp_path: Path) -> None:
    limits = Limits(rate=1.0, burst=5.0, pause=0.01, strikes=10)
    with make_client(tmp_path / "flood.db", limits=limits) as client:
        table = create(client, "classic-2", [ONLINE, EASY])
        with socket(client, table["id"], table["token"]) as calm:
            with client.websocket_connect(f"/ws/tables/{table['id']}") as flood:
                for _ in range(40):
                    flood.send_json({"type": "ping"})
                replies = []
                with pytest.raises(WebSocketDisconnect) as closed:
                    while True:
                        replies.append(flood.receive_json())
                assert closed.value.code == 1008
                assert any(r.get("code") == "flood" for r in replies)
            # The game goes on for the others.
            calm.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
            assert receive_until(calm, event_of("move", 0))["state"]["moves"]


def test_one_address_has_a_limit_on_connections_and_new_tables(tmp_path: Path) -> None:
    per_address = AddressLimits(connections=2, tables=2, window=600)
    with make_client(tmp_path / "busy.db", per_address=per_address) as client:
        table = create(client, "classic-2", [ONLINE, EASY])
        create(client, "classic-2", [ONLINE, EASY])
        third = client.post(
            "/api/tables", json={"variant": "classic-2", "seats": [ONLINE, EASY], "nickname": "A"}
        )
        assert third.status_code == 429
        assert third.json()["code"] == "too-many" and "10 minutes" in third.json()["message"]
        url = f"/ws/tables/{table['id']}"
        with client.websocket_connect(url), client.websocket_connect(url) as second:
            with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(url):
                pass
            assert refused.value.code == 1008 and "too many" in refused.value.reason
            second.close()
        # Connections that closed count no more.
        with client.websocket_connect(url) as again:
            again.send_json({"type": "hello"})
            assert Socket(again).receive_json()["type"] == "welcome"


def test_the_websocket_refuses_pages_of_other_sites(client: TestClient) -> None:
    table = create(client, "classic-2", [ONLINE, EASY])
    url = f"/ws/tables/{table['id']}"
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(url, headers={"origin": "https://evil.example"}),
    ):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect(url, headers={"origin": "http://localhost"}) as ws:
        ws.send_json({"type": "hello"})
        assert Socket(ws).receive_json()["type"] == "welcome"


def test_pages_forbid_scripts_and_assets_from_elsewhere(client: TestClient) -> None:
    headers = client.get("/table/abc").headers
    policy = headers["content-security-policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    assert headers["x-content-type-options"] == "nosniff"
    assert client.get("/ratings").status_code == 200
    big = client.post(
        "/api/tables",
        content=b"{" + b" " * 70_000 + b"}",
        headers={"content-type": "application/json"},
    )
    assert big.status_code == 413


# -- the database -------------------------------------------------------------------------


def test_two_processes_can_never_both_apply_a_move(tmp_path: Path) -> None:
    """Two servers on one database: the one whose copy is stale is refused and resynced."""
    database = tmp_path / "shared.db"
    with make_client(database) as a, make_client(database) as b:
        table = create(a, "classic-2", [PERSON, PERSON])
        with (
            socket(a, table["id"], table["token"]) as on_a,
            socket(b, table["id"], table["token"]) as on_b,
        ):
            on_a.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
            receive_until(on_a, event_of("move", 0))
            # b still has the table at version 0, where white is to move.
            on_b.send_json({"type": "move", "seat": 0, "path": ["k4", "k5"]})
            refused = receive_until(on_b, lambda m: m["type"] == "error")
            assert refused["code"] == "stale"
            assert [m["text"] for m in refused["state"]["moves"]] == ["l4-l5"]
            on_b.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
            receive_until(on_b, event_of("move", 1))
    with make_client(database) as c:
        moves = c.get(f"/api/tables/{table['id']}").json()["moves"]
    assert [m["text"] for m in moves] == ["l4-l5", "e14-e13"]


def test_a_broken_stored_table_is_left_out_and_the_others_go_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table whose row cannot be read anymore is logged once; the lobby, the start
    and the sweep pass it by, opening it says so, and its row stays as it was."""
    path = tmp_path / "broken.db"
    with make_client(path) as client:
        waiting = create(client, "classic-2", [ONLINE, ONLINE])
        kept = create(client, "classic-2", [ONLINE, ONLINE])
        playing = create(client, "classic-2", [ONLINE, EASY], clock="5+3", sit=0)
        assert playing["state"]["status"] == "playing"
        # JSON that reads, but not as the store wrote it, and a variant nobody knows.
        misshapen = [create(client, "classic-2", [ONLINE, ONLINE]) for _ in range(3)]
    with sqlite3.connect(path) as connection:
        for table in (waiting, playing):
            connection.execute("UPDATE tables SET actions = '[{' WHERE id = ?", (table["id"],))
        for table, change in zip(
            misshapen, ["seats = '7'", "seats = '[1, 2]'", "variant = 'classic-9'"], strict=True
        ):
            connection.execute(f"UPDATE tables SET {change} WHERE id = ?", (table["id"],))
    broken = [waiting, playing, *misshapen]
    with caplog.at_level("WARNING"), make_client(path, takeover=0) as client:
        for _ in range(2):
            response = client.get("/api/tables")
            assert response.status_code == 200, response.text
            listed = [t["id"] for t in response.json()["tables"]]
            assert kept["id"] in listed
            assert not {t["id"] for t in broken} & set(listed)
        client.portal.call(client.app.state.tables.following.sweep)  # type: ignore[union-attr,attr-defined]
        for table in broken:
            opened = client.get(f"/api/tables/{table['id']}")
            assert opened.status_code == 400 and opened.json()["code"] == "broken-table"
        with socket(client, kept["id"]) as guest:
            assert sit(guest, 1, "Bram")["type"] == "seated"
    for table in broken:
        logged = [r for r in caplog.records if table["id"] in r.getMessage()]
        assert len(logged) == 1 and "cannot be restored" in logged[0].getMessage()
    with sqlite3.connect(path) as connection:
        rows = connection.execute("SELECT id FROM tables WHERE actions = '[{'").fetchall()
        assert len(rows) == 2


def test_the_migrations_make_the_schema_of_the_models(tmp_path: Path) -> None:
    path = tmp_path / "fresh.db"
    migrate(path)
    engine = create_engine(f"sqlite:///{path}")
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert differences == []


def test_a_part_one_database_is_upgraded_and_its_games_go_on(tmp_path: Path) -> None:
    path = tmp_path / "part1.db"
    _part_one_database(path)
    with make_client(path) as client:
        state = client.get("/api/tables/old").json()
        assert state["moves"] == [{"ply": 1, "seat": 0, "text": "l4-l5"}]
        assert state["status"] == "playing" and state["clock"] is None
        with socket(client, "old", "the-old-token") as ws:
            assert ws.welcome["seats"] == [0, 1]  # type: ignore[attr-defined]
            ws.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
            assert receive_until(ws, event_of("move", 1))["state"]["v"] == 2
    with sqlite3.connect(path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [
            (head_revision(),)
        ]


def test_a_database_of_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "newer.db"
    migrate(path)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(DatabaseSchemaError, match="another version"):
        migrate(path)


def _part_one_database(path: Path) -> None:
    """A file as part 1 of the web app left it: one table, one move, no migrations."""
    from sternhalma.server.storage.tokens import hash_secret

    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE tables (id VARCHAR(32) PRIMARY KEY, variant VARCHAR(40) NOT NULL, "
            "seats TEXT NOT NULL, start TEXT, moves_made TEXT, deadline_rule BOOLEAN NOT NULL, "
            "token_hash VARCHAR(64) NOT NULL, seed INTEGER NOT NULL, actions TEXT NOT NULL, "
            "version INTEGER NOT NULL, over BOOLEAN NOT NULL, created_at DATETIME NOT NULL, "
            "updated_at DATETIME NOT NULL)"
        )
        connection.execute(
            "INSERT INTO tables VALUES ('old', 'classic-2', ?, NULL, NULL, 1, ?, 7, ?, 1, 0, "
            "'2026-11-01 10:00:00', '2026-11-01 10:00:00')",
            (
                '[{"kind": "person", "level": null}, {"kind": "person", "level": null}]',
                hash_secret("the-old-token"),
                '[{"seat": 0, "move": "l4-l5"}]',
            ),
        )
