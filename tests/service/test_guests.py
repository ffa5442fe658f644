"""Guests (`service/guests.py`) against in-memory guests and accounts: a new visitor is stored,
says who it is, takes a clean name of its own but never an account's, and an account's guest is
renamed by the account's rules; every table seating a renamed guest is told."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from ginrummy.service.accounts import AccountService, name_key
from ginrummy.service.errors import BadRequest, NameTaken
from ginrummy.service.guests import Guests
from ginrummy.service.ports import AccountRow, GuestRow


class MemoryPeople:
    """The guest and account ports in memory (only what `Guests` and an account's rename use)."""

    def __init__(self) -> None:
        self.guests: dict[str, GuestRow] = {}
        self.accounts: dict[str, AccountRow] = {}

    async def create_guest(self, guest: GuestRow) -> None:
        assert guest.id not in self.guests
        self.guests[guest.id] = guest

    async def get_guest(self, guest_id: str) -> GuestRow | None:
        return self.guests.get(guest_id)

    async def rename_guest(self, guest_id: str, name: str) -> None:
        old = self.guests[guest_id]
        self.guests[guest_id] = GuestRow(old.id, name, old.created_at)

    async def get_account(self, guest_id: str) -> AccountRow | None:
        return self.accounts.get(guest_id)

    async def get_account_by_name(self, name_key: str) -> AccountRow | None:
        return next((a for a in self.accounts.values() if a.name_key == name_key), None)

    async def rename_account(self, guest_id: str, name: str, name_key: str, at: float) -> None:
        old = self.accounts[guest_id]
        self.accounts[guest_id] = AccountRow(guest_id, name, name_key, old.password_hash, old.created_at, at)


class Ratings:
    async def rating_of(self, guest_id: str) -> dict[str, Any]:
        return {"rating": 1500, "games": 0, "of": guest_id}


def _guests(now: list[float]) -> tuple[Guests, MemoryPeople, list[tuple[str, str]]]:
    people = MemoryPeople()
    told: list[tuple[str, str]] = []
    clock = lambda: now[0]  # noqa: E731
    accounts = AccountService(people, clock=clock)  # type: ignore[arg-type]
    guests = Guests(people, accounts, Ratings(), renamed=lambda g, n: told.append((g, n)), clock=clock)
    return guests, people, told


def test_a_new_guest_is_stored_and_says_who_it_is() -> None:
    async def body() -> None:
        guests, people, _ = _guests([100.0])
        guest = await guests.new_guest()
        assert people.guests[guest.id] == guest and guest.created_at == 100.0
        assert guest.name.startswith("Guest ") and guest.name[6:].isdigit()
        assert await guests.guest(guest.id) == guest
        assert await guests.guest(None) is None and await guests.guest("nobody") is None
        me = await guests.me(guest)
        assert me == {
            "id": guest.id,
            "name": guest.name,
            "account": False,
            "guest": True,
            "rating": {"rating": 1500, "games": 0, "of": guest.id},
        }

    asyncio.run(body())


def test_a_guest_takes_a_clean_name_and_the_tables_are_told() -> None:
    async def body() -> None:
        guests, people, told = _guests([0.0])
        guest = await guests.new_guest()
        renamed = await guests.rename(guest, "  Bình   An ")
        assert renamed.name == "Bình An" and people.guests[guest.id].name == "Bình An"
        assert told == [(guest.id, "Bình An")]
        with pytest.raises(BadRequest):
            await guests.rename(guest, "   ")
        assert people.guests[guest.id].name == "Bình An" and len(told) == 1

    asyncio.run(body())


@pytest.mark.parametrize("name", ["mai_lan", "MAI LAN", "Mai-Lan", "mailan"])
def test_a_guest_may_not_pass_for_an_account(name: str) -> None:
    async def body() -> None:
        guests, people, told = _guests([0.0])
        for account_name in ("mai_lan", "mailan"):
            people.accounts[account_name] = AccountRow(
                account_name, account_name, name_key(account_name), "hash", 0.0, 0.0
            )
        guest = await guests.new_guest()
        if name == "Mai-Lan":  # an account's '_' does not make '-' free ('mai-lan' is no account)
            assert (await guests.rename(guest, name)).name == name
            return
        with pytest.raises(NameTaken):
            await guests.rename(guest, name)
        assert people.guests[guest.id] == guest and told == []

    asyncio.run(body())


def test_an_accounts_guest_is_renamed_by_the_accounts_rules() -> None:
    async def body() -> None:
        now = [1000.0]
        guests, people, told = _guests(now)
        guest = await guests.new_guest()
        people.accounts[guest.id] = AccountRow(guest.id, "lan", name_key("lan"), "hash", 0.0, 0.0)
        assert (await guests.me(guest))["account"] is True
        renamed = await guests.rename(guest, "Lan_Anh")
        assert renamed.name == "Lan_Anh" and people.accounts[guest.id].name == "Lan_Anh"
        assert people.guests[guest.id].name == guest.name  # the account's name, not the guest's row
        assert told == [(guest.id, "Lan_Anh")]
        with pytest.raises(BadRequest):  # not an account name (spaces)
            await guests.rename(guest, "Lan Anh Pham")

    asyncio.run(body())
