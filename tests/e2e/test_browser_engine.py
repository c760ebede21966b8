"""The local game in the browser (docs/browser.md): Python on Pyodide in a Web Worker.

A whole game against Hard makes no request once the page has loaded and plays with
the network cut; the service worker opens and plays the local game offline after a
first visit; the engine starts from the server's snapshot, then the one it kept; a local table's page
starts the engine before the app's scripts; the app is installable;
without the browser engine the server's local tables play; the worker answers a bad
message with a clear error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, Request, expect

from e2e.test_web import NEAR_FINISH, hole, open_lobby, status

#: Pyodide compiles 10 MB of WebAssembly before the first move (longer on a busy machine).
LOAD = 120_000


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 860})
    context.set_default_timeout(30_000)
    yield context
    context.close()


def start_local_game(page: Page, server: str, level: str) -> None:
    """The lobby's game on this screen against the computer at ``level``."""
    open_lobby(page, server)
    page.get_by_label("On this screen").check()
    expect(page.locator("#engine-note")).to_have_text(
        "This game runs in your browser: nothing is sent anywhere, and it plays offline too."
    )
    page.locator("#seat-0").select_option("person")
    page.locator("#seat-1").select_option(f"computer:{level}")
    page.get_by_role("button", name="Start").click()
    expect(page).to_have_url(re.compile(r"/table/local-\w+$"))
    expect(status(page)).to_have_text("Your turn: pick a marble.", timeout=LOAD)


def play_any_move(page: Page) -> None:
    """A person's move with the mouse: the first marble that can move, to its first hole."""
    page.locator(".hole.movable").first.click()
    page.locator(".hole.target").first.click()


def wait_for_my_turn(page: Page, moves: int) -> None:
    """Until the move list has ``moves`` moves and it is my turn again, or the game is over.
    A move that would put me out is played all the same: the engine asks that after the
    move, so the question may come while this waits."""
    confirm = page.get_by_role("dialog").get_by_role("button", name="Play it")
    for _ in range(600):
        if page.locator("#result").is_visible():
            return
        if confirm.is_visible():
            confirm.click()
        mine = status(page).text_content() == "Your turn: pick a marble."
        if mine and page.locator("#move-list button[data-ply]").count() >= moves:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the computer did not answer")


def new_local_table(page: Page, start: dict[str, Any] | None = None) -> str:
    """A classic-2 table against Hard kept in this browser (from ``start``); its id."""
    return str(
        page.evaluate(
            "async (start) => (await import('/static/js/engine.js')).createLocalTable("
            "{variant: 'classic-2', seats: [{kind: 'person'}, {kind: 'computer', level: 'hard'}],"
            " start}).id",
            start,
        )
    )


def reload_and_play(page: Page, moves: int) -> list[str]:
    """Open the page again, play a move and see the engine answer (``moves`` in the list
    then); the engine's marks of that start."""
    page.reload()
    expect(status(page)).to_have_text("Your turn: pick a marble.", timeout=LOAD)
    marks = wait_for_mark(page, "engine-imported")
    play_any_move(page)
    wait_for_my_turn(page, moves)
    expect(page.locator("#move-list button[data-ply]")).to_have_count(moves)
    return marks


def record_requests(context: BrowserContext) -> list[str]:
    """The addresses the pages and their engine ask for from now on. The service worker's
    own requests are left out: it keeps Pyodide for offline play in the background (sw.js
    ``keepEngine``), and on a slow machine it may still be at it (package.json first)
    when a test cuts the network; what the page asks for is counted, kept or not."""
    requests: list[str] = []

    def heard(request: Request) -> None:
        if request.service_worker is None:
            requests.append(request.url)

    context.on("request", heard)
    return requests


def wait_for_kept_app(page: Page) -> None:
    """The service worker runs and keeps Pyodide (the first visit is over)."""
    for _ in range(240):
        kept = page.evaluate(
            """async () => {
              if (!navigator.serviceWorker.controller) return false;
              const names = await caches.keys();
              const engine = names.find((n) => n.startsWith("pyodide-"));
              return Boolean(engine) && (await (await caches.open(engine)).keys()).length >= 4;
            }"""
        )
        if kept:
            return
        page.wait_for_timeout(500)
    raise AssertionError("the service worker never kept Pyodide")


def test_a_whole_game_against_hard_makes_no_request_after_the_page_loaded(
    context: BrowserContext, browser_server: str
) -> None:
    page = context.new_page()
    start_local_game(page, browser_server, "hard")
    wait_for_kept_app(page)
    requests = record_requests(context)
    moves = page.locator("#move-list button[data-ply]")
    result = page.locator("#result")
    # Past the book's first move, a hint from the engine here shows what it foresees,
    # in words and on the board.
    play_any_move(page)
    wait_for_my_turn(page, 2)
    page.get_by_role("button", name="Hint").click()
    expect(status(page)).to_contain_text("Hint:", timeout=LOAD)
    said = re.findall(
        r"(?:White|Black)? ?([a-q]\d+(?:-[a-q]\d+)+)", page.locator("#foreseen").inner_text()
    )
    assert said, page.locator("#foreseen").inner_text()
    drawn = page.locator(".layer-foreseen .foreseen")
    expect(drawn).to_have_count(len(said))
    assert [drawn.nth(i).get_attribute("data-path") for i in range(len(said))] == said
    page.keyboard.press("Escape")
    expect(drawn).to_have_count(0)
    for _ in range(200):
        if result.is_visible():
            break
        played = moves.count()
        play_any_move(page)
        wait_for_my_turn(page, played + 2)
    expect(result).to_be_visible()
    expect(page.locator("#reason")).to_contain_text("wins")
    expect(page.locator("#record-note")).to_have_text("Your records have been updated.")
    expect(page.locator("#download")).to_have_attribute("href", re.compile("^blob:"))
    assert moves.count() > 20
    assert requests == [], requests
    # The analysis board opens on the game, its record handed over in the link.
    analyse = page.get_by_role("link", name="Analyse the game")
    expect(analyse).to_have_attribute("href", re.compile("^/analysis#record="))
    played = moves.count()
    analyse.click()
    expect(page.locator("#an-moves button[data-ply]")).to_have_count(played)


def test_a_local_game_plays_with_the_network_cut(
    context: BrowserContext, browser_server: str
) -> None:
    page = context.new_page()
    open_lobby(page, browser_server)
    table = new_local_table(page, NEAR_FINISH)
    page.goto(f"{browser_server}/table/{table}")
    expect(status(page)).to_have_text("Your turn: pick a marble.", timeout=LOAD)
    context.set_offline(True)
    requests = record_requests(context)
    hole(page, "h13").click()
    hole(page, "h14").click()
    # Black (Hard) has its last reply, then the game is over.
    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#reason")).to_contain_text("White wins.")
    expect(page.locator("#move-list button[data-ply]")).to_have_count(2)
    assert all(url.startswith("blob:") for url in requests), requests  # the record


def test_the_service_worker_opens_and_plays_the_local_game_offline_after_a_first_visit(
    context: BrowserContext, browser_server: str
) -> None:
    first = context.new_page()
    start_local_game(first, browser_server, "easy")
    wait_for_kept_app(first)
    first.close()
    context.set_offline(True)
    page = context.new_page()
    page.goto(browser_server + "/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    # Online play says it needs the network.
    page.get_by_label("Online, by link").check()
    expect(page.locator("#engine-note")).to_have_text(
        "Online play needs the network, and this browser is offline."
    )
    expect(page.get_by_role("button", name="Start")).to_be_disabled()
    unreachable = "Online games cannot be listed now: this needs the network."
    expect(page.locator("#open-list")).to_have_text(unreachable)
    expect(page.locator("#live-list")).to_have_text(unreachable)
    page.get_by_role("button", name="Play online").click()
    expect(page.locator("#pool-error")).to_have_text(
        "Online play needs the network, and this browser is offline."
    )
    start_local_game(page, browser_server, "easy")
    play_any_move(page)
    expect(page.locator("#move-list button[data-ply]")).to_have_count(2)  # the answer
    expect(status(page)).to_have_text("Your turn: pick a marble.")


def engine_marks(page: Page) -> list[str]:
    """The marks of the page's engine worker (engine-worker.js): how it started."""
    for _ in range(100):
        for worker in page.workers:
            if worker.url.endswith("/engine-worker.js"):
                marks: list[str] = worker.evaluate(
                    "performance.getEntriesByType('mark').map((m) => m.name)"
                )
                return marks
        page.wait_for_timeout(100)
    raise AssertionError("the page has no engine worker")


def wait_for_mark(page: Page, name: str) -> list[str]:
    for _ in range(300):
        marks = engine_marks(page)
        if name in marks:
            return marks
        page.wait_for_timeout(100)
    raise AssertionError(f"the engine worker never marked {name}: {engine_marks(page)}")


def test_the_engine_starts_from_a_snapshot_and_plays(
    context: BrowserContext, browser_server: str
) -> None:
    page = context.new_page()
    start_local_game(page, browser_server, "hard")
    # The first start restores the server's snapshot and keeps it.
    marks = wait_for_mark(page, "snapshot-kept")
    assert "snapshot-fetched" in marks and "pyodide-loaded" not in marks, marks
    play_any_move(page)
    wait_for_my_turn(page, 2)

    # The next start restores the kept one: nothing asked of the server.
    asked = record_requests(context)
    marks = reload_and_play(page, 4)
    assert "snapshot-restored" in marks and "snapshot-fetched" not in marks, marks
    assert not [url for url in asked if "/engine/snapshot/" in url], asked

    # A kept snapshot Pyodide refuses is dropped, and the server's is fetched again.
    refuse_kept_snapshot(page)
    reload_and_play(page, 6)
    marks = wait_for_mark(page, "snapshot-kept")
    assert "snapshot-fetched" in marks and "snapshot-restored" not in marks, marks

    # Where the server has none (or it cannot be had), Python starts afresh and the
    # engine keeps a snapshot of its own.
    refuse_kept_snapshot(page)
    context.route("**/engine/snapshot/*", lambda route: route.fulfill(status=404))
    reload_and_play(page, 8)
    marks = wait_for_mark(page, "snapshot-kept")
    assert "pyodide-loaded" in marks and "snapshot-fetched" not in marks, marks
    marks = reload_and_play(page, 10)
    assert "snapshot-restored" in marks, marks


def refuse_kept_snapshot(page: Page) -> None:
    """Spoils the snapshot this browser kept: Pyodide refuses it at the next start."""
    page.evaluate(
        """async () => {
          const cache = await caches.open("engine-snapshot");
          for (const key of await cache.keys()) await cache.put(key, new Response("not a snapshot"));
        }"""
    )


def test_a_local_tables_page_starts_the_engine_before_the_apps_scripts(
    context: BrowserContext, browser_server: str
) -> None:
    page = context.new_page()
    open_lobby(page, browser_server)
    table = new_local_table(page)
    # Without the app's own script the page draws nothing, and the engine starts all the same.
    page.route("**/static/js/main.js", lambda route: route.abort())
    page.goto(f"{browser_server}/table/{table}")
    assert "worker-started" in wait_for_mark(page, "worker-started")
    # An address that is not a local table in this browser starts no engine.
    other = context.new_page()
    other.route("**/static/js/main.js", lambda route: route.abort())
    other.goto(f"{browser_server}/table/local-00112233")
    other.wait_for_timeout(1500)
    assert not [w for w in other.workers if w.url.endswith("/engine-worker.js")]


def test_the_app_is_installable_with_its_manifest_and_icons(
    context: BrowserContext, browser_server: str
) -> None:
    page = context.new_page()
    open_lobby(page, browser_server)
    expect(page.locator("link[rel=manifest]")).to_have_attribute("href", "/manifest.webmanifest")
    cdp = context.new_cdp_session(page)
    manifest: dict[str, Any] = cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    data = json.loads(manifest["data"])
    assert data["name"].startswith("Sternhalma") and data["display"] == "standalone"
    for icon in data["icons"]:
        response = page.request.get(browser_server + icon["src"])
        assert response.ok and response.headers["content-type"] == "image/png"
    # Chromium's own judgement; a test browser's context is always incognito, which
    # alone keeps an app from being installed.
    for _ in range(60):
        found = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        errors = [e["errorId"] for e in found if e["errorId"] != "in-incognito"]
        if not errors:
            break
        page.wait_for_timeout(500)  # the service worker is still being installed
    assert errors == []


@pytest.mark.parametrize("why", ["server-engine", "no-webassembly"])
def test_without_the_browser_engine_the_servers_local_table_plays(
    context: BrowserContext, browser_server: str, server: str, why: str
) -> None:
    url = server if why == "server-engine" else browser_server
    if why == "no-webassembly":
        context.add_init_script("delete globalThis.WebAssembly;")
    page = context.new_page()
    open_lobby(page, url)
    expect(page.locator("#engine-note")).to_have_text("This game runs on the server.")
    page.get_by_label("On this screen").check()
    page.locator("#seat-0").select_option("person")
    page.locator("#seat-1").select_option("computer:easy")
    page.get_by_role("button", name="Start").click()
    expect(status(page)).to_have_text("Your turn: pick a marble.")
    assert "/table/local-" not in page.url
    play_any_move(page)
    expect(page.locator("#move-list button[data-ply]")).to_have_count(2)
    expect(page.locator("#download")).to_have_count(1)


def test_a_bad_message_to_the_engine_worker_gets_a_clear_error(
    context: BrowserContext, browser_server: str
) -> None:
    page = context.new_page()
    open_lobby(page, browser_server)
    page.set_default_timeout(LOAD)
    replies = page.evaluate(
        """async () => {
          const worker = new Worker("/static/js/engine-worker.js", { type: "module" });
          const answers = [];
          const heard = new Promise((done) => {
            worker.onmessage = (event) => {
              answers.push(...JSON.parse(event.data));
              if (answers.length === 4) done();
            };
          });
          for (const message of ["not json", '{"type": "hello"}', '{"type": "fly"}',
            JSON.stringify({ type: "open", table: { variant: "classic-2", seats: [] } })]) {
            worker.postMessage(message);
          }
          await heard;
          worker.terminate();
          return answers;
        }"""
    )
    assert [(r["type"], r["code"]) for r in replies] == [
        ("error", "ProtocolError"),
        ("error", "no-table"),
        ("error", "no-table"),
        ("error", "seats"),
    ]
    assert replies[0]["message"].startswith("a message must be JSON")
    assert replies[3]["message"] == "classic-2 needs exactly 2 seats (white, black)"
