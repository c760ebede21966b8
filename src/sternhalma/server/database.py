"""The connection to the database: its URL, SQLite's settings, and the errors a player
or an operator reads when the database is missing, unreachable or laid out differently.

Kept apart from server/store.py (what is read and written) so the store's queries
read without the plumbing around them.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from sternhalma.errors import SternhalmaError
from sternhalma.server.protocol import TableError


class DatabaseUrlError(SternhalmaError):
    """A --database-url that is neither a file path nor a database URL."""


class DatabaseSchemaError(SternhalmaError):
    """A database whose tables were made by another version of sternhalma."""


class VersionConflict(SternhalmaError):
    """The table changed in the database since this process last read it."""


class DatabaseUnavailable(TableError):
    """The database cannot be reached (PostgreSQL down or restarting): nothing was
    changed, and the player is told to try again."""

    def __init__(self) -> None:
        super().__init__(
            "unavailable",
            "the server cannot reach its database just now; nothing changed, try again shortly",
        )


P = ParamSpec("P")
R = TypeVar("R")


def reachable(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn a lost or refused database connection into DatabaseUnavailable (a readable
    error for the player) instead of an exception that would close the websocket."""

    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except (OperationalError, InterfaceError, OSError, TimeoutError) as error:
            raise DatabaseUnavailable() from error
        except DBAPIError as error:
            if error.connection_invalidated or _connection_lost(error):
                raise DatabaseUnavailable() from error
            raise

    return guarded


def _connection_lost(error: DBAPIError) -> bool:
    """Whether the driver's error means the server went away (asyncpg raises these as
    plain DBAPI errors, e.g. "connection was closed in the middle of operation")."""
    name = type(error.orig).__name__ if error.orig is not None else ""
    return (
        name
        in {
            "ConnectionDoesNotExistError",
            "AdminShutdownError",
            "CannotConnectNowError",
            "ConnectionFailureError",
            "InterfaceError",
        }
        or "closed" in str(error).lower()
    )


def database_url(value: str) -> str:
    """An async SQLAlchemy URL from ``--database-url``: a URL, or a path to an SQLite file."""
    text = value.strip()
    if not text:
        raise DatabaseUrlError("the database URL is empty: give a file path or a URL")
    if "://" in text:
        if text.startswith("sqlite://"):
            return "sqlite+aiosqlite://" + text.removeprefix("sqlite://")
        return text
    return f"sqlite+aiosqlite:///{Path(text).expanduser().resolve()}"


def sqlite_connect(connection: Any, _record: Any) -> None:
    """WAL and a busy timeout, so a reader never blocks the writer for long; in WAL mode
    synchronous=NORMAL keeps every commit through a crash of the process (a power cut
    may lose the last ones) and makes a move's commit several times cheaper. The
    transactions are begun by ``sqlite_begin`` (the driver's own are switched off)."""
    connection.isolation_level = None
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def sqlite_begin(connection: Connection) -> None:
    """BEGIN IMMEDIATE for a transaction that will write: it takes the lock at once, so
    a read made inside it can never turn stale (which SQLite would refuse at the write).
    Readers begin a plain (deferred) transaction and run beside the writer (WAL)."""
    writes = connection.get_execution_options().get("writes", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")
