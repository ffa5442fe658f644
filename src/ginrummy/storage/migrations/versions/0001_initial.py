"""Initial tables: settings, guests, matches, seats and the append-only event log.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "guests",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("room_code", sa.String(16), nullable=True, unique=True),
        sa.Column("turn_seconds", sa.Float(precision=53), nullable=True),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
        sa.Column("finished_at", sa.Float(precision=53), nullable=True),
        sa.Column("result", sa.Text, nullable=True),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.Column("rematch_id", sa.String(32), nullable=True),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_table(
        "match_seats",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=True),
        sa.Column("robot_level", sa.String(16), nullable=True),
    )
    op.create_index("ix_match_seats_guest", "match_seats", ["guest_id"])
    op.create_table(
        "events",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float(precision=53), nullable=False),
    )
    # The event log is the truth a match is rebuilt from: the database itself refuses edits.
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER events_no_{verb.lower()} BEFORE {verb} ON events "
                "BEGIN SELECT RAISE(ABORT, 'events are append-only'); END"
            )
    elif dialect == "postgresql":
        op.execute(
            "CREATE FUNCTION ginrummy_events_append_only() RETURNS trigger AS $$ "
            "BEGIN RAISE EXCEPTION 'events are append-only'; END; $$ LANGUAGE plpgsql"
        )
        op.execute(
            "CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events "
            "FOR EACH ROW EXECUTE FUNCTION ginrummy_events_append_only()"
        )


def downgrade() -> None:
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS events_no_update")
        op.execute("DROP TRIGGER IF EXISTS events_no_delete")
    elif dialect == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_append_only ON events")
        op.execute("DROP FUNCTION IF EXISTS ginrummy_events_append_only()")
    op.drop_table("events")
    op.drop_index("ix_match_seats_guest", table_name="match_seats")
    op.drop_table("match_seats")
    op.drop_index("ix_matches_status", table_name="matches")
    op.drop_table("matches")
    op.drop_table("guests")
    op.drop_table("settings")
