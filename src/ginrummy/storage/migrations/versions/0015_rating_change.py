"""The rating each rated match started from, kept with the rating it left (the end screen and My
matches show the change, as Lichess keeps a game's rating difference), and an index to read a
match's changes by its id.

Revision ID: 0015
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0013"
branch_labels = None
depends_on = None

#: The rating everyone starts from (Lichess's Glicko-2 start, service/glicko2.LICHESS): the
#: rating before a person's first rated match. Written here, not imported, so this migration
#: stays what it was whatever the service becomes.
START = 1500.0


def upgrade() -> None:
    op.add_column("rating_history", sa.Column("rating_before", sa.Float(precision=53), nullable=True))
    # A stored match started from the rating its player's previous rated match left (ratings
    # move only by rated matches), or from the start for the first one.
    op.execute(
        sa.text(
            "UPDATE rating_history SET rating_before = COALESCE(("
            " SELECT earlier.rating FROM rating_history AS earlier"
            " WHERE earlier.guest_id = rating_history.guest_id AND earlier.game = rating_history.game"
            " AND earlier.at < rating_history.at ORDER BY earlier.at DESC LIMIT 1), :start)"
        ).bindparams(start=START)
    )
    with op.batch_alter_table("rating_history") as batch:
        batch.alter_column("rating_before", existing_type=sa.Float(precision=53), nullable=False)
    op.create_index("ix_rating_history_match", "rating_history", ["match_id"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_match", table_name="rating_history")
    with op.batch_alter_table("rating_history") as batch:
        batch.drop_column("rating_before")
