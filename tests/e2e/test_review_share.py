"""A review shared by link and a pasted record; the rules page and the page for an
unknown address."""

from __future__ import annotations

import urllib.request
from urllib.error import HTTPError

import pytest
from playwright.sync_api import Browser, Page, expect

from sternhalma.game import Game
from sternhalma.records import write_record

MOVES = "#an-moves button[data-ply]"


def record() -> str:
    game = Game("classic-2")
    for move in ["m4-m5", "g15-g13", "m5-m4"]:
        game.play(move)
    return write_record(game, players=["Ayşe", "Bram"])


def marks(page: Page) -> list[str | None]:
    return [page.locator(MOVES).nth(i).get_attribute("class") for i in range(3)]


def test_a_pasted_record_is_reviewed_and_its_link_shows_the_same_review(
    page: Page, browser: Browser, server: str
) -> None:
    page.goto(f"{server}/analysis")
    page.locator("summary", has_text="Paste a game record").click()
    page.locator("#an-paste").fill(record())
    page.get_by_role("button", name="Open the pasted record").click()
    expect(page.locator(MOVES)).to_have_count(3)
    expect(page.locator("#an-info")).to_contain_text("Ayşe")
    page.get_by_role("button", name="Review the whole game").click()
    expect(page.locator("#an-progress-text")).to_have_text("All 3 moves reviewed.", timeout=90_000)
    page.get_by_role("button", name="Link to this review").click()
    link = page.locator("#an-link").input_value()
    assert link.startswith(f"{server}/analysis#review=")
    summary = page.locator("#an-summary").inner_text()
    seen = marks(page)

    fresh = browser.new_context()
    other = fresh.new_page()
    try:
        other.goto(link)
        expect(other.locator(MOVES)).to_have_count(3)
        expect(other.locator("#an-info")).to_contain_text("Ayşe")
        expect(other.locator("#an-progress-text")).to_have_text(
            "All 3 moves reviewed.", timeout=90_000
        )
        assert marks(other) == seen
        assert other.locator("#an-summary").inner_text() == summary
    finally:
        fresh.close()


@pytest.mark.parametrize(
    ("language", "heading", "sentence"),
    [
        ("en", "Rules", "The star has 121 holes"),
        ("tr", "Kurallar", "Yıldızda 121 delik vardır"),
        ("nl", "Spelregels", "De ster heeft 121 velden"),
    ],
)
def test_the_rules_page_in_each_language(
    page: Page, server: str, language: str, heading: str, sentence: str
) -> None:
    page.goto(f"{server}/")
    page.locator("#language").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)
    page.goto(f"{server}/rules#locked")
    expect(page.locator("html")).to_have_attribute("lang", language)
    expect(page.locator("article.rules-page h1").first).to_have_text(heading)
    # The rules themselves, in the page's language, rendered: headings and tables,
    # no Markdown marks, no anchor tags shown as text; the other languages hidden.
    shown = page.locator(".rules-text:visible")
    expect(shown).to_have_count(1)
    expect(shown).to_have_attribute("lang", language)
    expect(shown).to_contain_text(sentence)
    expect(shown.locator("h2").first).to_be_visible()
    expect(shown.locator("table").first).to_be_visible()
    assert "## " not in shown.inner_text() and "<a id" not in shown.inner_text()
    # A cited anchor finds its passage in the text being read.
    expect(page.locator("#locked")).to_have_count(1)
    assert page.locator(f'.rules-text[lang="{language}"] #locked').count() == 1
    expect(page.locator("header nav")).to_be_visible()


def test_the_rules_page_follows_a_change_of_language(page: Page, server: str) -> None:
    page.goto(f"{server}/rules")
    page.locator("#language").select_option("nl")
    expect(page.locator(".rules-text:visible")).to_contain_text("De ster heeft 121 velden")
    page.locator("#language").select_option("tr")
    expect(page.locator(".rules-text:visible")).to_contain_text("Yıldızda 121 delik vardır")
    # The English text stays at /rules.md for the how-to pages' link.
    with urllib.request.urlopen(f"{server}/rules.md") as response:
        assert "The star has 121 holes" in response.read().decode()


def test_an_unknown_page_shows_the_not_found_page(page: Page, server: str) -> None:
    response = page.goto(f"{server}/no/such/page")
    assert response is not None and response.status == 404
    expect(page.get_by_role("heading", level=1)).to_have_text("Page not found")
    page.get_by_role("link", name="Start a game").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Start a game")
    # An unknown API address still answers JSON.
    with pytest.raises(HTTPError) as error:
        urllib.request.urlopen(f"{server}/api/no-such-thing")
    assert error.value.code == 404
    assert error.value.headers["content-type"].startswith("application/json")
