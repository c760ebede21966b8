"""Ratings that cannot be farmed, games that can be aborted, and a database that one
client cannot grow (issue 14; docs/ratings.md).

Every player of these tests comes from one address (the test client's), so the
rules about addresses are switched on or off per test through the settings.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_online import ONLINE, create, make_client, reply_to, sit, socket
from test_server import Socket, event_of, receive_until

from sternhalma.rating import ESTABLISHED_GAMES
from sternhalma.server.storage.identities import DAY, IdentityRules
from sternhalma.server.web.admission import AddressLimits, Limits

#: One address, many people: no limit on new identities, and their games are rated.
OPEN = IdentityRules(per_hour=1000, same_address=0)


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "fair.db"


@pytest.fixture
def client(database: Path) -> Iterator[TestClient]:
    with make_client(database, identities=OPEN) as client:
        yield client


def players(database: Path) -> dict[str, str]:
    """Every player in the database: id -> nickname."""
    with sqlite3.connect(database) as connection:
        return dict(connection.execute("SELECT id, nickname FROM players").fetchall())


def new_game(client: TestClient, nickname: str = "Ayşe", guest: str = "Bram", **extra: Any) -> Any:
    """A started 2-player online table: the creator and a guest, both with new identities."""
    table = create(client, "classic-2", [ONLINE, ONLINE], nickname=nickname, identity=None, **extra)
    with socket(client, table["id"]) as ws:
        table["guest"] = sit(ws, 1, guest, identity=None)
    assert table["guest"]["type"] == "seated", table["guest"]
    return table


def leave(ws: Socket) -> dict[str, Any]:
    """Stand up: the "leave" event, or the error that refused it."""
    ws.send_json({"type": "leave"})
    return receive_until(ws, lambda m: m["type"] == "error" or event_of("leave")(m))


def first_abort(ws: Socket) -> dict[str, Any]:
    """The state once the server aborted the game (it may have before ``ws`` came)."""
    state: dict[str, Any] = ws.welcome["state"]  # type: ignore[attr-defined]
    if state["status"] != "aborted":
        state = receive_until(ws, event_of("abort"), limit=50)["state"]
    return state


def play_first_moves(white: Socket, black: Socket) -> dict[str, Any]:
    white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
    receive_until(black, event_of("move", 0))
    black.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
    state: dict[str, Any] = receive_until(white, event_of("move", 1))["state"]
    return state


# -- aborting -----------------------------------------------------------------------------


def test_a_player_aborts_before_every_first_move_and_nothing_is_rated(
    client: TestClient,
) -> None:
    table = new_game(client, rated=True)
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"], table["guest"]["token"]) as black,
    ):
        assert white.welcome["state"]["can_abort"]  # type: ignore[attr-defined]
        # Resigning now would hand out a rated win for nothing: abort instead.
        assert reply_to(black, {"type": "resign"})["code"] == "abort-instead"
        white.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        moved = receive_until(black, event_of("move", 0))["state"]
        assert moved["can_abort"]  # black has not moved yet
        black.send_json({"type": "abort"})
        aborted = receive_until(white, event_of("abort", 1))["state"]
    assert aborted["status"] == "aborted" and aborted["over"]
    assert aborted["result"]["ending"] == "aborted"
    assert aborted["result"]["abort"] == "button" and aborted["result"]["seat"] == 1
    assert aborted["ratings"] is None and not aborted["can_abort"]
    assert client.get("/api/ratings").json()["categories"] == []
    with socket(client, table["id"], table["token"]) as white:
        assert reply_to(white, {"type": "move", "seat": 0, "path": ["l5", "l6"]})["code"] == "over"
        assert reply_to(white, {"type": "abort"})["code"] == "no-abort"


def test_no_abort_once_everyone_has_moved_nor_for_spectators(client: TestClient) -> None:
    table = new_game(client, rated=True)
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"], table["guest"]["token"]) as black,
    ):
        with socket(client, table["id"]) as stranger:
            assert reply_to(stranger, {"type": "abort"})["code"] == "not-your-seat"
        state = play_first_moves(white, black)
        assert not state["can_abort"]
        assert reply_to(white, {"type": "abort"})["code"] == "no-abort"
        black.send_json({"type": "resign"})
        over = receive_until(white, event_of("resign", 1))["state"]
    assert over["result"]["ending"] == "resignation" and over["ratings"] is not None


def test_a_first_move_that_does_not_come_aborts_the_game(database: Path) -> None:
    with make_client(database, identities=OPEN, first_move=1.0) as client:
        table = new_game(client, rated=True)
        with socket(client, table["id"], table["token"]) as white:
            aborted = first_abort(white)
    assert aborted["status"] == "aborted"
    assert aborted["result"]["abort"] == "no-first-move" and aborted["result"]["seat"] == 0
    assert aborted["ratings"] is None


def test_a_clock_that_runs_out_before_the_first_move_aborts_instead_of_losing(
    client: TestClient,
) -> None:
    """The rematch nobody played: both left, white's clock ran out, and white lost points."""
    table = new_game(client, rated=True, clock="0.02+0")  # 1.2 seconds each
    with socket(client, table["id"], table["token"]) as white:
        aborted = first_abort(white)
    assert aborted["result"]["ending"] == "aborted" and aborted["result"]["seat"] == 0
    assert aborted["result"]["abort"] == "no-first-move"
    assert aborted["ratings"] is None and aborted["clock"]["running"] is None
    assert client.get("/api/ratings").json()["categories"] == []


def test_a_table_on_one_screen_is_not_aborted(client: TestClient) -> None:
    table = create(client, "classic-2", [{"kind": "person"}, {"kind": "person"}])
    assert not table["state"]["can_abort"]
    with socket(client, table["id"], table["token"]) as ws:
        assert reply_to(ws, {"type": "abort"})["code"] == "no-abort"


# -- ratings ------------------------------------------------------------------------------


def test_ratings_are_provisional_until_enough_games_and_listed_apart(
    client: TestClient,
) -> None:
    first = new_game(client, rated=True)
    ayse, bram = first["player"]["secret"], first["guest"]["player"]["secret"]
    for game in range(ESTABLISHED_GAMES):
        if game == 0:
            table, guest = first, first["guest"]
        else:
            table = create(client, "classic-2", [ONLINE, ONLINE], rated=True, identity=ayse)
            with socket(client, table["id"]) as ws:
                guest = sit(ws, 1, "Bram", identity=bram)
        with (
            socket(client, table["id"], table["token"]) as white,
            socket(client, table["id"], guest["token"]) as black,
        ):
            play_first_moves(white, black)
            black.send_json({"type": "resign"})
            over = receive_until(white, event_of("resign", 1))["state"]
        changes = {c["seat"]: c for c in over["ratings"]}
        assert changes[0]["before_provisional"] == (game < ESTABLISHED_GAMES)
        assert changes[0]["after_provisional"] == (game + 1 < ESTABLISHED_GAMES)
        listed = client.get("/api/ratings").json()["categories"]
        (category,) = listed
        assert [p["provisional"] for p in category["players"]] == [game + 1 < ESTABLISHED_GAMES] * 2
    ranking = [(p["nickname"], p["games"]) for p in category["players"]]
    assert ranking == [("Ayşe", ESTABLISHED_GAMES), ("Bram", ESTABLISHED_GAMES)]
    assert category["players"][0]["deviation"] < 350


def test_games_between_identities_made_from_one_address_are_not_rated(database: Path) -> None:
    rules = IdentityRules(per_hour=1000, same_address=DAY)
    with make_client(database, identities=rules) as client:
        table = new_game(client, rated=True)
        with (
            socket(client, table["id"], table["token"]) as white,
            socket(client, table["id"], table["guest"]["token"]) as black,
        ):
            assert white.welcome["state"]["unrated"] == "same-address"  # type: ignore[attr-defined]
            play_first_moves(white, black)
            black.send_json({"type": "resign"})
            over = receive_until(white, event_of("resign", 1))["state"]
    assert over["rated"] and over["ratings"] is None and over["unrated"] == "same-address"
    # Made more than a day apart, the same two identities play rated games.
    with sqlite3.connect(database) as connection:
        connection.execute(
            "UPDATE players SET created_at = '2026-01-01 00:00:00.000000' WHERE nickname = 'Bram'"
        )
    with make_client(database, identities=rules) as client:
        again = create(
            client, "classic-2", [ONLINE, ONLINE], rated=True, identity=table["player"]["secret"]
        )
        with socket(client, again["id"]) as ws:
            guest = sit(ws, 1, "Bram", identity=table["guest"]["player"]["secret"])
        with (
            socket(client, again["id"], again["token"]) as white,
            socket(client, again["id"], guest["token"]) as black,
        ):
            assert white.welcome["state"]["unrated"] is None  # type: ignore[attr-defined]
            play_first_moves(white, black)
            black.send_json({"type": "resign"})
            assert receive_until(white, event_of("resign", 1))["state"]["ratings"]


# -- identities and nicknames -------------------------------------------------------------


def test_one_address_makes_a_handful_of_identities_an_hour(database: Path) -> None:
    with make_client(database, identities=IdentityRules(per_hour=2, same_address=0)) as client:
        table = create(client, "classic-4", [ONLINE] * 4, nickname="Ayşe", identity=None)
        with socket(client, table["id"]) as ws:
            assert sit(ws, 1, "Bram", identity=None)["type"] == "seated"
        with socket(client, table["id"]) as ws:
            refused = sit(ws, 2, "Cem", identity=None)
            assert refused["code"] == "too-many-identities"
            assert not refused["state"]["seats"][2]["taken"]
        # A player this browser already is may go on starting tables.
        secret = table["player"]["secret"]
        again = create(client, "classic-2", [ONLINE] * 2, nickname="Ayşe", identity=secret)
        assert again["player"]["id"] == table["player"]["id"]
        assert sorted(players(database).values()) == ["Ayşe", "Bram"]
        response = client.post(
            "/api/tables",
            json={"variant": "classic-2", "seats": [ONLINE] * 2, "nickname": "Dila"},
        )
        assert response.status_code == 429
        assert response.json()["code"] == "too-many-identities"


def test_a_nickname_and_its_lookalikes_belong_to_one_identity(
    client: TestClient, database: Path
) -> None:
    alice = create(client, "classic-2", [ONLINE] * 2, nickname="Alice", identity=None)
    bobs = create(client, "classic-3", [ONLINE] * 3, nickname="Bob", identity=None)
    with socket(client, bobs["id"]) as ws:
        for lookalike in ("Аlice", "ALICE", "A1ice"):  # Cyrillic А; capitals; a one for an l
            refused = sit(ws, 1, lookalike, identity=None)
            assert refused["code"] == "nickname-held", lookalike
        assert sit(ws, 1, "Cem", identity=None)["type"] == "seated"
    refused_table = client.post(
        "/api/tables",
        json={"variant": "classic-2", "seats": [ONLINE] * 2, "nickname": "ＡLICE"},
    )
    assert refused_table.status_code == 400
    assert refused_table.json()["code"] == "nickname-held"
    # Alice herself may write her name another way.
    again = create(
        client, "classic-2", [ONLINE] * 2, nickname="ALICE", identity=alice["player"]["secret"]
    )
    assert again["player"]["id"] == alice["player"]["id"]
    assert sorted(players(database).values()) == ["ALICE", "Bob", "Cem"]


def test_a_nickname_unused_for_90_days_is_let_go(client: TestClient, database: Path) -> None:
    old = create(client, "classic-2", [ONLINE] * 2, nickname="Alice", identity=None)
    with sqlite3.connect(database) as connection:
        connection.execute(
            "UPDATE players SET created_at = '2026-01-01 00:00:00.000000', "
            "last_game_at = '2026-01-02 00:00:00.000000'"
        )
    new = create(client, "classic-2", [ONLINE] * 2, nickname="alice", identity=None)
    assert new["player"]["id"] != old["player"]["id"]
    # The old identity keeps its secret and ratings, but not the name.
    refused = client.post(
        "/api/tables",
        json={
            "variant": "classic-2",
            "seats": [ONLINE] * 2,
            "nickname": "Alice",
            "identity": old["player"]["secret"],
        },
    )
    assert refused.json()["code"] == "nickname-held"
    renamed = create(
        client, "classic-2", [ONLINE] * 2, nickname="Alicia", identity=old["player"]["secret"]
    )
    assert renamed["player"]["id"] == old["player"]["id"]


def test_a_refused_sit_creates_and_renames_nobody(client: TestClient, database: Path) -> None:
    table = create(client, "classic-3", [ONLINE] * 3, nickname="Ayşe", identity=None)
    with socket(client, table["id"]) as ws:
        bram = sit(ws, 1, "Bram", identity=None)
    before = players(database)
    with socket(client, table["id"]) as ws:
        assert sit(ws, 0, "Cem", identity=None)["code"] == "seat-taken"
        assert sit(ws, 2, "bram", identity=None)["code"] == "nickname-taken"
        assert sit(ws, 9, "Cem", identity=None)["code"] == "seat"
    # Bram, seated, tries another seat under another name: refused, and still Bram.
    with socket(client, table["id"], bram["token"]) as ws:
        assert sit(ws, 2, "Bruno", identity=bram["player"]["secret"])["code"] == "seated"
    with socket(client, table["id"]) as ws:
        assert sit(ws, 2, "Bruno", identity=bram["player"]["secret"])["code"] == "seated"
    assert players(database) == before
    state = client.get(f"/api/tables/{table['id']}").json()
    assert [s["nickname"] for s in state["seats"]] == ["Ayşe", "Bram", None]


# -- sitting down and standing up ---------------------------------------------------------


def test_sit_and_leave_are_limited_per_connection_and_per_address(database: Path) -> None:
    limits = Limits(seat_changes=4, seat_window=600)
    per_address = AddressLimits(seat_changes=6, seat_window=600)
    with make_client(database, identities=OPEN, limits=limits, per_address=per_address) as client:
        table = create(client, "classic-3", [ONLINE] * 3, nickname="Ayşe")
        identity = table["player"]["secret"]
        with socket(client, table["id"], table["token"]) as ws:
            replies = [leave(ws), sit(ws, 0, "Ayşe", identity), leave(ws)]
            replies.append(sit(ws, 0, "Ayşe", identity))
            assert [r["type"] for r in replies] == ["event", "seated", "event", "seated"]
            assert leave(ws)["code"] == "too-many-sits"  # the connection's fifth
        with socket(client, table["id"]) as ws:
            assert sit(ws, 1, "Bram", identity=None)["type"] == "seated"
            assert leave(ws)["type"] == "event"  # the address's sixth
            refused = sit(ws, 1, "Bram", identity=None)
            assert refused["code"] == "too-many-sits"
            assert not refused["state"]["seats"][1]["taken"]


def test_waiting_tables_nobody_visits_leave_the_lobby_then_go(
    client: TestClient, database: Path
) -> None:
    fresh = create(client, "classic-2", [ONLINE] * 2)
    stale = create(client, "classic-2", [ONLINE] * 2)
    old = create(client, "classic-2", [ONLINE] * 2)
    with sqlite3.connect(database) as connection:
        connection.execute(
            "UPDATE tables SET visited_at = ? WHERE id = ?",
            ("2026-01-01 00:00:00.000000", old["id"]),
        )
        connection.execute(
            "UPDATE tables SET visited_at = datetime('now', '-1 hour') WHERE id = ?",
            (stale["id"],),
        )
    listed = [t["id"] for t in client.get("/api/tables").json()["tables"]]
    assert fresh["id"] in listed and stale["id"] not in listed and old["id"] not in listed
    tables = client.app.state.tables  # type: ignore[attr-defined]
    assert client.portal.call(tables.tidy) == [old["id"]]  # type: ignore[union-attr]
    assert client.get(f"/api/tables/{old['id']}").status_code == 404
    assert client.get(f"/api/tables/{stale['id']}").status_code == 200
    # Somebody at the table brings it back to the lobby.
    with socket(client, stale["id"], stale["token"]):
        client.portal.call(tables.tidy)  # type: ignore[union-attr]
        assert stale["id"] in [t["id"] for t in client.get("/api/tables").json()["tables"]]


def settled(state: dict[str, Any]) -> dict[str, Any]:
    """A table's state without what runs down by itself (the countdowns' time left)."""
    return {key: value for key, value in state.items() if key != "countdowns"}


def test_every_refused_command_changes_nothing(client: TestClient, database: Path) -> None:
    table = new_game(client, rated=True)
    url = f"/api/tables/{table['id']}"
    with (
        socket(client, table["id"], table["token"]) as white,
        socket(client, table["id"], table["guest"]["token"]) as black,
    ):
        before, people = settled(client.get(url).json()), players(database)
        refusals = [
            (white, {"type": "move", "seat": 0, "path": ["l4", "l9"]}, "IllegalMoveError"),
            (black, {"type": "move", "seat": 1, "path": ["e14", "e13"]}, "not-your-turn"),
            (white, {"type": "resign", "seat": 1}, "not-your-seat"),
            (white, {"type": "resign"}, "abort-instead"),
            (white, {"type": "leave"}, "started"),
            (white, {"type": "rematch"}, "not-over"),
            (black, {"type": "sit", "seat": 1, "nickname": "Bruno"}, "not-waiting"),
            (white, {"type": "undo"}, "not-your-seat"),
        ]
        for ws, command, expected in refusals:
            assert reply_to(ws, command)["code"] == expected, command
            assert settled(client.get(url).json()) == before, command
        assert reply_to(black, {"type": "hint"})["code"] in ("no-hint", "not-your-seat")
        state = play_first_moves(white, black)
        assert reply_to(white, {"type": "abort"})["code"] == "no-abort"
        assert client.get(url).json()["v"] == state["v"]
    assert players(database) == people
