"""``sternhalma serve``: the web app on this machine."""

from __future__ import annotations

import asyncio
import errno
import gc
import os
import signal
import socket
import sys
import threading
import webbrowser
from typing import TYPE_CHECKING, Any

import click

from sternhalma.cli.engine import fail
from sternhalma.cli.values import count, seconds
from sternhalma.errors import SternhalmaError, shown

if TYPE_CHECKING:
    from collections.abc import Callable

    from sternhalma.server.web.app import Settings


def setting(flag: str, help: str, **options: Any) -> Callable[[Any], Any]:
    """A command-line option that may also come from the environment, as
    ``STERNHALMA_<NAME>`` (``--max-connections``: ``STERNHALMA_MAX_CONNECTIONS``)."""
    name = "STERNHALMA_" + flag.split()[0].removeprefix("--").replace("-", "_").upper()
    return click.option(*flag.split(), envvar=name, help=f"{help} Environment: {name}.", **options)


def open_browser_later(url: str, delay: float = 1.0) -> None:
    """Open ``url`` in the default browser once the server listens; say so if there is none."""

    def attempt() -> None:
        if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            click.echo(f"No display for a browser here; open {url} yourself.")
            return
        try:
            opened = webbrowser.open(url)
        except webbrowser.Error:
            opened = False
        if not opened:
            click.echo(f"No browser could be opened here; open {url} yourself.")

    timer = threading.Timer(delay, attempt)
    timer.daemon = True
    timer.start()


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--open", "open_browser", is_flag=True, help="Open the lobby in a browser.")
@setting(
    "--database-url",
    default=None,
    help="SQLite file or SQLAlchemy URL for the tables, e.g. postgresql+asyncpg://user@host/db "
    "(default: the user's data folder).",
)
@setting(
    "--redis-url",
    default=None,
    help="Redis (redis://host:port/0) for several server processes sharing the tables "
    "(docs/deploy.md).",
)
@click.option(
    "--workers",
    default=None,
    type=click.IntRange(1, 64),
    help="Processes for the computer's thinking without Redis (default: cores - 1, at most "
    "4); with --redis-url, `sternhalma worker` thinks.",
)
@setting(
    "--think-timeout",
    default=10.0,
    show_default=True,
    type=seconds(0.5, 600),
    help="Seconds a computer move or hint may think before it is tried again (a stuck "
    "worker; a killed one is noticed sooner, by its heartbeat); an analysis six times as long.",
)
@click.option(
    "--allow-origin",
    "allowed_origins",
    multiple=True,
    metavar="URL",
    help="Another origin (scheme://host[:port]) whose pages may open tables, e.g. the "
    "public address behind a reverse proxy. Repeatable.",
)
@setting(
    "--max-connections",
    default=100,
    show_default=True,
    type=count(1, 1_000_000),
    help="Table connections one client address may have open at once.",
)
@setting(
    "--server-engine",
    is_flag=True,
    help="Play local games on the server's tables, not in the browser (docs/browser.md).",
)
@setting(
    "--max-new-tables",
    default=120,
    show_default=True,
    type=count(1, 1_000_000),
    help="New tables one client address may start in 10 minutes.",
)
@setting(
    "--max-seat-changes",
    default=30,
    show_default=True,
    type=count(1, 1_000_000),
    help="Sits and stand-ups one client address may make in a minute.",
)
@setting(
    "--max-analyses",
    default=240,
    show_default=True,
    type=click.IntRange(1, 1_000_000),
    help="Position analyses, legal-move and puzzle-move requests one client address may "
    "make in a minute.",
)
@setting(
    "--max-reviews",
    default=12,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Game reviews started and records read one client address may ask for in a minute.",
)
@setting(
    "--max-new-identities",
    default=5,
    show_default=True,
    type=count(1, 1_000_000),
    help="New player identities one client address may make in an hour.",
)
@setting(
    "--same-address-hours",
    default=24.0,
    show_default=True,
    type=seconds(0, 100_000),
    help="A game is not rated when two of its players' identities were made from one "
    "address within this many hours (0: rate them anyway, e.g. everyone behind one NAT).",
)
@setting(
    "--address-secret",
    default=None,
    help="The key of the address hashes identities and log-in limits keep (docs/deploy.md; "
    "default: one made at the first start and kept in the database).",
)
@setting(
    "--account-age-hours",
    default=24.0,
    show_default=True,
    type=seconds(0, 1_000_000),
    help="Two accounts made from one address are rated against each other once both are "
    "this old (and have --account-games rated games).",
)
@setting(
    "--account-games",
    default=3,
    show_default=True,
    type=count(0),
    help="Rated games each of two accounts from one address needs before their games "
    "together are rated.",
)
@setting(
    "--max-login-attempts",
    default=5,
    show_default=True,
    type=count(1),
    help="Wrong passwords an account may be sent in 15 minutes (an address: four times as many).",
)
@click.option(
    "--first-move",
    default=60.0,
    show_default=True,
    type=seconds(1, 86_400),
    help="Seconds a player at an online table has for a first move before the game "
    "is aborted (docs/ratings.md).",
)
@setting(
    "--public-url",
    default=None,
    metavar="URL",
    help="The address people reach this server at (scheme://host[:port], e.g. behind a "
    "reverse proxy), for the links to share; also an allowed origin. Default: the "
    "address the browser used.",
)
@setting(
    "--absent-claim",
    default=30.0,
    show_default=True,
    type=seconds(1, 86_400),
    help="Seconds an online player may be away during a game before the others may "
    "claim the seat (docs/protocol.md).",
)
@setting(
    "--pool-computers-after",
    default=60.0,
    show_default=True,
    type=seconds(1, 86_400),
    help="Seconds a player waits in a 3-6-player pool before computer seats are offered.",
)
@setting(
    "--keep-finished-days",
    default=30.0,
    show_default=True,
    type=seconds(0, 36_500),
    help="Days a finished table that changed no rating (unrated or aborted) is kept before it "
    "is removed (0: for good); rated games are always kept.",
)
@click.option(
    "--debug",
    is_flag=True,
    help="Also serve the API's description (/openapi.json), for developing.",
)
def serve(
    host: str,
    port: int,
    open_browser: bool,
    database_url: str | None,
    redis_url: str | None,
    workers: int | None,
    think_timeout: float,
    allowed_origins: tuple[str, ...],
    max_connections: int,
    server_engine: bool,
    max_new_tables: int,
    debug: bool,
    max_seat_changes: int,
    max_new_identities: int,
    max_analyses: int,
    max_reviews: int,
    same_address_hours: float,
    first_move: float,
    address_secret: str | None,
    account_age_hours: float,
    account_games: int,
    max_login_attempts: int,
    public_url: str | None,
    absent_claim: float,
    pool_computers_after: float,
    keep_finished_days: float,
) -> None:
    """Start the web app: the lobby, tables against the computer, on one screen and online.

    The database is created or upgraded at start. Stopping the server (Ctrl+C)
    pauses every running clock until it starts again.
    """
    import uvicorn

    from sternhalma.server.accounts.service import AccountRules
    from sternhalma.server.storage.identities import HOUR, IdentityRules
    from sternhalma.server.storage.store import database_url as parse_url
    from sternhalma.server.web.admission import AddressLimits
    from sternhalma.server.web.app import Settings, create_app

    if not host or not host.isascii() or not host.isprintable() or len(host) > 253:
        raise click.BadParameter(
            f"{shown(host)} is not an address or host name to listen on, like 127.0.0.1",
            param_hint="--host",
        )
    options: dict[str, object] = {}
    try:
        if database_url is not None:
            options["database_url"] = parse_url(database_url)
    except SternhalmaError as error:
        raise click.BadParameter(str(error), param_hint="--database-url") from None
    if redis_url:
        options["redis_url"] = check_redis_url(redis_url)
    if workers is not None:
        options["workers"] = workers
    options["think_timeout"] = think_timeout
    for origin in allowed_origins:
        if not origin.startswith(("http://", "https://")) or origin.count("/") != 2:
            raise click.BadParameter(
                f"{shown(origin)} is not an origin like https://example.org",
                param_hint="--allow-origin",
            )
    options["allowed_origins"] = tuple(o.rstrip("/") for o in allowed_origins)
    options["per_address"] = AddressLimits(
        connections=max_connections,
        tables=max_new_tables,
        seat_changes=max_seat_changes,
        analyses=max_analyses,
        reviews=max_reviews,
    )
    options["identities"] = IdentityRules(
        per_hour=max_new_identities,
        same_address=same_address_hours * HOUR,
        account_age=account_age_hours * HOUR,
        account_games=account_games,
    )
    options["accounts"] = AccountRules(
        per_account=max_login_attempts, per_address=4 * max_login_attempts
    )
    options["address_secret"] = address_secret or None
    options["first_move"] = first_move
    options["absence"] = absent_claim
    if public_url:
        if (
            not public_url.startswith(("http://", "https://"))
            or public_url.rstrip("/").count("/") != 2
        ):
            raise click.BadParameter(
                f"{public_url!r} is not an address like https://example.org",
                param_hint="--public-url",
            )
        options["public_url"] = public_url.rstrip("/")
    from sternhalma.server.pool.service import PoolSettings

    options["pool"] = PoolSettings(computers_after=pool_computers_after)
    options["keep_finished"] = keep_finished_days * 24 * HOUR
    options["host"] = host
    options["debug"] = debug
    options["server_engine"] = server_engine
    settings = Settings(**options)  # type: ignore[arg-type]
    # The port and the database are checked before anything is announced: each
    # problem is one line saying what to do, not a traceback after "sternhalma is at".
    listening = listen(host, port)
    check_services(settings)
    say_bus_errors(settings.database_url)
    url = f"http://{'127.0.0.1' if host in ('0.0.0.0', '::') else host}:{port}/"
    shared = f", shared through {settings.redis_url}" if settings.redis_url else ""
    click.echo(
        f"sternhalma is at {url} (tables in {_without_password(settings.database_url)}"
        f"{shared}); Ctrl+C stops it."
    )
    if open_browser:
        open_browser_later(url)
    # A websocket message over 64 KiB closes the connection; the table answers longer
    # than 4 KiB with an error (server/protocol.py).
    app = create_app(settings)
    tune_garbage_collector()
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        ws_max_size=65536,
        # Compressing every table state for every viewer cost more of the one event loop
        # than anything but the database; the states are a few KiB.
        ws_per_message_deflate=False,
        timeout_graceful_shutdown=5,
    )
    uvicorn.Server(config).run(sockets=[listening])


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` for uvicorn; a one-line error when it cannot be."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
        # With SO_REUSEADDR a bind can succeed beside a socket that is bound but not yet
        # listening; listening here makes that one line too, not uvicorn's traceback.
        listening.listen(2048)
    except OSError as error:
        listening.close()
        if error.errno == errno.EADDRINUSE:
            fail(
                f"port {port} on {host} is already in use (another sternhalma?): "
                "stop that program, or choose another port with --port"
            )
        elif error.errno == errno.EACCES:
            fail(f"port {port} needs privileges this user lacks: choose one above 1023 with --port")
        fail(f"cannot listen on {host} port {port} ({error.strerror or error}): check --host")
    listening.set_inheritable(True)
    return listening


def check_services(settings: Settings) -> None:
    """Open (create or upgrade) the database and reach Redis once before serving; a
    one-line error naming the file or address and what to do when they fail."""
    from sternhalma.server.bus import RedisBus
    from sternhalma.server.storage.database import unmappable_shm
    from sternhalma.server.storage.store import DatabaseUnavailable, Store

    problem = unmappable_shm(settings.database_url)
    if problem is not None:
        fail(problem)

    async def check() -> None:
        store = Store(settings.database_url)
        try:
            await store.open()
        finally:
            await store.close()
        if settings.redis_url is not None:
            bus = RedisBus(settings.redis_url)
            await bus.start()
            await bus.close()

    try:
        asyncio.run(check())
    except DatabaseUnavailable as error:
        fail(error.detail)
    except SternhalmaError as error:
        fail(str(error))


def say_bus_errors(url: str) -> None:
    """One line instead of a silent death when the process gets SIGBUS: SQLite maps
    its -shm file into memory, and when that file is made immutable or cut short
    while the server runs, the next access to the map is a bus error. SQLite runs on
    threads of its own, so the handler (run by the main thread) gets to say so; the
    server stops as it would have, with status 1."""
    from sternhalma.server.storage.database import sqlite_path

    where = (
        f"the database's shared-memory file {sqlite_path(url)}-shm"
        if url.startswith("sqlite") and ":memory:" not in url
        else "a file mapped into memory"
    )
    line = (
        f"error: sternhalma stopped on a bus error (SIGBUS) reading {where}: it was made "
        "immutable, cut short or removed while the server ran; make it writable "
        "(chattr -i) or remove it, then start again\n"
    ).encode()

    def stop(_signum: int, _frame: object) -> None:
        os.write(2, line)
        os._exit(1)

    signal.signal(signal.SIGBUS, stop)


def check_redis_url(url: str) -> str:
    """``url`` if it is a Redis URL; click's usage error otherwise."""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise click.BadParameter(
            f"{shown(url)} is not a Redis URL like redis://127.0.0.1:6379/0",
            param_hint="--redis-url",
        )
    return url


def tune_garbage_collector() -> None:
    """Fewer, cheaper pauses of Python's cycle collector in a long-running server.

    Every table keeps its game's positions, so the heap grows with the tables,
    and a full collection stops the one event loop for as long as it takes to
    walk it: with 500 tables at play, every move waiting behind it (bench/load.py:
    p99 760 ms at the default thresholds, 67 ms at these). Young collections
    every 50,000 allocations instead of 700 promote far fewer short-lived objects
    (a move's messages and states), and the modules and the app, alive for the
    whole run, are frozen out of every later collection.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 10)


def _without_password(url: str) -> str:
    """A database URL fit to print: the password (if any) is hidden."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url
