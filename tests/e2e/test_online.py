"""Online tables in real browsers: friends join by link, each in their own browser.

Every player is a separate Playwright context (its own localStorage: its own
seat tokens and identity), all against a real `sternhalma serve` on 127.0.0.1.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Browser, BrowserContext, Page, expect
from services import IDENTITIES, Server
from websockets.sync.client import connect

MOVES = "#move-list button[data-ply]"
ONLINE = {"kind": "online"}


def known(page: Page, nickname: str) -> tuple[str, str]:
    """Where services.IDENTITIES keeps the identity (what a browser keeps in localStorage)
    that ``nickname`` was last played under on the page's server: a nickname belongs to
    one identity, so every test's "Bram" is the same player, as a person coming back
    with the same browser would be. (The walk test imports this module under another
    name, so the identities cannot be kept here.)"""
    return (urlsplit(page.url).netloc, nickname)


@contextmanager
def player(browser: Browser, **options: Any) -> Iterator[Page]:
    """A person with their own browser (a fresh context)."""
    settings: dict[str, Any] = {
        "locale": "en-US",
        "viewport": {"width": 1280, "height": 860},
        **options,
    }
    context: BrowserContext = browser.new_context(**settings)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        yield page
    finally:
        context.close()


def ready(page: Page, url: str) -> None:
    page.goto(url)
    expect(page.locator("body")).to_have_attribute("data-ready", "true")


def adopt(page: Page, nickname: str) -> None:
    """Give this browser the identity ``nickname`` was last played under, if any."""
    if known(page, nickname) in IDENTITIES:
        kept = IDENTITIES[known(page, nickname)]
        page.evaluate("(v) => localStorage.setItem('sternhalma.identity', v)", kept)


def keep(page: Page) -> None:
    """Remember the identity this browser now has (after it sat down)."""
    kept = page.evaluate("localStorage.getItem('sternhalma.identity')")
    if kept:
        IDENTITIES[known(page, json.loads(kept)["nickname"])] = kept


def create_online(page: Page, server: str, variant: str, seats: int, **extra: Any) -> str:
    """An online table made through the page's own API module (so this browser keeps the
    creator's token and identity); the page then shows the table. Returns its link."""
    ready(page, server + "/")
    adopt(page, "Ayşe")
    table_id = page.evaluate(
        """async (body) => {
          const api = await import('/static/js/api.js');
          return (await api.createTable({...body, identity: api.identity()?.secret})).id;
        }""",
        {"variant": variant, "seats": [ONLINE] * seats, "nickname": "Ayşe", **extra},
    )
    keep(page)
    link = f"{server}/table/{table_id}"
    page.goto(link)
    expect(page.locator(".hole").first).to_be_attached()
    return link


def join(page: Page, link: str, nickname: str, seat: int) -> None:
    """Open the shared link, type a nickname and take seat ``seat``."""
    ready(page, link)
    adopt(page, nickname)
    page.locator("#sit-nickname").fill(nickname)
    page.locator(f'button.sit[data-seat="{seat}"]').click()
    expect(page.locator("#sit-form")).to_be_hidden()
    # The seat is this browser's (and its identity kept) once the reply came.
    expect(page.locator(".player").nth(seat)).to_contain_text("(you)")
    keep(page)


def status(page: Page) -> Any:
    return page.locator("#status")


def hole(page: Page, name: str) -> Any:
    return page.locator(f'[data-hole="{name}"]')


def play_any(page: Page) -> str:
    """Play the first movable marble to its first lit hole; the move's start and end."""
    marble = page.locator(".hole.movable").first
    start = marble.get_attribute("data-hole")
    marble.click()
    target = page.locator(".hole.target").first
    end = target.get_attribute("data-hole")
    target.click()
    return f"{start}-{end}"


def test_two_browsers_play_an_online_game_through_the_shared_link(
    browser: Browser, server: str, artifacts: Path
) -> None:
    with player(browser) as ayse, player(browser) as bram:
        # Ayşe creates the table in the lobby: online, both seats online players, 5+3.
        ready(ayse, server + "/")
        adopt(ayse, "Ayşe")
        ayse.get_by_role("radio", name="Online, by link").check()
        ayse.locator("#nickname").fill("Ayşe")
        ayse.locator("#clock").select_option("5+3")
        expect(ayse.locator("#seat-1")).to_have_value("online")
        expect(ayse.locator("#rated")).to_be_enabled()
        ayse.screenshot(path=artifacts / "lobby-online.png", full_page=True)
        ayse.get_by_role("button", name="Start").click()
        expect(ayse.locator("#waiting")).to_be_visible()
        keep(ayse)
        ayse.screenshot(path=artifacts / "online-waiting.png", full_page=True)
        expect(status(ayse)).to_contain_text("Waiting for players")
        link = ayse.locator("#share-link").input_value()
        assert re.fullmatch(rf"{re.escape(server)}/table/[\w-]+", link)

        # The lobby lists the table as open; Bram joins from the link.
        ready(bram, server + "/")
        expect(bram.locator(f'.open-list a[href="{link.removeprefix(server)}"]')).to_be_visible()
        join(bram, link, "Bram", 1)
        expect(status(ayse)).to_have_text("Your turn: pick a marble.")
        expect(status(bram)).to_have_text("White to play.")
        expect(ayse.locator(".player").nth(1)).to_contain_text("Bram")
        expect(bram.locator(".player").nth(1)).to_contain_text("Bram (you)")
        expect(ayse.locator(".clock")).to_have_count(2)
        expect(ayse.locator(".clock.running")).to_have_count(1)
        expect(ayse.locator("#table-info")).to_contain_text("5+3")

        # A few moves each, every one seen in the other browser.
        hole(ayse, "k4").click()
        hole(ayse, "k5").click()
        expect(bram.locator(MOVES)).to_have_count(1)
        expect(bram.locator(MOVES).first).to_contain_text("k4-k5")
        expect(hole(bram, "k5")).to_have_attribute("aria-label", re.compile("^k5, white marble"))
        expect(status(bram)).to_have_text("Your turn: pick a marble.")
        for ply in range(2, 7):
            mover, watcher = (bram, ayse) if ply % 2 == 0 else (ayse, bram)
            expect(status(mover)).to_have_text("Your turn: pick a marble.")
            played = play_any(mover)
            expect(watcher.locator(MOVES)).to_have_count(ply)
            start, end = played.split("-")
            expect(watcher.locator(MOVES).nth(ply - 1)).to_contain_text(start)
            expect(watcher.locator(MOVES).nth(ply - 1)).to_contain_text(end)
        expect(status(ayse)).to_have_text("Your turn: pick a marble.")
        ayse.screenshot(path=artifacts / "online-table.png", full_page=True)
        bram.screenshot(path=artifacts / "online-table-black.png", full_page=True)


def test_three_players_and_a_spectator(browser: Browser, server: str) -> None:
    with (
        player(browser) as white,
        player(browser) as blue,
        player(browser) as yellow,
        player(browser) as watcher,
    ):
        link = create_online(white, server, "classic-3", 3)
        join(blue, link, "Blue", 1)
        ready(watcher, link)
        expect(watcher.locator("#watching")).to_contain_text("take a free seat, or just watch")
        join(yellow, link, "Yellow", 2)
        expect(status(white)).to_have_text("Your turn: pick a marble.")
        expect(watcher.locator("#watching")).to_contain_text("You are watching this game.")
        expect(white.locator("#watching")).to_contain_text("Spectators: 1.")
        expect(watcher.locator("button.sit")).to_have_count(0)
        for ply, mover in enumerate((white, blue, yellow), 1):
            expect(status(mover)).to_have_text("Your turn: pick a marble.")
            play_any(mover)
            expect(watcher.locator(MOVES)).to_have_count(ply)
        # The spectator can look but not touch.
        expect(status(watcher)).to_have_text("White to play.")
        expect(watcher.locator(".hole.movable")).to_have_count(0)
        expect(watcher.get_by_role("button", name="Resign")).to_be_hidden()
        # In Turkish and Dutch too.
        watcher.locator("#language").select_option("tr")
        expect(watcher.locator("#watching")).to_have_text("Bu oyunu izliyorsunuz.")
        expect(watcher.locator("#table-info")).to_contain_text("Çevrimiçi masa")
        white.locator("#language").select_option("nl")
        expect(white.locator("#watching")).to_have_text("Toeschouwers: 1.")
        expect(white.locator(".player").nth(1)).to_contain_text("aanwezig")
        expect(status(white)).to_have_text("Jij bent aan zet: kies een knikker.")


def test_a_reload_keeps_the_seat(browser: Browser, server: str) -> None:
    with player(browser) as ayse, player(browser) as bram:
        link = create_online(ayse, server, "classic-2", 2)
        join(bram, link, "Bram", 1)
        hole(ayse, "l4").click()
        hole(ayse, "l5").click()
        expect(status(bram)).to_have_text("Your turn: pick a marble.")
        bram.reload()
        expect(status(bram)).to_have_text("Your turn: pick a marble.")
        expect(bram.locator(".player").nth(1)).to_contain_text("Bram (you)")
        play_any(bram)
        expect(ayse.locator(MOVES)).to_have_count(2)
        ayse.reload()
        expect(status(ayse)).to_have_text("Your turn: pick a marble.")
        expect(ayse.locator(MOVES)).to_have_count(2)


def test_a_stranger_and_a_forged_message_cannot_move(browser: Browser, server: str) -> None:
    with player(browser) as ayse, player(browser) as bram, player(browser) as stranger:
        link = create_online(ayse, server, "classic-2", 2)
        join(bram, link, "Bram", 1)
        ready(stranger, link)
        expect(stranger.locator("#watching")).to_contain_text("You are watching this game.")
        expect(stranger.locator(".hole.movable")).to_have_count(0)
        table_id = link.rsplit("/", 1)[1]
        # The stranger's browser writes its own messages: a guessed token, a forged move,
        # a malformed and an oversized message. Each gets an error; none moves a marble.
        replies = stranger.evaluate(
            """async (id) => {
              const ws = new WebSocket(`ws://${location.host}/ws/tables/${id}`);
              const replies = [];
              await new Promise((ok) => (ws.onopen = ok));
              ws.onmessage = (e) => replies.push(JSON.parse(e.data));
              const send = (m) => ws.send(typeof m === "string" ? m : JSON.stringify(m));
              send({type: "hello", token: "x".repeat(32)});
              send({type: "move", seat: 0, path: ["l4", "l5"]});
              send({type: "move", seat: 1, path: ["e14", "e13"]});
              send({type: "resign", seat: 0});
              send("{not json");
              send(JSON.stringify({type: "ping", pad: "x".repeat(10000)}));
              send({type: "ping"});
              await new Promise((ok) => {
                const wait = () => replies.some((r) => r.type === "pong") ? ok() : setTimeout(wait, 20);
                wait();
              });
              ws.close();
              return replies.filter((r) => r.type !== "presence");
            }""",
            table_id,
        )
        errors = [r for r in replies if r["type"] == "error"]
        assert [e["code"] for e in errors[:3]] == ["not-your-seat"] * 3
        assert errors[3]["message"].startswith("a message must be JSON: ")
        assert "too long" in errors[4]["message"]
        assert replies[-1]["type"] == "pong"
        # The game goes on for the players.
        hole(ayse, "l4").click()
        hole(ayse, "l5").click()
        expect(bram.locator(MOVES)).to_have_count(1)
        expect(stranger.locator(MOVES)).to_have_count(1)


def test_a_flag_ends_a_rated_game_with_the_rating_changes(
    browser: Browser, server: str, artifacts: Path
) -> None:
    with player(browser) as ayse, player(browser) as bram:
        link = create_online(ayse, server, "classic-2", 2, clock="0.1+0", rated=True)
        join(bram, link, "Bram", 1)
        # One move each, then nobody moves: White's 6 seconds run out and the server
        # flags her (before the first moves it would abort the game instead).
        hole(ayse, "k4").click()
        hole(ayse, "k5").click()
        expect(status(bram)).to_have_text("Your turn: pick a marble.")
        play_any(bram)
        expect(bram.locator("#result")).to_be_visible(timeout=20_000)
        expect(bram.locator("#reason")).to_have_text("Black wins. White ran out of time.")
        expect(ayse.locator("#reason")).to_have_text("Black wins. White ran out of time.")
        changes = ayse.locator("#rating-changes")
        # Ratings of fewer than 10 rated games are provisional: shown with "?".
        expect(changes).to_contain_text(re.compile(r"Ayşe: \d+\?? → \d+\? \(−[\d.]+\)"))
        expect(changes).to_contain_text(re.compile(r"Bram: \d+\?? → \d+\? \(\+[\d.]+\)"))
        expect(ayse.locator(".player").first).to_contain_text("out of time")
        ayse.screenshot(path=artifacts / "online-finished.png", full_page=True)
        # The finished game stays at its link, and its record downloads.
        bram.reload()
        expect(bram.locator("#reason")).to_have_text("Black wins. White ran out of time.")
        with bram.expect_download() as download:
            bram.locator("#download").click()
        record = Path(download.value.path()).read_text("utf-8")
        assert '[White "Ayşe"]' in record and '[Ending "flag"]' in record


def test_a_resignation_the_ratings_page_and_nicknames_shown_as_text(
    browser: Browser, server: str, artifacts: Path
) -> None:
    # Markup that would become an element (and run o()) if a page ever put a nickname
    # into innerHTML; shown as text, it is just the characters.
    nasty = "<img src=x onerror=o()>"
    assert len(nasty) <= 24
    owned = "() => { window.o = () => { document.body.dataset.owned = 'yes'; }; }"
    with player(browser) as ayse, player(browser) as guest:
        link = create_online(ayse, server, "classic-2", 2, rated=True)
        ayse.evaluate(owned)
        ready(guest, link)
        guest.evaluate(owned)
        guest.locator("#sit-nickname").fill(nasty)
        guest.locator('button.sit[data-seat="1"]').click()
        expect(ayse.locator(".player").nth(1)).to_contain_text(nasty)
        expect(guest.locator(".player").nth(1)).to_contain_text("(you)")
        keep(guest)
        hole(ayse, "k4").click()
        hole(ayse, "k5").click()
        expect(status(guest)).to_have_text("Your turn: pick a marble.")
        play_any(guest)
        guest.get_by_role("button", name="Resign").click()
        guest.get_by_role("dialog").get_by_role("button", name="Resign").click()
        expect(ayse.locator("#reason")).to_have_text("White wins. Black resigned.")
        expect(ayse.locator("#rating-changes")).to_contain_text("(+")
        # Both ask for a rematch: it starts with the seats turned.
        ayse.get_by_role("button", name="Rematch").click()
        expect(guest.locator("#rematch-note")).to_have_text("Ayşe would like a rematch.")
        finished = ayse.url
        guest.get_by_role("button", name="Rematch").click()
        expect(ayse).not_to_have_url(finished)
        expect(guest.locator(".player").first).to_contain_text("(you)")
        expect(status(guest)).to_have_text("Your turn: pick a marble.")

        # Only established players (10 rated games) are listed: the guest has played
        # one, and plays the other nine against Ayşe quickly, through the API.
        rated_games(server, IDENTITIES[known(ayse, "Ayşe")], IDENTITIES[known(ayse, nasty)], 9)
        ayse.get_by_role("link", name="Ratings").click()
        board = ayse.locator('.rating-list[data-category="classic-2"]')
        expect(board).to_contain_text(nasty)
        expect(board.locator("tr.me")).to_contain_text("Ayşe (you)")
        expect(board.locator("tbody tr")).to_have_count(2)  # Bram is still provisional
        ayse.screenshot(path=artifacts / "ratings.png", full_page=True)
        assert ayse.locator(".rating-list img").count() == 0
        assert guest.locator(".player img").count() == 0
        assert ayse.evaluate("document.body.dataset.owned") is None
        assert guest.evaluate("document.body.dataset.owned") is None


def rated_games(server: str, white: str, black: str, count: int) -> None:
    """``count`` rated classic-2 games between two kept identities, played through the
    API: one move each, then black resigns."""
    first, second = json.loads(white), json.loads(black)
    for _ in range(count):
        body = {
            "variant": "classic-2",
            "seats": [ONLINE] * 2,
            "rated": True,
            "nickname": first["nickname"],
            "identity": first["secret"],
        }
        request = urllib.request.Request(
            f"{server}/api/tables",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Origin": server},
        )
        with urllib.request.urlopen(request) as response:
            table = json.load(response)
        url = server.replace("http", "ws", 1) + f"/ws/tables/{table['id']}"
        with connect(url) as w, connect(url) as b:
            w.send(json.dumps({"type": "hello", "token": table["token"]}))
            b.send(json.dumps({"type": "hello"}))
            sit = {"type": "sit", "seat": 1, "nickname": second["nickname"]}
            b.send(json.dumps({**sit, "identity": second["secret"]}))
            until(w, "start")
            w.send(json.dumps({"type": "move", "seat": 0, "path": ["l4", "l5"]}))
            until(b, "move")
            b.send(json.dumps({"type": "move", "seat": 1, "path": ["e14", "e13"]}))
            until(w, "move", seat=1)
            b.send(json.dumps({"type": "resign"}))
            until(w, "resign")


def until(ws: Any, kind: str, seat: int | None = None) -> None:
    """Read ``ws`` until the event ``kind`` (of ``seat``) arrives."""
    for _ in range(50):
        message = json.loads(ws.recv(timeout=15))
        assert message["type"] != "error", message
        event = message.get("event") or {}
        if event.get("kind") == kind and seat in (None, event.get("seat")):
            return
    raise AssertionError(f"no {kind} event came")


def test_a_game_is_aborted_before_every_first_move(
    browser: Browser, server: str, artifacts: Path
) -> None:
    with player(browser) as ayse, player(browser) as bram:
        link = create_online(ayse, server, "classic-2", 2, rated=True)
        join(bram, link, "Bram", 1)
        # Nobody can lose a game nobody has begun: Abort instead of Resign.
        expect(ayse.get_by_role("button", name="Abort")).to_be_visible()
        expect(ayse.get_by_role("button", name="Resign")).to_be_hidden()
        hole(ayse, "k4").click()
        hole(ayse, "k5").click()
        expect(status(bram)).to_have_text("Your turn: pick a marble.")
        bram.get_by_role("button", name="Abort").click()
        bram.get_by_role("dialog").get_by_role("button", name="Abort").click()
        reason = (
            "Black aborted the game before every player had made a first move. "
            "Nobody wins or loses, and it is not rated."
        )
        for page in (ayse, bram):
            expect(page.locator("#result-title")).to_have_text("Game aborted")
            expect(page.locator("#reason")).to_have_text(reason)
            expect(status(page)).to_have_text("The game was aborted; it is not rated.")
            expect(page.locator("#rating-changes")).to_be_hidden()
            expect(page.get_by_role("button", name="Abort")).to_be_hidden()
        ayse.screenshot(path=artifacts / "online-aborted.png", full_page=True)
        bram.locator("#language").select_option("tr")
        expect(bram.locator("#reason")).to_contain_text("oyunu iptal etti")
        bram.locator("#language").select_option("nl")
        expect(bram.locator("#reason")).to_contain_text("heeft de partij afgebroken")
        # The table stays at its link as it ended.
        ayse.reload()
        expect(ayse.locator("#reason")).to_have_text(reason)


def test_an_online_table_on_a_phone(browser: Browser, server: str, artifacts: Path) -> None:
    with (
        player(browser) as ayse,
        player(
            browser, viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
        ) as phone,
    ):
        link = create_online(ayse, server, "classic-2", 2, clock="10+5")
        ready(phone, link)
        adopt(phone, "Bram")
        phone.locator("#sit-nickname").fill("Bram")
        phone.locator('button.sit[data-seat="1"]').tap()
        expect(status(phone)).to_have_text("White to play.")
        hole(ayse, "k4").click()
        hole(ayse, "k5").click()
        expect(status(phone)).to_have_text("Your turn: pick a marble.")
        assert phone.evaluate("document.scrollingElement.scrollWidth") <= 390
        phone.screenshot(path=artifacts / "online-phone.png", full_page=True)
        marble = phone.locator(".hole.movable").first
        marble.tap()
        phone.locator(".hole.target").first.tap()
        expect(ayse.locator(MOVES)).to_have_count(2)


def test_a_server_restart_mid_game_loses_nothing(
    browser: Browser, tmp_path: Path, artifacts: Path
) -> None:
    """The server stops and starts again (same port, same SQLite file): both browsers
    reconnect by themselves and play on, with every move and the clocks as they were."""
    process = Server(str(tmp_path / "tables.db"), None, tmp_path / "server.log")
    process.start()
    try:
        with player(browser) as ayse, player(browser) as bram:
            link = create_online(ayse, process.url, "classic-2", 2, clock="5+3")
            table_id = link.rsplit("/", 1)[1]
            join(bram, link, "Bram", 1)
            hole(ayse, "k4").click()
            hole(ayse, "k5").click()
            expect(status(bram)).to_have_text("Your turn: pick a marble.")
            played = play_any(bram)
            expect(status(ayse)).to_have_text("Your turn: pick a marble.")
            before = process.get(f"/api/tables/{table_id}")
            asked = time.monotonic()
            process.stop()
            expect(status(ayse)).to_have_text("Connection lost, reconnecting…")
            # Nothing can be played meanwhile: the move would be lost.
            expect(ayse.locator(".hole.movable")).to_have_count(0)
            down = time.monotonic()
            time.sleep(2)  # the server stays down a while: nobody's clock runs meanwhile
            process.start()
            up = time.monotonic()
            after = process.get(f"/api/tables/{table_id}")
            answered = time.monotonic()
            assert after["moves"] == before["moves"]
            assert after["moves"][0]["text"] == "k4-k5"
            assert after["v"] == before["v"]
            # Black's time stood still; White's ran only while a server was running.
            assert after["clock"]["remaining"][1] == before["clock"]["remaining"][1]
            spent = before["clock"]["remaining"][0] - after["clock"]["remaining"][0]
            assert 0 <= spent <= (answered - asked - (up - down)) * 1000 + 500
            expect(status(ayse)).to_have_text("Your turn: pick a marble.", timeout=20_000)
            expect(status(bram)).to_have_text("White to play.", timeout=20_000)
            play_any(ayse)
            expect(bram.locator(MOVES)).to_have_count(3)
            expect(bram.locator(MOVES).nth(1)).to_contain_text(played.split("-")[0])
            expect(status(bram)).to_have_text("Your turn: pick a marble.")
            bram.screenshot(path=artifacts / "online-after-restart.png", full_page=True)
    finally:
        process.stop()
