"""Deal seeds of 256 bits: each match says how many bits its deal seeds have.

Matches stored before keep their 64-bit deals (so their logs still replay); new ones get 256.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("deal_bits", sa.Integer, nullable=False, server_default="64"))


def downgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("deal_bits")
