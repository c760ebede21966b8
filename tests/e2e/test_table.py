"""The table's finer points in a real browser: the keyboard, the picked-up piece, hole
names, the header, the move list by rounds, and an unknown table."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from e2e.test_web import EASY, MOVES, PERSON, hole, open_lobby, start_table, status

#: Only i9 has a loop: over j9, j10 and i10 and back, capturing all three.
LOOP = {
    "variant": "capture-2",
    "turn": "white",
    "pieces": ["i9", "j9", "i10", "j10"],
    "captured": {"white": 28, "black": 28},
}

#: Every arrow, with and without Shift, pressed on every hole by the page's own handler.
PRESS_EVERY_KEY = """() => {
  const reached = {};
  for (const node of document.querySelectorAll("svg.board .hole")) {
    const from = node.dataset.hole;
    reached[from] = [];
    for (const key of ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"]) {
      for (const shiftKey of [false, true]) {
        node.focus();
        node.dispatchEvent(new KeyboardEvent("keydown", { key, shiftKey, bubbles: true }));
        reached[from].push(document.activeElement.dataset.hole);
      }
    }
  }
  return reached;
}"""


def neighbours(page: Page, board: str) -> dict[str, set[str]]:
    """Each hole's neighbours from the server's geometry: 1 apart on the star, and the
    diagonals (√2 apart) too on the square."""
    geometry = page.request.get(page.url.split("/table/")[0] + "/api/variants").json()
    names, xy = geometry["boards"][board]["names"], geometry["boards"][board]["xy"]
    reach = 1.5 if board == "square" else 1.1
    return {
        a: {b for b, q in zip(names, xy, strict=True) if a != b and math.dist(p, q) < reach}
        for a, p in zip(names, xy, strict=True)
    }


def test_one_arrow_press_reaches_every_neighbour_on_the_star_and_the_square(
    page: Page, server: str
) -> None:
    for variant, seats, board, pairs in (
        ("classic-2", [PERSON, EASY], "star", 624),
        ("classic-3", [EASY, PERSON, EASY], "star", 624),  # the board turned for blue
        ("halma-2", [PERSON, EASY], "square", 1860),
    ):
        start_table(page, server, variant, seats)
        expect(page.locator(".player.turn")).to_have_count(1)
        reached = page.evaluate(PRESS_EVERY_KEY)
        near = neighbours(page, board)
        assert sum(len(n) for n in near.values()) == pairs
        for name, targets in reached.items():
            moved = {t for t in targets if t != name}
            assert moved == near[name], (variant, name, sorted(moved), sorted(near[name]))

    # The scheme on the star: along the row, and Up keeps to the middle (Shift: the other).
    start_table(page, server, "classic-2", [PERSON, EASY])
    hole(page, "i9").focus()
    for key, expected in (
        ("ArrowRight", "j9"),
        ("ArrowLeft", "i9"),
        ("ArrowUp", "h10"),
        ("ArrowRight", "i10"),
        ("ArrowLeft", "h10"),
        ("ArrowDown", "i9"),
        ("Shift+ArrowUp", "i10"),
    ):
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.dataset.hole") == expected, key
    expect(page.locator("#keys")).to_contain_text("Up and Down go to the hole above or below")


def test_escape_puts_the_marble_back_after_a_hint(page: Page, server: str) -> None:
    start_table(page, server, "classic-2", [PERSON, EASY])
    page.get_by_role("button", name="Hint").click()
    expect(page.locator(".hole.selected")).to_have_count(1)
    expect(page.get_by_role("button", name="Hint")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator(".hole.selected")).to_have_count(0)
    expect(page.locator(".layer-path polyline")).to_have_count(0)
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    # From the page itself, with no hole focused, too.
    hole(page, "k4").click()
    page.locator("#moves-title").click()
    page.keyboard.press("Escape")
    expect(page.locator(".hole.selected")).to_have_count(0)


def test_a_click_on_the_picked_up_piece_puts_it_back_even_when_a_loop_ends_there(
    page: Page, server: str
) -> None:
    start_table(page, server, "capture-2", [PERSON, PERSON], start=LOOP)
    loop = page.locator("#loop")
    hole(page, "j9").click()
    expect(hole(page, "j9")).to_have_class(re.compile(r"\bselected\b"))
    expect(loop).to_be_hidden()  # no loop from j9
    hole(page, "i9").click()
    expect(hole(page, "i9")).to_have_class(re.compile(r"\bselected\b"))
    expect(hole(page, "i9")).not_to_have_class(re.compile(r"\btarget\b"))
    expect(hole(page, "i9")).to_have_attribute(
        "aria-label", "i9, piece, picked up, a loop can come back here"
    )
    expect(loop).to_have_text("Play the loop back to i9")
    hole(page, "i9").click()  # put back, as in the race games
    expect(page.locator(".hole.selected")).to_have_count(0)
    expect(loop).to_be_hidden()
    expect(page.locator(MOVES)).to_have_count(0)

    hole(page, "i9").click()
    loop.click()  # both ways round capture the same pieces: one move
    expect(page.locator(MOVES)).to_have_count(1)
    expect(page.locator(MOVES).first).to_contain_text(re.compile(r"i9-(i11-k9|k9-i11)-i9"))
    expect(page.locator(".player").first).to_contain_text("31 captured")


def test_hole_names_on_the_board_and_files_and_rows_on_the_square(
    page: Page, server: str, artifacts: Path
) -> None:
    start_table(page, server, "classic-2", [PERSON, EASY])
    names = page.get_by_role("checkbox", name="Show the hole names")
    expect(names).not_to_be_checked()
    expect(page.locator(".layer-labels text")).to_have_count(0)
    names.check()
    expect(page.locator(".layer-labels text")).to_have_count(121)
    expect(page.locator(".layer-labels text", has_text=re.compile("^m1$"))).to_have_count(1)
    page.screenshot(path=artifacts / "table-hole-names.png", full_page=True)

    start_table(page, server, "halma-2", [PERSON, EASY])  # the choice is remembered
    expect(page.get_by_role("checkbox", name="Show the files and rows")).to_be_checked()
    labels = page.locator(".layer-labels text")
    expect(labels).to_have_count(32)
    texts = set(labels.all_text_contents())
    assert texts == {chr(ord("a") + i) for i in range(16)} | {str(n) for n in range(1, 17)}
    # Files under the bottom row, rows left of the leftmost column: outside the board.
    board = page.locator("svg.board").bounding_box()
    a_file = page.locator(".layer-labels text", has_text=re.compile("^a$")).bounding_box()
    assert board is not None and a_file is not None
    assert a_file["y"] + a_file["height"] <= board["y"] + board["height"] + 1
    page.screenshot(path=artifacts / "halma-files-rows.png", full_page=True)
    page.get_by_role("checkbox", name="Show the files and rows").uncheck()
    expect(labels).to_have_count(0)


def test_the_header_names_the_game_of_the_table(page: Page, server: str) -> None:
    for variant, game in (
        ("halma-2", "Halma"),
        ("capture-2", "Capture Chinese checkers"),
        ("classic-2", "Chinese checkers"),
    ):
        start_table(page, server, variant, [PERSON, EASY])
        expect(page.locator(".brand")).to_have_text(game)
        expect(page).to_have_title(re.compile(f"^{game} · "))
    page.get_by_role("link", name="New game").click()
    expect(page.locator(".brand")).to_have_text("Chinese checkers")
    start_table(page, server, "halma-2", [PERSON, EASY])
    page.locator("#language").select_option("nl")
    expect(page.locator("html")).to_have_attribute("lang", "nl")  # loaded and remembered
    expect(page.locator(".brand")).to_have_text("Halma")
    expect(page.locator("#table-title")).to_have_text("Halma · Met twee")
    start_table(page, server, "capture-2", [PERSON, EASY])
    expect(page.locator(".brand")).to_have_text("Chinees dammen met slaan")
    page.locator("#language").select_option("en")


def test_an_unknown_table_shows_no_table_buttons(page: Page, server: str) -> None:
    open_lobby(page, server)
    page.goto(server + "/table/nosuchtable")
    expect(page.get_by_role("heading", name="This table does not exist.")).to_be_visible()
    expect(page.get_by_role("link", name="Back to the lobby")).to_be_visible()
    expect(page.locator("main button")).to_have_count(0)
    expect(page.locator("svg.board")).to_have_count(0)
    page.get_by_role("link", name="Back to the lobby").click()
    expect(page.get_by_role("heading", name="Start a game")).to_be_visible()


def rounds(page: Page) -> Any:
    return page.locator("#move-list li.round")


def test_the_move_list_has_a_row_per_round(page: Page, server: str) -> None:
    start_table(page, server, "classic-3", [PERSON, EASY, EASY])
    hole(page, "k4").click()
    hole(page, "k5").click()
    expect(page.locator(MOVES)).to_have_count(3)
    expect(rounds(page)).to_have_count(1)
    expect(rounds(page).first.locator(".round-number")).to_have_text("1.")
    expect(rounds(page).first.locator("button")).to_have_count(3)
    expect(rounds(page).first.locator("button").first).to_have_attribute(
        "aria-label", "Round 1: White k4-k5"
    )
    page.locator(".hole.movable").first.click()
    page.locator(".hole.target").first.click()
    expect(page.locator(MOVES)).to_have_count(6)
    expect(rounds(page)).to_have_count(2)
    expect(rounds(page).nth(1).locator(".round-number")).to_have_text("2.")
    # Looking back still goes by move: the fourth move is round 2's first.
    rounds(page).nth(1).locator("button").first.click()
    expect(status(page)).to_have_text("Looking at the position after move 4.")
