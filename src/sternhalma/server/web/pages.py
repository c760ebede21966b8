"""Pages the server renders itself inside the site's chrome (index.html): the rules,
from rules.md, and the page for an address that is not one.

The chrome's header, language picker and translations are the single-page app's;
``main.js`` leaves a page alone whose ``<main>`` says ``data-page`` (it only
translates it). The rules text is English: in Turkish and Dutch the page's heading
and a note saying so are translated, the rules themselves are not.
"""

from __future__ import annotations

import html
from functools import cache
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.exception_handlers import http_exception_handler
from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt
from starlette.exceptions import HTTPException

#: Addresses of the machine interface: an unknown one answers JSON, never a page.
API_PREFIXES = ("/api/", "/ws/")
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
    """The rules page at /rules and the HTML 404 page for unknown page addresses."""

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

    @app.exception_handler(HTTPException)
    async def not_found(request: Request, error: HTTPException) -> Response:
        path = request.url.path
        if error.status_code != 404 or path.startswith(API_PREFIXES):
            return await http_exception_handler(request, error)
        body = (
            '<section class="not-found card">'
            '<h1 data-i18n="notFound.title">Page not found</h1>'
            '<p data-i18n="notFound.text">There is no page at this address.</p>'
            '<p><a href="/" data-i18n="notFound.home">Start a game</a></p>'
            "</section>"
        )
        return HTMLResponse(in_chrome(web, "not-found", body), status_code=404)
