"""Settings, guests and their sessions, and the failed sign-ins counted against a name or address."""

from __future__ import annotations

from typing import Any, cast

import sqlalchemy as sa

from ...service.ports import GuestRow, StoreError
from ..schema import accounts, guests, sessions, settings, sign_in_failures
from .writer import StoreBase


class GuestQueries(StoreBase):
    """The settings, guests, sessions and failed sign-ins of `SqlStore`."""

    async def get_or_create_setting(self, key: str, value: str) -> str:
        def job(conn: sa.Connection) -> str:
            row = conn.execute(sa.select(settings.c.value).where(settings.c.key == key)).first()
            if row is not None:
                return cast(str, row[0])
            conn.execute(settings.insert().values(key=key, value=value))
            return value

        return await self._run(job)

    async def create_guest(self, guest: GuestRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(guests.insert().values(id=guest.id, name=guest.name, created_at=guest.created_at))

        await self._run(job)

    async def get_guest(self, guest_id: str) -> GuestRow | None:
        def job(conn: sa.Connection) -> GuestRow | None:
            row = conn.execute(sa.select(guests).where(guests.c.id == guest_id)).first()
            return _guest(row) if row is not None else None

        return await self._run(job, read=True)

    async def get_guests(self, guest_ids: list[str]) -> dict[str, GuestRow]:
        return await self._read_by_key(guests.c.id, guest_ids, _guest)

    async def cookie_guest(self, guest_id: str, session_hash: str | None) -> GuestRow | None:
        def job(conn: sa.Connection) -> GuestRow | None:
            query = sa.select(guests).where(guests.c.id == guest_id)
            if session_hash is not None:
                query = query.join(sessions, sessions.c.guest_id == guests.c.id).where(
                    sessions.c.token_hash == session_hash
                )
            else:
                query = query.outerjoin(accounts, accounts.c.guest_id == guests.c.id).where(
                    accounts.c.guest_id.is_(None)
                )
            row = conn.execute(query).first()
            return _guest(row) if row is not None else None

        return await self._run(job, read=True)

    async def create_session(self, session_hash: str, guest_id: str, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(sessions.insert().values(token_hash=session_hash, guest_id=guest_id, created_at=at))

        await self._run(job)

    async def end_session(self, session_hash: str) -> bool:
        def job(conn: sa.Connection) -> bool:
            return bool(conn.execute(sessions.delete().where(sessions.c.token_hash == session_hash)).rowcount)

        return await self._run(job)

    async def revoke_sessions(self, guest_id: str) -> int:
        def job(conn: sa.Connection) -> int:
            conn.execute(sessions.delete().where(sessions.c.guest_id == guest_id))
            epoch = conn.execute(
                guests.update()
                .where(guests.c.id == guest_id)
                .values(session_epoch=guests.c.session_epoch + 1)
                .returning(guests.c.session_epoch)
            ).scalar()
            if epoch is None:
                raise StoreError(f"no guest {guest_id!r}")
            return int(epoch)

        return await self._run(job)

    async def rename_guest(self, guest_id: str, name: str) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(guests.update().where(guests.c.id == guest_id).values(name=name))
            if done.rowcount != 1:
                raise StoreError(f"no guest {guest_id!r}")

        await self._run(job)

    async def sign_in_failures(self, keys: list[str], since: float) -> dict[str, list[float]]:
        c = sign_in_failures.c

        def job(conn: sa.Connection) -> dict[str, list[float]]:
            found: dict[str, list[float]] = {key: [] for key in keys}
            rows = conn.execute(
                sa.select(c.key, c.at).where(c.key.in_(keys), c.at > since).order_by(c.at, c.id)
            )
            for r in rows:
                found[r.key].append(float(r.at))
            return found

        return await self._run(job, read=True)

    async def add_sign_in_failure(self, keys: list[str], at: float, forget_before: float) -> None:
        c = sign_in_failures.c

        def job(conn: sa.Connection) -> None:
            conn.execute(sa.delete(sign_in_failures).where(c.at <= forget_before))
            conn.execute(sa.insert(sign_in_failures), [{"key": key, "at": at} for key in keys])

        await self._run(job)

    async def clear_sign_in_failures(self, key: str) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(sa.delete(sign_in_failures).where(sign_in_failures.c.key == key))

        await self._run(job)


def _guest(row: Any) -> GuestRow:
    return GuestRow(row.id, row.name, row.created_at, row.session_epoch)
