"""Bot accounts: who made each bot, and the hash of its API token.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bots",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("owner_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("token_at", sa.Float(precision=53), nullable=True),
    )
    op.create_index("ix_bots_owner", "bots", ["owner_id"])


def downgrade() -> None:
    op.drop_index("ix_bots_owner", table_name="bots")
    op.drop_table("bots")
