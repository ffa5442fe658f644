"""Alembic environment: runs the migrations on the connection the server hands over, or on a URL."""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import context

from ginrummy.storage.schema import metadata

config = context.config


def _url() -> str:
    url = config.get_main_option("sqlalchemy.url") or os.environ.get("DATABASE_URL")
    return url or "sqlite:///ginrummy.sqlite3"


def _run(connection: sa.Connection) -> None:
    # render_as_batch lets later migrations alter tables on SQLite too.
    context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = sa.create_engine(_url())
    try:
        with engine.begin() as conn:
            _run(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
