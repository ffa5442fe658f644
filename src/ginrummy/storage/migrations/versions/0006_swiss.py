"""Swiss tournaments: a number of rounds and the rounds paired so far, each match's round, and byes.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Nullable or defaulted columns: no existing row is rewritten.
    op.add_column("tournaments", sa.Column("rounds", sa.Integer, nullable=True))
    op.add_column("tournaments", sa.Column("round", sa.Integer, nullable=False, server_default="0"))
    op.add_column("matches", sa.Column("round", sa.Integer, nullable=True))
    op.create_table(
        "tournament_byes",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("round", sa.Integer, primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    )


def downgrade() -> None:
    op.drop_table("tournament_byes")
    op.drop_column("matches", "round")
    op.drop_column("tournaments", "round")
    op.drop_column("tournaments", "rounds")
