"""Pages the server renders itself inside the site's chrome (index.html): the rules,
from rules.md, and the page for an address that is not one.

The chrome's header, language picker and translations are the single-page app's;
``main.js`` leaves a page alone whose ``<main>`` says ``data-page`` (it only
translates it). The rules page holds the rules in every language (rules.md,
rules.tr.md, rules.nl.md), each in its own ``.rules-text`` block; the page shows
the one of the language the player chose (``js/rules-page.js``). English is the
one shown without JavaScript, and the only one whose anchors carry their ids until
the script moves them, so an address like ``/rules#locked`` always has one target.
"""

from __future__ import annotations

import html
import re
from collections.abc import Awaitable, Callable
from functools import cache
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt

#: Addresses of the machine interface: an unknown one answers JSON, never a page.
MAIN = '<main id="app" tabindex="-1"></main>'


#: The rules' languages, as the site's (web/js/i18n.js); English is rules.md itself.
RULES_LANGUAGES = ("en", "tr", "nl")

#: An explicit anchor of the rules (``<a id="slug"></a>``) as escaped HTML renders it:
#: a paragraph of its own (group 1), or inline (group 2).
_ESCAPED = r"&lt;a id=&quot;([a-z0-9]+(?:-[a-z0-9]+)*)&quot;&gt;&lt;/a&gt;"
ESCAPED_ANCHOR = re.compile(rf"<p>{_ESCAPED}</p>|{_ESCAPED}")


def rules_file(rules: Path, lang: str) -> Path:
    """The rules in ``lang``: rules.md for English, rules.<lang>.md next to it else."""
    return rules if lang == "en" else rules.with_name(f"{rules.stem}.{lang}{rules.suffix}")


@cache
def rules_html(rules: Path, with_ids: bool = True) -> str:
    """A rules file as HTML (CommonMark with tables; raw HTML in the text is escaped),
    its explicit anchors made real again: with their ``id`` or, when ``with_ids`` is
    false, only as ``data-anchor`` for the page's script to give the id."""
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    rendered: str = markdown.render(rules.read_text(encoding="utf-8"))

    def anchor(match: re.Match[str]) -> str:
        slug = match.group(1) or match.group(2)
        return (
            f'<a id="{slug}" data-anchor="{slug}"></a>'
            if with_ids
            else (f'<a data-anchor="{slug}"></a>')
        )

    return ESCAPED_ANCHOR.sub(anchor, rendered)


def rules_texts(rules: Path) -> str:
    """The rules in every language, English shown, the others hidden until chosen."""
    return "".join(
        f'<div class="rules-text" lang="{lang}"{"" if lang == "en" else " hidden"}>'
        f"{rules_html(rules_file(rules, lang), lang == 'en')}</div>"
        for lang in RULES_LANGUAGES
    )


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
            f"{rules_texts(rules)}"
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
