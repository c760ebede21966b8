"""Issue 14: Glicko-2 ratings, nicknames held by one identity, where identities came
from, and when a waiting table was last visited.

- ``ratings`` gain ``deviation`` and ``volatility``. An existing Elo rating keeps its
  number (Glicko-2 uses the same scale) and gets the deviation a newcomer would have
  after that many games against equal opponents (docs/ratings.md).
- ``players`` gain ``name_key`` (the nickname's case-folded confusable skeleton,
  unique: of players who share one, the most recently seen keeps it),
  ``address_hash`` (unknown for existing players) and ``last_game_at``.
- ``tables`` gain ``visited_at`` (when a connection last came or went).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import math

import sqlalchemy as sa
from alembic import op

from sternhalma.server.storage.nicknames import nickname_key

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

#: Glicko-2's scale, a newcomer's deviation and volatility (as in sternhalma.rating).
SCALE = 400.0 / math.log(10.0)
START_DEVIATION = 350.0
START_VOLATILITY = 0.06


def deviation_after(games: int) -> float:
    """A newcomer's deviation after ``games`` games against certain, equal opponents:
    each adds 1/4 to 1/φ² (g = 1, E = ½), after φ grew by the volatility."""
    phi = START_DEVIATION / SCALE
    for _ in range(min(games, 1000)):
        phi = 1.0 / math.sqrt(1.0 / (phi * phi + START_VOLATILITY**2) + 0.25)
    return phi * SCALE


def upgrade() -> None:
    with op.batch_alter_table("ratings") as batch:
        batch.add_column(
            sa.Column("deviation", sa.Float(), nullable=False, server_default=str(START_DEVIATION))
        )
        batch.add_column(
            sa.Column(
                "volatility", sa.Float(), nullable=False, server_default=str(START_VOLATILITY)
            )
        )
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("name_key", sa.String(200), nullable=True))
        batch.add_column(sa.Column("address_hash", sa.String(64), nullable=True))
        batch.add_column(sa.Column("last_game_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("visited_at", sa.DateTime(timezone=True), nullable=True))

    connection = op.get_bind()
    ratings = sa.table(
        "ratings",
        sa.column("player_id", sa.String),
        sa.column("category", sa.String),
        sa.column("games", sa.Integer),
        sa.column("deviation", sa.Float),
    )
    for player, category, games in connection.execute(
        sa.select(ratings.c.player_id, ratings.c.category, ratings.c.games)
    ).all():
        connection.execute(
            ratings.update()
            .where(ratings.c.player_id == player, ratings.c.category == category)
            .values(deviation=deviation_after(games))
        )
    players = sa.table(
        "players",
        sa.column("id", sa.String),
        sa.column("nickname", sa.String),
        sa.column("seen_at", sa.DateTime(timezone=True)),
        sa.column("name_key", sa.String),
        sa.column("last_game_at", sa.DateTime(timezone=True)),
    )
    taken: set[str] = set()
    for player, nickname in connection.execute(
        sa.select(players.c.id, players.c.nickname).order_by(players.c.seen_at.desc())
    ).all():
        key = nickname_key(nickname)
        connection.execute(
            players.update()
            .where(players.c.id == player)
            .values(name_key=None if key in taken else key, last_game_at=players.c.seen_at)
        )
        taken.add(key)
    tables = sa.table(
        "tables",
        sa.column("updated_at", sa.DateTime(timezone=True)),
        sa.column("visited_at", sa.DateTime(timezone=True)),
    )
    connection.execute(tables.update().values(visited_at=tables.c.updated_at))
    op.create_index("ix_players_name_key", "players", ["name_key"], unique=True)
    op.create_index("ix_players_address_hash", "players", ["address_hash", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_players_address_hash", "players")
    op.drop_index("ix_players_name_key", "players")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("visited_at")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("last_game_at")
        batch.drop_column("address_hash")
        batch.drop_column("name_key")
    with op.batch_alter_table("ratings") as batch:
        batch.drop_column("volatility")
        batch.drop_column("deviation")
