"""The web server without a browser: JSON API, table websocket, store, computer seats.

These drive the real app (create_app) through Starlette's test client, with the
computer thinking in a real worker process; the browser tests are in tests/e2e/.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import Client
from starlette.testclient import WebSocketTestSession

from sternhalma.game import Game
from sternhalma.rules import VARIANTS
from sternhalma.server.web.app import Settings, create_app

PERSON = {"kind": "person"}
EASY = {"kind": "computer", "level": "easy"}

#: White's 30th move is next; stepping m5-m4 brings a marble back home after the deadline.
DEADLINE_START = {
    "variant": "classic-2",
    "turn": "white",
    "marbles": {
        "white": ["i5", "j5", "k5", "l5", "m5", "i6", "j6", "k6", "l6", "m6"],
        "black": ["e14", "f14", "g14", "h14", "e15", "f15", "g15", "e16", "f16", "e17"],
    },
}


def make_client(database: Path) -> TestClient:
    settings = Settings(database_url=f"sqlite+aiosqlite:///{database}", workers=1, computer_pause=0)
    return Client(create_app(settings))


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("server") / "tables.db"


@pytest.fixture(scope="module")
def client(database: Path) -> Iterator[TestClient]:
    with make_client(database) as client:
        yield client


def new_table(
    client: TestClient, variant: str, seats: list[dict[str, Any]], **extra: Any
) -> dict[str, Any]:
    response = client.post("/api/tables", json={"variant": variant, "seats": seats, **extra})
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


class Socket:
    """A table's websocket that skips "presence" messages (who is connected), which
    arrive whenever somebody comes or goes."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws

    def receive_json(self) -> Any:
        while True:
            message = self.ws.receive_json()
            if message.get("type") != "presence":
                return message

    def send_json(self, data: Any) -> None:
        self.ws.send_json(data)

    def send_text(self, data: str) -> None:
        self.ws.send_text(data)


@contextmanager
def connect(
    client: TestClient, table: dict[str, Any], token: str | None = "mine"
) -> Iterator[Socket]:
    """A websocket on the table that has said hello (with the table's token by default)."""
    with client.websocket_connect(f"/ws/tables/{table['id']}") as ws:
        ws.send_json({"type": "hello", "token": table["token"] if token == "mine" else token})
        yield Socket(ws)


def receive_until(ws: Socket, predicate: Any, limit: int = 20) -> dict[str, Any]:
    """The first message that satisfies ``predicate`` (the others are skipped)."""
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if predicate(message):
            return message
    raise AssertionError("the expected message did not come")


def event_of(kind: str, seat: int | None = None) -> Any:
    return lambda m: (
        m["type"] == "event"
        and m["event"]["kind"] == kind
        and (seat is None or m["event"].get("seat") == seat)
    )


def first_legal(state: dict[str, Any]) -> list[str]:
    path: list[str] = state["legal"][0]
    return path


# -- the catalogue -------------------------------------------------------------------


def test_variants_lists_every_variant_with_its_board(client: TestClient) -> None:
    data = client.get("/api/variants").json()
    assert [v["id"] for v in data["variants"]] == list(VARIANTS)
    # The lobby's games, in the order the variants come, each with its variants.
    assert data["games"] == ["chinese-checkers", "capture", "halma"]
    assert {v["game"] for v in data["variants"]} == set(data["games"])
    assert len(data["boards"]["star"]["names"]) == 121
    assert len(data["boards"]["square"]["names"]) == 256
    assert "easy" in data["levels"]
    classic = next(v for v in data["variants"] if v["id"] == "classic-2")
    assert sorted(classic["homes"][0]) == sorted(
        ["m1", "l2", "m2", "k3", "l3", "m3", "j4", "k4", "l4", "m4"]
    )
    assert classic["goals"][0] == classic["homes"][1]
    # A white move may not end in the four side points (40 holes).
    assert len(classic["no_end"][0]) == 40


def test_the_pages_and_assets_are_served_locally(client: TestClient) -> None:
    games = [f"/how-to-play/{game}" for game in client.get("/api/variants").json()["games"]]
    for page in ("/", "/table/abc", *games):
        response = client.get(page)
        assert response.status_code == 200
        assert '<script type="module" src="/static/js/main.js">' in response.text
    # A game with no such page is not shown another game's page under its name.
    unknown = client.get("/how-to-play/capture-chinese-checkers")
    assert unknown.status_code == 404 and "Page not found" in unknown.text
    assert client.get("/static/js/board.js").status_code == 200
    assert client.get("/static/i18n/tr.json").json()["app.name"] == "Çin daması"


# -- creating tables -------------------------------------------------------------------


def test_bad_new_tables_are_refused_with_a_reason(client: TestClient) -> None:
    response = client.post("/api/tables", json={"variant": "classic-9", "seats": []})
    assert response.status_code == 404
    assert "unknown variant" in response.json()["message"]
    response = client.post("/api/tables", json={"variant": "classic-2", "seats": [PERSON]})
    assert response.status_code == 400
    assert "needs exactly 2 seats" in response.json()["message"]
    response = client.post(
        "/api/tables",
        json={"variant": "classic-2", "seats": [PERSON, {"kind": "computer", "level": "godlike"}]},
    )
    assert "unknown computer level 'godlike'" in response.json()["message"]
    response = client.post(
        "/api/tables", content=b"not json", headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert response.json()["message"].startswith("the request body must be JSON: Expecting")
    wrong_start = {**DEADLINE_START, "variant": "classic-3"}
    response = client.post(
        "/api/tables",
        json={"variant": "classic-2", "seats": [PERSON, PERSON], "start": wrong_start},
    )
    assert response.status_code == 400


def test_unknown_table(client: TestClient) -> None:
    assert client.get("/api/tables/nope").status_code == 404
    with client.websocket_connect("/ws/tables/nope") as ws:
        message = ws.receive_json()
        assert message["type"] == "error"
        assert message["code"] == "no-table"


# -- playing -----------------------------------------------------------------------------


def test_a_person_moves_and_the_computer_answers(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, EASY])
    with connect(client, table) as ws:
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome"
        assert welcome["seats"] == [0]
        state = welcome["state"]
        assert state["turn"] == 0
        assert ["l4", "l5"] in state["legal"]
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"], "v": state["v"]})
        mine = receive_until(ws, event_of("move", 0))
        assert mine["state"]["moves"] == [{"ply": 1, "seat": 0, "text": "l4-l5"}]
        thinking = receive_until(ws, event_of("thinking"))
        assert thinking["state"]["thinking"] == 1
        assert thinking["state"]["legal"] == []
        answer = receive_until(ws, event_of("move", 1))
        after = answer["state"]
        assert after["turn"] == 0 and after["thinking"] is None
        assert len(after["moves"]) == 2
        # The computer's move is a legal black move in the position after l4-l5.
        game = Game("classic-2")
        game.play("l4-l5")
        game.play(after["moves"][1]["text"])
        black = set(after["position"]["marbles"]["black"])
        assert black == set(game.rules.board.names_of(game.position.marbles[1]))


def test_the_computer_answers_after_its_worker_process_died(client: TestClient) -> None:
    """A thinking process killed (say, out of memory) is replaced; the computer moves."""
    # The pool behind the admission layer's Shared (server/web/admission.py).
    thinking = client.app.state.tables.computer.thinking.thinking  # type: ignore[attr-defined]
    for slot in list(thinking.free):
        os.kill(slot.process.pid, signal.SIGKILL)
        slot.process.join(10)
    table = new_table(client, "classic-2", [PERSON, EASY])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"], "v": state["v"]})
        answer = receive_until(
            ws,
            lambda m: (
                m["type"] == "event"
                and m["event"]["kind"] in ("move", "error")
                and m["event"]["seat"] == 1
            ),
        )
        assert answer["event"]["kind"] == "move"
        assert len(answer["state"]["moves"]) == 2


def test_illegal_stale_and_foreign_moves_change_nothing(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, PERSON])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        ws.send_json({"type": "move", "seat": 0, "path": ["m1", "m3"], "v": state["v"]})
        error = ws.receive_json()
        assert error["type"] == "error"
        assert "is not legal for white" in error["message"]
        assert error["state"]["v"] == state["v"] and error["state"]["moves"] == []
        ws.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
        assert ws.receive_json()["code"] == "not-your-turn"
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"], "v": state["v"] + 5})
        assert ws.receive_json()["code"] == "stale"
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "zz9"]})
        assert ws.receive_json()["code"] == "hole"
    with connect(client, table, token="guess") as stranger:
        assert stranger.receive_json()["seats"] == []
        stranger.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        assert stranger.receive_json()["code"] == "not-your-seat"
    assert client.get(f"/api/tables/{table['id']}").json()["moves"] == []


def test_malformed_messages_get_a_readable_error(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, PERSON])
    with connect(client, table) as ws:
        ws.receive_json()
        ws.send_text("{not json")
        assert ws.receive_json()["message"].startswith("a message must be JSON: ")
        ws.send_json({"type": "dance"})
        assert "unknown message type 'dance'" in ws.receive_json()["message"]
        ws.send_json({"type": "move", "seat": 0, "path": "l4-l5"})
        assert ws.receive_json()["message"] == '"path" must be a list of at least two hole names'
        ws.send_json({"type": "look"})
        assert 'needs "ply"' in ws.receive_json()["message"]


def test_undo_takes_back_the_persons_move_and_the_answer(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, EASY])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        assert not state["can_undo"] and state["can_hint"]
        ws.send_json({"type": "move", "seat": 0, "path": ["k4", "k5"]})
        answered = receive_until(ws, event_of("move", 1))["state"]
        assert answered["can_undo"]
        ws.send_json({"type": "undo"})
        undone = receive_until(ws, event_of("undo"))
        assert undone["event"]["moves"][-1] == "k4-k5"
        assert undone["state"]["moves"] == []
        assert undone["state"]["turn"] == 0
        assert undone["state"]["position"] == state["position"]
        ws.send_json({"type": "undo"})
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "no-undo"


def test_hint_is_a_legal_move_for_the_person(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, EASY])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        ws.send_json({"type": "hint"})
        hint = ws.receive_json()
        assert hint["type"] == "hint"
        assert hint["seat"] == 0
        ends = {(p[0], p[-1]) for p in state["legal"]}
        assert (hint["path"][0], hint["path"][-1]) in ends
        assert hint["line"] == []  # the book's move: no search, no line
        ws.send_json({"type": "move", "seat": 0, "path": ["k4", "k5"]})
        moves = receive_until(ws, event_of("move", 1))["state"]["moves"]
        ws.send_json({"type": "hint"})
        hint = receive_until(ws, lambda m: m["type"] == "hint")
    # In contact Hard expects Black's replies and White's answers, each legal in turn.
    game = Game("classic-2")
    for move in moves:
        game.play(move["text"])
    game.play("-".join(hint["path"]))
    assert 1 <= len(hint["line"]) <= 6
    for step in hint["line"]:
        assert step["seat"] == game.turn
        game.play("-".join(step["path"]))
    people = new_table(client, "classic-3", [PERSON, PERSON, PERSON])
    with connect(client, people) as ws:
        assert not ws.receive_json()["state"]["can_hint"]
        ws.send_json({"type": "hint"})
        assert ws.receive_json()["code"] == "no-hint"


def test_a_move_that_puts_the_player_out_needs_confirmation(client: TestClient) -> None:
    table = new_table(
        client, "classic-2", [PERSON, PERSON], start=DEADLINE_START, moves_made=[29, 29]
    )
    with connect(client, table) as ws:
        ws.receive_json()
        ws.send_json({"type": "move", "seat": 0, "path": ["m5", "m4"]})
        question = ws.receive_json()
        assert question == {"type": "confirm", "seat": 0, "path": ["m5", "m4"]}
        assert client.get(f"/api/tables/{table['id']}").json()["moves"] == []
        ws.send_json({"type": "move", "seat": 0, "path": ["m5", "m4"], "confirm": True})
        over = receive_until(ws, event_of("move", 0))["state"]
        assert over["over"]
        assert over["result"]["ending"] == "out"
        assert over["result"]["places"] == [2, 1]
        assert over["seats"][0]["status"] == "out"


def test_resign_and_rematch(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, EASY])
    with connect(client, table) as ws:
        ws.receive_json()
        ws.send_json({"type": "resign"})
        over = receive_until(ws, event_of("resign"))["state"]
        assert over["over"] and over["result"]["ending"] == "resignation"
        assert over["result"]["places"] == [2, 1]
        ws.send_json({"type": "rematch"})
        rematch = receive_until(ws, event_of("rematch"))
        new_id = rematch["event"]["table"]
        assert rematch["state"]["rematch"] == new_id
    with connect(client, {"id": new_id, "token": table["token"]}) as again:
        welcome = again.receive_json()
        assert welcome["seats"] == [0]
        assert welcome["state"]["moves"] == [] and not welcome["state"]["over"]


def test_three_people_on_one_screen_take_turns(client: TestClient) -> None:
    table = new_table(client, "classic-3", [PERSON, PERSON, PERSON])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        for seat in range(3):
            assert state["turn"] == seat
            ws.send_json({"type": "move", "seat": seat, "path": first_legal(state)})
            state = receive_until(ws, event_of("move", seat))["state"]
        assert [m["seat"] for m in state["moves"]] == [0, 1, 2]
        assert not state["can_undo"]
        ws.send_json({"type": "resign", "seat": 1})
        over = receive_until(ws, event_of("resign"))["state"]
        assert over["over"] and over["result"]["places"][1] == 3


def test_look_back_at_an_earlier_position(client: TestClient) -> None:
    table = new_table(client, "classic-2", [PERSON, PERSON])
    with connect(client, table) as ws:
        start = ws.receive_json()["state"]["position"]
        ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(ws, event_of("move", 0))
        ws.send_json({"type": "look", "ply": 0})
        assert ws.receive_json() == {"type": "look", "ply": 0, "position": start}
        ws.send_json({"type": "look", "ply": 1})
        after = ws.receive_json()["position"]
        assert "l5" in after["marbles"]["white"] and "l4" not in after["marbles"]["white"]
        ws.send_json({"type": "look", "ply": 2})
        assert ws.receive_json()["message"] == "the game has only 1 moves"


def test_capture_moves_remove_and_count_pieces(client: TestClient) -> None:
    table = new_table(client, "capture-2", [PERSON, PERSON])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        assert len(state["position"]["pieces"]) == 60
        path = first_legal(state)
        ws.send_json({"type": "move", "seat": 0, "path": path})
        event = receive_until(ws, event_of("move", 0))
        jumps = len(path) - 1
        assert len(event["event"]["removed"]) == jumps
        assert event["state"]["seats"][0]["captured"] == jumps
        assert len(event["state"]["position"]["pieces"]) == 60 - jumps


def test_halma_moves_on_the_square_board(client: TestClient) -> None:
    table = new_table(client, "halma-2", [PERSON, EASY])
    with connect(client, table) as ws:
        state = ws.receive_json()["state"]
        assert state["seats"][0]["of"] == 19
        ws.send_json({"type": "move", "seat": 0, "path": ["l2", "k3"]})
        receive_until(ws, event_of("move", 0))
        answer = receive_until(ws, event_of("move", 1))["state"]
        assert "k3" in answer["position"]["marbles"]["white"]
        assert len(answer["moves"]) == 2


def test_a_table_survives_a_server_restart(tmp_path: Path) -> None:
    database = tmp_path / "restart.db"
    with make_client(database) as first:
        table = new_table(first, "classic-2", [PERSON, PERSON])
        with connect(first, table) as ws:
            ws.receive_json()
            ws.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
            receive_until(ws, event_of("move", 0))
    with make_client(database) as second:
        state = second.get(f"/api/tables/{table['id']}").json()
        assert state["moves"] == [{"ply": 1, "seat": 0, "text": "l4-l5"}]
        assert state["turn"] == 1
        with connect(second, table) as ws:
            welcome = ws.receive_json()
            assert welcome["seats"] == [0, 1]  # the token holds both person seats
            ws.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"], "v": welcome["v"]})
            assert receive_until(ws, event_of("move", 1))["state"]["turn"] == 0


# -- stored games played before the finishing rule of issue 30 ------------------------------
def test_a_stored_game_of_the_earlier_finishing_rule_keeps_its_result(tmp_path: Path) -> None:
    """A game stored before the Decision (rules.md#finishing) on the goal owner's marbles is rebuilt by
    the rule it was played by: a finished one keeps its stored result, one still going
    replays (today's rule would give its moves to other seats) and plays on by it, the
    computer too (its worker rebuilds the game by the same rule)."""
    import json
    import sqlite3

    def start(variant: str, turn: str, **marbles: str) -> dict[str, Any]:
        return {
            "variant": variant,
            "turn": turn,
            "marbles": {colour: holes.split() for colour, holes in marbles.items()},
        }

    # White "finished" with h13-h14 around black's e17 after black's 5 moves; black replied.
    two = start(
        "classic-2",
        "white",
        white="i8 h13 e14 f14 g14 e15 f15 g15 e16 f16",
        black="i5 j5 k5 l5 m5 i6 j6 k6 i7 e17",
    )
    # White "finished" on its 4th move, jumping into the hole black left; its turns were
    # skipped, so red's f8-g7 follows green's j8-j7.
    six = start(
        "classic-6",
        "white",
        white="m1 l2 m2 k3 l3 m3 j4 k4 l4 h12",
        red="e5 f5 g5 e6 f6 g6 e7 f7 e8 f9",
        blue="d10 h10 c11 d11 b12 c12 d12 a13 b13 c13",
        black="h13 e14 f14 g14 e15 f15 g15 e16 f16 e17",
        yellow="k9 m10 l11 m11 k12 l12 m12 k13 l13 m13",
        green="o5 p5 q5 n6 o6 p6 n7 o7 j8 n8",
    )
    path = tmp_path / "earlier.db"
    with make_client(path) as client:
        finished = new_table(client, "classic-2", [PERSON] * 2, start=two, moves_made=[5, 5])
        seats = [PERSON, PERSON, EASY, PERSON, PERSON, PERSON]  # blue moves next
        going = new_table(client, "classic-6", seats, start=six, moves_made=[3] * 6)
    result = {
        "places": [1, 2],
        "team_places": [],
        "ending": "last-reply",
        "reason": "White finished first and black's last reply did not finish: white wins.",
        "seat": None,
    }
    moves = [(0, "h13-h14"), (1, "m5-m4")]
    six_moves = ["h12-h14", "f9-f8", "h10-h9", "h13-h12", "k9-k8", "j8-j7", "f8-g7"]
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE tables SET actions = ?, result = ?, status = 'over', over = 1, version = 3 "
            "WHERE id = ?",
            (
                json.dumps([{"seat": s, "move": m} for s, m in moves]),
                json.dumps(result),
                finished["id"],
            ),
        )
        seats = [0, 1, 2, 3, 4, 5, 1]
        connection.execute(
            "UPDATE tables SET actions = ?, version = 8 WHERE id = ?",
            (
                json.dumps([{"seat": s, "move": m} for s, m in zip(seats, six_moves, strict=True)]),
                going["id"],
            ),
        )
    with make_client(path) as client:
        state = client.get(f"/api/tables/{finished['id']}").json()
        assert state["status"] == "over", state
        assert state["result"]["places"] == [1, 2]
        assert state["result"]["ending"] == "last-reply"
        assert [m["text"] for m in state["moves"]] == ["h13-h14", "m5-m4"]
        with connect(client, going, token=None) as ws:
            state = ws.receive_json()["state"]
            assert state["status"] == "playing", state
            assert state["seats"][0]["status"] == "finished"
            if len(state["moves"]) == 7:  # blue, the computer, moves next
                receive_until(ws, event_of("move", 2))
        state = client.get(f"/api/tables/{going['id']}").json()
        assert len(state["moves"]) == 8
        assert state["turn"] == 3  # white, finished by the earlier rule, was skipped
