"""The seek pool (issue 23): one row per player waiting for a game of a kind.

Revision ID: 0008_pool
Revises: 0007_chat
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_pool"
down_revision = "0007_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("pool", sa.String(80), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False, unique=True),
        sa.Column("nickname", sa.String(64), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("address_hash", sa.String(64), nullable=True),
        sa.Column("identity_made", sa.DateTime(timezone=True), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("computers", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
    )
    op.create_index("ix_seeks_pool", "seeks", ["pool", "table_id"])


def downgrade() -> None:
    op.drop_index("ix_seeks_pool", "seeks")
    op.drop_table("seeks")
