"""A local game abandoned before a move counts nothing; capture's choice between two
chains to one hole previews each chain on the board."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect

from e2e.test_web import MOVES, PERSON, hole, open_lobby, start_table, status

#: From k10 two chains end on i10: over j10 at once, or over j11 to i12 and over i11 back.
TWO_CHAINS = {
    "variant": "capture-2",
    "turn": "white",
    "pieces": ["l9", "k10", "j11", "j10", "i11"],
    "captured": {"white": 27, "black": 28},
}


def test_a_local_game_abandoned_before_a_move_is_not_a_lost_game(
    page: Page, server: str, artifacts: Path
) -> None:
    open_lobby(page, server)
    expect(page.locator("#records")).to_have_text("No games yet.")
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    page.get_by_role("button", name="Abandon").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("does not count in your records")
    dialog.get_by_role("button", name="Abandon").click()
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#record-note")).to_have_text(
        "Abandoned before your first move: not counted in your records."
    )
    page.screenshot(path=artifacts / "table-abandoned.png", full_page=True)
    page.get_by_role("link", name="Back to the lobby").click()
    expect(page.locator("#records")).to_have_text("No games yet.")

    # After a move the same button resigns, and the lost game counts.
    page.get_by_role("button", name="Start").click()
    hole(page, "k4").click()
    hole(page, "k5").click()
    expect(page.locator("#move-list button[data-ply]")).to_have_count(2, timeout=20_000)
    expect(page.get_by_role("button", name="Abandon")).to_have_count(0)
    page.get_by_role("button", name="Resign").click()
    page.get_by_role("dialog").get_by_role("button", name="Resign").click()
    expect(page.locator("#record-note")).to_have_text("Your records have been updated.")
    page.get_by_role("link", name="Back to the lobby").click()
    expect(page.locator('.records tr[data-players="2"] .played')).to_have_text("1")
    expect(page.locator('.records tr[data-players="2"] .won')).to_have_text("0")


def test_the_choice_between_two_chains_previews_each_on_the_board(
    page: Page, server: str, artifacts: Path
) -> None:
    start_table(page, server, "capture-2", [PERSON, PERSON], start=TWO_CHAINS)
    hole(page, "k10").click()
    hole(page, "i10").click()
    dialog = page.get_by_role("dialog")
    direct = dialog.get_by_role("button", name="k10-i10", exact=True)
    around = dialog.get_by_role("button", name="k10-i12-i10", exact=True)
    preview = page.locator("svg.board .layer-second polyline.path.preview")
    dots = page.locator("svg.board .layer-second .path-dot.preview")
    # The first choice has the focus, and its chain is drawn.
    expect(direct).to_be_focused()
    expect(preview).to_have_attribute("data-path", "k10-i10")
    expect(dots).to_have_count(1)
    page.keyboard.press("Tab")
    expect(around).to_be_focused()
    expect(preview).to_have_attribute("data-path", "k10-i12-i10")
    expect(dots).to_have_count(2)
    page.screenshot(path=artifacts / "capture-two-chains.png", full_page=True)
    direct.hover()
    expect(preview).to_have_attribute("data-path", "k10-i10")
    expect(dots).to_have_count(1)
    around.click()
    expect(page.locator(MOVES)).to_have_count(1)
    expect(page.locator(MOVES).first).to_contain_text("k10-i12-i10")
    expect(page.locator(".player").first).to_contain_text("29 captured")
