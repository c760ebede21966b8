"""A new user's walk: the lobby, a table of each game, and an online table with a friend.

Each stop checks what such a person would notice first (the header, the help, the
move list, putting a piece back, the hole names, the rematch, the record) and leaves
a screenshot in artifacts/walk-*.png for people to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect

from e2e.test_online import create_online, join, play_any, player
from e2e.test_web import MOVES, hole, open_lobby, status
from sternhalma.records import read_record


def start_from_lobby(page: Page, game: str) -> None:
    page.get_by_role("link", name="New game").click()
    page.get_by_role("radio", name=game, exact=True).check()
    page.get_by_role("button", name="Start").click()
    expect(page.locator(".hole").first).to_be_attached()


def record_of(page: Page) -> str:
    expect(page.locator("#result")).to_be_visible()
    return page.request.get(page.evaluate("document.querySelector('#download').href")).text()


def test_a_new_users_walk_through_every_game_and_an_online_table(
    page: Page, browser: Browser, server: str, artifacts: Path
) -> None:
    open_lobby(page, server)
    expect(page.locator(".brand")).to_have_text("Chinese checkers")
    page.screenshot(path=artifacts / "walk-1-lobby.png", full_page=True)

    # Chinese checkers against the computer: play, see the round, read the names.
    start_from_lobby(page, "Chinese checkers")
    expect(page.locator(".brand")).to_have_text("Chinese checkers")
    expect(page.locator("#keys")).to_contain_text("Left and Right go along the row")
    hole(page, "k4").click()
    hole(page, "k4").click()  # changed my mind: it goes back
    expect(page.locator(".hole.selected")).to_have_count(0)
    hole(page, "k4").click()
    hole(page, "k5").click()
    expect(page.locator(MOVES)).to_have_count(2)
    expect(page.locator("#move-list li.round")).to_have_count(1)
    page.get_by_role("checkbox", name="Show the hole names").check()
    expect(page.locator(".layer-labels text")).to_have_count(121)
    page.get_by_role("link", name="How to play").click()
    expect(
        page.get_by_role("link", name=re.compile("The full rules of every variant"))
    ).to_have_attribute("href", "/rules.md")
    page.go_back()
    expect(page.locator(MOVES)).to_have_count(2)
    page.screenshot(path=artifacts / "walk-2-chinese-checkers.png", full_page=True)
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("dialog").get_by_role("button", name="Resign").click()
    record = read_record(record_of(page))
    assert record.players == {"white": "Person at this screen", "black": "Computer (Easy)"}

    # Capture: the header says so, a piece picked up goes back on a second click.
    start_from_lobby(page, "Capture Chinese checkers")
    expect(page.locator(".brand")).to_have_text("Capture Chinese checkers")
    piece = page.locator(".hole.movable").first
    name = piece.get_attribute("data-hole")
    piece.click()
    expect(hole(page, name)).to_have_class(re.compile(r"\bselected\b"))
    hole(page, name).click()
    expect(page.locator(".hole.selected")).to_have_count(0)
    expect(status(page)).to_have_text("Your turn: pick a piece.")
    page.screenshot(path=artifacts / "walk-3-capture.png", full_page=True)

    # Halma: the header, files and rows on the board (remembered from the star).
    start_from_lobby(page, "Halma")
    expect(page.locator(".brand")).to_have_text("Halma")
    expect(page.get_by_role("checkbox", name="Show the files and rows")).to_be_checked()
    expect(page.locator(".layer-labels text")).to_have_count(32)
    hole(page, "l2").click()
    hole(page, "k3").click()
    expect(page.locator("#move-list li.round")).to_have_count(1)
    expect(page.locator("#move-list li.round").first).to_contain_text("l2-k3")
    page.screenshot(path=artifacts / "walk-4-halma.png", full_page=True)

    # Online with a friend: the rematch note names the friend, the record the nicknames.
    with player(browser) as ayse, player(browser) as bram:
        link = create_online(ayse, server, "classic-2", 2)
        join(bram, link, "Bram", 1)
        expect(status(ayse)).to_have_text("Your turn: pick a marble.")
        hole(ayse, "k4").click()
        hole(ayse, "k5").click()
        expect(bram.locator(MOVES)).to_have_count(1)
        play_any(bram)  # before everyone has moved there is Abort, not Resign
        expect(ayse.locator(MOVES)).to_have_count(2)
        bram.get_by_role("button", name="Resign").click()
        bram.get_by_role("dialog").get_by_role("button", name="Resign").click()
        expect(ayse.locator("#reason")).to_have_text("White wins. Black resigned.")
        bram.get_by_role("button", name="Rematch").click()
        expect(ayse.locator("#rematch-note")).to_have_text("Bram would like a rematch.")
        ayse.screenshot(path=artifacts / "walk-5-online.png", full_page=True)
        assert read_record(record_of(ayse)).players == {"white": "Ayşe", "black": "Bram"}
