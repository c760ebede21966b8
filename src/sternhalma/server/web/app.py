"""The ASGI app: the web UI, a small JSON API and one websocket per table.

``create_app(settings)`` builds everything from the settings, so tests and
``sternhalma serve`` start the same server. Nothing is fetched from another
site: every asset the browser needs is served from ``sternhalma/web``.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
from fastapi import FastAPI, Request, WebSocket
from fastapi.responses import FileResponse, JSONResponse, Response

from sternhalma.clock import TimeSource, monotonic_ms
from sternhalma.errors import SternhalmaError, UnknownVariantError
from sternhalma.players import LEVELS
from sternhalma.rules import GAMES, VARIANTS
from sternhalma.server.accounts.service import AccountRules
from sternhalma.server.bus import Bus, MemoryBus, RedisBus
from sternhalma.server.pool.service import Pools, PoolSettings
from sternhalma.server.protocol import (
    PROTOCOL_VERSION,
    ProtocolError,
    TableError,
    error_message,
    parse_nickname,
)
from sternhalma.server.storage.identities import IdentityRules
from sternhalma.server.storage.store import DatabaseUnavailable, Store, database_url
from sternhalma.server.tables.service import Tables
from sternhalma.server.thinking import Thinking
from sternhalma.server.thinking.pool import Pool
from sternhalma.server.thinking.queue import Queue
from sternhalma.server.web import errors
from sternhalma.server.web.accounts import accounts_router
from sternhalma.server.web.admission import AddressLimits, Admission, Capacity, Limits, Shared
from sternhalma.server.web.connection import Connection
from sternhalma.server.web.guard import Guard
from sternhalma.server.web.incoming import BodyTooLarge, address_of, json_object
from sternhalma.server.web.layout import catalogue
from sternhalma.server.web.offline import Precompressed, add_offline, pyodide_ready
from sternhalma.server.web.pages import add_pages, not_found_page
from sternhalma.server.web.passkeys import passkeys_router
from sternhalma.server.web.pool_socket import router as pool_router
from sternhalma.server.web.puzzles import router as puzzles_router
from sternhalma.server.web.review import Analyses, crossing_moves, legal_moves, record_plies
from sternhalma.server.web.stopping import QuietStop
from sternhalma.server.web.watching import watching_router

#: The browser app: index.html, css/, js/, i18n/, howto/.
WEB_ROOT = Path(__file__).resolve().parents[2] / "web"
#: The full rules, served as text at /rules.md: package data, so every install has them.
RULES_TEXT = Path(__file__).resolve().parents[2] / "rules.md"


def default_database_url() -> str:
    """An SQLite file in the user's data folder (e.g. ~/.local/share/sternhalma)."""
    return database_url(str(Path(platformdirs.user_data_dir("sternhalma")) / "sternhalma.db"))


@dataclass(frozen=True)
class Settings:
    database_url: str = field(default_factory=default_database_url)
    #: Processes for the computer's thinking in this process (without Redis): at least
    #: two, so that analyses and hints (which hold at most all but one) leave the
    #: computer's moves one of their own (server/web/admission.py).
    workers: int = field(default_factory=lambda: max(2, min(4, (os.cpu_count() or 2) - 1)))
    #: Seconds a computer move, hint or analysis may think before it is tried again elsewhere.
    think_timeout: float = 10.0
    #: Fix Hard's search at this many nodes a move, as ``sternhalma worker --nodes``
    #: (tests and benchmarks: the same work whatever the machine's load).
    think_nodes: int | None = None
    #: Seconds before the computer's move is shown (it may think for less).
    computer_pause: float = 0.6
    web_root: Path = WEB_ROOT
    #: Origins (scheme://host[:port]) besides the server's own whose pages may open a
    #: table's websocket (e.g. the public address behind a reverse proxy); their host
    #: names are names this server answers to (server/web/guard.py).
    allowed_origins: tuple[str, ...] = ()
    #: The address the server listens on: a name it answers to as well.
    host: str = "127.0.0.1"
    #: Serve the API's description (/openapi.json): for developing only.
    debug: bool = False
    #: Local games on the server's tables even where the browser could run them
    #: (docs/browser.md); they are anyway when Pyodide was not built.
    server_engine: bool = False
    #: How fast one websocket may send.
    limits: Limits = field(default_factory=Limits)
    #: Connections, new tables, sits, analyses, reviews, hints of one client address
    #: (and identity): server/web/admission.py.
    per_address: AddressLimits = field(default_factory=AddressLimits)
    #: Threads for requests' work, places of the thinking for analyses and hints.
    capacity: Capacity = field(default_factory=Capacity)
    #: The clocks' time source in ms (tests set the time instead of sleeping).
    now: TimeSource = monotonic_ms
    #: Seconds between two saves of a running clock.
    clock_checkpoint: float = 10.0
    #: Redis (redis://host:port/db) when several processes share the tables; the
    #: computer then thinks in ``sternhalma worker`` processes (server/thinking/).
    redis_url: str | None = None
    #: Seconds between two sweeps of a process in a cluster (server/tables/following.py).
    sweep: float = 2.0
    #: Seconds after which another process takes over a computer's turn nobody played.
    takeover: float = 10.0
    #: New identities per address, unrated games between them, nicknames let go.
    identities: IdentityRules = field(default_factory=IdentityRules)
    #: Seconds a player at an online table has for a first move before the game is aborted.
    first_move: float = 60.0
    #: Refused log-ins per account and per address (docs/accounts.md).
    accounts: AccountRules = field(default_factory=AccountRules)
    #: The key of address hashes (docs/deploy.md); None: the deployment's own, made at
    #: its first start and kept in the database.
    address_secret: str | None = None
    #: Seconds a seat's player may be away during a game before the others may claim it.
    absence: float = 30.0
    #: The address people reach this server at (scheme://host[:port]), for the links to
    #: share; None: the address the browser used.
    public_url: str | None = None
    #: The seek pool: pairing rounds, when computer seats are offered (server/pool/).
    pool: PoolSettings = field(default_factory=PoolSettings)
    #: Seconds a finished table that changed no rating is kept before the tidying removes
    #: it (0: for good); rated games are always kept.
    keep_finished: float = 30 * 24 * 3600.0


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    store = Store(settings.database_url, settings.identities, settings.address_secret)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await store.open()
        bus: Bus = MemoryBus()
        if settings.redis_url is not None:
            bus = RedisBus(settings.redis_url)
            await bus.start()
        admission = app.state.admission = Admission(
            settings.per_address,
            settings.capacity,
            redis_url=settings.redis_url,
            thinking_processes=settings.workers,
            # A request with a taken nickname makes no identity: room for a few of those.
            identities=4 * settings.identities.per_hour,
        )
        thinking: Thinking = Shared(
            Queue(settings.redis_url, timeout=settings.think_timeout)
            if settings.redis_url is not None
            else Pool(settings.workers, timeout=settings.think_timeout, nodes=settings.think_nodes),
            admission.places,
        )
        await thinking.start()
        app.state.analyses = Analyses(thinking, admission, settings.limits)
        app.state.tables = Tables(
            store,
            thinking,
            pause=settings.computer_pause,
            now=settings.now,
            checkpoint=settings.clock_checkpoint,
            bus=bus,
            takeover=settings.takeover,
            first_move=settings.first_move,
            absence=settings.absence,
            keep_finished=settings.keep_finished,
        )
        await app.state.tables.resume()
        app.state.tables.start_tidying()
        app.state.pool = Pools(app.state.tables, settings.pool)
        app.state.pool.start()
        if isinstance(bus, RedisBus):
            app.state.tables.following.start(settings.sweep)
        try:
            yield
        finally:
            app.state.pool.close()
            await app.state.tables.close()
            if isinstance(bus, RedisBus):
                await bus.close()
            await thinking.close()
            await admission.close()
            await store.close()

    app = FastAPI(
        title="sternhalma",
        lifespan=lifespan,
        openapi_url="/openapi.json" if settings.debug else None,
        docs_url=None,  # its page loads scripts from another site, which the CSP forbids
        redoc_url=None,
    )
    public = (settings.public_url,) if settings.public_url else ()
    app.add_middleware(Guard, bind=settings.host, origins=settings.allowed_origins + public)
    app.add_middleware(QuietStop)
    app.include_router(watching_router(settings.web_root))
    app.include_router(pool_router)
    errors.install(app, not_found_page(settings.web_root))

    @app.exception_handler(SternhalmaError)
    async def refused(_request: Request, error: SternhalmaError) -> JSONResponse:
        status = 400
        if (isinstance(error, TableError) and error.code == "no-table") or isinstance(
            error, UnknownVariantError
        ):
            status = 404
        elif isinstance(error, BodyTooLarge):
            status = 413
        elif isinstance(error, DatabaseUnavailable):
            status = 503
        elif isinstance(error, TableError) and error.code in TOO_MANY:
            status = 429
        elif isinstance(error, TableError) and error.code in (
            "wrong-password",
            "login",
            "passkey-refused",
            "passkey-unknown",
        ):
            status = 401
        elif isinstance(error, TableError) and error.code == "no-player":
            status = 404
        return JSONResponse(error_message(error), status_code=status)

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        return {
            **catalogue(),
            "levels": list(LEVELS),
            "protocol": PROTOCOL_VERSION,
            "public_url": settings.public_url,
            # Where a local game runs: in the browser (Pyodide) or on this server.
            "engine": "server"
            if settings.server_engine or not pyodide_ready(settings.web_root)
            else "browser",
        }

    @app.post("/api/tables")
    async def create_table(request: Request) -> dict[str, Any]:
        body = await json_object(request, 'a new table needs "variant" and "seats"')
        if not isinstance(body.get("variant"), str):
            raise ProtocolError('a new table needs "variant" and "seats"')
        start = body.get("start")
        if start is not None and not isinstance(start, str | dict):
            raise ProtocolError('"start" must be a position (/rules.md#position-json)')
        nickname = body.get("nickname")
        sit = body.get("sit")
        if sit is not None and (not isinstance(sit, int) or isinstance(sit, bool)):
            raise ProtocolError('"sit" must be the index of the seat you take')
        identity = body.get("identity")
        if identity is not None and not isinstance(identity, str):
            raise ProtocolError('"identity" must be the secret your browser keeps')
        if not isinstance(body.get("rated", False), bool):
            raise ProtocolError('"rated" must be true or false')
        if not isinstance(body.get("deadline_rule", True), bool):
            raise ProtocolError('"deadline_rule" must be true or false')
        admission: Admission = request.app.state.admission
        await admission.admit("table", address_of(request), identity)
        if nickname is not None and identity is None:
            await admission.admit("identity", address_of(request))
        tables: Tables = request.app.state.tables
        live, token, player = await tables.commands.create(
            body["variant"],
            body.get("seats"),
            start=json.dumps(start) if isinstance(start, dict) else start,
            moves_made=body.get("moves_made"),
            deadline_rule=body.get("deadline_rule", True),
            clock=body.get("clock"),
            rated=body.get("rated", False),
            sit=sit,
            nickname=None if nickname is None else parse_nickname(nickname),
            identity=identity,
            address=address_of(request),
        )
        return {"id": live.id, "token": token, "player": player, "state": live.state()}

    @app.get("/api/tables")
    async def open_tables(request: Request) -> dict[str, Any]:
        """The online tables waiting for players (the lobby's list)."""
        return {"tables": await request.app.state.tables.open_tables()}

    @app.get("/api/tables/{table_id}")
    async def table_state(table_id: str, request: Request) -> dict[str, Any]:
        live = await request.app.state.tables.copies.get(table_id)
        state: dict[str, Any] = live.state()
        return state

    @app.get("/api/tables/{table_id}/record")
    async def table_record(table_id: str, request: Request) -> Response:
        """The game record (docs/records.md), as a file to download."""
        table = (await request.app.state.tables.copies.get(table_id)).table
        name = f"sternhalma-{table.rules.id}-{table.id}.txt"
        return Response(
            table.record(),
            media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    @app.get("/api/ratings")
    async def ratings(request: Request, category: str | None = None) -> dict[str, Any]:
        """Players by rating per category (a rated variant)."""
        if category is not None and category not in VARIANTS:
            raise UnknownVariantError(f"there is no rating category {category[:40]!r}")
        data: dict[str, Any] = await request.app.state.tables.store.ratings(category)
        return data

    @app.websocket("/ws/tables/{table_id}")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        address = address_of(websocket)
        admission: Admission = websocket.app.state.admission
        if not admission.connect(address):
            await websocket.close(code=1008, reason="too many connections from your address")
            return
        try:
            await websocket.accept()
            await Connection(
                websocket,
                websocket.app.state.tables,
                table_id,
                settings.limits,
                admission=admission,
                address=address,
            ).run()
        finally:
            admission.disconnect(address)

    @app.post("/api/analysis/record")
    async def analysis_record(request: Request) -> dict[str, Any]:
        """A game record read into the positions the analysis board steps through."""
        body = await json_object(request, 'send {"record": "<the record text>"}')
        if not isinstance(body.get("record"), str):
            raise ProtocolError('send {"record": "<the record text>"}')
        admission: Admission = request.app.state.admission
        await admission.admit("review", address_of(request))
        return await admission.work(record_plies, body["record"])

    @app.post("/api/analysis/moves")
    async def analysis_moves(request: Request) -> dict[str, Any]:
        """The legal moves of a position, each with the position it leads to."""
        body = await json_object(request, 'send {"position": <position JSON>}')
        admission: Admission = request.app.state.admission
        await admission.admit("analysis", address_of(request))
        return await admission.work(legal_moves, body.get("position"))

    @app.post("/api/puzzles/crossing/moves")
    async def puzzle_moves(request: Request) -> dict[str, Any]:
        """The crossing puzzle's moves from white's marbles."""
        body = await json_object(request, 'send {"white": [<hole names>]}')
        admission: Admission = request.app.state.admission
        await admission.admit("analysis", address_of(request))
        return await admission.work(crossing_moves, body.get("white"))

    @app.websocket("/ws/analysis")
    async def analysis_socket(websocket: WebSocket) -> None:
        address = address_of(websocket)
        admission: Admission = websocket.app.state.admission
        if not admission.connect(address):
            await websocket.close(code=1008, reason="too many connections from your address")
            return
        try:
            await websocket.accept()
            await websocket.app.state.analyses.serve(websocket, address)
        finally:
            admission.disconnect(address)

    web = settings.web_root
    app.include_router(accounts_router(settings.accounts, web))
    app.include_router(passkeys_router(settings.accounts, settings.public_url))

    async def index() -> Response:
        return FileResponse(web / "index.html")

    async def rules() -> Response:
        """The rules as plain text, which every browser shows as it is."""
        return FileResponse(RULES_TEXT, media_type="text/plain; charset=utf-8")

    app.add_api_route("/rules.md", rules, include_in_schema=False)
    # The page routes of the single-page app all serve index.html.
    app.add_api_route("/", index, include_in_schema=False)
    app.add_api_route("/table/{table_id}", index, include_in_schema=False)
    # One "how to play" address a game; another name gets the 404 page.
    for game in GAMES:
        app.add_api_route(f"/how-to-play/{game}", index, include_in_schema=False)
    app.add_api_route("/ratings", index, include_in_schema=False)
    app.add_api_route("/analysis", index, include_in_schema=False)
    app.add_api_route("/puzzle/crossing", index, include_in_schema=False)
    app.add_api_route("/puzzles", index, include_in_schema=False)
    app.add_api_route("/learn", index, include_in_schema=False)
    app.include_router(puzzles_router)
    add_offline(app, web)
    app.mount("/static", Precompressed(directory=web), name="static")
    add_pages(app, web, RULES_TEXT)
    return app


#: Refusals that mean "later, not so many" (HTTP 429).
TOO_MANY = frozenset(
    {
        "too-many",
        "too-many-identities",
        "too-many-requests",
        "too-many-sits",
        "too-many-attempts",
        "busy",
        "hint-limit",
    }
)
