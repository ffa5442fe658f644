"""SQL pieces the repositories and the writer share: the database clock, dialect inserts, chunks."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect

#: One JSON encoder for every action written, not a new one per action.
_compact = json.JSONEncoder(separators=(",", ":")).encode


def _db_now(dialect: str) -> Any:
    """The database's clock in unix seconds, as an SQL expression (leases are timed by it)."""
    if dialect == "postgresql":
        return sa.cast(sa.func.extract("epoch", sa.func.clock_timestamp()), sa.Float(precision=53))
    return (sa.func.julianday("now") - 2440587.5) * 86400.0


def _insert_ignore(dialect: str, table: sa.Table) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING for the dialect."""
    if dialect == "postgresql":
        return pg_dialect.insert(table).on_conflict_do_nothing()
    return sqlite_dialect.insert(table).on_conflict_do_nothing()


def _insert_for(conn: sa.Connection, table: sa.Table) -> Any:
    """An INSERT of this dialect that knows ON CONFLICT (SQLite and PostgreSQL both do)."""
    if conn.dialect.name == "postgresql":
        return pg_dialect.insert(table)
    return sqlite_dialect.insert(table)


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
