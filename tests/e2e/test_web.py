"""A person in a browser: the lobby, tables against the computer and on one screen.

Every test drives the real page with the mouse, the keyboard or touch-sized
screens, and checks what a player would see.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

PERSON = {"kind": "person"}
EASY = {"kind": "computer", "level": "easy"}
MOVES = "#move-list button[data-ply]"

#: White finishes with h13-h14; black, far from its goal, gets its last reply and loses.
NEAR_FINISH = {
    "variant": "classic-2",
    "turn": "white",
    "marbles": {
        "white": ["e14", "f14", "g14", "e15", "f15", "g15", "e16", "f16", "e17", "h13"],
        "black": ["e9", "f9", "g9", "h9", "i9", "j9", "k9", "l9", "m9", "i8"],
    },
}

#: White's 30th move is next: m5-m4 brings a marble back home after the deadline.
DEADLINE_START = {
    "variant": "classic-2",
    "turn": "white",
    "marbles": {
        "white": ["i5", "j5", "k5", "l5", "m5", "i6", "j6", "k6", "l6", "m6"],
        "black": ["e14", "f14", "g14", "h14", "e15", "f15", "g15", "e16", "f16", "e17"],
    },
}


def open_lobby(page: Page, server: str) -> None:
    page.set_default_timeout(15_000)
    page.goto(server + "/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def start_table(
    page: Page, server: str, variant: str, seats: list[dict[str, Any]], **extra: Any
) -> None:
    """A table set up through the page's own API module, so this browser holds its seats."""
    open_lobby(page, server)
    table_id = page.evaluate(
        "async (body) => (await (await import('/static/js/api.js')).createTable(body)).id",
        {"variant": variant, "seats": seats, **extra},
    )
    page.goto(f"{server}/table/{table_id}")
    expect(page.locator(".hole").first).to_be_attached()


def hole(page: Page, name: str) -> Any:
    return page.locator(f'[data-hole="{name}"]')


def status(page: Page) -> Any:
    return page.locator("#status")


def test_new_user_plays_against_easy_with_mouse_and_keyboard(
    page: Page, server: str, artifacts: Path
) -> None:
    open_lobby(page, server)
    expect(page.get_by_role("heading", name="Start a game")).to_be_visible()
    page.screenshot(path=artifacts / "lobby.png", full_page=True)
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    expect(hole(page, "m1")).to_have_attribute("aria-label", "m1, white marble")

    # The mouse: pick k4 up, its steps light up, hovering draws the path, clicking plays.
    hole(page, "k4").click()
    expect(hole(page, "k4")).to_have_class(re.compile(r"\bselected\b"))
    expect(hole(page, "k5")).to_have_class(re.compile(r"\btarget\b"))
    expect(hole(page, "k5")).to_have_attribute("aria-label", "k5, empty, you can move here")
    expect(hole(page, "e5")).to_have_class(re.compile(r"\bdim\b"))  # another point: grey
    hole(page, "k5").hover()
    expect(page.locator(".layer-path polyline")).to_have_count(1)
    hole(page, "k5").click()
    expect(page.locator(MOVES)).to_have_count(2)  # the computer answered
    expect(page.locator(MOVES).first).to_contain_text("k4-k5")
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    expect(hole(page, "k5")).to_have_attribute("aria-label", re.compile("^k5, white marble"))

    # The keyboard only: Tab to a movable marble, Enter, Tab to a lit hole, Enter.
    for _ in range(30):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('movable')"):
            break
    picked = page.evaluate("document.activeElement.dataset.hole")
    assert picked, "Tab never reached a movable marble"
    page.keyboard.press("Enter")
    expect(hole(page, picked)).to_have_class(re.compile(r"\bselected\b"))
    page.keyboard.press("Escape")
    expect(page.locator(".hole.selected")).to_have_count(0)
    page.keyboard.press("Enter")
    for _ in range(10):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('target')"):
            break
    target = page.evaluate("document.activeElement.dataset.hole")
    assert page.evaluate("document.activeElement.classList.contains('target')")
    expect(page.locator(".layer-path polyline")).to_have_count(1)  # the path is shown
    page.keyboard.press("Enter")
    expect(page.locator(MOVES)).to_have_count(4)
    expect(page.locator(MOVES).nth(2)).to_contain_text(f"{picked}-")
    expect(page.locator(MOVES).nth(2)).to_contain_text(target)

    # Arrow keys move the cursor between holes.
    before = page.evaluate("document.activeElement.dataset.hole")
    page.keyboard.press("ArrowUp")
    after = page.evaluate("document.activeElement.dataset.hole")
    assert after and after != before

    # A hint shows a legal move's path and the replies Hard expects (in contact, its
    # principal line); undo takes back my move and the answer.
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    expect(page.locator("#foreseen")).to_be_hidden()
    page.get_by_role("button", name="Hint").click()
    expect(status(page)).to_contain_text("Hint:")
    expect(page.locator(".layer-path polyline.hint")).to_have_count(1)
    expect(page.locator(".hole.target")).not_to_have_count(0)
    expect(page.locator("#foreseen")).to_have_text(
        re.compile(
            r"^It expects Black [a-q]\d+(-[a-q]\d+)+(, (White|Black) [a-q]\d+(-[a-q]\d+)+)*\.$"
        )
    )
    # The board draws the same moves, numbered in turn, each ending on its player's colour.
    said = re.findall(r"(White|Black) ([a-q\d-]+)", page.locator("#foreseen").inner_text())
    drawn = page.locator(".layer-foreseen .foreseen")
    expect(drawn).to_have_count(len(said))
    for i, (colour, path) in enumerate(said):
        step = drawn.nth(i)
        expect(step).to_have_attribute("data-path", path)
        expect(step).to_have_class(re.compile(rf"\bc-{colour.lower()}\b"))
        expect(step.locator("text")).to_have_text(str(i + 1))
    page.screenshot(path=artifacts / "table-hint.png", full_page=True)
    page.get_by_role("button", name="Undo").click()
    expect(page.locator(MOVES)).to_have_count(2)
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    expect(page.locator("#foreseen")).to_be_hidden()
    expect(drawn).to_have_count(0)
    page.screenshot(path=artifacts / "table.png", full_page=True)

    # The move list shows earlier positions.
    page.locator(MOVES).first.click()
    expect(page.locator("#viewing")).to_be_visible()
    expect(status(page)).to_have_text("Looking at the position after move 1.")
    expect(hole(page, "k4")).to_have_attribute("aria-label", "k4, empty")
    page.get_by_role("button", name="Back to the game").click()
    expect(page.locator("#viewing")).to_be_hidden()


def test_a_won_game_counts_in_the_records_but_people_on_one_screen_do_not(
    page: Page, server: str, artifacts: Path
) -> None:
    start_table(page, server, "classic-2", [PERSON, EASY], start=NEAR_FINISH)
    expect(page.locator(".player").first).to_contain_text("9 of 10 marbles home")
    hole(page, "h13").click()
    hole(page, "h14").click()
    result = page.locator("#result")
    expect(result).to_be_visible()
    expect(page.locator("#reason")).to_contain_text("White wins.")
    expect(page.locator("#record-note")).to_have_text("Your records have been updated.")
    page.screenshot(path=artifacts / "table-finished.png", full_page=True)
    page.get_by_role("link", name="Back to the lobby").click()
    row = page.locator('.records tr[data-players="2"]')
    expect(row.locator(".played")).to_have_text("1")
    expect(row.locator(".won")).to_have_text("1")
    expect(row.locator(".fewest")).to_have_text("1")

    # Three people on this screen: play, resign, and the records stay as they were.
    page.locator("#variant").select_option("classic-3")
    for seat in range(3):
        page.locator(f"#seat-{seat}").select_option("person")
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("White to play: pick a marble.")
    page.locator(".hole.movable").first.click()
    page.locator(".hole.target").first.click()
    expect(status(page)).to_have_text("Blue to play: pick a marble.")
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("dialog").get_by_role("button", name="Resign").click()
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#reason")).to_contain_text("Blue resigned.")
    expect(page.locator("#record-note")).to_have_text("")
    page.get_by_role("link", name="Back to the lobby").click()
    page.get_by_role("radio", name="Chinese checkers", exact=True).check()
    expect(page.locator(".records tbody tr")).to_have_count(1)
    expect(page.locator('.records tr[data-players="2"] .played')).to_have_text("1")


def test_turkish_and_dutch(page: Page, server: str) -> None:
    open_lobby(page, server)
    page.locator("#language").select_option("tr")
    expect(page.locator("html")).to_have_attribute("lang", "tr")
    expect(page.get_by_role("heading", level=1)).to_have_text("Bir oyun başlatın")
    expect(page.locator("nav").get_by_role("link", name="Yeni oyun")).to_be_visible()
    expect(page.locator("#seat-1 option:checked")).to_have_text("Bilgisayar: Kolay")
    page.get_by_role("button", name="Başla").click()
    expect(status(page)).to_have_text("Sıra sizde: bir bilye seçin.")
    expect(hole(page, "m1")).to_have_attribute("aria-label", "m1, beyaz bilye")
    expect(page.locator(".player").first).to_contain_text("10 bilyeden 0 tanesi yerinde")

    page.locator("#language").select_option("nl")
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    expect(status(page)).to_have_text("Jij bent aan zet: kies een knikker.")
    expect(hole(page, "m1")).to_have_attribute("aria-label", "m1, witte knikker")
    # Before the first move a game against the computer is abandoned, not resigned.
    expect(page.get_by_role("button", name="Staken")).to_be_visible()
    page.reload()
    expect(status(page)).to_have_text("Jij bent aan zet: kies een knikker.")  # remembered

    page.get_by_role("link", name="Hoe speel je").click()
    expect(page.locator("article.howto h1")).to_have_text("Chinees dammen")
    expect(page.locator("article.howto svg").first).to_be_visible()
    # One page a game, the games named in the page's language.
    expect(page.locator(".howto-nav a")).to_have_text(
        ["Chinees dammen", "Chinees dammen met slaan", "Halma"]
    )
    page.locator(".howto-nav").get_by_role("link", name="Halma").click()
    expect(page).to_have_url(re.compile("/how-to-play/halma$"))
    expect(page.locator("article.howto h1")).to_have_text("Halma")


def test_a_move_in_capture_and_in_halma(page: Page, server: str) -> None:
    open_lobby(page, server)
    page.get_by_role("radio", name="Capture Chinese checkers").check()
    expect(page.locator("#variant")).to_have_value("capture-2")
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("Your turn: pick a piece.")
    expect(hole(page, "i7")).to_have_attribute("aria-label", re.compile("^i7, piece"))
    page.locator(".hole.movable").first.click()
    page.locator(".hole.target").first.click()
    chooser = page.get_by_role("dialog")
    if chooser.count():
        chooser.get_by_role("button").first.click()
    expect(page.locator(MOVES)).to_have_count(2)
    expect(page.locator(".player").first).not_to_contain_text("0 captured")

    page.get_by_role("link", name="New game").click()
    page.get_by_role("radio", name="Halma").check()
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("Your turn: pick a piece.")
    expect(page.locator("svg.board-square")).to_be_visible()
    expect(hole(page, "p1")).to_have_attribute("aria-label", "p1, white piece")
    hole(page, "l2").click()
    hole(page, "k3").click()
    expect(page.locator(MOVES)).to_have_count(2)
    expect(page.locator(MOVES).first).to_contain_text("l2-k3")


def test_the_leaving_home_rule_is_switched_off_for_a_casual_game(page: Page, server: str) -> None:
    open_lobby(page, server)
    rule = page.get_by_role("checkbox", name=re.compile("Leaving-home rule"))
    expect(rule).to_be_checked()
    rule.uncheck()
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    expect(page.locator("#table-info")).to_contain_text("leaving-home rule off")
    # Capture has no homes to leave: no such switch there.
    page.get_by_role("link", name="New game").click()
    page.get_by_role("radio", name="Capture Chinese checkers").check()
    expect(page.locator("#deadline-field")).to_be_hidden()


def test_a_move_that_puts_me_out_asks_first(page: Page, server: str) -> None:
    start_table(
        page, server, "classic-2", [PERSON, PERSON], start=DEADLINE_START, moves_made=[29, 29]
    )
    hole(page, "m5").click()
    hole(page, "m4").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("This move puts you out of the game")
    expect(status(page)).to_have_text("White to play.")  # not "Playing…" while it asks
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    expect(status(page)).to_have_text("White to play: pick a marble.")
    expect(page.locator(MOVES)).to_have_count(0)
    hole(page, "m5").click()
    hole(page, "m4").click()
    page.get_by_role("dialog").get_by_role("button", name="Play it").click()
    expect(page.locator("#reason")).to_contain_text("Black wins. White is out")
    # A rematch is a new table with the same seats and start.
    finished = page.url
    page.get_by_role("button", name="Rematch").click()
    expect(page).not_to_have_url(finished)
    expect(status(page)).to_have_text("White to play: pick a marble.")
    expect(page.locator(MOVES)).to_have_count(0)


def test_phone_sized_screen(browser: Browser, server: str, artifacts: Path) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="en-US"
    )
    try:
        page = context.new_page()
        # Every page fits the screen's width: nothing to scroll sideways (a long
        # variant's name once widened the lobby, the rules' records their page).
        for address in ("/rules", "/learn", "/puzzles", "/ratings"):
            page.goto(server + address)
            expect(page.locator("body")).to_have_attribute("data-ready", "true")
            assert page.evaluate("document.scrollingElement.scrollWidth") <= 390, address
        open_lobby(page, server)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
        page.screenshot(path=artifacts / "lobby-phone.png", full_page=True)
        # A link far down the lobby opens its page at the top, as a loaded page would.
        page.get_by_role("link", name="How to play Halma").tap()
        expect(page.locator("article.howto h1")).to_have_text("Halma")
        assert page.evaluate("window.scrollY") == 0
        page.go_back()
        expect(page.get_by_role("button", name="Start")).to_be_visible()
        page.get_by_role("button", name="Start").tap()
        expect(status(page)).to_have_text("Your turn: pick a marble.")
        board = page.locator("svg.board").bounding_box()
        assert board is not None and 300 < board["width"] <= 390
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 390
        # Holes are big enough to tap, and a tap picks a marble up.
        box = hole(page, "m1").bounding_box()
        assert box is not None and box["width"] >= 18
        hole(page, "l4").tap()
        expect(hole(page, "l5")).to_have_class(re.compile(r"\btarget\b"))
        page.screenshot(path=artifacts / "table-phone.png", full_page=True)
        hole(page, "l5").tap()
        expect(page.locator(MOVES)).to_have_count(2)
    finally:
        context.close()
