"""The analysis page as a learner meets it: moves by rounds, the review's better move on
the board, a phone-sized screen, and every line in Turkish and Dutch."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from helpers import game_with_a_blunder
from playwright.sync_api import Browser, Page, expect

from sternhalma.records import write_record

MOVES = "#an-moves button[data-ply]"
I18N = Path(__file__).parents[2] / "src/sternhalma/web/i18n"


#: Five moves from a position near the end, the third white's blunder (helpers.py).
GAME, BLUNDER, VERDICT = game_with_a_blunder()
MARK = "?" if VERDICT == "mistake" else "?!"


def finished_record() -> str:
    """The five moves, then black resigns."""
    game = GAME.copy()
    game.resign(1)
    return write_record(game, players=["Ayşe", "Bram"])


def move_text(number: int) -> str:
    """Move ``number`` (from 1) of the game, as the page writes it."""
    return GAME.rules.format_move(GAME.moves[number - 1])


def open_reviewed(page: Page, server: str) -> None:
    """The record through a review's link (made as analysis-link.js makes it); waits for
    the review to finish. Two of the address's reviews a minute: record and review."""
    code = base64.urlsafe_b64encode(finished_record().encode()).decode().rstrip("=")
    page.goto(f"{server}/analysis#review={code}")
    expect(page.locator("#an-progress")).to_have_attribute("value", "5", timeout=90_000)


def test_the_move_list_by_rounds_and_the_better_move_on_the_board(
    page: Page, server: str, artifacts: Path
) -> None:
    open_reviewed(page, server)
    rounds = page.locator("#an-moves li.round")
    expect(rounds).to_have_count(3)
    expect(rounds.nth(0).locator(".round-number")).to_have_text("1.")
    expect(rounds.nth(0).locator("button")).to_have_count(2)
    expect(rounds.nth(1).locator("button").first).to_have_text(BLUNDER + MARK)
    expect(rounds.nth(1).locator("button").first).to_have_attribute(
        "aria-label", f"Round 2: White {BLUNDER}, {VERDICT.capitalize()}"
    )
    expect(rounds.nth(2).locator("button")).to_have_count(1)
    rounds.nth(1).locator("button").nth(1).click()
    expect(page.locator("#an-status")).to_contain_text(f"After move 4 of 5: {move_text(4)}")

    # The review draws the better move of the move shown.
    better = page.locator("svg.board .layer-second polyline.path.better")
    mistake = page.locator(MOVES).nth(2)
    title = mistake.get_attribute("title") or ""
    best = re.search(r"the computer played (\S+)$", title)
    assert best, title
    mistake.click()
    verdict = page.locator("#an-verdict")
    expect(verdict).to_contain_text(f"Move 3, White {BLUNDER}: {VERDICT.capitalize()}.")
    expect(verdict).to_contain_text(f"Better was {best.group(1)}")
    expect(better).to_have_count(1)
    # The line runs through every hole of the better move's path.
    holes = len(best.group(1).split("-"))
    expect(page.locator("svg.board .layer-second .path-dot")).to_have_count(holes - 1)
    page.screenshot(path=artifacts / "analysis-better-move.png", full_page=True)
    # The start, and a move the computer would have played itself, draw no better move.
    page.get_by_role("button", name="First position").click()
    expect(better).to_have_count(0)
    expect(verdict).to_be_empty()
    page.locator(MOVES).nth(1).click()
    expect(verdict).to_contain_text(f"Move 2, Black {move_text(2)}")
    if "Better was" not in verdict.inner_text():
        expect(better).to_have_count(0)


def test_the_analysis_page_on_a_phone_has_no_sideways_scroll_and_opens_at_the_top(
    browser: Browser, server: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = context.new_page()
    try:
        open_reviewed(page, server)
        expect(page.locator("#an-status")).to_contain_text("After move 5 of 5")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.evaluate("window.scrollY") == 0
        page.locator(MOVES).nth(2).click()
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=artifacts / "analysis-phone.png", full_page=True)
    finally:
        context.close()


def english_lines() -> list[str]:
    """The analysis page's English texts: the fixed part of every analysis string long
    enough to tell (a placeholder cuts it), and the result's words."""
    english = json.loads((I18N / "en.json").read_text())
    lines = []
    for key, text in english.items():
        if key.startswith(("analysis.", "moves.", "result.", "ending.resignation")):
            for part in re.split(r"\{\w+\}", text):
                part = part.strip(" .,:()")
                if len(part) >= 8:
                    lines.append(part)
    return lines


def test_every_analysis_line_is_translated(page: Page, server: str) -> None:
    open_reviewed(page, server)
    page.locator(MOVES).nth(2).click()
    expect(page.locator("#an-verdict")).to_contain_text("Better was")
    english = page.locator("#app").inner_text()
    lines = [line for line in english_lines() if line in english]
    assert len(lines) >= 15, lines  # the page says a good deal in English first
    for language, wins in (("tr", "Beyaz kazandı"), ("nl", "Wit wint")):
        page.locator("#language").select_option(language)
        expect(page.locator("html")).to_have_attribute("lang", language)
        expect(page.locator("#an-verdict")).not_to_contain_text("Better was")
        expect(page.locator("#an-info")).to_contain_text(wins)
        shown = page.locator("#app").inner_text()
        left = [line for line in lines if line in shown]
        assert left == [], (language, left)
        for name in ("Ayşe", "Bram"):
            assert name in shown
    page.locator("#language").select_option("en")
