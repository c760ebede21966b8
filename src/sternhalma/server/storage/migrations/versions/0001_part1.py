"""Part 1: one row per table (variant, seats, start, actions, version).

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("variant", sa.String(40), nullable=False),
        sa.Column("seats", sa.Text(), nullable=False),
        sa.Column("start", sa.Text(), nullable=True),
        sa.Column("moves_made", sa.Text(), nullable=True),
        sa.Column("deadline_rule", sa.Boolean(), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("actions", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("over", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("tables")
