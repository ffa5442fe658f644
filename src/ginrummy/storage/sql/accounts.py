"""Accounts: a guest with a name and a password."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ...service.ports import AccountRow, StoreError
from ..schema import accounts, guests
from .common import columns_of
from .writer import StoreBase


class AccountQueries(StoreBase):
    """The accounts of `SqlStore`."""

    async def create_account(self, account: AccountRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(accounts.insert().values(**columns_of(account)))
            conn.execute(guests.update().where(guests.c.id == account.guest_id).values(name=account.name))

        await self._run(job)

    async def get_account(self, guest_id: str) -> AccountRow | None:
        return await self._run(lambda conn: _one_account(conn, accounts.c.guest_id == guest_id), read=True)

    async def get_account_by_name(self, name_key: str) -> AccountRow | None:
        return await self._run(lambda conn: _one_account(conn, accounts.c.name_key == name_key), read=True)

    async def get_accounts(self, guest_ids: list[str]) -> dict[str, AccountRow]:
        return await self._read_by_key(accounts.c.guest_id, guest_ids, _account)

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
