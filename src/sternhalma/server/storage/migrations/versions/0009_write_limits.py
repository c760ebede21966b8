"""Nickname keys again: a key is now taken from the nickname in NFKC without invisible
characters (server/storage/nicknames.py), so "Alice" with a combining grapheme joiner
is "Alice". The stored keys are worked out anew as in 0004: of players whose nicknames
now share a key, the one who played (or was made) last keeps it.

Revision ID: 0009_write_limits
Revises: 0008_pool
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op

from sternhalma.server.storage.nicknames import nickname_key, skeleton

revision = "0009_write_limits"
down_revision = "0008_pool"
branch_labels = None
depends_on = None


def upgrade() -> None:
    rekey(nickname_key)


def downgrade() -> None:
    rekey(key_of_0004)


def key_of_0004(nickname: str) -> str:
    """The key before this revision: no NFKC, invisible characters kept."""
    key = nickname
    for _ in range(2):
        key = skeleton(skeleton(key.upper()).casefold())
    return key


def rekey(key_of: Callable[[str], str]) -> None:
    """Give every player who holds a key the key ``key_of`` their nickname; of players
    whose keys meet, the one who played (or was made) last keeps it."""
    connection = op.get_bind()
    players = sa.table(
        "players",
        sa.column("id", sa.String),
        sa.column("nickname", sa.String),
        sa.column("name_key", sa.String),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("last_game_at", sa.DateTime(timezone=True)),
    )
    holders = connection.execute(
        sa.select(players.c.id, players.c.nickname)
        .where(players.c.name_key.is_not(None))
        .order_by(
            sa.func.coalesce(players.c.last_game_at, players.c.created_at).desc(), players.c.id
        )
    ).all()
    # Cleared first: a new key may be another player's old one (the keys are unique).
    connection.execute(players.update().values(name_key=None))
    taken: set[str] = set()
    for player, nickname in holders:
        key = key_of(nickname)
        if key not in taken:
            connection.execute(players.update().where(players.c.id == player).values(name_key=key))
            taken.add(key)
