"""The seek pool in real browsers: players who never shared a link press "Play online",
are paired or fill a table, land at it already seated and play; also with two
server processes on PostgreSQL + Redis, each player on another process.

Every player is a browser context of its own (its own identity and seat tokens).
The servers here are this module's own: computer seats are offered after 2 s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from services import Server, start_cluster

from e2e.test_online import play_any, player, ready, status

YOUR_TURN = "Your turn: pick a marble."
NOBODY_ELSE = "Nobody else is waiting for this game yet."


@pytest.fixture(scope="module")
def pool_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("pool")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STERNHALMA_POOL_COMPUTERS_AFTER", "2")
        process = Server(str(folder / "pool.db"), None, folder / "server.log")
        process.start()
    try:
        yield process.url
    finally:
        process.stop()


def seek(page: Page, server: str, nickname: str, variant: str, clock: str = "5+3") -> None:
    """Open the lobby and wait in the pool for ``variant``."""
    ready(page, server + "/")
    page.locator("#pool-variant").select_option(variant)
    page.locator("#pool-clock").select_option(clock)
    page.locator("#pool-nickname").fill(nickname)
    page.get_by_role("button", name="Play online").click()
    # Waiting, or paired at once with a player who was waiting already.
    page.wait_for_function(
        """() => location.pathname.startsWith("/table/")
            || document.querySelector("#pool-waiting")?.hidden === false"""
    )


def seated(page: Page) -> int:
    """The seat this browser holds at the table it was sent to."""
    expect(page).to_have_url(re.compile(r"/table/[\w-]+$"))
    mine = page.locator(".player", has_text="(you)")
    expect(mine).to_have_count(1)
    players = page.locator(".player")
    for index in range(players.count()):
        if "(you)" in (players.nth(index).text_content() or ""):
            return index
    raise AssertionError("no seat is this browser's")


def play_a_move_each_and_resign(first: Page, second: Page) -> None:
    """The two players of a game: one move each, then the second resigns."""
    expect(status(first)).to_have_text(YOUR_TURN)
    play_any(first)
    expect(status(second)).to_have_text(YOUR_TURN)
    play_any(second)
    second.get_by_role("button", name="Resign").click()
    second.get_by_role("dialog").get_by_role("button", name="Resign").click()
    expect(first.locator("#reason")).to_contain_text("resigned")
    expect(second.locator("#reason")).to_contain_text("resigned")


def test_two_strangers_are_paired_from_the_pool_and_play_to_the_end(
    browser: Browser, pool_server: str, artifacts: Path
) -> None:
    with player(browser) as pia, player(browser) as quinn:
        seek(pia, pool_server, "Pia", "classic-2")
        expect(pia.locator("#pool-count")).to_have_text(NOBODY_ELSE)
        expect(pia.locator('#pool-notes li[data-note="provisional"]')).to_contain_text(
            "provisional (0 of 10 rated games)"
        )
        pia.screenshot(path=artifacts / "pool-waiting.png", full_page=True)
        seek(quinn, pool_server, "Quinn", "classic-2")
        seats = {seated(pia): pia, seated(quinn): quinn}
        assert set(seats) == {0, 1}
        assert pia.url == quinn.url
        expect(pia.locator("#table-info")).to_contain_text("5+3")
        pia.screenshot(path=artifacts / "pool-paired.png", full_page=True)
        play_a_move_each_and_resign(seats[0], seats[1])
        expect(seats[0].locator("#reason")).to_have_text("White wins. Black resigned.")
        expect(seats[0].locator("#rating-changes")).to_contain_text("(+")


def test_a_player_can_leave_the_pool(browser: Browser, pool_server: str) -> None:
    with player(browser) as rita, player(browser) as sam:
        seek(rita, pool_server, "Rita", "classic-3")
        rita.get_by_role("button", name="Leave the pool").click()
        expect(rita.locator("#pool-form")).to_be_visible()
        seek(sam, pool_server, "Sam", "classic-3")
        expect(sam.locator("#pool-count")).to_have_text(NOBODY_ELSE)
        # Closing the page leaves the pool too.
        seek(rita, pool_server, "Rita", "classic-3")
        expect(sam.locator("#pool-count")).to_have_text("1 other is waiting for this game.")
        rita.close()
        expect(sam.locator("#pool-count")).to_have_text(NOBODY_ELSE)


def test_four_players_fill_a_classic_4_table(
    browser: Browser, pool_server: str, artifacts: Path
) -> None:
    with ExitStack() as stack:
        pages = [stack.enter_context(player(browser)) for _ in range(4)]
        for name, page in zip(("Tia", "Uma", "Vic", "Wes"), pages, strict=True):
            seek(page, pool_server, name, "classic-4")
        seats = sorted(seated(page) for page in pages)
        assert seats == [0, 1, 2, 3]
        assert len({page.url for page in pages}) == 1
        expect(pages[0].locator(".player", has_text="Medium")).to_have_count(0)
        pages[0].screenshot(path=artifacts / "pool-four.png", full_page=True)


def test_two_waiting_players_accept_computer_seats_and_play(
    browser: Browser, pool_server: str, artifacts: Path
) -> None:
    with player(browser) as xia, player(browser) as yan:
        seek(xia, pool_server, "Xia", "classic-4")
        seek(yan, pool_server, "Yan", "classic-4")
        for page in (xia, yan):
            expect(page.locator("#pool-offer")).to_be_visible(timeout=10_000)
        expect(xia.locator("#pool-offer-text")).to_contain_text("will not be rated")
        xia.screenshot(path=artifacts / "pool-offer.png", full_page=True)
        xia.get_by_role("button", name="Start with the computer").click()
        expect(xia.locator("#pool-offer-text")).to_contain_text("You agreed")
        yan.get_by_role("button", name="Start with the computer").click()
        seats = {seated(xia): xia, seated(yan): yan}
        assert set(seats) == {0, 2}
        players = xia.locator(".player")
        expect(players.nth(1)).to_contain_text("Medium")
        expect(players.nth(3)).to_contain_text("Medium")
        # White moves, the computer answers, then it is black's turn (seat 2).
        expect(status(seats[0])).to_have_text(YOUR_TURN)
        play_any(seats[0])
        expect(status(seats[2])).to_have_text(YOUR_TURN, timeout=20_000)
        play_any(seats[2])
        expect(seats[0].locator("#move-list button[data-ply]")).to_have_count(3, timeout=20_000)
        xia.screenshot(path=artifacts / "pool-computers.png", full_page=True)


def test_two_players_on_two_server_processes_are_paired(browser: Browser, tmp_path: Path) -> None:
    cluster = start_cluster(tmp_path)
    try:
        with player(browser) as zoe, player(browser) as abe:
            seek(zoe, cluster.a.url, "Zoe", "classic-2", clock="3+2")
            seek(abe, cluster.b.url, "Abe", "classic-2", clock="3+2")
            seats = {seated(zoe): zoe, seated(abe): abe}
            assert set(seats) == {0, 1}
            assert zoe.url.startswith(cluster.a.url) and abe.url.startswith(cluster.b.url)
            assert zoe.url.split("/table/")[1] == abe.url.split("/table/")[1]
            play_a_move_each_and_resign(seats[0], seats[1])
    finally:
        cluster.close()
