"""Passkeys (docs/accounts.md "Passkeys"): the server side of both WebAuthn ceremonies
against a software authenticator that signs for real (tests/passkey_authenticator.py):
a passkey added on one device logs in on another as a password does; a wrong
challenge, a replayed answer, an unknown or removed passkey, another site's origin
are refused, and refused passkey log-ins count against the password limits."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from passkey_authenticator import Authenticator
from test_accounts import PASSWORD, database, device, post, rated_game, server

from sternhalma.server.accounts.service import AccountRules

__all__ = ["database"]  # the fixture, used by name

ORIGIN = "http://localhost"


def add_passkey(client: Any, key: Authenticator, name: str | None = None) -> dict[str, Any]:
    begun = post(client, "/api/account/passkeys/options", {"name": name, "password": PASSWORD})
    assert begun.status_code == 200, begun.text
    options = begun.json()["options"]
    assert options["rp"]["id"] == "localhost"
    assert options["authenticatorSelection"]["residentKey"] == "required"
    answer = key.create(options)
    added = post(
        client,
        "/api/account/passkeys",
        {"ceremony": begun.json()["ceremony"], "credential": answer},
    )
    assert added.status_code == 200, added.text
    return dict(added.json()["passkey"])


def login_options(client: Any) -> dict[str, Any]:
    begun = post(client, "/api/account/passkey-login/options", {})
    assert begun.status_code == 200, begun.text
    return dict(begun.json())


def passkey_login(client: Any, ceremony: str, credential: dict[str, Any]) -> Any:
    return post(
        client, "/api/account/passkey-login", {"ceremony": ceremony, "credential": credential}
    )


def test_a_passkey_added_on_one_device_logs_in_on_another(database: Path) -> None:
    with server(database) as phone:
        game = rated_game(phone, ("Ayla", None), ("Bora", None))
        made = post(
            phone,
            "/api/account/register",
            {"nickname": "Ayla", "password": PASSWORD, "identity": game["white"]["secret"]},
        )
        assert made.status_code == 200
        key = Authenticator(ORIGIN)
        added = add_passkey(phone, key, "  my   phone ")
        assert added["name"] == "my phone" and added["used"] is None
        assert phone.get("/api/account/passkeys").json()["passkeys"] == [added]
        # The same passkey cannot be added twice (the options exclude it, too).
        again = post(phone, "/api/account/passkeys/options", {"password": PASSWORD}).json()
        assert [c["id"] for c in again["options"]["excludeCredentials"]] == [added["id"]]

        laptop = device(phone)
        begun = login_options(laptop)
        assert begun["options"]["rpId"] == "localhost"
        assert begun["options"]["allowCredentials"] == []  # discoverable: no nickname asked
        logged = passkey_login(laptop, begun["ceremony"], key.get(begun["options"]))
        assert logged.status_code == 200, logged.text
        player = logged.json()["player"]
        assert player["id"] == game["white"]["id"] and player["nickname"] == "Ayla"
        cookie = logged.headers["set-cookie"]
        assert "sternhalma_session=" in cookie and "HttpOnly" in cookie
        # The same session as a password's: the account pages and the same rating...
        assert laptop.get("/api/account").json()["player"]["nickname"] == "Ayla"
        [rating] = laptop.get("/api/players/Ayla").json()["ratings"]
        assert rating["rating"] == game["state"]["ratings"][0]["after"]
        # ...and the play secret sits the player down as herself.
        again_game = rated_game(
            phone, ("Ayla", player["secret"]), ("Bora", game["black"]["secret"])
        )
        assert again_game["white"]["id"] == player["id"]
        [listed] = laptop.get("/api/account/passkeys").json()["passkeys"]
        assert listed["used"] is not None
        # Removed, the passkey logs in no more.
        other = Authenticator(ORIGIN)
        assert (
            post(laptop, "/api/account/passkeys/remove", {"id": other.credential_id.hex()}).json()[
                "code"
            ]
            == "passkey-unknown"
        )
        removed = post(laptop, "/api/account/passkeys/remove", {"id": added["id"]})
        assert removed.status_code == 200
        assert laptop.get("/api/account/passkeys").json()["passkeys"] == []
        begun = login_options(device(phone))
        gone = passkey_login(device(phone), begun["ceremony"], key.get(begun["options"]))
        assert gone.status_code == 401 and gone.json()["code"] == "passkey-unknown"


def test_bad_replayed_and_unknown_answers_are_refused(database: Path) -> None:
    with server(database) as client:
        post(client, "/api/account/register", {"nickname": "Cenk", "password": PASSWORD})
        key = Authenticator(ORIGIN)
        add_passkey(client, key)
        stranger = device(client)
        # A body that is no JSON object.
        listed = stranger.post("/api/account/passkey-login", json=["ceremony"])
        assert listed.status_code == 400 and "send a JSON object" in listed.text
        # An answer signed for another ceremony's challenge.
        first, second = login_options(stranger), login_options(stranger)
        crossed = passkey_login(stranger, second["ceremony"], key.get(first["options"]))
        assert crossed.status_code == 401 and crossed.json()["code"] == "passkey-refused"
        assert "challenge" in crossed.json()["message"]
        # A good answer works once; replayed, its ceremony is gone.
        begun = login_options(stranger)
        answer = key.get(begun["options"])
        assert passkey_login(stranger, begun["ceremony"], answer).status_code == 200
        post(stranger, "/api/account/logout", {})
        replayed = passkey_login(stranger, begun["ceremony"], answer)
        assert replayed.status_code == 400 and replayed.json()["code"] == "passkey-expired"
        # Replayed against a fresh ceremony, the old signature does not match it.
        fresh = login_options(stranger)
        assert (
            passkey_login(stranger, fresh["ceremony"], answer).json()["code"] == "passkey-refused"
        )
        # A signature counter that goes back (a cloned passkey) is refused.
        key.count = 0
        cloned = login_options(stranger)
        refused = passkey_login(stranger, cloned["ceremony"], key.get(cloned["options"]))
        assert (
            refused.json()["code"] == "passkey-refused"
            and "sign count" in refused.json()["message"]
        )
        key.count = 10
        # Another site's page, a tampered signature, a passkey nobody added.
        begun = login_options(stranger)
        phished = passkey_login(
            stranger, begun["ceremony"], key.get(begun["options"], origin="http://evil.example")
        )
        assert phished.json()["code"] == "passkey-refused"
        begun = login_options(stranger)
        tampered = key.get(begun["options"])
        tampered["response"]["signature"] = tampered["response"]["signature"][:-4] + "AAAA"
        assert (
            passkey_login(stranger, begun["ceremony"], tampered).json()["code"] == "passkey-refused"
        )
        begun = login_options(stranger)
        unknown = passkey_login(
            stranger, begun["ceremony"], Authenticator(ORIGIN).get(begun["options"])
        )
        assert unknown.status_code == 401 and unknown.json()["code"] == "passkey-unknown"
        # Nonsense is refused with a clear error, and nothing is logged in.
        assert passkey_login(stranger, "no such ceremony", {"id": "x"}).json()["code"] == (
            "passkey-expired"
        )
        assert passkey_login(stranger, begun["ceremony"], "text").json()["code"] == "passkey"
        assert stranger.get("/api/account").json()["player"] is None
        # Adding needs a session, and the session that asked.
        begun_add = post(client, "/api/account/passkeys/options", {"password": PASSWORD}).json()
        other = device(client)
        post(other, "/api/account/register", {"nickname": "Deniz", "password": PASSWORD})
        stolen = post(
            other,
            "/api/account/passkeys",
            {
                "ceremony": begun_add["ceremony"],
                "credential": Authenticator(ORIGIN).create(begun_add["options"]),
            },
        )
        assert stolen.status_code == 401 and stolen.json()["code"] == "login"
        assert post(stranger, "/api/account/passkeys/options", {}).json()["code"] == "login"
        # A registration answer made for another origin is refused.
        begun_add = post(client, "/api/account/passkeys/options", {"password": PASSWORD}).json()
        wrong_origin = Authenticator(ORIGIN).create(
            begun_add["options"], origin="http://evil.example"
        )
        added = post(
            client,
            "/api/account/passkeys",
            {"ceremony": begun_add["ceremony"], "credential": wrong_origin},
        )
        assert added.json()["code"] == "passkey-refused"
        assert len(client.get("/api/account/passkeys").json()["passkeys"]) == 1


def test_refused_passkey_log_ins_count_against_the_password_limits(database: Path) -> None:
    rules = AccountRules(per_account=3, per_address=100, window=600)
    with server(database, accounts=rules) as client:
        post(client, "/api/account/register", {"nickname": "Ece", "password": PASSWORD})
        key = Authenticator(ORIGIN)
        add_passkey(client, key)
        stranger = device(client)
        # Two wrong passwords and one refused passkey answer use up the account's three.
        for _ in range(2):
            wrong = post(
                stranger, "/api/account/login", {"nickname": "Ece", "password": "nope nope"}
            )
            assert wrong.status_code == 401
        begun = login_options(stranger)
        bad = key.get(begun["options"], origin="http://evil.example")
        assert passkey_login(stranger, begun["ceremony"], bad).json()["code"] == "passkey-refused"
        begun = login_options(stranger)
        held = passkey_login(stranger, begun["ceremony"], key.get(begun["options"]))
        assert held.status_code == 429 and held.json()["code"] == "too-many-attempts"
        held = post(stranger, "/api/account/login", {"nickname": "Ece", "password": PASSWORD})
        assert held.status_code == 429


def test_a_bare_address_is_told_to_use_the_name_and_public_url_sets_the_party(
    database: Path,
) -> None:
    with server(database) as client:
        refused = client.post(
            "/api/account/passkey-login/options", json={}, headers={"host": "127.0.0.1:8000"}
        )
        assert refused.status_code == 400 and refused.json()["code"] == "passkey-address"
        assert "http://localhost:8000/account" in refused.json()["message"]
    with server(database, public_url="https://halma.example.org") as client:
        begun = login_options(client)
        assert begun["options"]["rpId"] == "halma.example.org"
        post(client, "/api/account/register", {"nickname": "Filiz", "password": PASSWORD})
        key = Authenticator("https://halma.example.org")
        add_passkey_options = post(
            client, "/api/account/passkeys/options", {"password": PASSWORD}
        ).json()
        assert add_passkey_options["options"]["rp"]["id"] == "halma.example.org"
        added = post(
            client,
            "/api/account/passkeys",
            {
                "ceremony": add_passkey_options["ceremony"],
                "credential": key.create(add_passkey_options["options"]),
            },
        )
        assert added.status_code == 200, added.text


def test_deleting_the_account_removes_its_passkeys(database: Path) -> None:
    with server(database) as client:
        post(client, "/api/account/register", {"nickname": "Gül", "password": PASSWORD})
        key = Authenticator(ORIGIN)
        add_passkey(client, key)
        assert post(client, "/api/account/delete", {"password": PASSWORD}).status_code == 200
        begun = login_options(client)
        gone = passkey_login(client, begun["ceremony"], key.get(begun["options"]))
        assert gone.json()["code"] == "passkey-unknown"
    rows = sqlite3.connect(database).execute("SELECT count(*) FROM passkeys").fetchall()
    assert rows == [(0,)]


def test_adding_a_passkey_asks_for_the_password_again(database: Path) -> None:
    """A session left open on a shared computer is not enough to add a way in."""
    with server(database) as client:
        post(client, "/api/account/register", {"nickname": "Ece", "password": PASSWORD})
        assert post(client, "/api/account/passkeys/options", {}).json()["code"] == "password"
        wrong = post(client, "/api/account/passkeys/options", {"password": "not-the-password"})
        assert wrong.json()["code"] == "wrong-password" and "ceremony" not in wrong.json()
        assert client.get("/api/account/passkeys").json()["passkeys"] == []
        # The right password: the ceremony starts and the passkey is added.
        add_passkey(client, Authenticator(ORIGIN), "laptop")
        assert len(client.get("/api/account/passkeys").json()["passkeys"]) == 1
