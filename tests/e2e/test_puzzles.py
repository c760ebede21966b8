"""The puzzle stream and the rules lesson in a browser: a puzzle solved moves the puzzle
rating, the daily puzzle, and the whole lesson done with the keyboard alone."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from e2e.test_web import hole
from sternhalma.rating import Rating, update

SET = json.loads((Path(__file__).parents[2] / "src/sternhalma/web/data/puzzles.json").read_text())


def rating(page: Page) -> int:
    return int(page.locator("#pz-rating").inner_text())


def test_a_puzzle_solved_moves_the_rating_and_a_wrong_one_lowers_it(
    page: Page, server: str, artifacts: Path
) -> None:
    chain = next(p for p in SET["puzzles"] if p["kind"] == "chain")
    page.goto(f"{server}/puzzles?id={chain['id']}")
    expect(page.locator("#pz-task")).to_contain_text("gains the most rows")
    expect(page.locator("#pz-rating")).to_have_text("1500")
    expect(page.locator("#pz-difficulty")).to_have_text(str(chain["rating"]))
    start, end = chain["answers"][0]
    hole(page, start).click()
    expect(hole(page, end)).to_have_class(re.compile(r"\btarget\b"))
    page.screenshot(path=artifacts / "puzzle-chain.png", full_page=True)
    hole(page, end).click()
    expect(page.locator("#pz-status")).to_contain_text("Solved!")
    solved = rating(page)
    assert solved > 1500
    expect(page.locator("#pz-solved")).to_have_text("1")

    # The next puzzle is another one; a wrong move is not solved and the rating drops.
    page.get_by_role("button", name="Next puzzle").click()
    expect(page.locator("#app")).not_to_have_attribute("data-puzzle", chain["id"])
    ident = page.locator("#app").get_attribute("data-puzzle")
    puzzle = next(p for p in SET["puzzles"] if p["id"] == ident)
    if puzzle["kind"] == "finish":
        page.get_by_role("button", name="Show the answer").click()
        expect(page.locator("#pz-status")).to_contain_text("The answer:")
    else:
        moves = page.request.post(
            f"{server}/api/analysis/moves", data={"position": puzzle["position"]}
        ).json()["moves"]
        wrong = next(m for m in moves if [m["path"][0], m["path"][-1]] not in puzzle["answers"])
        hole(page, wrong["path"][0]).click()
        hole(page, wrong["path"][-1]).click()
        expect(page.locator("#pz-status")).to_contain_text("Not this time.")
    expect(page.locator("#pz-rating")).not_to_have_text(str(solved))
    assert rating(page) < solved

    # Kept in this browser: a reload shows the same rating.
    after = rating(page)
    page.reload()
    expect(page.locator("#pz-rating")).to_have_text(str(after))


def test_the_daily_puzzle_is_the_same_for_everyone(page: Page, server: str) -> None:
    page.goto(f"{server}/puzzles?daily")
    expect(page.locator("#pz-task")).to_contain_text("Puzzle of ")
    first = page.locator("#app").get_attribute("data-puzzle")
    other = page.context.browser.new_context()  # type: ignore[union-attr]
    try:
        fresh = other.new_page()
        fresh.goto(f"{server}/puzzles")
        fresh.get_by_role("button", name="Daily puzzle").click()
        expect(fresh.locator("#app")).to_have_attribute("data-puzzle", first or "")
    finally:
        other.close()


def test_the_browser_rating_is_glicko_2_as_the_server_computes_it(page: Page, server: str) -> None:
    page.goto(f"{server}/puzzles")
    expect(page.locator("#pz-rating")).to_have_text("1500")
    cases: list[tuple[dict[str, float], float, float]] = [
        ({"rating": 1500, "deviation": 350, "volatility": 0.06}, 1300, 1.0),
        ({"rating": 1620, "deviation": 120, "volatility": 0.059}, 1900, 0.0),
        ({"rating": 1200, "deviation": 60, "volatility": 0.07}, 1100, 1.0),
    ]
    for player, puzzle, score in cases:
        ours: dict[str, Any] = page.evaluate(
            """([player, puzzle, score]) => import("/static/js/glicko.js").then(
                (m) => m.update(player, [[{rating: puzzle, deviation: 100}, score, 1]]))""",
            [player, puzzle, score],
        )
        python = update(Rating(**player), [(Rating(puzzle, 100.0), score, 1.0)])
        assert abs(ours["rating"] - python.rating) < 1e-6
        assert abs(ours["deviation"] - python.deviation) < 1e-6
        assert abs(ours["volatility"] - python.volatility) < 1e-9


def focus_by_tab(page: Page, wanted: set[str], cls: str) -> str:
    """Presses Tab until a hole with class ``cls`` in ``wanted`` has the focus (once the
    board offers such holes: its moves may still be on their way)."""
    expect(page.locator(f"svg.board .{cls}").first).to_be_attached(timeout=30_000)
    for _ in range(120):
        page.keyboard.press("Tab")
        name = page.evaluate(
            f"""document.activeElement.classList.contains({cls!r})
                ? document.activeElement.dataset.hole : null"""
        )
        if name in wanted:
            return str(name)
    raise AssertionError(f"Tab never reached one of {sorted(wanted)[:5]}")


def test_the_lesson_is_completed_with_the_keyboard(
    page: Page, server: str, artifacts: Path
) -> None:
    steps = page.request.get(f"{server}/api/learn").json()["steps"]
    page.goto(f"{server}/")
    page.get_by_role("link", name="Learn the rules").click()
    expect(page.locator("#ln-progress")).to_have_text(f"Step 1 of {len(steps)}")
    expect(page.locator("#ln-status")).to_be_hidden()  # no empty bar before a move
    for number, step in enumerate(steps, start=1):
        expect(page.locator("#app")).to_have_attribute("data-step", step["id"])
        # The step list shows where you are (bold) and what you have done (ticked).
        current = page.locator("#ln-steps li").nth(number - 1)
        expect(current).to_have_attribute("aria-current", "step")
        expect(current).to_have_css("font-weight", "700")
        expect(page.locator("#ln-steps li.done")).to_have_count(number - 1)
        if number == 1:  # a wrong move first (a jump): explained and taken back
            wrong = [m for m in step["moves"] if not m["ok"]]
            start = focus_by_tab(page, {m["path"][0] for m in wrong}, "movable")
            page.keyboard.press("Enter")
            focus_by_tab(page, {m["path"][-1] for m in wrong if m["path"][0] == start}, "target")
            page.keyboard.press("Enter")
            expect(page.locator("#ln-status")).to_contain_text("not the one asked")
            expect(page.locator(".hole.movable")).not_to_have_count(0)
        ok = [m for m in step["moves"] if m["ok"]]
        start = focus_by_tab(page, {m["path"][0] for m in ok}, "movable")
        page.keyboard.press("Enter")
        focus_by_tab(page, {m["path"][-1] for m in ok if m["path"][0] == start}, "target")
        page.keyboard.press("Enter")
        if step["id"] == "points":
            page.screenshot(path=artifacts / "learn-points.png", full_page=True)
        if number < len(steps):
            expect(page.locator("#ln-next")).to_be_enabled()
            expect(page.locator("#ln-next")).to_be_focused()
            page.keyboard.press("Enter")
    expect(page.locator("#ln-status")).to_contain_text("You have completed the lesson!")
    page.screenshot(path=artifacts / "learn-done.png", full_page=True)
    # A step's title opens it again.
    page.locator("#ln-steps").get_by_role("button", name="A jump").click()
    expect(page.locator("#app")).to_have_attribute("data-step", steps[1]["id"])
    expect(page.locator("#ln-progress")).to_have_text(f"Step 2 of {len(steps)}")
    expect(page.locator("#ln-steps li.done")).to_have_count(1)
