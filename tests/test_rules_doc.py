"""Citations of the rules stay true.

The rules (src/sternhalma/rules.md, served at /rules.md) give every section, and
each finer point that code cites, an explicit ``<a id="slug"></a>``; code, tests
and docs cite them as ``rules.md#slug`` (another page as ``docs/players.md#slug``).
An explicit anchor does not move when a heading is reworded, and these tests make
sure that every cited one exists, so a citation cannot go stale unnoticed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "src" / "sternhalma" / "rules.md"
#: The files that may cite: code, tests, docs and the README.
TEXT = {".py", ".pyi", ".js", ".html", ".css", ".json", ".md", ".cpp", ".hpp", ".mako"}

ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
CITATION = re.compile(r"((?:[\w.-]+/)*[\w.-]+\.md)#([\w-]+)")
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def sources() -> list[Path]:
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in ("src", "tests"):
        found += sorted(
            path
            for path in (ROOT / folder).rglob("*")
            if path.suffix in TEXT and path.is_file() and "__pycache__" not in path.parts
        )
    return found


def anchors(path: Path) -> list[str]:
    """The explicit anchors of a page, and (docs pages) the ids a Markdown renderer gives
    its headings, as GitHub makes them."""
    text = path.read_text("utf-8")
    found = ANCHOR.findall(text)
    if path != RULES:
        found += [heading_id(line) for line in text.splitlines() if line.startswith("#")]
    return found


def heading_id(line: str) -> str:
    """GitHub's id of a heading: lower case, punctuation dropped, spaces as hyphens."""
    words = line.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", words).replace(" ", "-")


def target(name: str) -> Path:
    """The file a citation names: ``rules.md`` is the package's rules, others by path."""
    name = name.removeprefix("./")
    if name in ("rules.md", "src/sternhalma/rules.md"):
        return RULES
    if "/" not in name and (ROOT / "docs" / name).exists():
        return ROOT / "docs" / name  # a docs page citing its neighbour
    return ROOT / name


def citations() -> list[tuple[str, str, str]]:
    """(where, file, slug) for every ``file.md#slug`` in the sources but this one."""
    found = []
    for path in sources():
        if path == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            for name, slug in CITATION.findall(line):
                found.append((f"{path.relative_to(ROOT)}:{number}", name, slug))
    return found


def test_every_heading_of_the_rules_has_its_own_anchor() -> None:
    lines = RULES.read_text("utf-8").splitlines()
    headings = [n for n, line in enumerate(lines) if re.match(r"#{2,3} ", line)]
    assert len(headings) >= 15
    for n in headings:
        assert ANCHOR.fullmatch(lines[n - 1]), f"no anchor before {lines[n]!r}"
    ids = anchors(RULES)
    assert len(ids) == len(set(ids)), "an anchor id is used twice"
    assert all(SLUG.fullmatch(slug) for slug in ids), ids


def test_the_contents_of_the_rules_link_to_anchors() -> None:
    text = RULES.read_text("utf-8")
    links = re.findall(r"\]\(#([^)]+)\)", text)
    assert links
    assert set(links) <= set(anchors(RULES))


def test_the_code_cites_the_rules_by_anchor() -> None:
    cited = {slug for _, name, slug in citations() if target(name) == RULES}
    # Spot checks that the scan sees the code: the referee's and the players' citations.
    assert {"order-of-checks-after-each-move", "repetition", "limit", "locked"} <= cited


@pytest.mark.parametrize(("where", "name", "slug"), citations())
def test_every_cited_anchor_exists(where: str, name: str, slug: str) -> None:
    path = target(name)
    assert path.is_file(), f"{where}: {name} does not exist"
    assert slug in anchors(path), f"{where}: {name} has no anchor {slug!r}"


def test_nothing_cites_the_old_numbered_rules() -> None:
    old = re.compile(r"RULES\.md")  # the numbered document the project no longer has
    stale = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources()
        if path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if old.search(line)
    ]
    assert stale == []


@pytest.mark.parametrize("lang", ["tr", "nl"])
def test_each_translation_of_the_rules_has_the_same_anchors_in_the_same_order(
    lang: str,
) -> None:
    """rules.<lang>.md (served at /rules in that language) keeps every anchor, so a
    citation or a link finds its passage in every language."""
    translated = RULES.with_name(f"rules.{lang}.md")
    text = translated.read_text("utf-8")
    assert ANCHOR.findall(text) == ANCHOR.findall(RULES.read_text("utf-8"))
    english = RULES.read_text("utf-8")
    assert re.findall(r"\]\(#([^)]+)\)", text) == re.findall(r"\]\(#([^)]+)\)", english)
    # Translated, not copied: the first paragraph of the star board differs.
    assert "The star has 121 holes" not in text
    # Move text and JSON are the same in every language.
    assert re.findall(r"```.*?```", text, re.S) == re.findall(r"```.*?```", english, re.S)
