"""Account sessions kept by the server: signing out ends one, and a guest cookie made before the
guest claimed its account no longer proves the account.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_sessions_guest", "sessions", ["guest_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_guest", table_name="sessions")
    op.drop_table("sessions")
