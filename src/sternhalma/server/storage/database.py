"""The connection to the database: its URL, SQLite's settings, and the errors a player
or an operator reads when the database is missing, unreachable or laid out differently.

Kept apart from server/storage/store.py (what is read and written) so the store's queries
read without the plumbing around them.
"""

from __future__ import annotations

import errno
import functools
import os
import resource
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.engine import Connection, make_url
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
    """The database cannot be reached (PostgreSQL down or restarting) or cannot be written
    (a read-only file, a full disk): nothing was changed. The message is the player's;
    ``detail`` is the operator's, one line naming the database and what to do."""

    def __init__(
        self,
        detail: str = "the database cannot be reached",
        *,
        saving: bool = False,
        read_only: bool = False,
    ) -> None:
        if read_only:
            message = (
                "the server's database is read-only just now, so games cannot be saved; "
                "nothing changed, try again later"
            )
        elif saving:
            message = "the server cannot save games just now; nothing changed, try again later"
        else:
            message = (
                "the server cannot reach its database just now; nothing changed, try again shortly"
            )
        super().__init__("unavailable", message)
        self.detail = detail


P = ParamSpec("P")
R = TypeVar("R")


def reachable(method: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn a lost or refused database connection, or a refused write, into
    DatabaseUnavailable (a readable error for the player, a line for the operator)
    instead of an exception that would close the websocket. For the Store's methods:
    the first argument has the database's ``url``."""

    @functools.wraps(method)
    async def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await method(*args, **kwargs)
        except (OperationalError, InterfaceError, OSError, TimeoutError) as error:
            raise unavailable(error, getattr(args[0], "url", "")) from error
        except DBAPIError as error:
            if error.connection_invalidated or _connection_lost(error) or _unwritable(error):
                raise unavailable(error, getattr(args[0], "url", "")) from error
            raise

    return guarded


def unavailable(error: BaseException, url: str) -> DatabaseUnavailable:
    """What went wrong with the database at ``url``, and what the operator can do."""
    where = describe(url)
    sqlite = url.startswith("sqlite")
    text = str(getattr(error, "orig", None) or error).lower()
    code = _sqlstate(error)
    # SQLite says only "disk I/O error" when a file it already has open stops taking
    # writes (made read-only or immutable while the server runs, a file-size limit):
    # the files themselves say which.
    cause = sqlite_cause(sqlite_path(url)) if sqlite and "i/o error" in text else None
    if cause == "read-only" or "readonly" in text or "read-only" in text or code == READ_ONLY:
        return DatabaseUnavailable(
            f"{where} is read-only: make it (and its folder) writable for the user running "
            "sternhalma, or choose another with --database-url",
            saving=True,
            read_only=True,
        )
    if cause == "too-large" or "file too large" in text:
        limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
        return DatabaseUnavailable(
            f"{where} cannot grow past the file-size limit sternhalma runs under "
            f"({limit} bytes, ulimit -f): raise the limit; the games go on once it "
            "can be written again",
            saving=True,
        )
    if cause == "full" or "disk is full" in text or "no space left" in text or code == DISK_FULL:
        return DatabaseUnavailable(
            f"the disk holding {where} is full: free some space; the games go on once "
            "it can be written again",
            saving=True,
        )
    if "unable to open database file" in text or (isinstance(error, OSError) and sqlite):
        return DatabaseUnavailable(
            f"{where} cannot be opened: check that its folder exists and that the user "
            "running sternhalma may write there, or choose another with --database-url"
        )
    first = text.strip().splitlines()[0][:200] if text.strip() else type(error).__name__
    return DatabaseUnavailable(
        f"{where} cannot be reached ({first}): check that it runs and that --database-url is right"
    )


#: PostgreSQL's error codes for a read-only transaction (a standby) and a full disk.
READ_ONLY = "25006"
DISK_FULL = "53100"


def sqlite_path(url: str) -> str:
    """The SQLite file of ``url``."""
    return url.split(":///", 1)[-1].split("?", 1)[0].removeprefix("file:")


#: What errno says when a file cannot be opened for writing: read-only (a mode, an
#: immutable file, a file system mounted read-only).
_READ_ONLY_ERRNOS = {errno.EPERM, errno.EACCES, errno.EROFS}


def sqlite_cause(path: str) -> str | None:
    """Why the SQLite file at ``path`` (and its -wal and -shm) may not take a write:
    "read-only", "too-large" (the process's file-size limit) or "full"; None if none
    of these."""
    files = [Path(path + suffix) for suffix in ("", "-wal", "-shm")]
    for file in files:
        try:
            os.close(os.open(file, os.O_RDWR))
        except FileNotFoundError:
            continue
        except OSError as error:
            if error.errno in _READ_ONLY_ERRNOS:
                return "read-only"
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY:
        # A write grows a file by a page or a WAL frame (a few KiB) at a time.
        if any(f.exists() and f.stat().st_size + 65536 > limit for f in files[:2]):
            return "too-large"
        if limit < 65536:
            return "too-large"
    try:
        space = os.statvfs(Path(path).parent)
    except OSError:
        return None
    return "full" if space.f_bavail * space.f_frsize < 1 << 20 else None


def unmappable_shm(url: str) -> str | None:
    """A one-line error if the SQLite database at ``url`` has a -shm file this process
    cannot write: SQLite maps it into memory, and a map it cannot grow stops the whole
    process with SIGBUS at some later write. None if there is none or it is fine."""
    if not url.startswith("sqlite") or ":memory:" in url:
        return None
    shm = sqlite_path(url) + "-shm"
    try:
        os.close(os.open(shm, os.O_RDWR))
    except OSError as error:
        if error.errno not in _READ_ONLY_ERRNOS:
            return None  # no such file or folder: SQLite makes it or says why
        return (
            f"the database's shared-memory file {shm} cannot be written "
            f"({error.strerror}; immutable? see lsattr): make it writable (chattr -i) "
            "or remove it while no sternhalma runs"
        )
    return None


def describe(url: str) -> str:
    """The database as an operator knows it: the SQLite file, or the URL without password."""
    if url.startswith("sqlite"):
        return f"the database file {sqlite_path(url)}"
    try:
        return f"the database at {make_url(url).render_as_string(hide_password=True)}"
    except Exception:
        return "the database"


def _sqlstate(error: BaseException) -> str | None:
    orig = getattr(error, "orig", None)
    code = getattr(orig, "sqlstate", None) or getattr(orig, "pgcode", None)
    return code if isinstance(code, str) else None


def _unwritable(error: DBAPIError) -> bool:
    """Whether PostgreSQL refused a write for want of disk or because it is read-only."""
    return _sqlstate(error) in (READ_ONLY, DISK_FULL)


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
        scheme = text.split("://", 1)[0].lower()
        if scheme in ("sqlite", "sqlite+aiosqlite"):
            return "sqlite+aiosqlite://" + text.split("://", 1)[1]
        if scheme in ("postgresql", "postgres", "postgresql+asyncpg"):
            return "postgresql+asyncpg://" + text.split("://", 1)[1]
        raise DatabaseUrlError(
            f"{text[:80]!r} is not a database sternhalma can use: give an SQLite file "
            "(a path, or sqlite:///path) or PostgreSQL (postgresql://user@host/db)"
        )
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
