"""The ASGI app: the web UI, a small JSON API and one websocket per table.

``create_app(settings)`` builds everything from the settings, so tests and
``sternhalma serve`` start the same server. Nothing is fetched from another
site: every asset the browser needs is served from ``sternhalma/web``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from sternhalma.errors import SternhalmaError, UnknownVariantError
from sternhalma.players import LEVELS
from sternhalma.server import computer
from sternhalma.server.layout import catalogue
from sternhalma.server.protocol import (
    PROTOCOL_VERSION,
    Hello,
    Look,
    MoveCommand,
    ProtocolError,
    Rematch,
    SeatCommand,
    TableError,
    error_message,
    parse_command,
)
from sternhalma.server.store import Store, database_url
from sternhalma.server.tables import Table, Tables

#: The browser app: index.html, css/, js/, i18n/, howto/.
WEB_ROOT = Path(__file__).resolve().parent.parent / "web"


def default_database_url() -> str:
    """An SQLite file in the user's data folder (e.g. ~/.local/share/sternhalma)."""
    return database_url(str(Path(platformdirs.user_data_dir("sternhalma")) / "sternhalma.db"))


@dataclass(frozen=True)
class Settings:
    database_url: str = field(default_factory=default_database_url)
    #: Worker processes for the computer's thinking.
    workers: int = field(default_factory=lambda: max(1, min(4, (os.cpu_count() or 2) - 1)))
    #: Seconds before the computer's move is shown (it may think for less).
    computer_pause: float = 0.6
    web_root: Path = WEB_ROOT


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    store = Store(settings.database_url)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await store.open()
        # "spawn": workers must not inherit the event loop's threads and sockets.
        pool = ProcessPoolExecutor(
            settings.workers, mp_context=multiprocessing.get_context("spawn")
        )
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(pool, computer.warm_up) for _ in range(settings.workers))
        )
        app.state.tables = Tables(store, pool, pause=settings.computer_pause)
        try:
            yield
        finally:
            await app.state.tables.close()
            pool.shutdown(wait=False, cancel_futures=True)
            await store.close()

    app = FastAPI(title="sternhalma", lifespan=lifespan, docs_url=None, redoc_url=None)

    @app.exception_handler(SternhalmaError)
    async def refused(_request: Request, error: SternhalmaError) -> JSONResponse:
        status = 404 if isinstance(error, TableError) and error.code == "no-table" else 400
        if isinstance(error, UnknownVariantError):
            status = 404
        return JSONResponse(error_message(error), status_code=status)

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        return {**catalogue(), "levels": list(LEVELS), "protocol": PROTOCOL_VERSION}

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        try:
            body = await request.json()
        except json.JSONDecodeError:
            raise ProtocolError("the request body must be JSON") from None
        if not isinstance(body, dict) or not isinstance(body.get("variant"), str):
            raise ProtocolError('a new table needs "variant" and "seats"')
        start = body.get("start")
        if start is not None and not isinstance(start, str | dict):
            raise ProtocolError('"start" must be a position (RULES.md §4)')
        tables: Tables = request.app.state.tables
        table, token = await tables.create(
            body["variant"],
            body.get("seats"),
            start=json.dumps(start) if isinstance(start, dict) else start,
            moves_made=body.get("moves_made"),
            deadline_rule=body.get("deadline_rule", True) is not False,
        )
        return {"id": table.id, "token": token, "state": table.state()}

    @app.get("/api/tables/{table_id}")
    async def table_state(table_id: str, request: Request) -> dict[str, Any]:
        table = await request.app.state.tables.get(table_id)
        state: dict[str, Any] = table.state()
        return state

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        tables: Tables = websocket.app.state.tables
        try:
            table = await tables.get(table_id)
        except TableError as error:
            await websocket.send_json(error_message(error))
            await websocket.close(code=4404)
            return
        await Connection(websocket, tables, table).run()

    web = settings.web_root

    async def index() -> Response:
        return FileResponse(web / "index.html", headers={"Cache-Control": "no-cache"})

    # The page routes of the single-page app all serve index.html.
    app.add_api_route("/", index, include_in_schema=False)
    app.add_api_route("/table/{table_id}", index, include_in_schema=False)
    app.add_api_route("/how-to-play/{game}", index, include_in_schema=False)
    app.mount("/static", StaticFiles(directory=web), name="static")
    return app


class Connection:
    """One browser's websocket on one table."""

    def __init__(self, websocket: WebSocket, tables: Tables, table: Table) -> None:
        self.websocket = websocket
        self.tables = tables
        self.table = table
        self.token: str | None = None
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def run(self) -> None:
        sender = asyncio.create_task(self._send_loop())
        key = id(self)
        self.table.listeners[key] = self.outbox.put_nowait
        try:
            while True:
                text = await self.websocket.receive_text()
                await self._handle(text)
        except WebSocketDisconnect:
            pass
        finally:
            self.table.listeners.pop(key, None)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sender

    async def _send_loop(self) -> None:
        while True:
            message = await self.outbox.get()
            await self.websocket.send_json(message)

    async def _handle(self, text: str) -> None:
        try:
            try:
                data = json.loads(text)
            except json.JSONDecodeError:
                raise ProtocolError("a message must be JSON") from None
            await self._command(data)
        except SternhalmaError as error:
            self.outbox.put_nowait({**error_message(error), "state": self.table.state()})

    async def _command(self, data: object) -> None:
        command = parse_command(data)
        tables, table = self.tables, self.table
        if isinstance(command, Hello):
            self.token = command.token
            holds = table.holds(self.token)
            self.outbox.put_nowait(
                {
                    "type": "welcome",
                    "protocol": PROTOCOL_VERSION,
                    "v": table.version,
                    "seats": table.person_seats() if holds else [],
                    "state": table.state(),
                }
            )
        elif isinstance(command, MoveCommand):
            question = await tables.move(
                table,
                self.token,
                command.seat,
                command.path,
                confirm=command.confirm,
                version=command.version,
            )
            if question is not None:
                self.outbox.put_nowait(question)
        elif isinstance(command, SeatCommand):
            if command.kind == "undo":
                await tables.undo(table, self.token)
            elif command.kind == "resign":
                await tables.resign(table, self.token, command.seat)
            else:
                self.outbox.put_nowait(await tables.hint(table, self.token))
        elif isinstance(command, Rematch):
            await tables.rematch(table, self.token)
        elif isinstance(command, Look):
            self.outbox.put_nowait(
                {"type": "look", "ply": command.ply, "position": table.position_after(command.ply)}
            )
