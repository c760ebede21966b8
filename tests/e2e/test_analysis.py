"""The analysis board, the game review and the crossing puzzle in a browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

from helpers import game_with_a_blunder
from playwright.sync_api import Page, Route, expect

from e2e.test_web import EASY, NEAR_FINISH, PERSON, hole, open_lobby, start_table
from sternhalma.game import Game
from sternhalma.records import write_record

CROSSING = json.loads(
    (Path(__file__).parents[2] / "src/sternhalma/web/data/crossing.json").read_text()
)
MOVES = "#an-moves button[data-ply]"
MOVABLE = re.compile(r"\bmovable\b")


def test_game_over_opens_the_analysis_board_and_the_review(
    page: Page, server: str, artifacts: Path
) -> None:
    start_table(page, server, "classic-2", [PERSON, EASY], start=NEAR_FINISH)
    hole(page, "h13").click()
    hole(page, "h14").click()
    expect(page.locator("#result")).to_be_visible(timeout=20_000)
    page.get_by_role("link", name="Analyse the game").click()
    expect(page).to_have_url(re.compile(r"/analysis\?table="))
    expect(page.locator(MOVES)).to_have_count(2)
    expect(page.locator("#an-status")).to_contain_text("After move 2 of 2")

    # Stepping: the buttons, the arrow keys and the move list.
    page.get_by_role("button", name="First position").click()
    expect(page.locator("#an-status")).to_contain_text("Start position")
    expect(hole(page, "h13")).to_have_attribute("aria-label", "h13, white marble")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#an-status")).to_contain_text("After move 1 of 2: h13-h14")
    expect(hole(page, "h14")).to_have_attribute("aria-label", "h14, white marble")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#an-status")).to_contain_text("Start position")
    page.locator(MOVES).nth(1).click()
    expect(page.locator("#an-status")).to_contain_text("After move 2 of 2")

    # The computer's view of the start: white needs exactly one move, h13-h14 is best.
    page.get_by_role("button", name="First position").click()
    expect(page.locator("#an-best")).to_contain_text("Best move for White: h13-h14", timeout=30_000)
    expect(page.locator("#an-togo tr").first).to_contain_text("exactly 1")
    expect(page.locator("#an-race .race-text")).to_contain_text("White is ahead by")
    expect(page.locator("svg.board .path.best")).to_have_count(1)

    page.get_by_role("button", name="Review the whole game").click()
    expect(page.locator("#an-progress-text")).to_have_text("All 2 moves reviewed.", timeout=60_000)
    expect(page.locator("#an-graph svg.graph polyline")).to_have_count(1)
    expect(page.locator(MOVES).first).to_have_attribute("title", "Good move")
    expect(page.locator("#an-summary li")).to_have_count(2)
    page.screenshot(path=artifacts / "analysis-review.png", full_page=True)


def record_text() -> str:
    game = Game("classic-2")
    for move in ["m4-m5", "g15-g13", "m5-m4", "f15-f13", "l3-l5"]:
        game.play(move)
    return write_record(game, players=["Ayşe", "Computer (easy)"])


def test_a_record_file_opened_in_the_page_and_a_move_tried(
    page: Page, server: str, tmp_path: Path, artifacts: Path
) -> None:
    open_lobby(page, server)
    page.get_by_role("link", name="Analysis board").click()
    expect(page.get_by_role("heading", name="Analysis board")).to_be_visible()
    path = tmp_path / "game.txt"
    path.write_text(record_text())
    page.get_by_label("Open a game record file").set_input_files(str(path))
    expect(page.locator(MOVES)).to_have_count(5)
    expect(page.locator("#an-info")).to_contain_text("Ayşe")

    # Try a move of black's in the final position: the game's moves stay as they are.
    expect(hole(page, "e14")).to_have_class(MOVABLE)
    hole(page, "e14").click()
    hole(page, "e13").click()
    expect(page.locator("#an-status")).to_contain_text("Trying: e14-e13")
    expect(hole(page, "e13")).to_have_attribute("aria-label", "e13, black marble")
    expect(page.locator("#an-best")).to_contain_text("Best move for White", timeout=30_000)
    page.screenshot(path=artifacts / "analysis-try.png", full_page=True)
    page.get_by_role("button", name="Back to the game").click()
    expect(page.locator("#an-status")).to_contain_text("After move 5 of 5: l3-l5")
    expect(hole(page, "e13")).to_have_attribute("aria-label", "e13, empty")
    expect(page.locator(MOVES)).to_have_count(5)

    # A game near its end whose third move is white's worst: the review marks it.
    game, blunder, verdict = game_with_a_blunder()
    other = tmp_path / "blunder.txt"
    other.write_text(write_record(game, players=["Ayşe", "Bram"]))
    page.get_by_label("Open a game record file").set_input_files(str(other))
    expect(page.locator("#an-info")).to_contain_text("Bram")
    page.get_by_role("button", name="Review the whole game").click()
    expect(page.locator("#an-progress-text")).to_have_text("All 5 moves reviewed.", timeout=90_000)
    expect(page.locator(MOVES).nth(2)).to_have_class(re.compile(f"verdict-{verdict}"))
    expect(page.locator(MOVES).nth(2)).to_have_text(
        blunder + ("?" if verdict == "mistake" else "?!")
    )
    expect(page.locator(f"#an-graph circle.dot.{verdict}")).not_to_have_count(0)
    page.screenshot(path=artifacts / "analysis-record.png", full_page=True)


def test_the_crossing_puzzle_counts_keeps_the_best_and_shows_a_solution(
    page: Page, server: str, artifacts: Path
) -> None:
    open_lobby(page, server)
    page.get_by_role("link", name="Crossing puzzle").click()
    expect(page.get_by_role("heading", name="Crossing puzzle")).to_be_visible()
    expect(page.locator("#pz-best")).to_have_text("–")
    expect(hole(page, "k4")).to_have_class(MOVABLE)
    hole(page, "k4").click()
    hole(page, "k5").click()
    expect(page.locator("#pz-moves")).to_have_text("1")
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#pz-moves")).to_have_text("0")

    # The stored 27-move crossing, played by hand.
    for number, text in enumerate(CROSSING["moves"], start=1):
        start, *_, end = text.split("-")
        expect(hole(page, start)).to_have_class(MOVABLE)
        hole(page, start).click()
        hole(page, end).click()
        expect(page.locator("#pz-moves")).to_have_text(str(number))
    expect(page.locator("#pz-status")).to_have_text("Crossed in 27 moves!")
    expect(page.locator("#pz-best")).to_have_text("27")
    page.screenshot(path=artifacts / "puzzle-crossed.png", full_page=True)

    # The best stays after a reload; "Show me" plays the computer's crossing.
    page.reload()
    expect(page.locator("#pz-best")).to_have_text("27")
    page.get_by_role("button", name="Show me").click()
    expect(page.locator("#pz-status")).to_have_text(
        "The computer's crossing: move 3 of 27", timeout=30_000
    )
    page.screenshot(path=artifacts / "puzzle-show-me.png", full_page=True)
    page.get_by_role("button", name="Stop").click()
    expect(page.get_by_role("button", name="Show me")).to_be_visible()


def test_the_analysis_board_alone_shows_a_start_to_try_moves_on(page: Page, server: str) -> None:
    page.goto(f"{server}/analysis")
    expect(page.locator("#an-status")).to_contain_text("Start position")
    expect(hole(page, "m3")).to_have_attribute("aria-label", "m3, white marble")
    expect(page.locator("#an-best")).to_contain_text("Best move for White", timeout=30_000)


def test_a_record_opened_at_once_is_not_replaced_by_the_empty_board(
    page: Page, server: str, tmp_path: Path
) -> None:
    # The page opens with an empty board it asks the server for; a file opened before
    # that answer comes stays shown when it comes.
    held: list[Route] = []
    page.route(
        "**/api/analysis/record",
        lambda route: held.append(route) if not held else route.continue_(),
    )
    with page.expect_request("**/api/analysis/record"):
        page.goto(f"{server}/analysis")
    expect(page.get_by_role("heading", name="Analysis board")).to_be_visible()
    assert len(held) == 1
    path = tmp_path / "game.txt"
    path.write_text(record_text())
    page.get_by_label("Open a game record file").set_input_files(str(path))
    expect(page.locator(MOVES)).to_have_count(5)
    with page.expect_response("**/api/analysis/record"):
        held[0].continue_()
    page.wait_for_timeout(500)  # the late answer handled
    expect(page.locator(MOVES)).to_have_count(5)
    expect(page.locator("#an-info")).to_contain_text("Ayşe")
