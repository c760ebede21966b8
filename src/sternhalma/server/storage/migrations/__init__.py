"""The database's Alembic migrations, run by the server itself when it starts.

``upgrade(connection, url)`` brings any database up to the newest schema: a
new file gets every table; a file made by part 1 of the web app (before
migrations existed: a ``tables`` table and no ``alembic_version``) is stamped
as revision 0001 and upgraded; anything else is refused with a reason.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.util import CommandError
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from sternhalma.server.storage.database import DatabaseSchemaError
from sternhalma.server.storage.schema import TableRow, table_columns

#: The columns of the ``tables`` table as part 1 made it (revision 0001).
PART1_COLUMNS = frozenset(
    {
        "id",
        "variant",
        "seats",
        "start",
        "moves_made",
        "deadline_rule",
        "token_hash",
        "seed",
        "actions",
        "version",
        "over",
        "created_at",
        "updated_at",
    }
)


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration without an alembic.ini: the scripts live in this package."""
    settings = Config()
    settings.set_main_option("script_location", str(Path(__file__).resolve().parent))
    if connection is not None:
        settings.attributes["connection"] = connection
    return settings


def upgrade(connection: Connection, url: str) -> None:
    """Create or upgrade the schema on ``connection`` (inside its transaction)."""
    names = set(inspect(connection).get_table_names())
    settings = config(connection)
    if "tables" in names and "alembic_version" not in names:
        columns = table_columns(connection, "tables")
        if columns != PART1_COLUMNS:
            missing = set(TableRow.__table__.columns.keys()) - columns
            raise DatabaseSchemaError(
                f"the database {url} was made by another version of sternhalma "
                f"(it lacks {', '.join(sorted(missing))}); use --database-url for a new file"
            )
        command.stamp(settings, "0001")
    try:
        command.upgrade(settings, "head")
    except CommandError as error:
        raise DatabaseSchemaError(
            f"the database {url} was made by another version of sternhalma ({error}); "
            "use --database-url for a new file"
        ) from None
