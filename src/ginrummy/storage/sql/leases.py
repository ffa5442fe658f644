"""Leases of live things when many server processes share one database (see docs/deploy.md).

Each lease job runs alone on a lane of its own (the renewals on another); lease times are the
database's clock.
"""

from __future__ import annotations

import functools
from typing import Any

import sqlalchemy as sa

from ...service.ports import Lease
from ..schema import leases
from .common import db_now, insert_ignore
from .writer import StoreBase


class LeaseQueries(StoreBase):
    """The leases of `SqlStore`."""

    async def claim_lease(self, name: str, owner: str, ttl: float) -> Lease:
        def job(conn: sa.Connection) -> Lease:
            now = db_now(self.engine.dialect.name)
            conn.execute(
                insert_ignore(self.engine.dialect.name, leases).values(
                    name=name, owner=None, epoch=0, expires_at=0.0
                )
            )
            taken = conn.execute(
                leases.update()
                .where(
                    leases.c.name == name,
                    sa.or_(leases.c.owner.is_(None), leases.c.owner == owner, leases.c.expires_at <= now),
                )
                # SET reads the row as it was: the epoch grows unless the lease was already ours.
                .values(
                    epoch=sa.case((leases.c.owner == owner, leases.c.epoch), else_=leases.c.epoch + 1),
                    owner=owner,
                    expires_at=now + ttl,
                )
                .returning(*_LEASE_COLUMNS)
            ).first()
            if taken is None:
                taken = conn.execute(sa.select(*_LEASE_COLUMNS).where(leases.c.name == name)).first()
            assert taken is not None
            return _lease(taken)

        return await self._run(job, lease=True)

    async def renew_leases(self, owner: str, ttl: float) -> list[Lease]:
        """Renew every lease of `owner`: in one statement those no transaction holds locked, then
        the others (a batch of events is being written under them: its fence holds them `FOR
        SHARE`) in a job of the writer, so inside the writer's own transaction.

        Waiting for those locks on the lease thread's connection would hold the rows renewed so
        far while the writer's batch, in a later statement, may want one of them: the two would
        deadlock (or queue behind one batch after another), the renewal would fail or come late,
        and the leases of a busy process would run out under it.
        """

        def renew_free(conn: sa.Connection) -> tuple[list[Lease], list[str]]:
            now = db_now(self.engine.dialect.name)
            free = (
                sa.select(leases.c.name)
                .where(leases.c.owner == owner)
                .order_by(leases.c.name)
                .with_for_update(skip_locked=True)
            )
            rows = conn.execute(
                leases.update()
                .where(leases.c.name.in_(free.scalar_subquery()), leases.c.owner == owner)
                .values(expires_at=now + ttl)
                .returning(*_LEASE_COLUMNS)
            )
            renewed = [_lease(row) for row in rows]
            done = {lease.name for lease in renewed}
            ours = conn.execute(sa.select(leases.c.name).where(leases.c.owner == owner)).scalars()
            return renewed, sorted(name for name in ours if name not in done)

        def renew_busy(conn: sa.Connection, names: list[str]) -> list[Lease]:
            now = db_now(self.engine.dialect.name)
            rows = conn.execute(
                leases.update()
                .where(leases.c.name.in_(names), leases.c.owner == owner)
                .values(expires_at=now + ttl)
                .returning(*_LEASE_COLUMNS)
            )
            return [_lease(row) for row in rows]

        renewed, busy = await self._run(renew_free, heartbeat=True)
        if busy:
            renewed += await self._run(functools.partial(renew_busy, names=busy))
        return renewed

    async def release_lease(self, lease: Lease) -> bool:
        def job(conn: sa.Connection) -> bool:
            done = conn.execute(
                leases.update()
                .where(
                    leases.c.name == lease.name, leases.c.owner == lease.owner, leases.c.epoch == lease.epoch
                )
                .values(owner=None, expires_at=0.0)
            )
            return done.rowcount == 1

        return await self._run(job, lease=True)

    async def claim_expired(
        self, owner: str, ttl: float, prefix: str, limit: int, lapsed_for: float = 0.0
    ) -> list[Lease]:
        def job(conn: sa.Connection) -> list[Lease]:
            now = db_now(self.engine.dialect.name)
            lapsed = sa.and_(leases.c.owner.is_not(None), leases.c.expires_at <= now - lapsed_for)
            # SKIP LOCKED: processes scanning at once take different leases instead of queueing.
            some = (
                sa.select(leases.c.name)
                .where(lapsed, leases.c.owner != owner, leases.c.name.startswith(prefix, autoescape=True))
                .order_by(leases.c.expires_at)
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
            rows = conn.execute(
                leases.update()
                .where(leases.c.name.in_(some.scalar_subquery()), lapsed)
                .values(owner=owner, epoch=leases.c.epoch + 1, expires_at=now + ttl)
                .returning(*_LEASE_COLUMNS)
            )
            return [_lease(row) for row in rows]

        return await self._run(job, lease=True)

    async def get_lease(self, name: str) -> Lease | None:
        def job(conn: sa.Connection) -> Lease | None:
            row = conn.execute(sa.select(*_LEASE_COLUMNS).where(leases.c.name == name)).first()
            return _lease(row) if row is not None and row.owner is not None else None

        return await self._run(job, read=True)


_LEASE_COLUMNS = (leases.c.name, leases.c.owner, leases.c.epoch, leases.c.expires_at)


def _lease(row: Any) -> Lease:
    return Lease(row.name, row.owner, row.epoch, row.expires_at)
