"""Failed sign-ins in the database, so that every server process of a site counts the same ones
(they were counted in each process's memory: behind a load balancer a guesser got five tries per
process).

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sign_in_failures",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("at", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_sign_in_failures_key", "sign_in_failures", ["key", "at"])
    op.create_index("ix_sign_in_failures_at", "sign_in_failures", ["at"])


def downgrade() -> None:
    op.drop_index("ix_sign_in_failures_at", table_name="sign_in_failures")
    op.drop_index("ix_sign_in_failures_key", table_name="sign_in_failures")
    op.drop_table("sign_in_failures")
