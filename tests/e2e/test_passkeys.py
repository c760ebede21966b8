"""Passkeys in Chromium (docs/accounts.md "Passkeys"), with the virtual authenticator of
its DevTools protocol standing in for a phone's: a player with a password adds a
passkey, logs out, logs in with it (no nickname typed) and finds the same profile and
rating; a second device with the same (synced) passkey logs in too; a removed passkey
logs in no more.

WebAuthn takes names, not addresses: the pages are opened at ``localhost`` (the server
listens on 127.0.0.1, and a page at the bare address is told to use the name)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, CDPSession, Page, expect

from e2e.test_accounts import PASSWORD, kept, make_account
from e2e.test_online import player, rated_games, ready


def authenticator(page: Page) -> tuple[CDPSession, str]:
    """A platform authenticator with discoverable credentials and user verification,
    as a phone or laptop has, for this page's browser."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made: dict[str, Any] = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, str(made["authenticatorId"])


def test_a_passkey_logs_in_on_two_devices_and_is_removed(
    browser: Browser, server: str, artifacts: Path
) -> None:
    local = server.replace("127.0.0.1", "localhost")
    with player(browser) as phone, player(browser) as rival, player(browser) as laptop:
        phone_cdp, phone_key = authenticator(phone)
        make_account(phone, local, "Pelin")
        make_account(rival, local, "Rıza")
        rated_games(local, kept(phone), kept(rival), 1)
        ready(phone, local + "/@/Pelin")
        rating = phone.locator(".profile-rating h2").inner_text()
        assert "?" in rating

        # Add a passkey on the phone.
        ready(phone, local + "/account")
        expect(phone.locator("#passkey-list")).to_have_text("No passkeys yet.")
        phone.locator("#passkey-name").fill("My phone")
        phone.locator("#passkey-password").fill(PASSWORD)
        phone.get_by_role("button", name="Add a passkey").click()
        expect(phone.locator("#account-message")).to_have_text(
            "The passkey is added: it logs you in from now on."
        )
        expect(phone.locator("#passkey-list li.passkey")).to_have_count(1)
        expect(phone.locator("#passkey-list")).to_contain_text("My phone — added")
        phone.screenshot(path=artifacts / "passkey-added.png", full_page=True)

        # Log out, and back in with the passkey: no nickname, no password.
        phone.get_by_role("button", name="Log out").click()
        expect(phone.locator("#login-form")).to_be_visible()
        assert phone.evaluate("localStorage.getItem('sternhalma.identity')") is None
        phone.get_by_role("button", name="Log in with a passkey").click()
        expect(phone.locator("#account-message")).to_have_text("You are logged in.")
        expect(phone.locator("#account-who")).to_have_text("Logged in as Pelin.")
        assert '"nickname":"Pelin"' in kept(phone)

        # The laptop has the same passkey, synced as a password manager does (its
        # signature counter with it: a counter that went back would be refused as a clone).
        stored = phone_cdp.send("WebAuthn.getCredentials", {"authenticatorId": phone_key})
        [credential] = stored["credentials"]
        assert credential["isResidentCredential"] and credential["rpId"] == "localhost"
        laptop_cdp, laptop_key = authenticator(laptop)
        laptop_cdp.send(
            "WebAuthn.addCredential", {"authenticatorId": laptop_key, "credential": credential}
        )
        ready(laptop, local + "/account")
        laptop.screenshot(path=artifacts / "passkey-login.png", full_page=True)
        laptop.get_by_role("button", name="Log in with a passkey").click()
        expect(laptop.locator("#logged-in")).to_be_visible()
        expect(laptop.locator("#account-who")).to_have_text("Logged in as Pelin.")
        laptop.get_by_role("link", name="My profile").click()
        expect(laptop.locator("#profile-name")).to_have_text("Pelin")
        expect(laptop.locator(".profile-rating h2")).to_have_text(rating)
        expect(laptop.locator("#profile-summary")).to_have_text("1 games played, 1 won.")

        # Removed on the laptop, the passkey logs in nowhere.
        ready(laptop, local + "/account")
        listed = laptop.locator("#passkey-list li.passkey")
        expect(listed).to_contain_text("last used")
        laptop.once("dialog", lambda dialog: dialog.accept())
        listed.get_by_role("button", name="Remove: My phone").click()
        expect(laptop.locator("#passkey-list")).to_have_text("No passkeys yet.")
        laptop.get_by_role("button", name="Log out").click()
        laptop.get_by_role("button", name="Log in with a passkey").click()
        expect(laptop.locator("#account-message")).to_have_text(
            "This passkey belongs to no account here (it may have been removed)."
        )
        expect(laptop.locator("#logged-in")).to_be_hidden()

        # At the bare address the page says to use the name.
        ready(rival, server + "/account")  # its cookie is localhost's: logged out here
        rival.get_by_role("button", name="Log in with a passkey").click()
        expect(rival.locator("#account-message")).to_contain_text("Passkeys need the server's name")
