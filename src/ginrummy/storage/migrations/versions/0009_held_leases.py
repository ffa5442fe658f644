"""Leases: index only the held ones, so heartbeats and takeovers cost what is held, not every match ever played.

A lease given up (a finished match unloaded, a shutdown) keeps its row with no owner, for its epoch.
The heartbeat (`owner = ?`) and the scan for leases run out (`owner IS NOT NULL AND expires_at <= now`)
read only the held ones through these partial indexes.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_HELD = sa.text("owner IS NOT NULL")


def upgrade() -> None:
    op.drop_index("ix_leases_expires_at", table_name="leases")
    op.create_index(
        "ix_leases_held_expiry", "leases", ["expires_at"], postgresql_where=_HELD, sqlite_where=_HELD
    )
    op.create_index("ix_leases_held_owner", "leases", ["owner"], postgresql_where=_HELD, sqlite_where=_HELD)


def downgrade() -> None:
    op.drop_index("ix_leases_held_owner", table_name="leases")
    op.drop_index("ix_leases_held_expiry", table_name="leases")
    op.create_index("ix_leases_expires_at", "leases", ["expires_at"])
