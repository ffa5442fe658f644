"""Each seat's rating when its match was made (an arena's performance tie-break uses the
opponent's rating at the time of the match, and rebuilding the standings after a restart must give
the same figure as keeping them up to date did).

Revision ID: 0011
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("match_seats", sa.Column("rating", sa.Float(precision=53), nullable=True))


def downgrade() -> None:
    op.drop_column("match_seats", "rating")
