"""What the person running the server sees when something outside the program is wrong:
one line naming the port or the file and what to do, never a traceback."""

from __future__ import annotations

import contextlib
import logging
import os
import random
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import Client, run_apart
from services import Postgres
from sqlalchemy import event
from sqlalchemy.engine import Engine
from test_store import moved, new_table

from sternhalma.game import Game
from sternhalma.server.storage.store import DatabaseUnavailable, Store, database_url
from sternhalma.server.web.admission import Limits
from sternhalma.server.web.app import Settings, create_app

SERVE = [sys.executable, "-m", "sternhalma", "serve", "--workers", "1"]


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sternhalma", "serve", "--workers", "1", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_a_port_in_use_is_one_line_before_anything_is_announced(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = serve("--port", str(port), "--database-url", str(tmp_path / "t.db"))
    assert done.returncode == 2
    assert done.stdout == ""  # not "sternhalma is at ..." first
    assert done.stderr.splitlines() == [
        f"error: port {port} on 127.0.0.1 is already in use (another sternhalma?): "
        "stop that program, or choose another port with --port"
    ]


def test_a_read_only_database_is_one_line_at_start(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    run_apart(open_and_close(database_url(str(path))))
    done = serve(
        "--port", str(free_port()), "--database-url", f"sqlite:///file:{path}?mode=ro&uri=true"
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: the database file {path} is read-only: make it (and its folder) writable "
        "for the user running sternhalma, or choose another with --database-url"
    ]


def test_a_database_that_cannot_be_made_is_one_line_at_start() -> None:
    done = serve("--port", str(free_port()), "--database-url", "/dev/null/tables.db")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "error: the database file /dev/null/tables.db cannot be opened: check that its folder "
        "exists and that the user running sternhalma may write there, or choose another "
        "with --database-url"
    ]


async def open_and_close(url: str) -> None:
    store = Store(url)
    try:
        await store.open()
    finally:
        await store.close()


@contextmanager
def every_connection(pragma: str) -> Iterator[None]:
    """Run ``pragma`` on every SQLite connection opened meanwhile (what the disk or the
    file would refuse, SQLite refuses the same way)."""

    def apply(connection: Any, _record: Any) -> None:
        if isinstance(connection, sqlite3.Connection) or "sqlite" in type(connection).__module__:
            cursor = connection.cursor()
            cursor.execute(pragma)
            cursor.close()

    event.listen(Engine, "connect", apply)
    try:
        yield
    finally:
        event.remove(Engine, "connect", apply)


def test_a_full_disk_refuses_the_move_says_why_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "full.db"
    url = database_url(str(path))

    async def scenario() -> None:
        store = Store(url)
        await store.open()
        await store.create(new_table("t"))
        await store.close()
        with sqlite3.connect(path) as connection:
            pages = connection.execute("PRAGMA page_count").fetchone()[0]
        with every_connection(f"PRAGMA max_page_count = {pages}"):
            store = Store(url)
            await store.open()  # a write that needs no new page still goes
            table = await store.load("t")
            assert table is not None
            with pytest.raises(DatabaseUnavailable) as refused:
                for n in range(1, 100):
                    table = moved(table, ["m3-m5", "e14-e13"][n % 2])
                    await store.commit(table, {"type": "event", "pad": "x" * 3000}, expected=n - 1)
            saved = await store.load("t")
            await store.close()
        assert saved is not None and saved.version == table.version - 1
        error = refused.value
        assert error.code == "unavailable"
        assert (
            str(error) == "the server cannot save games just now; nothing changed, try again later"
        )
        assert error.detail == (
            f"the disk holding the database file {path} is full: free some space; "
            "the games go on once it can be written again"
        )

    run_apart(scenario())


def test_a_read_only_database_is_refused_when_the_store_opens(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    url = database_url(str(path))
    run_apart(open_and_close(url))
    with every_connection("PRAGMA query_only = ON"), pytest.raises(DatabaseUnavailable) as refused:
        run_apart(open_and_close(url))
    assert refused.value.detail.startswith(f"the database file {path} is read-only: ")


def test_a_read_only_postgresql_is_refused_when_the_store_opens() -> None:
    server = Postgres()
    server.start()
    try:
        run_apart(open_and_close(server.url))
        run_apart(set_read_only(server.url, True))
        with pytest.raises(DatabaseUnavailable) as refused:
            run_apart(open_and_close(server.url))
        assert refused.value.detail.startswith("the database at postgresql+asyncpg://")
        assert refused.value.detail.endswith(
            " is read-only: make it (and its folder) writable for the user running sternhalma, "
            "or choose another with --database-url"
        )
    finally:
        server.close()


async def set_read_only(url: str, on: bool) -> None:
    store = Store(url)
    try:
        async with store.engine.begin() as connection:
            name = (await connection.exec_driver_sql("SELECT current_database()")).scalar()
            await connection.exec_driver_sql(
                f'ALTER DATABASE "{name}" SET default_transaction_read_only = {"on" if on else "off"}'
            )
    finally:
        await store.close()


def test_a_player_is_told_the_server_cannot_save_and_the_log_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "full.db"
    # Moves go as fast as the server answers until the disk is full: however fast that
    # is on this machine, the connection's message limit is not what this test is about.
    settings = Settings(
        database_url=database_url(str(path)),
        workers=1,
        computer_pause=0,
        limits=Limits(rate=1000, burst=1000),
    )
    people = {
        "variant": "classic-2",
        "seats": [{"kind": "person"}, {"kind": "person"}],
        "deadline_rule": False,  # random moves would break it and end the game early
    }
    with Client(create_app(settings)) as client:
        table = client.post("/api/tables", json=people).json()
    with sqlite3.connect(path) as connection:
        pages = connection.execute("PRAGMA page_count").fetchone()[0]
    caplog.set_level(logging.WARNING)
    game = Game("classic-2", deadline_rule=False)
    with (
        every_connection(f"PRAGMA max_page_count = {pages}"),
        Client(create_app(settings)) as client,
        client.websocket_connect(f"/ws/tables/{table['id']}") as ws,
    ):
        ws.send_json({"type": "hello", "token": table["token"]})
        answer, sent, rng = ws.receive_json(), -1, random.Random(1)
        while answer["type"] != "error" and not game.is_over:
            played = answer.get("state", {}).get("moves")
            if played is not None and len(played) > sent:
                game = Game("classic-2", deadline_rule=False)
                for move in played:
                    game.play(move["text"])
                hops = game.rules.format_move(rng.choice(game.legal_moves())).split("-")
                ws.send_json({"type": "move", "seat": game.position.turn, "path": hops})
                sent = len(played)
            answer = ws.receive_json()
    assert answer["code"] == "unavailable"
    assert (
        answer["message"]
        == "the server cannot save games just now; nothing changed, try again later"
    )
    full = f"the disk holding the database file {path} is full: free some space"
    assert any(full in record.getMessage() for record in caplog.records)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def immutable(*paths: Path) -> bool:
    """Make ``paths`` immutable (chattr +i); False where this system does not let us."""
    done = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True, check=False)
    return done.returncode == 0


@contextmanager
def made_immutable(*paths: Path) -> Iterator[None]:
    if not immutable(*paths):
        pytest.skip("chattr +i is not allowed here")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, paths)], capture_output=True, check=False)


def test_a_database_made_read_only_while_running_says_read_only(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    url = database_url(str(path))

    async def scenario() -> None:
        store = Store(url)
        await store.open()
        await store.create(new_table("t"))
        table = await store.load("t")
        assert table is not None
        # The file and its log stop taking writes while the store has them open
        # (root ignores file modes; an immutable file refuses even root).
        with (
            made_immutable(path, Path(f"{path}-wal")),
            pytest.raises(DatabaseUnavailable) as refused,
        ):
            await store.commit(moved(table, "m3-m5"), {"type": "event"}, expected=0)
        saved = await store.load("t")
        await store.close()
        assert saved is not None and saved.version == 0
        error = refused.value
        assert str(error) == (
            "the server's database is read-only just now, so games cannot be saved; "
            "nothing changed, try again later"
        )
        assert error.detail == (
            f"the database file {path} is read-only: make it (and its folder) writable "
            "for the user running sternhalma, or choose another with --database-url"
        )

    run_apart(scenario())


def test_a_file_size_limit_at_start_is_named(tmp_path: Path) -> None:
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024))

    path = tmp_path / "tables.db"
    done = subprocess.run(
        [*SERVE, "--port", str(free_port()), "--database-url", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=limited,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: the database file {path} cannot grow past the file-size limit sternhalma "
        "runs under (1024 bytes, ulimit -f): raise the limit; the games go on once it can "
        "be written again"
    ]


def test_an_immutable_shared_memory_file_is_one_line_at_start(tmp_path: Path) -> None:
    path = tmp_path / "tables.db"
    run_apart(open_and_close(database_url(str(path))))
    shm = Path(f"{path}-shm")
    shm.write_bytes(b"")
    with made_immutable(shm):
        done = serve("--port", str(free_port()), "--database-url", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: the database's shared-memory file {shm} cannot be written (Operation not "
        "permitted; immutable? see lsattr): make it writable (chattr -i) or remove it "
        "while no sternhalma runs"
    ]


def test_a_bus_error_on_the_shared_memory_file_is_one_line(tmp_path: Path) -> None:
    import httpx2

    path = tmp_path / "tables.db"
    port = free_port()
    server = subprocess.Popen(
        [*SERVE, "--port", str(port), "--database-url", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith("sternhalma is at ")
        base = f"http://127.0.0.1:{port}"
        people = {"variant": "classic-2", "seats": [{"kind": "person"}, {"kind": "person"}]}
        for _ in range(100):  # uvicorn listens a moment after the line
            with contextlib.suppress(httpx2.ConnectError):
                assert httpx2.post(f"{base}/api/tables", json=people).status_code == 200
                break
            time.sleep(0.1)
        # The -shm cut short under SQLite's map of it: the next access is a bus error.
        os.truncate(f"{path}-shm", 0)
        with contextlib.suppress(httpx2.HTTPError):
            for _ in range(20):
                httpx2.post(f"{base}/api/tables", json=people, timeout=10)
        _, err = server.communicate(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert server.returncode == 1
    assert err.splitlines()[-1] == (
        f"error: sternhalma stopped on a bus error (SIGBUS) reading the database's "
        f"shared-memory file {path}-shm: it was made immutable, cut short or removed while "
        "the server ran; make it writable (chattr -i) or remove it, then start again"
    )
    assert "Traceback" not in err
