"""Leases for many server processes: one owner per live thing, and the epoch each event was written under.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "leases",
        sa.Column("name", sa.String(80), primary_key=True),
        sa.Column("owner", sa.String(64), nullable=True),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("expires_at", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_leases_expires_at", "leases", ["expires_at"])
    # Adding a nullable column rewrites no row (the append-only trigger is not involved).
    op.add_column("events", sa.Column("epoch", sa.BigInteger, nullable=True))


def downgrade() -> None:
    # Both SQLite (3.35+) and PostgreSQL drop a column in place: the table and its append-only
    # triggers stay as they are (a batch copy would recreate the table without them).
    op.execute("ALTER TABLE events DROP COLUMN epoch")
    op.drop_index("ix_leases_expires_at", table_name="leases")
    op.drop_table("leases")
