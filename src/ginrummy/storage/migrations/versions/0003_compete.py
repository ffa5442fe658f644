"""Accounts, ratings and their history, per-player match statistics, leaderboard buckets; rated matches.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Plain ADD COLUMN (SQLite supports it): a batch copy of `matches` would have to drop the
    # table the event log refers to.
    op.add_column("matches", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("matches", sa.Column("tournament_id", sa.String(32), nullable=True))
    op.create_table(
        "accounts",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(64), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
        sa.Column("name_changed_at", sa.Float(precision=53), nullable=False),
    )
    op.create_table(
        "ratings",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float(precision=53), nullable=False),
        sa.Column("deviation", sa.Float(precision=53), nullable=False),
        sa.Column("volatility", sa.Float(precision=53), nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("last_at", sa.Float(precision=53), nullable=False),
        sa.Column("ranked_until", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_ratings_board", "ratings", ["game", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("at", sa.Float(precision=53), nullable=False),
        sa.Column("rating", sa.Float(precision=53), nullable=False),
        sa.Column("deviation", sa.Float(precision=53), nullable=False),
    )
    op.create_index("ix_rating_history_at", "rating_history", ["guest_id", "game", "at"])
    op.create_table(
        "player_matches",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("finished_at", sa.Float(precision=53), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("score", sa.Float(precision=53), nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("gins", sa.Integer, nullable=False),
        sa.Column("undercuts", sa.Integer, nullable=False),
        sa.Column("knocks", sa.Integer, nullable=False),
        sa.Column("knock_deadwood", sa.Integer, nullable=False),
        sa.Column("opponent_id", sa.String(32), nullable=True),
        sa.Column("opponent_robot", sa.String(16), nullable=True),
    )
    op.create_index("ix_player_matches_guest", "player_matches", ["guest_id", "game"])
    op.create_table(
        "score_buckets",
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("span", sa.Integer, primary_key=True),
        sa.Column("last_day", sa.Integer, primary_key=True),
        sa.Column("guest_id", sa.String(32), primary_key=True),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
    )
    op.create_index(
        "ix_score_buckets_board", "score_buckets", ["game", "span", "last_day", "wins", "points", "guest_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_score_buckets_board", table_name="score_buckets")
    op.drop_table("score_buckets")
    op.drop_index("ix_player_matches_guest", table_name="player_matches")
    op.drop_table("player_matches")
    op.drop_index("ix_rating_history_at", table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index("ix_ratings_board", table_name="ratings")
    op.drop_table("ratings")
    op.drop_table("accounts")
    for column in ("tournament_id", "rated"):
        # SQLite has DROP COLUMN since 3.35; Alembic would copy the table instead (see upgrade).
        op.execute(f"ALTER TABLE matches DROP COLUMN {column}")
