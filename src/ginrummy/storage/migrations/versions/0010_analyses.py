"""Replay analyses: one per finished match, queued, then stored once with the engine that made it.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "analyses",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("status", sa.String(8), nullable=False),  # queued, running, done, failed
        sa.Column("engine", sa.String(32), nullable=False),  # which analysis made it (a new one redoes it)
        sa.Column("requested_at", sa.Float(precision=53), nullable=False),
        sa.Column("finished_at", sa.Float(precision=53), nullable=True),
        sa.Column("result", sa.Text, nullable=True),  # the analysis as JSON, once done
        sa.Column("error", sa.Text, nullable=True),  # why it failed
        sa.Index("ix_analyses_status", "status"),
    )


def downgrade() -> None:
    op.drop_table("analyses")
