"""Accounts (docs/accounts.md): a nickname protected by a password, logged in from any
device with the same ratings and games; limits on wrong passwords held in the database;
the household rule and the diminishing repeated pairing (docs/ratings.md); profiles,
the data page's download and deleting an account."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from helpers import Client
from test_online import ONLINE, socket
from test_server import event_of, receive_until

from sternhalma.rating import Rating, rate_game, repeat_weight
from sternhalma.records import read_record
from sternhalma.server.accounts.service import AccountRules
from sternhalma.server.storage.identities import DAY, IdentityRules
from sternhalma.server.storage.store import database_url
from sternhalma.server.web.app import Settings, create_app

PASSWORD = "correct horse battery"


def server(database: Path, **settings: Any) -> Client:
    options: dict[str, Any] = {
        "database_url": database_url(str(database)),
        "workers": 1,
        "computer_pause": 0,
        "identities": IdentityRules(per_hour=1000, same_address=0),
        **settings,
    }
    return Client(create_app(Settings(**options)))


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return tmp_path / "tables.db"


class Device:
    """Another browser on the same server: its own cookies (one test client, whose jar
    is swapped for each request, since the app runs on that client's event loop)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.jar = httpx2.Cookies()

    def _send(self, method: str, path: str, **options: Any) -> httpx2.Response:
        saved = self.client.cookies
        self.client.cookies = self.jar
        try:
            return self.client.request(method, path, **options)
        finally:
            self.jar = self.client.cookies
            self.client.cookies = saved

    def get(self, path: str, **options: Any) -> httpx2.Response:
        return self._send("GET", path, **options)

    def post(self, path: str, **options: Any) -> httpx2.Response:
        return self._send("POST", path, **options)


def device(client: TestClient) -> Any:
    return Device(client)


def post(client: Any, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, json=body)


def rated_game(
    client: Any, white: tuple[str, str | None], black: tuple[str, str | None]
) -> dict[str, Any]:
    """A rated classic-2 game: (nickname, identity secret) each; one move each, then
    black resigns. The finished table's state and the players."""
    body = {"variant": "classic-2", "seats": [ONLINE, ONLINE], "rated": True}
    made = post(client, "/api/tables", {**body, "nickname": white[0], "identity": white[1]})
    assert made.status_code == 200, made.text
    table = made.json()
    with socket(client, table["id"], table["token"]) as w, socket(client, table["id"]) as b:
        b.send_json({"type": "sit", "seat": 1, "nickname": black[0], "identity": black[1]})
        seated = receive_until(b, lambda m: m["type"] in ("seated", "error"))
        assert seated["type"] == "seated", seated
        receive_until(w, event_of("start"))
        w.send_json({"type": "move", "seat": 0, "path": ["l4", "l5"]})
        receive_until(b, event_of("move", 0))
        b.send_json({"type": "move", "seat": 1, "path": ["e14", "e13"]})
        receive_until(w, event_of("move", 1))
        b.send_json({"type": "resign"})
        state = receive_until(w, event_of("resign"))["state"]
    return {"state": state, "white": table["player"], "black": seated["player"]}


def test_an_anonymous_player_makes_an_account_and_logs_in_from_another_device(
    database: Path,
) -> None:
    with server(database) as phone:
        game = rated_game(phone, ("Ayşe", None), ("Bram", None))
        ayse = game["white"]
        # Ayşe protects her nickname: the identity her browser keeps becomes an account.
        made = post(
            phone,
            "/api/account/register",
            {"nickname": "Ayşe", "password": PASSWORD, "identity": ayse["secret"]},
        )
        assert made.status_code == 200, made.text
        assert made.json()["player"]["id"] == ayse["id"]
        cookie = made.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Max-Age=" in cookie
        assert PASSWORD not in made.text
        assert phone.get("/api/account").json()["player"]["nickname"] == "Ayşe"
        # Her old identity secret no longer sits down as her: the nickname is held.
        refused = post(
            phone,
            "/api/tables",
            {
                "variant": "classic-2",
                "seats": [ONLINE, ONLINE],
                "nickname": "Ayşe",
                "identity": ayse["secret"],
            },
        )
        assert refused.json()["code"] == "nickname-held"

        laptop = device(phone)
        assert laptop.get("/api/account").json()["player"] is None
        logged = post(laptop, "/api/account/login", {"nickname": "AYŞE", "password": PASSWORD})
        assert logged.status_code == 200, logged.text
        secret = logged.json()["player"]["secret"]
        assert logged.json()["player"]["id"] == ayse["id"]
        # The same rating and games on the second device.
        profile = laptop.get("/api/players/Ayşe").json()
        assert profile["player"]["account"] and profile["played"] == 1 and profile["won"] == 1
        assert profile["games"][0]["id"] == game["state"]["id"]
        [rating] = profile["ratings"]
        assert rating["category"] == "classic-2" and rating["provisional"]
        assert rating["rating"] == game["state"]["ratings"][0]["after"]
        assert [p["rating"] for p in rating["history"]] == [1500, rating["rating"]]
        # She plays from the laptop as herself, and the rating builds on the last one.
        again = rated_game(phone, ("Ayşe", secret), ("Bram", game["black"]["secret"]))
        assert again["white"]["id"] == ayse["id"]
        assert again["state"]["ratings"][0]["before"] == rating["rating"]
        # Logging out ends the session and its play secret.
        post(laptop, "/api/account/logout", {})
        assert laptop.get("/api/account").json()["player"] is None
        gone = post(
            laptop,
            "/api/tables",
            {
                "variant": "classic-2",
                "seats": [ONLINE, ONLINE],
                "nickname": "Ayşe",
                "identity": secret,
            },
        )
        assert gone.json()["code"] == "nickname-held"


def test_wrong_passwords_are_refused_and_limited_per_account_and_address(
    database: Path,
) -> None:
    rules = AccountRules(per_account=3, per_address=5, window=600)
    with server(database, accounts=rules) as client:
        assert (
            post(client, "/api/account/register", {"nickname": "Cem", "password": "short"}).json()[
                "code"
            ]
            == "password"
        )
        listed = client.post("/api/account/register", json=["Cem", PASSWORD])
        assert listed.status_code == 400 and "send a JSON object" in listed.text
        made = post(client, "/api/account/register", {"nickname": "Cem", "password": PASSWORD})
        assert made.status_code == 200
        twice = post(client, "/api/account/register", {"nickname": "Cem", "password": PASSWORD})
        assert twice.json()["code"] == "nickname-held"
        other = device(client)
        for _ in range(3):
            wrong = post(other, "/api/account/login", {"nickname": "Cem", "password": "nope nope"})
            assert wrong.status_code == 401 and wrong.json()["code"] == "wrong-password"
        # The account's limit holds even for the right password now.
        held = post(other, "/api/account/login", {"nickname": "Cem", "password": PASSWORD})
        assert held.status_code == 429 and held.json()["code"] == "too-many-attempts"
        # ...and across server processes: the failures are rows in the database.
    with server(database, accounts=rules) as restarted:
        held = post(restarted, "/api/account/login", {"nickname": "Cem", "password": PASSWORD})
        assert held.status_code == 429
        # The address's own limit: two more tries at names without accounts use it up.
        for name in ("Nobody", "Someone"):
            assert (
                post(
                    restarted, "/api/account/login", {"nickname": name, "password": "x" * 9}
                ).status_code
                == 401
            )
        assert (
            post(
                restarted, "/api/account/login", {"nickname": "Else", "password": "x" * 9}
            ).status_code
            == 429
        )
    rows = sqlite3.connect(database).execute("SELECT password_hash FROM accounts").fetchall()
    assert rows[0][0].startswith("$argon2id$") and PASSWORD not in rows[0][0]


def test_changing_the_password_ends_the_other_sessions(database: Path) -> None:
    with server(database) as first:
        post(first, "/api/account/register", {"nickname": "Dilek", "password": PASSWORD})
        second = device(first)
        post(second, "/api/account/login", {"nickname": "Dilek", "password": PASSWORD})
        wrong = post(first, "/api/account/password", {"old": "not it at all", "new": "n" * 10})
        assert wrong.json()["code"] == "wrong-password"
        changed = post(first, "/api/account/password", {"old": PASSWORD, "new": "a new password"})
        assert changed.status_code == 200, changed.text
        assert first.get("/api/account").json()["player"]["nickname"] == "Dilek"
        assert second.get("/api/account").json()["player"] is None
        third = device(first)
        old = post(third, "/api/account/login", {"nickname": "Dilek", "password": PASSWORD})
        assert old.status_code == 401
        new = post(third, "/api/account/login", {"nickname": "Dilek", "password": "a new password"})
        assert new.status_code == 200


def test_a_household_of_accounts_is_rated_and_fresh_identities_are_told_before(
    database: Path,
) -> None:
    same = IdentityRules(per_hour=1000, same_address=DAY, account_age=0, account_games=0)
    with server(database, identities=same) as client:
        # Two fresh identities from one address: the lobby says so before the game.
        body = {"variant": "classic-2", "seats": [ONLINE, ONLINE], "rated": True}
        table = post(client, "/api/tables", {**body, "nickname": "Efe"}).json()
        told = post(client, "/api/tables/unrated", {"tables": [table["id"]], "identity": None})
        assert told.json()["unrated"] == {table["id"]: "same-address"}
        fresh = rated_game(client, ("Efe", table["player"]["secret"]), ("Filiz", None))
        assert fresh["state"]["unrated"] == "same-address" and fresh["state"]["ratings"] is None
        record = read_record(client.get(f"/api/tables/{fresh['state']['id']}/record").text)
        assert record.extra["Rated"] == "no" and record.extra["Unrated"] == "same-address"
        # Both protect their nicknames; accounts old enough (0 s here) are rated together.
        efe = post(
            client,
            "/api/account/register",
            {"nickname": "Efe", "password": PASSWORD, "identity": fresh["white"]["secret"]},
        )
        filiz = post(
            device(client),
            "/api/account/register",
            {"nickname": "Filiz", "password": PASSWORD, "identity": fresh["black"]["secret"]},
        )
        efe_secret = efe.json()["player"]["secret"]
        table = post(
            client, "/api/tables", {**body, "nickname": "Efe", "identity": efe_secret}
        ).json()
        asked = {"tables": [table["id"]], "identity": filiz.json()["player"]["secret"]}
        assert post(device(client), "/api/tables/unrated", asked).json()["unrated"] == {}
        game = rated_game(client, ("Efe", efe_secret), ("Filiz", filiz.json()["player"]["secret"]))
        assert game["state"]["unrated"] is None and game["state"]["ratings"] is not None
        record = read_record(client.get(f"/api/tables/{game['state']['id']}/record").text)
        assert record.extra["Rated"] == "yes"


def test_accounts_need_age_and_games_before_a_household_is_rated(database: Path) -> None:
    same = IdentityRules(per_hour=1000, same_address=DAY, account_age=DAY, account_games=0)
    with server(database, identities=same) as client:
        a = post(client, "/api/account/register", {"nickname": "Gül", "password": PASSWORD})
        b = post(
            device(client), "/api/account/register", {"nickname": "Hale", "password": PASSWORD}
        )
        game = rated_game(
            client, ("Gül", a.json()["player"]["secret"]), ("Hale", b.json()["player"]["secret"])
        )
        assert game["state"]["unrated"] == "same-address"


def test_repeated_games_between_one_pair_move_the_ratings_less_each_time(
    database: Path,
) -> None:
    assert [repeat_weight(n) for n in range(4)] == [1.0, 0.5, 0.25, 0.125]
    fresh = rate_game([Rating(), Rating()], [1, 2])
    third = rate_game([Rating(), Rating()], [1, 2], [[0, 2], [2, 0]])
    assert fresh[0].rating - 1500 > 2 * (third[0].rating - 1500) > 0
    with server(database) as client:
        first = rated_game(client, ("Ilke", None), ("Jale", None))
        ilke, jale = first["white"]["secret"], first["black"]["secret"]
        gains = [first["state"]["ratings"][0]["change"]]
        for _ in range(3):
            game = rated_game(client, ("Ilke", ilke), ("Jale", jale))
            gains.append(game["state"]["ratings"][0]["change"])
        assert gains[0] > gains[1] > gains[2] > gains[3] > 0
        assert gains[3] < gains[0] / 4


def test_a_profile_pages_games_and_shows_own_games_in_progress(database: Path) -> None:
    with server(database) as client:
        first = rated_game(client, ("Kaan", None), ("Lale", None))
        kaan = first["white"]["secret"]
        for _ in range(21):
            rated_game(client, ("Kaan", kaan), ("Lale", first["black"]["secret"]))
        waiting = post(
            client,
            "/api/tables",
            {
                "variant": "classic-2",
                "seats": [ONLINE, ONLINE],
                "nickname": "Kaan",
                "identity": kaan,
            },
        ).json()
        page = client.get("/api/players/kaan").json()
        assert page["played"] == 22 and page["won"] == 22 and page["more"]
        assert len(page["games"]) == 20 and page["in_progress"] is None
        assert page["games"][0]["at"] >= page["games"][-1]["at"]
        second = client.get("/api/players/kaan", params={"page": 1}).json()
        assert len(second["games"]) == 2 and not second["more"]
        own = client.get("/api/players/kaan", headers={"X-Sternhalma-Identity": kaan}).json()
        assert [g["id"] for g in own["in_progress"]] == [waiting["id"]]
        assert client.get("/api/players/nobody-here").status_code == 404
        shown = client.get(
            "/api/ratings/of",
            params={"category": "classic-2", "players": f"{first['white']['id']},unknown"},
        ).json()
        assert shown["ratings"][first["white"]["id"]]["games"] == 22
        assert shown["ratings"]["unknown"] == {"rating": 1500, "games": 0, "provisional": True}


def test_the_data_page_downloads_games_and_deletes_the_account(database: Path) -> None:
    with server(database) as client:
        made = post(client, "/api/account/register", {"nickname": "Mert", "password": PASSWORD})
        secret = made.json()["player"]["secret"]
        game = rated_game(client, ("Mert", secret), ("Nil", None))
        rated_game(client, ("Mert", secret), ("Nil", game["black"]["secret"]))
        download = client.get("/api/account/games")
        assert download.status_code == 200
        assert download.text.count('[White "Mert"]') == 2
        assert device(client).get("/api/account/games").status_code == 401
        refused = post(client, "/api/account/delete", {"password": "not my password"})
        assert refused.status_code == 401
        deleted = post(client, "/api/account/delete", {"password": PASSWORD})
        assert deleted.status_code == 200, deleted.text
        assert client.get("/api/account").json()["player"] is None
        assert client.get("/api/players/Mert").status_code == 404
        record = client.get(f"/api/tables/{game['state']['id']}/record").text
        assert '[White "deleted"]' in record
        nil = client.get("/api/players/Nil").json()
        assert nil["played"] == 2
        board = client.get("/api/ratings", params={"category": "classic-2"}).json()
        names = {p["nickname"] for c in board["categories"] for p in c["players"]}
        assert names == {"Nil"}
        # Nobody may take the name deleted accounts are shown under.
        taken = post(
            device(client), "/api/account/register", {"nickname": "Deleted", "password": PASSWORD}
        )
        assert taken.json()["code"] == "nickname"
        # The nickname is free again.
        again = post(
            device(client), "/api/account/register", {"nickname": "Mert", "password": PASSWORD}
        )
        assert again.status_code == 200


def test_address_hashes_are_keyed_by_the_deployment_secret(database: Path) -> None:
    with server(database) as client:
        post(
            client,
            "/api/tables",
            {"variant": "classic-2", "seats": [ONLINE, ONLINE], "nickname": "Oya"},
        )
    with sqlite3.connect(database) as db:
        key = db.execute("SELECT value FROM deployment WHERE name = 'address-secret'").fetchone()
        hashed = db.execute("SELECT address_hash FROM players").fetchone()[0]
    assert key is not None and len(key[0]) >= 40
    import hashlib
    import hmac

    expected = hmac.new(key[0].encode(), b"address testclient", hashlib.sha256).hexdigest()
    assert hashed == expected
    assert hashed != hashlib.sha256(b"sternhalma address testclient").hexdigest()
    with server(database, address_secret="given secret") as client:
        post(
            client,
            "/api/tables",
            {"variant": "classic-2", "seats": [ONLINE, ONLINE], "nickname": "Pelin"},
        )
    with sqlite3.connect(database) as db:
        row = db.execute("SELECT address_hash FROM players WHERE nickname='Pelin'").fetchone()
    assert row[0] == hmac.new(b"given secret", b"address testclient", hashlib.sha256).hexdigest()
