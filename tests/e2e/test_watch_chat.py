"""Browser tests of issue 23: a spectator opens a game from the live list, a player
closes the tab and the other claims the win after the countdown, and the chat between
two pages, where a hostile line stays text.

These run on a server of their own whose absence before a claim is 3 seconds
(``STERNHALMA_ABSENT_CLAIM``), so the countdown ends within the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect
from services import Server

from e2e.test_online import create_online, join, play_any, player, ready

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("e2e-claims")
    process = Server(str(folder / "tables.db"), None, folder / "server.log")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("STERNHALMA_ABSENT_CLAIM", "3")
        process.start()
    try:
        yield process.url
    finally:
        process.stop()


def test_a_spectator_watches_from_the_live_list_and_the_chat_is_text(
    browser: Browser, quick: str, artifacts: Path
) -> None:
    with player(browser) as ayse, player(browser) as bram, player(browser) as carla:
        # With nothing live the Watch page says so and offers a game; it keeps looking.
        ready(carla, quick + "/watch")
        expect(carla.get_by_role("heading", name="Watch")).to_be_visible()
        expect(carla.locator("#watch-note")).to_have_text("Nobody is playing online right now.")
        expect(carla.get_by_role("link", name="Start a game")).to_be_visible()
        link = create_online(ayse, quick, "classic-2", 2)
        join(bram, link, "Bram", 1)
        play_any(ayse)
        table_id = link.rsplit("/", 1)[1]
        # The game that started is shown there without a reload.
        expect(carla.locator("#watch-table")).to_have_attribute("data-table", table_id)
        expect(carla.get_by_role("link", name="Start a game")).to_be_hidden()
        expect(carla.get_by_role("heading", name="Watch")).to_be_hidden()
        # The spectator finds the game in the lobby's live list and opens it.
        ready(carla, quick + "/")
        game = carla.locator(f'.live-games li[data-table="{table_id}"]')
        expect(game).to_contain_text("Ayşe")
        expect(game).to_contain_text("move 2")
        game.locator("a.button").click()
        expect(carla.locator("#watching")).to_contain_text("You are watching")
        expect(carla.locator("#move-list button[data-ply]")).to_have_count(1)
        expect(ayse.locator("#watching")).to_contain_text("Spectators: 1")
        # The players chat; a hostile line is shown as text and runs nothing.
        dialogs: list[str] = []
        bram.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        ayse.locator("#chat-text").fill(HOSTILE)
        ayse.locator("#chat-form button").click()
        said = bram.locator("#chat-lines .chat-said")
        expect(said).to_have_text(HOSTILE)
        expect(bram.locator("#chat-lines img")).to_have_count(0)
        bram.locator("#chat-text").fill("good luck")
        bram.locator("#chat-form button").press("Enter")
        bram.locator("#chat-text").press("Enter")
        expect(ayse.locator("#chat-lines .chat-said").last).to_have_text("good luck")
        # The spectator has no nickname here: it reads the spectators' room only.
        expect(carla.locator("#chat-title")).to_have_text("Chat (spectators)")
        expect(carla.locator("#chat-lines li")).to_have_count(0)
        # Kept with the table: a reload shows what was said.
        bram.reload()
        expect(bram.locator("#chat-lines .chat-said").first).to_have_text(HOSTILE)
        assert dialogs == []
        ayse.screenshot(path=str(artifacts / "watch-chat.png"))
        # The Watch page follows the best-rated live game: this one, the only one.
        ready(carla, quick + "/watch")
        expect(carla.locator("#watch-table")).to_have_attribute("data-table", table_id)
        expect(carla.locator("#watch-table #move-list button[data-ply]")).to_have_count(1)
        # When it ends, the page looks at the result, then shows that nothing is live.
        ayse.locator("#abort").click()
        ayse.get_by_role("dialog").get_by_role("button", name="Abort").click()
        expect(carla.locator("#watch-table #result")).to_be_visible()
        expect(carla.locator("#watch-note")).to_have_text(
            "Nobody is playing online right now.", timeout=15_000
        )
        expect(carla.get_by_role("link", name="Start a game")).to_be_visible()
        carla.get_by_role("link", name="Start a game").click()
        expect(carla.get_by_role("heading", name="Start a game")).to_be_visible()


def test_a_player_closes_the_tab_and_the_other_claims_the_win(
    browser: Browser, quick: str, artifacts: Path
) -> None:
    with player(browser) as ayse:
        with player(browser) as bram:
            link = create_online(ayse, quick, "classic-2", 2)
            join(bram, link, "Bram", 1)
            # Before the first move everyone sees how long the first move may take.
            expect(ayse.locator(".countdown-first-move")).to_contain_text("for a first move")
            expect(bram.locator(".countdown-first-move")).to_contain_text("White has")
            play_any(ayse)
            expect(bram.locator(".hole.movable").first).to_be_attached()
            play_any(bram)
            expect(ayse.locator("#move-list button[data-ply]")).to_have_count(2)
        # Bram closed the tab: Ayşe sees the countdown, then the claims.
        expect(ayse.locator(".countdown-absent")).to_contain_text("Black left the table")
        claim = ayse.locator('button[data-claim="win"]')
        expect(claim).to_be_visible(timeout=10_000)
        expect(ayse.locator('button[data-claim="draw"]')).to_be_visible()
        ayse.screenshot(path=str(artifacts / "watch-claim.png"))
        claim.click()
        expect(ayse.locator("#result")).to_be_visible()
        expect(ayse.locator("#reason")).to_contain_text("Black left the game")
        expect(ayse.locator(".countdown")).to_have_count(0)
