"""Guests: the visitor a cookie names, made on a first visit, with a name of their own to change.

A guest that claimed an account keeps its id; its name is then the account's (`AccountService`
changes it). A guest without an account may take any clean name but one that passes for an
account's. The live tables that seat a renamed guest are told through `renamed`, given by the
platform (this process's tables, and in a cluster the other processes' too).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from .accounts import AccountService, name_key
from .errors import NameTaken
from .identity import new_guest_id
from .options import clean_name
from .ports import AccountStore, GuestRow, GuestStore

__all__ = ["GuestPorts", "Guests", "RatingOf"]


class GuestPorts(GuestStore, AccountStore, Protocol):
    """The storage guests use: the guests, and the accounts some of them claimed."""


class RatingOf(Protocol):
    """A guest's public rating (`Leaderboards.rating_of`)."""

    async def rating_of(self, guest_id: str) -> dict[str, Any]: ...


class Guests:
    """Who a visitor is, a new visitor, a new name."""

    def __init__(
        self,
        store: GuestPorts,
        accounts: AccountService,
        ratings: RatingOf,
        *,
        renamed: Callable[[str, str], None] = lambda guest_id, name: None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.ratings = ratings
        self.renamed = renamed
        self.clock = clock

    async def guest(self, guest_id: str | None) -> GuestRow | None:
        """The stored guest of this id (None: no id, or nobody by it)."""
        return await self.store.get_guest(guest_id) if guest_id else None

    async def new_guest(self) -> GuestRow:
        """A new visitor, stored, with a name to start with ("Guest 1234")."""
        guest = GuestRow(new_guest_id(), f"Guest {secrets.randbelow(9000) + 1000}", self.clock())
        await self.store.create_guest(guest)
        return guest

    async def me(self, guest: GuestRow) -> dict[str, Any]:
        """Who the caller is: name, whether it is an account, its rating."""
        account = await self.store.get_account(guest.id)
        return {
            "id": guest.id,
            "name": guest.name,
            "account": account is not None,
            "guest": account is None,
            "rating": await self.ratings.rating_of(guest.id),
        }

    async def rename(self, guest: GuestRow, value: Any) -> GuestRow:
        """A new name (an account's by the account's rules); the tables seating the guest show it."""
        account = await self.store.get_account(guest.id)
        if account is not None:
            name = (await self.accounts.rename(account, value)).name
        else:
            name = clean_name(value)
            await self._refuse_account_name(name)
            await self.store.rename_guest(guest.id, name)
        self.renamed(guest.id, name)
        return GuestRow(guest.id, name, guest.created_at)

    async def _refuse_account_name(self, name: str) -> None:
        """A guest may not pass for an account: refused when the name is an account's, compared
        NFKC case-folded, with its spaces read as the '_' or '-' (or nothing) an account has there."""
        key = name_key(name)
        keys = {key} | ({key.replace(" ", join) for join in ("_", "-", "")} if " " in key else set())
        for candidate in sorted(keys):
            if await self.store.get_account_by_name(candidate) is not None:
                raise NameTaken(
                    f"{name!r} is the name of an account: a guest may not use it "
                    "(claim a name of your own to keep one)"
                )
