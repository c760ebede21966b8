"""The web app's files and geometry, checked without a browser.

Every visible string must exist in English, Turkish and Dutch; the board the
browser draws must be the engine's board; nothing may come from another site.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import Client

from sternhalma.cli import main
from sternhalma.rules import GAMES, VARIANTS
from sternhalma.server.storage.store import DatabaseSchemaError, DatabaseUrlError, database_url
from sternhalma.server.web.app import Settings, create_app
from sternhalma.server.web.layout import board_description, catalogue, screen_point

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "sternhalma"
WEB = PACKAGE / "web"
RULES = PACKAGE / "rules.md"
LANGUAGES = ("en", "tr", "nl")
#: English ordinals need more plural forms than Turkish and Dutch ("1st", "2nd", "3rd").
ENGLISH_ONLY = {"place.one", "place.two", "place.few"}


def strings(language: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / f"{language}.json").read_text("utf-8"))
    return data


def web_sources() -> str:
    return "\n".join(
        path.read_text("utf-8")
        for path in [WEB / "index.html", *sorted((WEB / "js").rglob("*.js"))]
    )


def test_every_language_has_every_string() -> None:
    english = set(strings("en")) - ENGLISH_ONLY
    for language in ("tr", "nl"):
        assert set(strings(language)) == english, language
        assert all(value.strip() for value in strings(language).values())


def test_translations_keep_their_placeholders() -> None:
    english = strings("en")
    for language in ("tr", "nl"):
        for key, text in strings(language).items():
            assert set(re.findall(r"\{(\w+)\}", text)) == set(
                re.findall(r"\{(\w+)\}", english[key])
            ), (language, key)


def test_every_key_the_page_uses_is_translated() -> None:
    sources = web_sources()
    used = set(re.findall(r'data-i18n="([\w.-]+)"', sources))
    used |= set(re.findall(r'\bt\("([\w.-]+)"', sources))
    used |= {
        key
        for pair in re.findall(r'data-i18n-attr="([^"]+)"', sources)
        for key in re.findall(r":([\w.-]+)", pair)
    }
    assert used, "no keys found: the pattern no longer matches the sources"
    missing = used - set(strings("en"))
    assert not missing


def test_the_names_built_from_parts_exist() -> None:
    """Keys made at run time: colours, games, variants, levels, per-game sentences."""
    english = strings("en")
    for rules in VARIANTS.values():
        base = rules.base_id
        assert f"variant.{base}" in english, base
        for option in rules.options:
            assert f"option.{option}" in english
        for colour in rules.seats:
            assert f"colour.{colour}" in english
            if rules.game != "capture":
                assert f"marble.{rules.game}.{colour}" in english
    for game in GAMES:
        for key in (
            "game",
            "tagline",
            "howto.link",
            "keys.help",
            "status.yourTurn",
            "status.seatTurn",
            "status.pickTarget",
        ):
            assert f"{key}.{game}" in english, (key, game)
    assert "thing.capture" in english
    for level in catalogue_levels():
        assert f"level.{level}" in english


def catalogue_levels() -> list[str]:
    from sternhalma.players import LEVELS

    return list(LEVELS)


@pytest.mark.parametrize("language", LANGUAGES)
def test_how_to_play_pages_exist_in_every_language(language: str) -> None:
    for game in GAMES:
        page = (WEB / "howto" / language / f"{game}.html").read_text("utf-8")
        assert page.startswith("<h1>")
        assert page.count('class="diagram"') >= 2
        assert "<dl>" in page  # the questions players ask


def test_the_how_to_play_questions_are_answered() -> None:
    page = (WEB / "howto" / "en" / "chinese-checkers.html").read_text("utf-8")
    for question in ("anti-blocking rule", "jump ladders", "really from China", "sent anywhere"):
        assert question in page


def test_diagrams_name_real_holes() -> None:
    names = {kind: set(board_description(kind)["names"]) for kind in ("star", "square")}
    for path in (WEB / "howto").glob("*/*.html"):
        for figure in re.findall(r"<figure([^>]*)>", path.read_text("utf-8")):
            kind = re.search(r'data-board="(\w+)"', figure)
            assert kind, path
            for attr in ("marbles", "pieces", "path", "lit", "grey", "crop", "goal"):
                value = re.search(rf'data-{attr}="([^"]*)"', figure)
                if value:
                    holes = re.split(r"[\s;:\-]+", value.group(1))
                    holes = [h for h in holes if h and h not in ("white", "black")]
                    assert set(holes) <= names[kind.group(1)], (
                        path.name,
                        attr,
                        set(holes) - names[kind.group(1)],
                    )


def test_nothing_is_loaded_from_another_site() -> None:
    for path in WEB.rglob("*"):
        # Pyodide's own files name its home page; the browser tests record every request
        # of a local game (tests/e2e/test_browser_engine.py): none goes elsewhere.
        if "pyodide" in path.relative_to(WEB).parts:
            continue
        if path.suffix in (".html", ".js", ".css", ".json", ".svg"):
            text = path.read_text("utf-8")
            urls = re.findall(r"https?://[^\s\"')]+", text)
            assert urls in ([], ["http://www.w3.org/2000/svg"]), (path, urls)


def test_board_geometry_puts_neighbours_one_unit_apart() -> None:
    for kind in ("star", "square"):
        board = next(r.board for r in VARIANTS.values() if r.board.kind == kind)
        for hole in range(board.size):
            x, y = screen_point(board, hole)
            for direction, ray in enumerate(board.rays[hole]):
                if not ray:
                    continue
                nx, ny = screen_point(board, ray[0])
                distance = math.hypot(nx - x, ny - y)
                dx, dy = board.directions[direction]
                expected = math.sqrt(2) if dx and dy and kind == "square" else 1.0
                assert distance == pytest.approx(expected), (board.names[hole], board.names[ray[0]])


def test_the_star_is_drawn_as_the_rules_describe() -> None:
    star = board_description("star")
    xy = dict(zip(star["names"], star["xy"], strict=True))
    assert xy["m1"][0] == pytest.approx(xy["i9"][0]) == pytest.approx(xy["e17"][0])
    assert xy["m1"][1] < xy["i9"][1] < xy["e17"][1]
    assert xy["a13"][0] < xy["i9"][0] < xy["m13"][0]


def test_catalogue_describes_homes_and_goals() -> None:
    variants = {v["id"]: v for v in catalogue()["variants"]}
    halma = variants["halma-2"]
    assert halma["board"] == "square" and len(halma["homes"][0]) == 19
    assert "p1" in halma["homes"][0] and "a16" in halma["goals"][0]
    assert "homes" not in variants["capture-3"]


def test_database_url_accepts_a_file_or_a_url(tmp_path: Path) -> None:
    assert database_url(str(tmp_path / "t.db")) == f"sqlite+aiosqlite:///{tmp_path / 't.db'}"
    assert database_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert database_url("postgresql+asyncpg://h/db") == "postgresql+asyncpg://h/db"
    with pytest.raises(DatabaseUrlError, match="empty"):
        database_url("  ")


def test_serve_command_is_registered_and_checks_its_options() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["serve", "--help"])
    assert result.exit_code == 0
    assert "--database-url" in result.output and "--open" in result.output
    result = runner.invoke(main, ["serve", "--database-url", " "])
    assert result.exit_code == 2
    assert "the database URL is empty" in result.output
    result = runner.invoke(main, ["serve", "--port", "0"])
    assert result.exit_code == 2


def test_a_database_from_another_version_is_refused_with_a_reason(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    with sqlite3.connect(old) as connection:
        connection.execute("CREATE TABLE tables (id TEXT PRIMARY KEY, variant TEXT)")
    app = create_app(Settings(database_url=database_url(str(old)), workers=1))
    with (
        pytest.raises(DatabaseSchemaError, match="made by another version of sternhalma"),
        Client(app),
    ):
        pass  # the server refuses to start


def test_the_full_rules_cover_every_variant_and_are_served_and_linked(tmp_path: Path) -> None:
    rules = RULES.read_text("utf-8")
    for variant in VARIANTS:
        family = variant.removesuffix("-longjump")
        assert f"`{family}`" in rules or f"`{variant}`" in rules, variant
    app = create_app(Settings(database_url=database_url(str(tmp_path / "t.db")), workers=1))
    with Client(app) as client:
        served = client.get("/rules.md")
    assert served.status_code == 200
    assert served.headers["content-type"] == "text/plain; charset=utf-8"
    assert served.text == rules
    # Linked from the How-to pages and the ratings page (in every language) and the README.
    for page in ("howto.js", "ratings.js"):
        assert 'href="/rules.md" data-i18n="howto.rules"' in (WEB / "js" / page).read_text("utf-8")
    assert all(strings(language)["howto.rules"] for language in LANGUAGES)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text("utf-8")
    assert "`src/sternhalma/rules.md`" in readme  # and no stale name of it: test_rules_doc.py


#: Serves /rules.md from the ``sternhalma`` found first on the path and prints it.
SERVE_RULES = """
import sys
from fastapi.testclient import TestClient
import sternhalma
from sternhalma.server.web.app import Settings, create_app
from sternhalma.server.storage.store import database_url

print(sternhalma.__file__, file=sys.stderr)
settings = Settings(database_url=database_url(sys.argv[1]), workers=1)
with TestClient(create_app(settings), base_url="http://localhost") as client:
    served = client.get("/rules.md")
print(served.status_code, file=sys.stderr)
sys.stdout.write(served.text)
"""


def test_an_installed_package_serves_the_full_rules(tmp_path: Path) -> None:
    """A wheel holds the package folder without its C++ sources (pyproject.toml,
    wheel.packages and wheel.exclude); such a copy, away from the source tree, serves
    the rules too. Without ``site`` the editable install's finder does not load, so the
    copy is the ``sternhalma`` imported."""
    shutil.copytree(PACKAGE, tmp_path / "sternhalma", ignore=shutil.ignore_patterns("_core"))
    path = os.pathsep.join([str(tmp_path), sysconfig.get_paths()["purelib"]])
    served = subprocess.run(
        [sys.executable, "-S", "-c", SERVE_RULES, str(tmp_path / "t.db")],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    imported, status = served.stderr.split()[-2:]
    assert imported == str(tmp_path / "sternhalma" / "__init__.py"), served.stderr
    assert status == "200"
    assert served.stdout == RULES.read_text("utf-8")


def test_dutch_and_turkish_call_the_home_and_a_resignation_one_way() -> None:
    dutch, turkish = strings("nl"), strings("tr")
    for key in ("lobby.deadlineRule", "confirm.out", "ending.out"):
        assert "eigen punt" in dutch[key] and "thuis" not in dutch[key], key
        assert re.search(r"\bev(in|den)", turkish[key]) and "uc" not in turkish[key], key
    howto = WEB / "howto"
    for page in sorted(howto.glob("nl/*.html")):
        assert "remise" not in page.read_text("utf-8").lower(), page
    assert "remise" not in " ".join(dutch.values()).lower()
    for page in sorted(howto.glob("tr/*.html")):
        assert "Daması" not in page.read_text("utf-8"), page  # "Çin daması", as in the app
    assert "terk" not in " ".join(turkish.values()).lower()  # "pes etmek" is resigning
