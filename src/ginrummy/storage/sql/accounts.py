"""Accounts: a guest with a name and a password."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ...service.ports import AccountRow, StoreError
from ..schema import accounts, guests
from .common import _chunks
from .writer import StoreBase


class AccountQueries(StoreBase):
    """The accounts of `SqlStore`."""

    async def create_account(self, account: AccountRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(
                accounts.insert().values(
                    guest_id=account.guest_id,
                    name=account.name,
                    name_key=account.name_key,
                    password_hash=account.password_hash,
                    created_at=account.created_at,
                    name_changed_at=account.name_changed_at,
                )
            )
            conn.execute(guests.update().where(guests.c.id == account.guest_id).values(name=account.name))

        await self._run(job)

    async def get_account(self, guest_id: str) -> AccountRow | None:
        return await self._run(lambda conn: _one_account(conn, accounts.c.guest_id == guest_id), read=True)

    async def get_account_by_name(self, name_key: str) -> AccountRow | None:
        return await self._run(lambda conn: _one_account(conn, accounts.c.name_key == name_key), read=True)

    async def get_accounts(self, guest_ids: list[str]) -> dict[str, AccountRow]:
        wanted = sorted(set(guest_ids))

        def job(conn: sa.Connection) -> dict[str, AccountRow]:
            found: dict[str, AccountRow] = {}
            for chunk in _chunks(wanted, 500):
                for row in conn.execute(sa.select(accounts).where(accounts.c.guest_id.in_(chunk))):
                    found[row.guest_id] = _account(row)
            return found

        return await self._run(job, read=True) if wanted else {}

    async def rename_account(self, guest_id: str, name: str, name_key: str, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(
                accounts.update()
                .where(accounts.c.guest_id == guest_id)
                .values(name=name, name_key=name_key, name_changed_at=at)
            )
            if done.rowcount != 1:
                raise StoreError(f"no account {guest_id!r}")
            conn.execute(guests.update().where(guests.c.id == guest_id).values(name=name))

        await self._run(job)


def _account(row: Any) -> AccountRow:
    return AccountRow(
        row.guest_id, row.name, row.name_key, row.password_hash, row.created_at, row.name_changed_at
    )


def _one_account(conn: sa.Connection, where: Any) -> AccountRow | None:
    row = conn.execute(sa.select(accounts).where(where)).first()
    return _account(row) if row is not None else None
