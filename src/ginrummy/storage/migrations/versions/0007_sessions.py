"""Session epochs: signing out everywhere makes every cookie given before stop working.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("guests", sa.Column("session_epoch", sa.Integer, nullable=False, server_default="0"))


def downgrade() -> None:
    op.drop_column("guests", "session_epoch")
