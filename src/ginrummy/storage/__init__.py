"""Storage: SQLAlchemy models and Alembic migrations (SQLite by default, PostgreSQL by URL)."""
