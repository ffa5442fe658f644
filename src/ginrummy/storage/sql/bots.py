"""Bot accounts: an account played by a program, owned by a player, reached with a token."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from ...service.ports import AccountRow, BotRow, GuestRow, StoreError
from ..schema import accounts, bots, guests
from .common import columns_of
from .writer import StoreBase


class BotQueries(StoreBase):
    """The bot accounts of `SqlStore`."""

    async def create_bot(self, guest: GuestRow, account: AccountRow, bot: BotRow) -> None:
        def job(conn: sa.Connection) -> None:
            conn.execute(guests.insert().values(id=guest.id, name=account.name, created_at=guest.created_at))
            conn.execute(accounts.insert().values(**columns_of(account)))
            conn.execute(bots.insert().values(**columns_of(bot)))

        await self._run(job)

    async def get_bots(self, guest_ids: list[str]) -> dict[str, BotRow]:
        return await self._read_by_key(bots.c.guest_id, guest_ids, _bot)

    async def bots_of(self, owner_id: str) -> list[BotRow]:
        def job(conn: sa.Connection) -> list[BotRow]:
            query = sa.select(bots).where(bots.c.owner_id == owner_id).order_by(bots.c.created_at)
            return [_bot(row) for row in conn.execute(query)]

        return await self._run(job, read=True)

    async def set_bot_token(self, guest_id: str, token_hash: str | None, at: float) -> None:
        def job(conn: sa.Connection) -> None:
            done = conn.execute(
                bots.update().where(bots.c.guest_id == guest_id).values(token_hash=token_hash, token_at=at)
            )
            if done.rowcount != 1:
                raise StoreError(f"no bot {guest_id!r}")

        await self._run(job)


def _bot(row: Any) -> BotRow:
    return BotRow(row.guest_id, row.owner_id, row.created_at, row.token_hash, row.token_at)
