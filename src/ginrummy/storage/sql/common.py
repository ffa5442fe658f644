"""SQL pieces the repositories and the writer share: the database clock, dialect inserts, a
record's column values, and the rows whose key is one of many."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import fields
from typing import Any, ClassVar, Protocol

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql as pg_dialect
from sqlalchemy.dialects import sqlite as sqlite_dialect

#: One JSON encoder for every action written, not a new one per action.
compact_json = json.JSONEncoder(separators=(",", ":")).encode


def db_now(dialect: str) -> Any:
    """The database's clock in unix seconds, as an SQL expression (leases are timed by it)."""
    if dialect == "postgresql":
        return sa.cast(sa.func.extract("epoch", sa.func.clock_timestamp()), sa.Float(precision=53))
    return (sa.func.julianday("now") - 2440587.5) * 86400.0


def insert_ignore(dialect: str, table: sa.Table) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING for the dialect."""
    if dialect == "postgresql":
        return pg_dialect.insert(table).on_conflict_do_nothing()
    return sqlite_dialect.insert(table).on_conflict_do_nothing()


def insert_for(conn: sa.Connection, table: sa.Table) -> Any:
    """An INSERT of this dialect that knows ON CONFLICT (SQLite and PostgreSQL both do)."""
    if conn.dialect.name == "postgresql":
        return pg_dialect.insert(table)
    return sqlite_dialect.insert(table)


class _Record(Protocol):
    """A dataclass instance (a record of service/records.py)."""

    __dataclass_fields__: ClassVar[dict[str, Any]]


def columns_of(record: _Record, **stored: Any) -> dict[str, Any]:
    """The column values that store `record`, whose fields are named as its table's columns:
    each field as it is, but those given in `stored` (a field kept as JSON text, a key the
    record does not hold)."""
    return {f.name: getattr(record, f.name) for f in fields(record)} | stored


def rows_in(conn: sa.Connection, key: sa.Column[Any], keys: list[str], *where: Any) -> Iterator[Any]:
    """The rows of `key`'s table whose `key` is one of `keys` (and that meet `where`), asked for
    500 keys a statement (a statement's parameters are limited)."""
    for start in range(0, len(keys), 500):
        yield from conn.execute(sa.select(key.table).where(*where, key.in_(keys[start : start + 500])))
