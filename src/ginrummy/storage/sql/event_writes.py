"""The statements that write a match's events and check their fences, on each driver.

`EventWrites` is a mixin of the store's writer (`writer.StoreBase`): the batching writer decides
when a batch of events is committed, these methods say how. On SQLite a batch of plain events is
one INSERT that commits itself; fenced ones are inserted only while their lease is held. On
PostgreSQL the inserts of a batch and its commit are one pipeline, fenced rows locking their lease
FOR SHARE until the commit. A lease no longer held makes its event's write `LeaseLost`.
"""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa

from ...service.ports import Lease, LeaseLost
from ..schema import events, leases
from .common import db_now

__all__ = ["EventWrites", "event_key", "lease_lost"]


class EventWrites:
    """How events rows are written and fences checked, on the driver's own connection."""

    engine: sa.Engine
    #: The events INSERT compiled for the driver, and its parameters' order (`_events_sql`).
    _events_insert: tuple[str, tuple[str, ...] | None] | None

    def _write_events_sqlite(
        self, dbapi_conn: Any, plain: list[dict[str, Any]], fenced: list[tuple[dict[str, Any], Lease]]
    ) -> set[tuple[str, int]]:
        """Insert and commit (the sqlite3 module begins the transaction before the first insert);
        returns the (match, seq) of the fenced events written."""
        written: set[tuple[str, int]] = set()
        if not fenced and len(plain) <= _ONE_STATEMENT and not dbapi_conn.in_transaction:
            self._insert_events_sqlite(dbapi_conn, plain)
            return written
        cursor = dbapi_conn.cursor()
        try:
            if plain:
                cursor.executemany(self._events_sql(plain[0])[0], self._events_params(plain))
            for row, fence in fenced:
                cursor.execute(
                    _SQLITE_FENCED_INSERT,
                    (*(row[k] for k in _EVENT_COLUMNS), fence.name, fence.owner, fence.epoch),
                )
                if cursor.rowcount == 1:
                    written.add(event_key(row))
        finally:
            cursor.close()
        dbapi_conn.commit()
        return written

    @staticmethod
    def _insert_events_sqlite(dbapi_conn: Any, rows: list[dict[str, Any]]) -> None:
        """The events of a batch as one INSERT run in autocommit: SQLite commits it when it ends,
        all its rows or none (a statement is atomic), with no BEGIN and no COMMIT of its own. One
        step of the driver instead of three, and each of them hands the GIL over and back."""
        sql = _sqlite_insert(len(rows))
        params = [row[k] for row in rows for k in _EVENT_COLUMNS]
        level = dbapi_conn.isolation_level
        dbapi_conn.isolation_level = None
        try:
            dbapi_conn.execute(sql, params).close()
        finally:
            dbapi_conn.isolation_level = level

    def _write_events_postgres(
        self, dbapi_conn: Any, plain: list[dict[str, Any]], fenced: list[tuple[dict[str, Any], Lease]]
    ) -> set[tuple[str, int]]:
        """Insert and commit; returns the (match, seq) of the fenced events written (the fenced
        insert returns the rows it wrote). A batch all plain or all fenced (one process alone, or
        every process of a cluster) is one statement in autocommit, its own transaction: one
        message and one result, no BEGIN and no COMMIT; a mixed one is a pipeline of its inserts
        and the commit. Either way one round trip."""
        from psycopg.pq import TransactionStatus

        if not (plain and fenced) and dbapi_conn.info.transaction_status == TransactionStatus.IDLE:
            dbapi_conn.autocommit = True
            try:
                cursor = dbapi_conn.cursor()
                if plain:
                    cursor.execute(_PG_INSERT, [[row[k] for row in plain] for k in _EVENT_COLUMNS])
                    return set()
                cursor.execute(_PG_FENCED_INSERT, _pg_fenced_params(fenced))
                return {(match_id, seq) for match_id, seq in cursor.fetchall()}
            finally:
                dbapi_conn.autocommit = False
        written: set[tuple[str, int]] = set()
        with dbapi_conn.pipeline():
            cursor = dbapi_conn.cursor()
            if plain:
                cursor.executemany(self._events_sql(plain[0])[0], self._events_params(plain))
            returning = None
            if fenced:
                returning = dbapi_conn.cursor()
                returning.execute(_PG_FENCED_INSERT, _pg_fenced_params(fenced))
            dbapi_conn.commit()
        if returning is not None:
            written.update((match_id, seq) for match_id, seq in returning.fetchall())
        return written

    def _lost_fences(self, conn: sa.Connection, fences: list[Lease]) -> set[Lease]:
        """Those of `fences` not held any more, read in `conn`'s transaction.

        On PostgreSQL the leases still held are locked FOR SHARE until the commit: a process
        taking one over waits for the events written under it, and then reads them.
        """
        names = sorted({fence.name for fence in fences})
        if self.engine.dialect.name == "postgresql":
            # Written once and sent straight to the driver (prepared by the server after a few
            # uses): every batch of events runs it, and SQLAlchemy's work on a select built per
            # call cost more than the query.
            cursor = conn.connection.cursor()
            try:
                cursor.execute(_PG_HELD_LEASES, (names,))
                held = {(name, owner, epoch) for name, owner, epoch in cursor.fetchall()}
            finally:
                cursor.close()
        else:
            query = sa.select(leases.c.name, leases.c.owner, leases.c.epoch).where(
                leases.c.name.in_(names), leases.c.expires_at > db_now(self.engine.dialect.name)
            )
            held = {(row.name, row.owner, row.epoch) for row in conn.execute(query)}
        return {fence for fence in fences if (fence.name, fence.owner, fence.epoch) not in held}

    def _check_fence(self, conn: sa.Connection, fence: Lease | None) -> None:
        """Raise `LeaseLost` (the transaction writes nothing) unless `fence` is None or still held."""
        if fence is not None and self._lost_fences(conn, [fence]):
            raise lease_lost(fence)

    def _insert_events(self, conn: sa.Connection, rows: list[dict[str, Any]]) -> None:
        """Insert events rows with one executemany on the driver's cursor, in `conn`'s transaction."""
        sql = self._events_sql(rows[0])[0]
        dbapi = self.engine.dialect.loaded_dbapi
        cursor = conn.connection.cursor()
        try:
            cursor.executemany(sql, self._events_params(rows))
        except dbapi.IntegrityError as exc:
            raise sa.exc.IntegrityError(sql, None, exc) from exc
        except dbapi.Error as exc:
            raise sa.exc.DBAPIError(sql, None, exc) from exc
        finally:
            cursor.close()

    def _events_sql(self, row: dict[str, Any]) -> tuple[str, tuple[str, ...] | None]:
        """The events INSERT for the driver, compiled once, and its parameters' order (positional
        drivers). SQLAlchemy's per-statement work (cache key, execution context, result) cost more
        than SQLite's own insert, once for every batch."""
        if self._events_insert is None:
            compiled = events.insert().compile(dialect=self.engine.dialect, column_keys=list(row))
            order = tuple(compiled.positiontup) if compiled.positional and compiled.positiontup else None
            self._events_insert = (str(compiled), order)
        return self._events_insert

    def _events_params(self, rows: list[dict[str, Any]]) -> list[Any]:
        order = self._events_sql(rows[0])[1]
        return [tuple(row[k] for k in order) for row in rows] if order is not None else rows


def _pg_fenced_params(fenced: list[tuple[dict[str, Any], Lease]]) -> list[list[Any]]:
    """`_PG_FENCED_INSERT`'s column arrays, the leases in the order of their names (as every
    batch locks them), each row written with its lease's epoch."""
    fenced = sorted(fenced, key=lambda pair: pair[1].name)
    columns = [[row[k] for row, _fence in fenced] for k in _EVENT_COLUMNS]
    columns[_EVENT_COLUMNS.index("epoch")] = [fence.epoch for _row, fence in fenced]
    return [*columns, [fence.name for _row, fence in fenced], [fence.owner for _row, fence in fenced]]


def event_key(row: dict[str, Any]) -> tuple[str, int]:
    """An events row's key: (match, seq)."""
    return (row["match_id"], row["seq"])


def lease_lost(fence: Lease) -> LeaseLost:
    """The error of a write fenced by `fence` when the lease is no longer held."""
    return LeaseLost(
        f"{fence.name}: this process no longer holds the lease (epoch {fence.epoch}); nothing written"
    )


#: The columns of an events row, in the order the fenced inserts take them.
_EVENT_COLUMNS = ("match_id", "seq", "seat", "action", "created_at", "epoch", "auto")

#: The most events rows a batch inserts with one statement on SQLite (a bigger one uses executemany
#: in a transaction): the statement's text is kept per row count.
_ONE_STATEMENT = 64


@functools.lru_cache(maxsize=_ONE_STATEMENT)
def _sqlite_insert(count: int) -> str:
    """The INSERT of `count` events rows on SQLite, their values in `_EVENT_COLUMNS` order."""
    values = ",".join(["(?, ?, ?, ?, ?, ?, ?)"] * count)
    return f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) VALUES {values}"


#: A fenced event on SQLite: the row is inserted only while the lease is held (rowcount 0: lost).
_SQLITE_FENCED_INSERT = (
    "INSERT INTO events (match_id, seq, seat, action, created_at, epoch, auto)"
    " SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM leases WHERE name = ? AND owner = ?"
    " AND epoch = ? AND expires_at > (julianday('now') - 2440587.5) * 86400.0)"
)

#: The plain events of a batch on PostgreSQL, one column array each: one statement whatever their
#: number, so the server prepares it once.
_PG_INSERT = (
    "INSERT INTO events (match_id, seq, seat, action, created_at, epoch, auto)"
    " SELECT * FROM unnest(%s::varchar[], %s::int[], %s::int[], %s::text[], %s::float8[],"
    " %s::bigint[], %s::bool[])"
)

#: The fenced events of a batch on PostgreSQL, one column array each: a row is inserted only
#: while its lease is held, which is locked FOR SHARE until the commit; returns what it wrote.
_PG_FENCED_INSERT = (
    "INSERT INTO events (match_id, seq, seat, action, created_at, epoch, auto)"
    " SELECT v.match_id, v.seq, v.seat, v.action, v.created_at, v.epoch, v.auto FROM unnest("
    "%s::varchar[], %s::int[], %s::int[], %s::text[], %s::float8[], %s::bigint[], %s::bool[],"
    " %s::varchar[], %s::varchar[]) AS v(match_id, seq, seat, action, created_at, epoch, auto, lease, owner)"
    " WHERE EXISTS (SELECT 1 FROM leases l WHERE l.name = v.lease AND l.owner = v.owner"
    " AND l.epoch = v.epoch"
    " AND l.expires_at > CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) FOR SHARE)"
    " RETURNING match_id, seq"
)

#: `_lost_fences` on PostgreSQL: the leases of the names given still held, locked until the commit.
_PG_HELD_LEASES = (
    "SELECT name, owner, epoch FROM leases WHERE name = ANY(%s)"
    " AND expires_at > CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) ORDER BY name FOR SHARE"
)
