"""The tables (SQLAlchemy Core); Alembic migrations create them, this module only describes them."""

from __future__ import annotations

import sqlalchemy as sa

__all__ = ["events", "guests", "match_seats", "matches", "metadata", "settings"]

metadata = sa.MetaData()

# Times are unix seconds (double precision) so SQLite and PostgreSQL store them alike.
settings = sa.Table(
    "settings",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)

guests = sa.Table(
    "guests",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
)

matches = sa.Table(
    "matches",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    # The match seed: secret until the match is over (deal seeds derive from it).
    sa.Column("seed", sa.String(128), nullable=False),
    sa.Column("room_code", sa.String(16), nullable=True, unique=True),
    sa.Column("turn_seconds", sa.Float(precision=53), nullable=True),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
    sa.Column("finished_at", sa.Float(precision=53), nullable=True),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("rematch_of", sa.String(32), nullable=True),
    sa.Column("rematch_id", sa.String(32), nullable=True),
    sa.Column("deal_bits", sa.Integer, nullable=False, server_default="64"),
    sa.Index("ix_matches_status", "status"),
)

match_seats = sa.Table(
    "match_seats",
    metadata,
    sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=True),
    sa.Column("robot_level", sa.String(16), nullable=True),
    sa.Index("ix_match_seats_guest", "guest_id"),
)

# Append-only: a trigger refuses UPDATE and DELETE (see the first migration).
events = sa.Table(
    "events",
    metadata,
    sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("action", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
)
