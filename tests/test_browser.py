"""The local game as the browser's worker runs it (sternhalma/browser.py), here on
CPython: the table socket's messages in and out, the computer's turn, bad messages,
and the engine's wheel that Pyodide loads (server/web/offline.py)."""

from __future__ import annotations

import ast
import gzip
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import Client

from sternhalma.browser import MAX_MESSAGE, LocalTables
from sternhalma.core import COMPILED
from sternhalma.notation import position_from_json
from sternhalma.players.hard import BOOK
from sternhalma.rules import VARIANTS, find_variant
from sternhalma.server.storage.store import database_url
from sternhalma.server.tables.seats import Seat
from sternhalma.server.tables.table import Table
from sternhalma.server.web.app import Settings, create_app
from sternhalma.server.web.offline import (
    SNAPSHOT_FOLDER,
    WHEEL_URL,
    accepts_gzip,
    engine_key,
    engine_wheel,
    pyodide_files,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from build_browser import COMPRESSED, compress
from make_book import book_move, start_positions

PERSON = {"kind": "person"}
EASY = {"kind": "computer", "level": "easy"}
HARD = {"kind": "computer", "level": "hard"}


class Page:
    """The table page's side of the worker: sends messages, keeps what comes back."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.tables = LocalTables()
        self.saved: dict[str, dict[str, Any]] = {}
        replies = json.loads(self.tables.receive(json.dumps({"type": "open", "table": table})))
        assert [r["type"] for r in replies] == ["saved"], replies
        self.id = replies[0]["table"]["id"]
        (self.welcome,) = self.send({"type": "hello"})
        self.state: dict[str, Any] = self.welcome["state"]

    def keep(self, replies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        shown = []
        for reply in replies:
            if reply["type"] == "saved":
                self.saved[reply["table"]["id"]] = reply["table"]
                continue
            if "state" in reply:
                self.state = reply["state"]
            shown.append(reply)
        return shown

    def send(self, message: dict[str, Any] | str) -> list[dict[str, Any]]:
        text = message if isinstance(message, str) else json.dumps(message)
        return self.keep(json.loads(self.tables.receive(text)))

    def computer(self) -> list[dict[str, Any]]:
        """The worker's computer turn: "thinking", the choice, the move."""
        thinking = self.keep(json.loads(self.tables.computer_turn()))
        if not thinking:
            return []
        return thinking + self.keep(json.loads(self.tables.computer_plays(self.tables.think())))

    def move(self, path: list[str], **extra: Any) -> list[dict[str, Any]]:
        return self.send(
            {"type": "move", "seat": self.state["turn"], "path": path, "v": self.state["v"]} | extra
        )


def test_the_welcome_and_the_state_are_those_of_the_servers_table() -> None:
    page = Page({"variant": "classic-2", "seats": [PERSON, HARD]})
    assert page.id.startswith("local-")
    assert page.welcome["type"] == "welcome"
    assert page.welcome["seats"] == [0]
    server = Table("t", VARIANTS["classic-2"], [Seat("person"), Seat("computer", "hard")], "", 1)
    expected = server.state() | {"countdowns": []}
    assert set(page.state) - {"engine"} == set(expected)
    for key in ("variant", "status", "seats", "position", "turn", "legal", "moves", "can_hint"):
        assert page.state[key] == expected[key], key
    assert page.state["engine"] == "browser"


def test_a_move_the_computers_answer_and_undo() -> None:
    page = Page({"variant": "classic-2", "seats": [PERSON, EASY]})
    (event,) = page.move(["k4", "k5"])
    assert event["event"] == {"kind": "move", "seat": 0, "path": ["k4", "k5"]}
    assert page.saved[page.id]["actions"] == [{"seat": 0, "move": "k4-k5"}]
    thinking, answer = page.computer()
    assert thinking["event"] == {"kind": "thinking", "seat": 1}
    assert thinking["state"]["legal"] == []  # nobody may move while the computer thinks
    assert answer["event"]["kind"] == "move" and answer["event"]["seat"] == 1
    assert page.state["moves"][0]["text"] == "k4-k5"
    assert page.state["turn"] == 0 and page.state["can_undo"]
    (undo,) = page.send({"type": "undo"})
    assert undo["event"]["kind"] == "undo" and len(undo["event"]["moves"]) == 2
    assert page.state["moves"] == [] and page.state["turn"] == 0
    assert page.computer() == []  # a person is to move


def test_a_computer_move_chosen_before_an_undo_is_dropped() -> None:
    page = Page({"variant": "classic-2", "seats": [PERSON, EASY]})
    page.move(["k4", "k5"])
    page.keep(json.loads(page.tables.computer_turn()))
    choice = page.tables.think()
    page.send({"type": "undo"})
    assert json.loads(page.tables.computer_plays(choice)) == []
    assert page.state["moves"] == [] and page.state["turn"] == 0


def test_a_move_that_puts_the_player_out_is_asked_first() -> None:
    # White's 30th move is next: m5-m4 brings a marble back home after the deadline.
    start = {
        "variant": "classic-2",
        "turn": "white",
        "marbles": {
            "white": ["i5", "j5", "k5", "l5", "m5", "i6", "j6", "k6", "l6", "m6"],
            "black": ["e14", "f14", "g14", "h14", "e15", "f15", "g15", "e16", "f16", "e17"],
        },
    }
    page = Page(
        {"variant": "classic-2", "seats": [PERSON, EASY], "start": start, "moves_made": [29, 29]}
    )
    (question,) = page.move(["m5", "m4"])
    assert question == {"type": "confirm", "seat": 0, "path": ["m5", "m4"]}
    assert page.state["moves"] == []
    (event,) = page.move(["m5", "m4"], confirm=True)
    assert event["state"]["over"] and event["state"]["result"]["ending"] == "out"


def test_a_kept_table_opens_again_as_it_was() -> None:
    page = Page({"variant": "capture-2", "seats": [PERSON, EASY]})
    page.move(page.state["legal"][0])
    page.computer()
    again = Page(page.saved[page.id])
    assert again.id == page.id
    assert again.state["moves"] == page.state["moves"]
    assert again.state["position"] == page.state["position"]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_every_variant_opens_with_people_and_computers(variant: str) -> None:
    rules = VARIANTS[variant]
    seats = [PERSON] + [EASY] * (rules.players - 1)
    page = Page({"variant": variant, "seats": seats})
    assert page.state["turn"] == 0 and page.state["legal"]
    page.move(page.state["legal"][0])
    assert page.computer()[-1]["event"]["seat"] == 1


def test_a_whole_game_against_the_computer_ends_with_a_result_a_record_and_a_rematch() -> None:
    # A fixed seed: with some seeds Easy's last reply also finishes, a draw ([1, 1]).
    page = Page(
        {"variant": "classic-2", "seats": [PERSON, EASY], "deadline_rule": False, "seed": 1}
    )
    for _ in range(400):
        if page.state["over"]:
            break
        # The person plays the move that goes furthest up the board (the hole's row).
        page.move(max(page.state["legal"], key=lambda p: int(p[-1][1:]) - int(p[0][1:])))
        page.computer()
    assert page.state["over"], "the game did not end"
    assert page.state["result"]["places"] == [1, 2]
    (record,) = page.send({"type": "record"})
    assert f'[Table "{page.id}"]' in record["text"]
    assert "1. " + page.state["moves"][0]["text"] in record["text"]
    (rematch,) = page.send({"type": "rematch"})
    new = rematch["event"]["table"]
    assert rematch["state"]["rematch"] == new
    assert page.saved[new]["previous"] == page.id and page.saved[new]["actions"] == []
    assert Page(page.saved[new]).state["moves"] == []


def test_a_hint_is_a_legal_move_of_the_person() -> None:
    page = Page({"variant": "classic-2", "seats": [PERSON, EASY]})
    (hint,) = page.send({"type": "hint"})
    assert hint["type"] == "hint" and hint["seat"] == 0
    assert hint["path"] in page.state["legal"]
    assert hint["line"] == []  # the book's move
    page.move(hint["path"])
    page.computer()
    (hint,) = page.send({"type": "hint"})
    # Two players in contact: the line is Black's replies and White's answers in turn.
    assert hint["path"] in page.state["legal"]
    assert [step["seat"] for step in hint["line"]] == [1, 0, 1, 0, 1, 0][: len(hint["line"])]
    assert len(hint["line"]) >= 2


def test_resigning_ends_the_game() -> None:
    page = Page({"variant": "classic-4", "seats": [PERSON, EASY, EASY, PERSON]})
    (event,) = page.send({"type": "resign", "seat": 3})
    assert event["event"] == {"kind": "resign", "seat": 3}
    assert page.state["seats"][3]["status"] == "resigned"


def test_looking_back_at_a_position() -> None:
    page = Page({"variant": "classic-2", "seats": [PERSON, PERSON]})
    page.move(["k4", "k5"])
    (look,) = page.send({"type": "look", "ply": 0})
    assert "k4" in look["position"]["marbles"]["white"]


@pytest.mark.parametrize(
    ("message", "code", "words"),
    [
        ("not json", "ProtocolError", "must be JSON"),
        ("[1, 2]", "ProtocolError", 'object with a "type"'),
        ('{"type": "fly"}', "ProtocolError", "unknown message type 'fly'"),
        ('{"type": "sit", "seat": 1, "nickname": "x"}', "ProtocolError", "online tables"),
        ('{"type": "move", "seat": 0, "path": "k4"}', "ProtocolError", "list of hole names"),
        ('{"type": "move", "seat": 0, "path": ["k4", "zz9"]}', "hole", "unknown hole 'zz9'"),
        ('{"type": "move", "seat": 0, "path": ["k4", "k7"]}', "IllegalMoveError", ""),
        ('{"type": "move", "seat": 1, "path": ["e14", "e13"]}', "not-your-seat", "seat 1"),
        ('{"type": "move", "seat": 0, "path": ["k4", "k5"], "v": 9}', "stale", "moved on"),
        ('{"type": "look", "ply": 5}', "ply", "only 0 moves"),
        ('{"type": "rematch"}', "not-over", "once the game is over"),
        ('{"type": "undo"}', "no-undo", "no move of yours"),
        ('{"type": "ping", "x": "' + "a" * MAX_MESSAGE + '"}', "ProtocolError", "at most 4096"),
    ],
)
def test_a_bad_message_gets_a_clear_error_and_the_game_goes_on(
    message: str, code: str, words: str
) -> None:
    page = Page({"variant": "classic-2", "seats": [PERSON, EASY]})
    (reply,) = page.send(message)
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert words in reply["message"] and "\n" not in reply["message"]
    assert reply["state"]["moves"] == []  # nothing changed
    (event,) = page.move(["k4", "k5"])
    assert event["type"] == "event"


@pytest.mark.parametrize(
    ("table", "code", "words"),
    [
        ({"variant": "chess", "seats": []}, "UnknownVariantError", "chess"),
        ({"variant": "classic-2", "seats": [PERSON]}, "seats", "exactly 2 seats"),
        ({"variant": "classic-2", "seats": [EASY, EASY]}, "seats", "a person"),
        ({"variant": "classic-2", "seats": [PERSON, {"kind": "online"}]}, "seats", '"person" or "computer"'),
        ({"variant": "classic-2", "seats": [PERSON, {"kind": "computer", "level": "god"}]}, "level", "god"),
        ({"variant": "classic-2", "seats": [PERSON, EASY], "id": "t1"}, "ProtocolError", "local-"),
        ({"variant": "classic-2", "seats": [PERSON, EASY], "actions": [{"seat": 0, "move": "k4-k9"}]}, "IllegalMoveError", ""),
    ],
)  # fmt: skip
def test_a_bad_table_to_open_gets_a_clear_error(
    table: dict[str, Any], code: str, words: str
) -> None:
    tables = LocalTables()
    (reply,) = json.loads(tables.receive(json.dumps({"type": "open", "table": table})))
    assert reply["type"] == "error" and reply["code"] == code, reply
    assert words in reply["message"]
    (reply,) = json.loads(tables.receive('{"type": "hello"}'))
    assert reply["code"] == "no-table"


# -- the engine's wheel ------------------------------------------------------------
def test_the_wheel_holds_the_engine_and_imports_only_the_standard_library(tmp_path: Path) -> None:
    wheel = zipfile.ZipFile(io.BytesIO(engine_wheel()))
    names = wheel.namelist()
    assert "sternhalma/browser.py" in names and "sternhalma/players/hard.py" in names
    assert "sternhalma/opening_book.json" in names
    assert not any(n.startswith(("sternhalma/server/", "sternhalma/cli/")) for n in names)
    for name in names:
        if name.endswith(".py"):
            tree = ast.parse(wheel.read(name))
            for node in ast.walk(tree):
                modules = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [node.module or ""]
                    if isinstance(node, ast.ImportFrom) and node.level == 0
                    else []
                )
                for module in modules:
                    top = module.split(".")[0]
                    assert top == "sternhalma" or top in sys.stdlib_module_names, (name, module)
    # Unpacked alone, without this environment's packages, it plays a local game.
    wheel.extractall(tmp_path)
    script = (
        "import json; from sternhalma.browser import LocalTables; t = LocalTables(); "
        "t.receive(json.dumps({'type': 'open', 'table': {'variant': 'halma-2', "
        "'seats': [{'kind': 'person'}, {'kind': 'computer', 'level': 'medium'}]}})); "
        "print(json.loads(t.receive('{\"type\": \"hello\"}'))[0]['type'])"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            "-c",
            f"import sys; sys.path.insert(0, {str(tmp_path)!r}); {script}",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.strip() == "welcome", done.stderr
    assert engine_wheel() == engine_wheel.__wrapped__()  # the same bytes every time


def test_the_server_serves_the_wheel_the_service_worker_and_the_manifest(tmp_path: Path) -> None:
    settings = Settings(database_url=database_url(str(tmp_path / "t.db")), workers=1)
    with Client(create_app(settings)) as client:
        wheel = client.get(WHEEL_URL)
        assert wheel.status_code == 200 and wheel.content == engine_wheel()
        again = client.get(WHEEL_URL, headers={"If-None-Match": wheel.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert "'wasm-unsafe-eval'" in wheel.headers["content-security-policy"]

        worker = client.get("/sw.js")
        assert worker.headers["content-type"].startswith("text/javascript")
        shell = json.loads(worker.text.split("const SHELL = ")[1].split(";\n")[0])
        assert {"/", "/api/variants", WHEEL_URL, "/static/js/engine-worker.js"} <= set(shell)
        assert not any("pyodide" in url for url in shell)
        # A new service worker keeps the engine's snapshot (engine-worker.js names it).
        snapshots = re.search(r'const SNAPSHOTS = "([\w-]+)"', worker.text)
        assert snapshots and "const kept = [APP, ENGINE, SNAPSHOTS];" in worker.text
        engine = client.get("/static/js/engine-worker.js").text
        assert f'const SNAPSHOTS = "{snapshots[1]}"' in engine
        for url in shell:
            assert client.get(url).status_code == 200, url

        manifest = client.get("/manifest.webmanifest")
        assert manifest.headers["content-type"] == "application/manifest+json"
        data = manifest.json()
        assert data["start_url"] == "/" and data["display"] == "standalone"
        for icon in data["icons"]:
            png = client.get(icon["src"]).content
            assert png[:8] == b"\x89PNG\r\n\x1a\n"
            width = int.from_bytes(png[16:20], "big")
            height = int.from_bytes(png[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"]


def test_the_lobby_is_told_where_local_games_run(tmp_path: Path) -> None:
    url = database_url(str(tmp_path / "t.db"))
    web = tmp_path / "web"
    # A server without Pyodide (npm never ran) plays local games itself.
    web.mkdir()
    (web / "index.html").write_text("<main id=app></main>")
    (web / "sw.js").write_text("")
    without = Settings(database_url=url, workers=1, web_root=web)
    with Client(create_app(without)) as client:
        assert client.get("/api/variants").json()["engine"] == "server"
    (web / "pyodide").mkdir()
    for name in ("pyodide.mjs", "pyodide.asm.wasm"):
        (web / "pyodide" / name).write_bytes(b"")
    with Client(create_app(Settings(database_url=url, workers=1, web_root=web))) as client:
        assert client.get("/api/variants").json()["engine"] == "browser"
    told = Settings(database_url=url, workers=1, web_root=web, server_engine=True)
    with Client(create_app(told)) as client:
        assert client.get("/api/variants").json()["engine"] == "server"


def test_pyodides_big_files_are_sent_gzip_compressed_and_decode_to_the_same_bytes(
    tmp_path: Path,
) -> None:
    web = tmp_path / "web"
    (web / "pyodide").mkdir(parents=True)
    (web / "index.html").write_text("<main id=app></main>")
    (web / "sw.js").write_text("")
    # Like WebAssembly: long runs of the same bytes among others.
    wasm = b"\0asm\1\0\0\0" + bytes(range(256)) * 2000 + b"\0" * 100_000
    for name in COMPRESSED:
        (web / "pyodide" / name).write_bytes(wasm if name.endswith(".wasm") else b"x" * 5000)
    (web / "pyodide" / "python_stdlib.zip").write_bytes(b"PK" + bytes(range(256)) * 40)
    compress(web / "pyodide")
    assert pyodide_files(web) == [
        f"/static/pyodide/{name}" for name in sorted([*COMPRESSED, "python_stdlib.zip"])
    ]
    url = "/static/pyodide/pyodide.asm.wasm"
    settings = Settings(database_url=database_url(str(tmp_path / "t.db")), workers=1, web_root=web)
    with Client(create_app(settings)) as client:
        packed = client.get(url, headers={"Accept-Encoding": "gzip, br"})
        assert packed.headers["content-encoding"] == "gzip"
        assert packed.headers["content-type"] == "application/wasm"
        assert packed.headers["vary"] == "Accept-Encoding"
        assert int(packed.headers["content-length"]) < len(wasm) / 10
        assert packed.content == wasm  # decoded by the client
        again = client.get(
            url, headers={"Accept-Encoding": "gzip", "If-None-Match": packed.headers["etag"]}
        )
        assert again.status_code == 304

        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == wasm
        assert plain.headers["etag"] != packed.headers["etag"]
        assert plain.headers["vary"] == "Accept-Encoding"
        part = client.get(url, headers={"Accept-Encoding": "gzip", "Range": "bytes=0-7"})
        assert part.status_code == 206 and part.content == wasm[:8]
        assert "content-encoding" not in part.headers

        # A file with no gzip copy, and a copy older than its file, are sent as they are.
        stdlib = client.get(
            "/static/pyodide/python_stdlib.zip", headers={"Accept-Encoding": "gzip"}
        )
        assert "content-encoding" not in stdlib.headers
        (web / "pyodide" / "pyodide.asm.wasm").write_bytes(wasm[:1000])
        copy = web / "pyodide" / "pyodide.asm.wasm.gz"
        older = (web / "pyodide" / "pyodide.asm.wasm").stat().st_mtime - 10
        os.utime(copy, (older, older))
        stale = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert "content-encoding" not in stale.headers and stale.content == wasm[:1000]
    compress(web / "pyodide")  # the tool writes the copy again
    assert gzip.decompress((web / "pyodide" / "pyodide.asm.wasm.gz").read_bytes()) == wasm[:1000]


def test_the_engines_snapshot_is_served_for_the_running_engine_only(tmp_path: Path) -> None:
    web = tmp_path / "web"
    (web / SNAPSHOT_FOLDER).mkdir(parents=True)
    (web / "index.html").write_text("<main id=app></main>")
    (web / "sw.js").write_text("")
    memory = bytes(range(256)) * 100 + b"\0" * 50_000
    made = web / SNAPSHOT_FOLDER / f"{engine_key()}.bin"
    made.write_bytes(memory)
    Path(f"{made}.gz").write_bytes(gzip.compress(memory))
    settings = Settings(database_url=database_url(str(tmp_path / "t.db")), workers=1, web_root=web)
    with Client(create_app(settings)) as client:
        # The key the browser asks by is the wheel's ETag: the hash of the bytes it got.
        key = client.get(WHEEL_URL).headers["etag"].strip('"')
        assert key == engine_key()
        packed = client.get(f"/engine/snapshot/{key}", headers={"Accept-Encoding": "gzip"})
        assert packed.status_code == 200 and packed.headers["content-encoding"] == "gzip"
        assert int(packed.headers["content-length"]) < len(memory) / 5
        assert packed.content == memory
        plain = client.get(f"/engine/snapshot/{key}", headers={"Accept-Encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.content == memory
        # Another engine's, or a name that is no key, is not there: the browser starts afresh.
        for other in ("0" * 32, "not-a-key", f"{key}.bin", f"{key}.bin.gz"):
            assert client.get(f"/engine/snapshot/{other}").status_code == 404, other
    # The service worker does not keep it with Pyodide's files (the engine's worker keeps it).
    assert pyodide_files(web) == []
    made.unlink()
    with Client(create_app(settings)) as client:
        assert client.get(f"/engine/snapshot/{engine_key()}").status_code == 404


@pytest.mark.parametrize(
    ("header", "takes"),
    [
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("GZIP", True),
        ("gzip;q=0", False),
        ("br", False),
        ("", False),
        ("x-gzip", False),
    ],
)
def test_which_browsers_take_gzip(header: str, takes: bool) -> None:
    assert accepts_gzip(header) is takes


def test_the_opening_book_has_every_variants_start_and_legal_moves() -> None:
    assert set(BOOK) == set(start_positions().values())
    for key, text in BOOK.items():
        position = position_from_json(key)
        rules = find_variant(position.rules.id)
        assert rules.parse_move(position, text) in rules.legal_moves(position), (key, text)


@pytest.mark.skipif(not COMPILED, reason="the book is the compiled Hard's")
@pytest.mark.parametrize("variant", ["classic-6", "halma-4"])  # quick searches, by nodes
def test_the_opening_book_is_what_the_tool_makes(variant: str) -> None:
    assert BOOK[start_positions()[variant]] == book_move(variant)


def test_the_browsers_hard_plays_the_books_first_move_and_searches_after() -> None:
    page = Page({"variant": "classic-2", "seats": [{"kind": "computer", "level": "hard"}, PERSON]})
    first = page.computer()[-1]["event"]
    assert "-".join(first["path"]) == BOOK[start_positions()["classic-2"]]
    page.move(page.state["legal"][0])
    assert page.computer()[-1]["event"]["kind"] == "move"
