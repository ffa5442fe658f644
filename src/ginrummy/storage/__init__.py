"""Storage: SQLAlchemy models and Alembic migrations (SQLite by default, PostgreSQL by URL)."""

from .sql import SqlStore, downgrade, make_engine, migrate, normalize_url

__all__ = ["SqlStore", "downgrade", "make_engine", "migrate", "normalize_url"]
