"""Accounts in real browsers (docs/accounts.md): an account made in one browser is logged
into from another with the same rating and games; wrong passwords are refused and
limited; a profile draws the rating graph; two accounts on one address play a rated
game once old enough, and two fresh identities there are told before the game that it
will not be rated.

This server rates games between identities of one address as a deployment does (not
as the other browser tests' server, which rates every game from 127.0.0.1): accounts
count as old enough after ACCOUNT_AGE seconds, without needing rated games first.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from services import Server

from e2e.test_online import hole, play_any, player, rated_games, ready, status

PASSWORD = "a long enough secret"
ACCOUNT_AGE = 2.0


@pytest.fixture(scope="module")
def household(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server that keeps the address rules: one address's fresh identities are not
    rated together, accounts are after ACCOUNT_AGE seconds; 3 wrong passwords an account."""
    folder = tmp_path_factory.mktemp("accounts")
    process = Server(
        str(folder / "tables.db"),
        None,
        folder / "server.log",
        env={
            "STERNHALMA_SAME_ADDRESS_HOURS": "24",
            "STERNHALMA_ACCOUNT_AGE_HOURS": str(ACCOUNT_AGE / 3600),
            "STERNHALMA_ACCOUNT_GAMES": "0",
            "STERNHALMA_MAX_LOGIN_ATTEMPTS": "3",
        },
    )
    process.start()
    try:
        yield process.url
    finally:
        process.stop()


def make_account(page: Page, server: str, nickname: str) -> None:
    ready(page, server + "/account")
    page.locator("#register-nickname").fill(nickname)
    page.locator("#register-password").fill(PASSWORD)
    page.get_by_role("button", name="Make the account").click()
    expect(page.locator("#account-who")).to_have_text(f"Logged in as {nickname}.")


def log_in(page: Page, server: str, nickname: str, password: str = PASSWORD) -> None:
    ready(page, server + "/account")
    page.locator("#login-nickname").fill(nickname)
    page.locator("#login-password").fill(password)
    page.get_by_role("button", name="Log in", exact=True).click()


def create_rated(page: Page, server: str) -> str:
    """A rated online classic-2 table made by this browser's player; its link."""
    ready(page, server + "/")
    table_id = page.evaluate(
        """async () => {
          const api = await import('/static/js/api.js');
          const me = api.identity();
          return (await api.createTable({variant: 'classic-2', rated: true,
            seats: [{kind: 'online'}, {kind: 'online'}], nickname: me ? me.nickname : 'Umut',
            identity: me ? me.secret : null})).id;
        }"""
    )
    link = f"{server}/table/{table_id}"
    page.goto(link)
    expect(page.locator(".hole").first).to_be_attached()
    return link


def kept(page: Page) -> str:
    """The identity this browser keeps, once the page has stored it (it does so after the
    server's answer). A function, not an expression: Playwright polls an expression with
    eval, which the page's Content Security Policy refuses."""
    value = page.wait_for_function("() => localStorage.getItem('sternhalma.identity')").json_value()
    assert value
    return str(value)


def test_an_account_on_two_devices_and_a_rated_game_in_one_household(
    browser: Browser, household: str, artifacts: Path
) -> None:
    with player(browser) as zeynep, player(browser) as yusuf, player(browser) as laptop:
        make_account(zeynep, household, "Zeynep")
        make_account(yusuf, household, "Yusuf")
        time.sleep(ACCOUNT_AGE + 0.5)  # both accounts are old enough now
        link = create_rated(zeynep, household)
        # The lobby says nothing against rating: both are accounts old enough.
        ready(yusuf, household + "/")
        listed = yusuf.locator(f'li[data-table="{link.rsplit("/", 1)[1]}"]')
        expect(listed).to_contain_text("Zeynep (1500?)")
        yusuf.wait_for_load_state("networkidle")
        expect(listed.locator(".unrated-note")).to_have_count(0)
        ready(yusuf, link)
        expect(yusuf.locator("#sit-nickname")).to_have_value("Yusuf")
        yusuf.locator('button.sit[data-seat="1"]').click()
        expect(yusuf.locator(".player").nth(1)).to_contain_text("Yusuf (you)")
        # Ratings next to the names at the table, provisional with "?".
        expect(zeynep.locator(".player").nth(1)).to_contain_text("Yusuf (1500?)")
        hole(zeynep, "k4").click()
        hole(zeynep, "k5").click()
        expect(status(yusuf)).to_have_text("Your turn: pick a marble.")
        play_any(yusuf)
        yusuf.get_by_role("button", name="Resign").click()
        yusuf.get_by_role("dialog").get_by_role("button", name="Resign").click()
        changes = zeynep.locator("#rating-changes")
        expect(changes).to_contain_text(re.compile(r"Zeynep: 1500\? → (\d+)\? \(\+"))
        after = re.search(r"Zeynep: 1500\? → (\d+)\?", changes.inner_text())
        assert after is not None
        # Another device: log in, the same rating and the same game.
        log_in(laptop, household, "zeynep")
        expect(laptop.locator("#account-who")).to_have_text("Logged in as Zeynep.")
        laptop.get_by_role("link", name="My profile").click()
        expect(laptop.locator("#profile-name")).to_have_text("Zeynep")
        expect(laptop.locator(".profile-rating h2")).to_contain_text(f"{after[1]}?")
        expect(laptop.locator("#profile-summary")).to_have_text("1 games played, 1 won.")
        game = laptop.locator("#profile-games .profile-game")
        expect(game).to_have_count(1)
        expect(game).to_contain_text("Zeynep – Yusuf")
        # The record says what happened.
        record = laptop.evaluate(
            "async (id) => (await fetch(`/api/tables/${id}/record`)).text()",
            link.rsplit("/", 1)[1],
        )
        assert '[Rated "yes"]' in record
        laptop.screenshot(path=artifacts / "profile-one-game.png", full_page=True)
        game.get_by_role("link", name="Review on the analysis board").click()
        expect(laptop).to_have_url(re.compile(r"/analysis\?table="))
        # The ratings page lists both, apart from established players.
        laptop.get_by_role("link", name="Ratings").click()
        provisional = laptop.locator('.rating-list[data-provisional="classic-2"]')
        expect(provisional).to_contain_text("Zeynep (you)")
        expect(provisional).to_contain_text("Yusuf")
        expect(laptop.get_by_text("No rated game has been played yet.")).to_have_count(0)

        # A few more rated games: the profile draws the rating over time.
        rated_games(household, kept(zeynep), kept(yusuf), 3)
        laptop.goto(household + "/@/Zeynep")
        graph = laptop.locator(".profile-rating svg.rating-graph")
        expect(graph).to_be_visible()
        expect(graph.locator("circle")).to_have_count(5)
        assert laptop.locator("link[href^='http'], script[src^='http']").count() == 0
        laptop.screenshot(path=artifacts / "profile-graph.png", full_page=True)
        # Logging out on the laptop forgets the player there.
        ready(laptop, household + "/account")
        laptop.get_by_role("button", name="Log out").click()
        expect(laptop.locator("#login-form")).to_be_visible()
        assert laptop.evaluate("localStorage.getItem('sternhalma.identity')") is None


def test_a_wrong_password_is_refused_and_the_limit_holds(
    browser: Browser, household: str, artifacts: Path
) -> None:
    with player(browser) as owner, player(browser) as stranger:
        make_account(owner, household, "Wen")
        for _ in range(3):
            log_in(stranger, household, "Wen", "not the password")
            expect(stranger.locator("#account-message")).to_have_text(
                "That nickname and password do not match."
            )
        log_in(stranger, household, "Wen")
        expect(stranger.locator("#account-message")).to_contain_text("Too many wrong passwords")
        expect(stranger.locator("#logged-in")).to_be_hidden()
        stranger.screenshot(path=artifacts / "login-limited.png", full_page=True)
        # The owner's own session is untouched.
        owner.reload()
        expect(owner.locator("#account-who")).to_have_text("Logged in as Wen.")


def test_fresh_identities_on_one_address_are_told_before_the_game(
    browser: Browser, household: str, artifacts: Path
) -> None:
    with player(browser) as umut, player(browser) as vera:
        link = create_rated(umut, household)
        table = link.rsplit("/", 1)[1]
        ready(vera, household + "/")
        note = vera.locator(f'li[data-table="{table}"] .unrated-note')
        expect(note).to_have_text(
            re.compile(r"^Not rated if you sit down: you and a player here come from one address")
        )
        vera.screenshot(path=artifacts / "lobby-unrated-note.png", full_page=True)
        ready(vera, link)
        expect(vera.locator("#table-info")).to_contain_text("Not rated if you sit down")
        vera.locator("#sit-nickname").fill("Vera")
        vera.locator('button.sit[data-seat="1"]').click()
        expect(vera.locator("#table-info")).to_contain_text("Not rated:")
        assert json.loads(kept(vera))["nickname"] == "Vera"
