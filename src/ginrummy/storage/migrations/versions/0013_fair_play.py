"""Fair play: who made each move (a player, or the server for them), the addresses guests enter
rated play from, and the suspicious results recorded for the site's operator.

Revision ID: 0013
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite supports it, and the append-only triggers stay as they are).
    op.add_column("events", sa.Column("auto", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "guest_addresses",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("first_at", sa.Float(precision=53), nullable=False),
        sa.Column("last_at", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_guest_addresses_address", "guest_addresses", ["address", "last_at"])
    op.create_table(
        "fair_play_flags",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("winner_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("loser_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
        sa.Column("at", sa.Float(precision=53), nullable=False),
        sa.Column("evidence", sa.Text, nullable=False),
    )
    op.create_index("ix_fair_play_flags_at", "fair_play_flags", ["at"])


def downgrade() -> None:
    op.drop_index("ix_fair_play_flags_at", table_name="fair_play_flags")
    op.drop_table("fair_play_flags")
    op.drop_index("ix_guest_addresses_address", table_name="guest_addresses")
    op.drop_table("guest_addresses")
    op.drop_column("events", "auto")
