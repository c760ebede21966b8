"""Pages the server renders itself inside the site's chrome (index.html): the rules,
from rules.md, and the page for an address that is not one.

The chrome's header, language picker and translations are the single-page app's;
``main.js`` leaves a page alone whose ``<main>`` says ``data-page`` (it only
translates it). The rules text is English: in Turkish and Dutch the page's heading
and a note saying so are translated, the rules themselves are not.
"""

from __future__ import annotations

import html
from collections.abc import Awaitable, Callable
from functools import cache
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt

#: Addresses of the machine interface: an unknown one answers JSON, never a page.
MAIN = '<main id="app" tabindex="-1"></main>'


@cache
def rules_html(rules: Path) -> str:
    """rules.md as HTML (CommonMark with tables; raw HTML in the text is escaped)."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    rendered: str = markdown.render(rules.read_text(encoding="utf-8"))
    return rendered


def in_chrome(web: Path, page: str, body: str) -> str:
    """index.html with ``body`` as the main part, marked as the server's ``page``."""
    chrome = (web / "index.html").read_text(encoding="utf-8")
    if MAIN not in chrome:
        raise RuntimeError("index.html has no <main id=app> to fill")
    return chrome.replace(
        MAIN, f'<main id="app" tabindex="-1" data-page="{html.escape(page)}">{body}</main>'
    )


def add_pages(app: FastAPI, web: Path, rules: Path) -> None:
    """The rules page at /rules; unknown page addresses get the HTML 404 page
    (``not_found_page``, through the one handler of routing refusals: web/errors.py)."""

    async def rules_page() -> Response:
        body = (
            '<article class="rules-page card">'
            '<h1 data-i18n="rules.title">Rules</h1>'
            '<p class="hint" data-i18n="rules.note"></p>'
            f'<div class="rules-text" lang="en">{rules_html(rules)}</div>'
            "</article>"
        )
        return HTMLResponse(in_chrome(web, "rules", body))

    app.add_api_route("/rules", rules_page, include_in_schema=False)


def not_found_page(web: Path) -> Callable[[Request], Awaitable[Response]]:
    """The HTML 404 page, in the site's chrome, for a page address nothing serves."""

    async def page(request: Request) -> Response:
        body = (
            '<section class="not-found card">'
            '<h1 data-i18n="notFound.title">Page not found</h1>'
            '<p data-i18n="notFound.text">There is no page at this address.</p>'
            '<p><a href="/" data-i18n="notFound.home">Start a game</a></p>'
            "</section>"
        )
        return HTMLResponse(in_chrome(web, "not-found", body), status_code=404)

    return page
