"""Every page and the table's states pass an accessibility audit in the three languages.

axe-core (the npm package make setup installs beside Pyodide) checks what a
screen-reader or keyboard user and a player with low vision meet first: names and
labels of every control, the language of the page, contrast, landmarks and headings,
ARIA used as its roles allow. A violation fails the test with its rule and the
elements it names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from e2e.test_web import open_lobby, start_table

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

#: Pages the header links to, and the others a player reaches by a link.
PAGES = (
    "/",
    "/how-to-play/chinese-checkers",
    "/how-to-play/capture",
    "/how-to-play/halma",
    "/watch",
    "/ratings",
    "/analysis",
    "/puzzle/crossing",
    "/rules",
    "/puzzles",
    "/learn",
    "/account",
    "/@/nobody",
    "/no-such-page",
)


#: The app's languages, each a browser context of its own; the audit is a script of its
#: own, which the app's content security policy would refuse.
IN_EACH_LANGUAGE = pytest.mark.parametrize(
    "language",
    [
        pytest.param(locale, marks=pytest.mark.browser_context_args(locale=locale, bypass_csp=True))
        for locale in ("en-US", "nl-NL", "tr-TR")
    ],
)


def violations(page: Page, where: str) -> list[str]:
    """The audit's violations on the page as it is now, one line each, ``where`` first."""
    page.add_script_tag(path=AXE)
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations
            .map((v) => ({ rule: v.id, impact: v.impact, help: v.help,
                           where: v.nodes.map((n) => n.target.join(" ")) }))"""
    )
    return [f"{where}: {json.dumps(v, ensure_ascii=False)}" for v in found]


@IN_EACH_LANGUAGE
def test_every_page_and_table_state_passes_the_audit(
    page: Page, server: str, language: str
) -> None:
    assert AXE.exists(), f"{AXE} is missing: make setup installs it (npm ci)"
    found: list[str] = []
    for path in PAGES:
        page.goto(server + path)
        expect(page.locator("body")).to_have_attribute("data-ready", "true")
        expect(page.locator("html")).to_have_attribute("lang", language[:2])
        expect(page.locator("#app")).not_to_be_empty()
        found += violations(page, path)

    open_lobby(page, server)
    page.locator('input[name="where"][value="online"]').check()
    found += violations(page, "the lobby, online chosen")

    start_table(
        page,
        server,
        "classic-2",
        [{"kind": "person"}, {"kind": "computer", "level": "easy"}],
    )
    page.locator(".hole.movable").first.click()
    expect(page.locator(".hole.target").first).to_be_attached()
    found += violations(page, "a table, a marble picked up")
    page.locator("#resign").click()
    expect(page.get_by_role("dialog")).to_be_visible()
    found += violations(page, "a table, the resign dialog")
    page.get_by_role("dialog").locator("button.primary").click()
    expect(page.locator("#result")).to_be_visible()
    found += violations(page, "a table, its result")

    assert not found, "\n".join(found)
