"""Part 2: online tables, clocks, results, rematches, the event log, players and ratings.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(
            sa.Column("status", sa.String(16), nullable=False, server_default="playing")
        )
        batch.add_column(
            sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("clock_control", sa.String(32), nullable=True))
        batch.add_column(sa.Column("clock_banks", sa.Text(), nullable=True))
        batch.add_column(sa.Column("clock_running", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("clock_at", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("result", sa.Text(), nullable=True))
        batch.add_column(sa.Column("rematch", sa.String(32), nullable=True))
        batch.add_column(
            sa.Column("rematch_offers", sa.Text(), nullable=False, server_default="[]")
        )
        batch.add_column(sa.Column("previous", sa.String(32), nullable=True))
        batch.create_index("ix_tables_status", ["status"])
    # Part 1 tables that ended are over; the others go on being played.
    op.execute(sa.text("UPDATE tables SET status = 'over' WHERE over"))

    op.create_table(
        "table_events",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("nickname", sa.String(64), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column(
            "player_id",
            sa.String(32),
            sa.ForeignKey("players.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("category", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "rating_changes",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("seat", sa.Integer(), primary_key=True),
        sa.Column("player_id", sa.String(32), sa.ForeignKey("players.id"), nullable=False),
        sa.Column("category", sa.String(40), nullable=False),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
    )
    op.create_index("ix_rating_changes_player_id", "rating_changes", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_rating_changes_player_id", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
    op.drop_table("players")
    op.drop_table("table_events")
    with op.batch_alter_table("tables") as batch:
        batch.drop_index("ix_tables_status")
        for column in (
            "previous",
            "rematch_offers",
            "rematch",
            "result",
            "clock_at",
            "clock_running",
            "clock_banks",
            "clock_control",
            "rated",
            "status",
        ):
            batch.drop_column(column)
