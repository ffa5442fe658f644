"""Tournaments (arena) and their players; matches found by tournament.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("format", sa.String(8), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("starts_at", sa.Float(precision=53), nullable=False),
        sa.Column("ends_at", sa.Float(precision=53), nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("turn_seconds", sa.Float(precision=53), nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("robots", sa.Boolean, nullable=False),
        sa.Column("listed", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.String(32), nullable=True),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status", "starts_at"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("joined_at", sa.Float(precision=53), nullable=False),
        sa.Column("withdrawn", sa.Boolean, nullable=False),
        sa.Column("paused", sa.Boolean, nullable=False),
    )
    op.create_index("ix_matches_tournament", "matches", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_matches_tournament", table_name="matches")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
