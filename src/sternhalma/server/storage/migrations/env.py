"""Alembic's environment: migrations run on the connection the server hands over."""

from __future__ import annotations

from alembic import context

from sternhalma.server.storage.schema import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
