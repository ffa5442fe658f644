"""Accounts: a guest claims a unique name and a password (Argon2id) so it can sign in on another device.

The password is hashed with argon2-cffi's Argon2id (its RFC 9106 low-memory profile by default)
on a worker thread, so a hash never stalls the event loop. It is never stored, logged or sent
back: only the hash is kept, and errors name the field, not its value. Failed sign-ins are
counted where they come from (`LoginLimiter`), on top of the server's per-address limit, so a
guesser locks out only itself: a device that signed in to the account before is never refused for
failures elsewhere. A name that does not exist costs the same hash as one that does, so the time
taken does not tell which names exist.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .errors import BadRequest, Conflict, Forbidden, NameTaken, RateLimited, WrongPassword
from .identity import Device
from .names import refuse_invisible
from .ports import AccountRow, AccountStore, GuestRow, GuestStore, SignInFailures, StoreError

__all__ = [
    "AccountService",
    "LoginLimiter",
    "NAME_CHANGE_DAYS",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "address_key",
    "clean_account_name",
    "name_key",
]

NAME_MIN, NAME_MAX = 3, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 128
NAME_CHANGE_DAYS = 30  # one real change per this many days; changes of letter case any time
# Names a person could pass off as the site or as the names it gives guests and robots.
RESERVED = ("admin", "administrator", "anonymous", "guest", "moderator", "robot", "system", "ginrummy")


def name_key(name: str) -> str:
    """The form names are compared in: NFKC, case-folded (so "Bình" and "BÌNH" are one name)."""
    return unicodedata.normalize("NFKC", name).casefold()


def clean_account_name(value: Any) -> str:
    """An account name: 3-20 letters or digits (any script), with single '_' or '-' between them."""
    if not isinstance(value, str):
        raise BadRequest("name must be a string")
    name = unicodedata.normalize("NFC", value.strip())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise BadRequest(f"an account name has {NAME_MIN} to {NAME_MAX} characters, got {len(name)}")
    refuse_invisible(name, "an account name")  # blank letters (U+3164) count as letters below
    for ch in name:
        if not (ch.isalnum() or ch in "_-"):
            raise BadRequest(f"an account name has only letters, digits, '_' and '-', not {ch!r}")
    if not name[0].isalnum() or not name[-1].isalnum():
        raise BadRequest("an account name starts and ends with a letter or a digit")
    if "--" in name or "__" in name or "-_" in name or "_-" in name:
        raise BadRequest("an account name has no two '_' or '-' in a row")
    key = name_key(name)
    if any(key.startswith(word) for word in RESERVED):
        raise BadRequest(f"names starting with {key[:12]!r} are reserved")
    return name


def _check_password(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise BadRequest("password must be a string")
    if not PASSWORD_MIN <= len(value) <= PASSWORD_MAX:
        raise BadRequest(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    if name_key(value) == name_key(name):
        raise BadRequest("the password must not be the name")
    return value


class LoginLimiter:
    """At most `attempts` failed sign-ins per key in `window` seconds; a success clears the key.

    The keys say where failures come from (`AccountService.sign_in`): a name from one address, a
    name from every unknown device together (`name_attempts`), a name from one known device. The
    failures are kept in the site's database (`failures`), so every server process counts them
    all: behind a load balancer a guesser gets no more tries than from one process.
    """

    def __init__(
        self,
        failures: SignInFailures,
        attempts: int = 5,
        window: float = 300.0,
        clock: Callable[[], float] = time.time,
        *,
        name_attempts: int = 20,
    ) -> None:
        self.store = failures
        self.attempts = attempts
        self.name_attempts = name_attempts
        self.window = window
        self.clock = clock

    async def check(self, limits: list[tuple[str, int, str]]) -> None:
        """Refuse (`RateLimited`) if any `(key, attempts, where)` has `attempts` failures or more in
        the window; `where` ends the message ("for this name")."""
        now = self.clock()
        recent = await self.store.sign_in_failures([key for key, _, _ in limits], now - self.window)
        for key, attempts, where in limits:
            times = recent.get(key, [])
            if len(times) >= attempts:
                wait = max(1.0, self.window - (now - times[-attempts]))
                raise RateLimited(f"too many failed sign-ins {where}; try again in {wait:.0f} s", wait)

    async def failed(self, keys: list[str]) -> None:
        now = self.clock()
        await self.store.add_sign_in_failure(keys, now, now - self.window)

    async def succeeded(self, key: str) -> None:
        await self.store.clear_sign_in_failures(key)


def address_key(address: str) -> str:
    """The part of a client address one party controls: an IPv4 address, or an IPv6 /64 (one home
    or one server gets a whole /64, so counting single IPv6 addresses would count nothing)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if ip.version == 6:
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The guest a sign-in proves, and its account."""

    guest: GuestRow
    account: AccountRow


class AccountPorts(AccountStore, GuestStore, SignInFailures, Protocol):
    """The storage an account service uses: accounts, their guests, failed sign-ins."""


class AccountService:
    """Claim, sign in, rename. Sessions and signing out are `Cookies`' (service/cookies.py)."""

    def __init__(
        self,
        store: AccountPorts,
        *,
        clock: Callable[[], float] = time.time,
        hasher: PasswordHasher | None = None,
        limiter: LoginLimiter | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.hasher = hasher or PasswordHasher()
        self.limiter = limiter or LoginLimiter(store, clock=clock)
        self._dummy: str | None = None

    async def _hash(self, password: str) -> str:
        return await asyncio.to_thread(self.hasher.hash, password)

    async def _verify(self, stored: str, password: str) -> bool:
        def verify() -> bool:
            try:
                return self.hasher.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return await asyncio.to_thread(verify)

    async def account(self, guest_id: str) -> AccountRow | None:
        return await self.store.get_account(guest_id)

    async def claim(self, guest: GuestRow, name: Any, password: Any) -> AccountRow:
        """Turn this guest into an account: its matches and rating stay, its name becomes unique."""
        clean = clean_account_name(name)
        secret = _check_password(password, clean)
        if await self.store.get_account(guest.id) is not None:
            raise Conflict("you have an account already; sign out to claim another")
        key = name_key(clean)
        if await self.store.get_account_by_name(key) is not None:
            raise NameTaken(f"the name {clean!r} is taken")
        now = self.clock()
        row = AccountRow(guest.id, clean, key, await self._hash(secret), now, now)
        try:
            await self.store.create_account(row)
        except StoreError:
            raise NameTaken(f"the name {clean!r} is taken") from None
        return row

    async def sign_in(
        self, name: Any, password: Any, *, address: str = "unknown", device: Device | None = None
    ) -> SignedIn:
        """The account a name and password prove; `WrongPassword` (one message for both) otherwise.

        Failures count per name and address, and per name from every unknown device together,
        so a guesser elsewhere keeps only itself out. A device that signed in to the account
        before (`device`, its signed cookie) counts its own failures only: the owner's correct
        password from it is never refused because of anyone else's guesses.
        """
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > PASSWORD_MAX:
            raise BadRequest(
                f'send {{"name": ..., "password": ...}} (a password has at most {PASSWORD_MAX} characters)'
            )
        key = name_key(name.strip())
        account = await self.store.get_account_by_name(key)
        limiter = self.limiter
        limits: list[tuple[str, int, str]]
        if device is not None and account is not None and account.guest_id in device.accounts:
            limits = [(f"device {device.id} {key}", limiter.attempts, "from this device")]
        else:
            limits = [
                (f"address {address_key(address)} {key}", limiter.attempts, "for this name"),
                (f"name {key}", limiter.name_attempts, "for this name"),
            ]
        await limiter.check(limits)
        counters = [counter for counter, _, _ in limits]
        if account is None:
            if self._dummy is None:
                self._dummy = await self._hash("not a password anyone has")
            await self._verify(self._dummy, password)  # the same work as for a real name
            ok = False
        else:
            ok = await self._verify(account.password_hash, password)
        if not ok or account is None:
            await limiter.failed(counters)
            raise WrongPassword("wrong name or password")
        # The failures of this address or device are forgiven; the name's count from unknown
        # devices is not (the guessers are still out there).
        await limiter.succeeded(counters[0])
        guest = await self.store.get_guest(account.guest_id)
        if guest is None:
            raise StoreError(f"account {account.name!r} has no guest")
        return SignedIn(guest, account)

    async def rename(self, account: AccountRow, value: Any) -> AccountRow:
        """A new name: free, within the rules, and a real change at most once per 30 days."""
        clean = clean_account_name(value)
        key = name_key(clean)
        now = self.clock()
        if key != account.name_key:
            wait = account.name_changed_at + NAME_CHANGE_DAYS * 86400 - now
            if wait > 0 and account.name_changed_at > account.created_at:
                days = int(wait // 86400) + 1
                raise Forbidden(
                    f"a name can change once every {NAME_CHANGE_DAYS} days; the next change is possible in {days} days"
                )
            if await self.store.get_account_by_name(key) is not None:
                raise NameTaken(f"the name {clean!r} is taken")
        changed_at = now if key != account.name_key else account.name_changed_at
        try:
            await self.store.rename_account(account.guest_id, clean, key, changed_at)
        except StoreError:
            raise NameTaken(f"the name {clean!r} is taken") from None
        return AccountRow(account.guest_id, clean, key, account.password_hash, account.created_at, changed_at)
