"""The local game in the browser (docs/browser.md): what it costs to load, how soon the
computer moves, and how strong Hard is on Pyodide.

    nice .venv/bin/python bench/browser_engine.py load
    nice .venv/bin/python bench/browser_engine.py strength --games 20

``load``: this machine's Chromium (/usr/bin/chromium, headless) opens the lobby in a new
profile and starts a local game where Hard moves first, three times in the same profile:
the first visit (nothing kept), a second load of the same table and a new game (the service
worker's cache). The server runs in this process behind a counter of the bytes it sends
(bodies and headers: everything the browser, its workers and its service worker fetch),
so "transferred" is what went over the network. The time is from opening the table page
to the computer's first move in the move list (the page marks it). Below each load, where
that time went: the marks (User Timing) of the page and the engine's worker
(engine-worker.js), in seconds after the page opened: the worker created and started,
Python started afresh (``pyodide-loaded``) or restored from a snapshot, the server's
(``snapshot-fetched``, a first visit) or the one this browser kept
(``snapshot-restored``), the wheel unpacked, the engine imported, the first ``welcome``,
Hard's ``think`` and ``thought``, the move posted (``moved``), the snapshot kept, and the
move ``shown``; with ``--verbose`` also when each of the worker's fetches had come.

``strength``: Hard at its default think time (1 s, as the browser's worker plays it:
searching until its time is up) against Medium, classic-2, inside Pyodide under Node
(the npm package tools/build_browser.py installs), the seats alternating. Prints the
games won and Hard's search nodes a second in Pyodide and, in the first two of the same
games (same seeds), in CPython's pure-Python engine (STERNHALMA_PURE=1).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]


class Counted:
    """ASGI middleware: the bytes of every response, headers included."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sent = 0
        self.requests = 0
        #: Body bytes by path (``--verbose``: the biggest are printed).
        self.by_path: dict[str, int] = {}

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        self.requests += 1
        path = scope["path"]

        async def counting(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.sent += 20 + sum(len(k) + len(v) + 4 for k, v in message["headers"])
            elif message["type"] == "http.response.body":
                self.sent += len(message.get("body", b""))
                self.by_path[path] = self.by_path.get(path, 0) + len(message.get("body", b""))
            await send(message)

        await self.app(scope, receive, counting)


def serve(folder: Path) -> tuple[str, Counted]:
    import uvicorn

    from sternhalma.server.storage.store import database_url
    from sternhalma.server.web.app import Settings, create_app

    app = Counted(create_app(Settings(database_url=database_url(str(folder / "t.db")))))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{port}", app


#: The marks (User Timing) the page and the engine's worker make, as times since the epoch.
MARKS = (
    "[performance.timeOrigin, performance.getEntriesByType('mark')"
    ".map((m) => [m.name, performance.timeOrigin + m.startTime])]"
)
#: The worker's fetches, as ``MARKS``: each file's name when it had come (``--verbose``).
FETCHES = (
    "[performance.timeOrigin, performance.getEntriesByType('resource')"
    ".map((r) => ['got ' + r.name.split('/').pop(), performance.timeOrigin + r.responseEnd])]"
)


#: Run in each page before its scripts: marks "shown" when the first move is in the move
#: list (looked for at each change of the page, not at a test's polling times).
SHOWN = """
new MutationObserver((changes, observer) => {
  if (document.querySelector("#move-list button[data-ply]")) {
    performance.mark("shown");
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


def timeline(page: Any, fetches: bool = False) -> list[tuple[str, float]]:
    """Where the time to the first computer move went: seconds since the table page
    opened at each mark of the page (its last, "shown": the move in the list) and the
    engine's worker (engine-worker.js), in order."""
    opened, marks = page.evaluate(MARKS)
    steps = [(name, at - opened) for name, at in marks]
    for worker in page.workers:
        if worker.url.endswith("/engine-worker.js"):
            created, marks = worker.evaluate(MARKS)
            steps.append(("worker-created", created - opened))
            steps += [(name, at - opened) for name, at in marks]
            if fetches:
                steps += [(name, at - opened) for name, at in worker.evaluate(FETCHES)[1]]
    return sorted(steps, key=lambda step: step[1])


def load(verbose: bool = False) -> None:
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        url, counter = serve(Path(folder))
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            context = browser.new_context()
            context.add_init_script(SHOWN)
            page = context.new_page()
            page.set_default_timeout(180_000)

            def measure(name: str, table: str | None) -> str:
                counter.sent = counter.requests = 0
                if table is None:
                    page.goto(url + "/")
                    expect(page.locator("body")).to_have_attribute(
                        "data-ready", "true", timeout=60_000
                    )
                    table = page.evaluate(
                        "async () => (await import('/static/js/engine.js')).createLocalTable("
                        "{variant: 'classic-2', seats: [{kind: 'computer', level: 'hard'}, "
                        "{kind: 'person'}]}).id"
                    )
                page.goto(f"{url}/table/{table}")
                expect(page.locator("#move-list button[data-ply]")).to_have_count(
                    1, timeout=180_000
                )
                steps = timeline(page, verbose)
                first_move = dict(steps)["shown"] / 1000
                # Whatever the page and its workers still fetch (the service worker keeping
                # the app and Pyodide) counts too.
                page.wait_for_timeout(3000)
                while True:
                    before = counter.requests
                    page.wait_for_timeout(2000)
                    if counter.requests == before:
                        break
                print(
                    f"{name:28} {counter.sent / 1e6:6.2f} MB in {counter.requests:3} requests; "
                    f"first computer move {first_move:5.2f} s after the page opened"
                )
                print("    " + ", ".join(f"{name} {at / 1000:.2f}" for name, at in steps))
                if verbose:
                    for path, size in sorted(counter.by_path.items(), key=lambda x: -x[1])[:8]:
                        print(f"    {size / 1e6:6.2f} MB  {path}")
                counter.by_path.clear()
                return table

            table = measure("first visit", None)
            measure("the same table again", table)
            measure("a new game, second visit", None)
            browser.close()


#: Under Node: Pyodide with the engine's wheel; Hard (white, then black) against Medium.
NODE_GAMES = r"""
const { loadPyodide } = await import(process.argv[2]);
const py = await loadPyodide();
py.unpackArchive(new Uint8Array(require("fs").readFileSync(process.argv[3])), "wheel");
py.runPython(process.argv[4]);
"""

PYTHON_GAMES = r"""
import json, sys, time
from sternhalma.browser import BROWSER_LIMIT
from sternhalma.game import Game
from sternhalma.players import make_player

games, seed = GAMES, SEED
won = 0
nodes = seconds = 0.0
for g in range(games):
    hard_seat = g % 2
    game = Game("classic-2")
    hard = make_player("hard", seed + g)
    medium = make_player("medium", seed + g)
    while not game.is_over:
        if game.turn == hard_seat:
            started = time.perf_counter()
            choice = hard.choose(game, BROWSER_LIMIT)
            seconds += time.perf_counter() - started
            nodes += choice.info.nodes
            move = choice.move
        else:
            move = medium.choose(game).move
        game.play(move)
    first = game.result.places[hard_seat] == 1 and list(game.result.places).count(1) == 1
    won += first
    print(json.dumps({"game": g + 1, "hard": hard_seat, "won": first, "ending": game.result.ending}), flush=True)
print(json.dumps({"won": won, "games": games, "nodes_per_second": nodes / max(seconds, 1e-9)}), flush=True)
"""


def strength(games: int, seed: int) -> None:
    from sternhalma.server.web.offline import engine_wheel

    pyodide = ROOT / "node_modules" / "pyodide" / "pyodide.mjs"
    if not pyodide.is_file():
        sys.exit("no node_modules/pyodide: run make setup (tools/build_browser.py)")
    with tempfile.TemporaryDirectory() as folder:
        wheel = Path(folder) / "sternhalma-0.1.0-py3-none-any.whl"
        wheel.write_bytes(engine_wheel())
        script = Path(folder) / "games.cjs"
        script.write_text(f"(async () => {{ {NODE_GAMES} }})();")
        code = PYTHON_GAMES.replace("GAMES, SEED", f"{games}, {seed}")
        started = time.perf_counter()
        # Each game is printed as it ends: a run cut short still says what it played.
        with subprocess.Popen(
            ["node", str(script), str(pyodide), str(wheel), code],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as node:
            assert node.stdout is not None and node.stderr is not None
            lines = []
            for line in node.stdout:
                if line.startswith("{"):
                    lines.append(json.loads(line))
                    print(line.strip(), flush=True)
            errors = node.stderr.read()
        if node.returncode != 0 or not lines or "games" not in lines[-1]:
            sys.exit(errors[-2000:])
    summary = lines[-1]
    print(
        f"Pyodide: Hard (1 s a move, by time) won {summary['won']} of {summary['games']} "
        f"classic-2 games against Medium; {summary['nodes_per_second']:,.0f} nodes/s "
        f"({time.perf_counter() - started:.0f} s)"
    )
    cpython = subprocess.run(
        [sys.executable, "-c", code.replace(f"{games}, {seed}", f"{min(games, 2)}, {seed}")],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, STERNHALMA_PURE="1"),
    )
    rate = json.loads(cpython.stdout.splitlines()[-1])["nodes_per_second"]
    print(f"CPython, pure-Python engine, the first two of these games: {rate:,.0f} nodes/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    loading = sub.add_parser("load")
    loading.add_argument(
        "--verbose", action="store_true", help="the biggest answers and the worker's fetches too"
    )
    games = sub.add_parser("strength")
    games.add_argument("--games", type=int, default=10)
    games.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.what == "load":
        load(args.verbose)
    else:
        strength(args.games, args.seed)


if __name__ == "__main__":
    main()
