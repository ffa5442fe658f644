"""Storage behind the service's ports: the SQLAlchemy store and its Alembic migrations (SQLite by
default, PostgreSQL by URL), and the cluster's message bus on Redis (`redis_bus`)."""

from .sql import SqlStore, downgrade, make_engine, migrate, normalize_url

__all__ = ["SqlStore", "downgrade", "make_engine", "migrate", "normalize_url"]
