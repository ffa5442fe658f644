"""The tables (SQLAlchemy Core); Alembic migrations create them, this module only describes them."""

from __future__ import annotations

import sqlalchemy as sa

__all__ = [
    "accounts",
    "analyses",
    "bots",
    "events",
    "fair_play_flags",
    "guest_addresses",
    "guests",
    "leases",
    "match_seats",
    "matches",
    "metadata",
    "player_matches",
    "rating_history",
    "ratings",
    "score_buckets",
    "sessions",
    "settings",
    "sign_in_failures",
    "tournament_byes",
    "tournament_players",
    "tournaments",
]

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
    sa.Column("session_epoch", sa.Integer, nullable=False, server_default="0"),
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
    sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("tournament_id", sa.String(32), nullable=True),
    sa.Column("round", sa.Integer, nullable=True),  # a Swiss tournament's round
    sa.Index("ix_matches_status", "status"),
    sa.Index("ix_matches_tournament", "tournament_id"),
)

match_seats = sa.Table(
    "match_seats",
    metadata,
    sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=True),
    sa.Column("robot_level", sa.String(16), nullable=True),
    # The seat's rating when the match was made (tournament matches; NULL for the others).
    sa.Column("rating", sa.Float(precision=53), nullable=True),
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
    # The lease epoch the writer held (many processes); NULL when written without a lease.
    sa.Column("epoch", sa.BigInteger, nullable=True),
    # True when the server moved for the seat (a robot, or a stand-in when the turn clock ran out):
    # a match with a stranger is rated only once both players have made a move themselves.
    sa.Column("auto", sa.Boolean, nullable=False, server_default=sa.false()),
)

# A finished match's replay analysis: queued, running, then stored once (`engine` names what made it).
analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("engine", sa.String(32), nullable=False),
    sa.Column("requested_at", sa.Float(precision=53), nullable=False),
    sa.Column("finished_at", sa.Float(precision=53), nullable=True),
    sa.Column("result", sa.Text, nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.Index("ix_analyses_status", "status"),
)

# Who runs each live thing when many server processes share the database (see storage/sql/leases.py).
leases = sa.Table(
    "leases",
    metadata,
    sa.Column("name", sa.String(80), primary_key=True),  # "match:ID", "tournament:ID"...
    sa.Column("owner", sa.String(64), nullable=True),  # the holding process; NULL once given up
    sa.Column("epoch", sa.BigInteger, nullable=False),  # +1 each time the lease changes hands
    sa.Column("expires_at", sa.Float(precision=53), nullable=False),  # the database's clock
    # Only held leases are indexed (migration 0009): heartbeats and takeovers read those alone.
    sa.Index(
        "ix_leases_held_expiry",
        "expires_at",
        postgresql_where=sa.text("owner IS NOT NULL"),
        sqlite_where=sa.text("owner IS NOT NULL"),
    ),
    sa.Index(
        "ix_leases_held_owner",
        "owner",
        postgresql_where=sa.text("owner IS NOT NULL"),
        sqlite_where=sa.text("owner IS NOT NULL"),
    ),
)

# A guest who claimed its name: the name is unique (compared case-folded, `name_key`).
accounts = sa.Table(
    "accounts",
    metadata,
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("name_key", sa.String(64), nullable=False, unique=True),
    sa.Column("password_hash", sa.String(256), nullable=False),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
    sa.Column("name_changed_at", sa.Float(precision=53), nullable=False),
)

# An account's signed-in session (one per sign-in or sign-up, per device): the SHA-256 of the token
# its cookie carries. Signing out deletes the row, so the cookie, even if kept, signs nobody in.
sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.String(64), primary_key=True),
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
    sa.Index("ix_sessions_guest", "guest_id"),
)

# A bot account (its guest and account rows hold its name): who made it, and the SHA-256 of its
# API token (NULL when revoked). The token is shown once, when issued, and never stored.
bots = sa.Table(
    "bots",
    metadata,
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    sa.Column("owner_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=True),
    sa.Column("token_at", sa.Float(precision=53), nullable=True),
    sa.Index("ix_bots_owner", "owner_id"),
)

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    sa.Column("game", sa.String(16), primary_key=True),
    sa.Column("rating", sa.Float(precision=53), nullable=False),
    sa.Column("deviation", sa.Float(precision=53), nullable=False),
    sa.Column("volatility", sa.Float(precision=53), nullable=False),
    sa.Column("games", sa.Integer, nullable=False),
    sa.Column("last_at", sa.Float(precision=53), nullable=False),
    sa.Column("ranked_until", sa.Float(precision=53), nullable=False),
    sa.Index("ix_ratings_board", "game", "rating"),
)

rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    sa.Column("game", sa.String(16), primary_key=True),
    sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("at", sa.Float(precision=53), nullable=False),
    # The rating the match started from: the end screen and My matches show the change.
    sa.Column("rating_before", sa.Float(precision=53), nullable=False),
    sa.Column("rating", sa.Float(precision=53), nullable=False),
    sa.Column("deviation", sa.Float(precision=53), nullable=False),
    sa.Index("ix_rating_history_at", "guest_id", "game", "at"),
    sa.Index("ix_rating_history_match", "match_id"),
)

# One row per person per finished match: the profile statistics are sums over these.
player_matches = sa.Table(
    "player_matches",
    metadata,
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
    sa.Index("ix_player_matches_guest", "guest_id", "game"),
)

# The points leaderboards: wins and points per person in each board's window, keyed by the
# window's length in days (`span`: 1 for the daily board, 30 for the rolling one) and its last UTC
# day. A match finished on day d adds itself to the windows that will contain it (the day's own,
# and the 30-day windows ending on d .. d+29), so each board is one bucket read in index order and
# nothing is ever reset: tomorrow's board is simply another bucket.
score_buckets = sa.Table(
    "score_buckets",
    metadata,
    sa.Column("game", sa.String(16), primary_key=True),
    sa.Column("span", sa.Integer, primary_key=True),
    sa.Column("last_day", sa.Integer, primary_key=True),
    sa.Column("guest_id", sa.String(32), primary_key=True),
    sa.Column("wins", sa.Integer, nullable=False),
    sa.Column("points", sa.Integer, nullable=False),
    sa.Column("matches", sa.Integer, nullable=False),
    sa.Index("ix_score_buckets_board", "game", "span", "last_day", "wins", "points", "guest_id"),
)

# An arena tournament: its own clock (starts_at .. ends_at), rules and options. Its state is all
# here and in its matches (matches.tournament_id), so a restart rebuilds it and pairing resumes.
tournaments = sa.Table(
    "tournaments",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("name", sa.String(64), nullable=False),
    sa.Column("format", sa.String(8), nullable=False),
    sa.Column("status", sa.String(8), nullable=False),
    sa.Column("starts_at", sa.Float(precision=53), nullable=False),
    sa.Column("ends_at", sa.Float(precision=53), nullable=False),
    sa.Column("rules", sa.Text, nullable=False),
    sa.Column("turn_seconds", sa.Float(precision=53), nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("robots", sa.Boolean, nullable=False),
    sa.Column("listed", sa.Boolean, nullable=False),
    sa.Column("created_by", sa.String(32), nullable=True),
    sa.Column("created_at", sa.Float(precision=53), nullable=False),
    # Swiss: how many rounds, and how many are paired so far (arenas: NULL and 0).
    sa.Column("rounds", sa.Integer, nullable=True),
    sa.Column("round", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_tournaments_status", "status", "starts_at"),
)

tournament_players = sa.Table(
    "tournament_players",
    metadata,
    sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    sa.Column("joined_at", sa.Float(precision=53), nullable=False),
    sa.Column("withdrawn", sa.Boolean, nullable=False),
    sa.Column("paused", sa.Boolean, nullable=False),
)

# A Swiss round's pairing-allocated bye (a point without a match).
tournament_byes = sa.Table(
    "tournament_byes",
    metadata,
    sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
)

# The addresses (as the server sees them, proxies believed per its settings) a guest entered rated
# play from: two guests seen on one address are linked (fair play, service/fairplay.py).
guest_addresses = sa.Table(
    "guest_addresses",
    metadata,
    sa.Column("guest_id", sa.String(32), sa.ForeignKey("guests.id"), primary_key=True),
    sa.Column("address", sa.String(64), primary_key=True),
    sa.Column("first_at", sa.Float(precision=53), nullable=False),
    sa.Column("last_at", sa.Float(precision=53), nullable=False),
    sa.Index("ix_guest_addresses_address", "address", "last_at"),
)

# A rated result that looks arranged, for the site's operator (`ginrummy fair-play`): one row per
# match and kind of suspicion, with its evidence as JSON.
fair_play_flags = sa.Table(
    "fair_play_flags",
    metadata,
    sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id"), primary_key=True),
    sa.Column("kind", sa.String(16), primary_key=True),
    sa.Column("winner_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
    sa.Column("loser_id", sa.String(32), sa.ForeignKey("guests.id"), nullable=False),
    sa.Column("at", sa.Float(precision=53), nullable=False),
    sa.Column("evidence", sa.Text, nullable=False),
    sa.Index("ix_fair_play_flags_at", "at"),
)

# A failed sign-in, counted under each key it counts against ("address <ip> <name>", "name <name>",
# "device <id> <name>": service/accounts.LoginLimiter): in the database, so every server process of
# a site counts the same failures. Rows older than the limiter's window are deleted as new ones come.
sign_in_failures = sa.Table(
    "sign_in_failures",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("key", sa.String(200), nullable=False),
    sa.Column("at", sa.Float(precision=53), nullable=False),
    sa.Index("ix_sign_in_failures_key", "key", "at"),
    sa.Index("ix_sign_in_failures_at", "at"),
)
