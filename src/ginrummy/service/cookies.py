"""Who a cookie signs in: a guest's signed cookie, an account's server-side sessions (signing
out ends them), and the device cookie of a browser that signed in to accounts before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .errors import Forbidden
from .identity import (
    DEVICE_ACCOUNTS,
    Device,
    new_device_id,
    new_session_token,
    session_hash,
    sign_device,
    sign_guest,
    verify_device,
    verify_guest,
)
from .ports import AccountStore, GuestRow, GuestStore

__all__ = ["Cookies"]


class CookiePorts(GuestStore, AccountStore, Protocol):
    """The storage cookies are checked against: guests, their sessions, accounts."""


class Cookies:
    """Signs and checks the site's cookies with the site's secret (read when asked: it is
    settled when the service starts)."""

    def __init__(self, store: CookiePorts, secret: Callable[[], str], clock: Callable[[], float]) -> None:
        self.store = store
        self.secret = secret
        self.clock = clock

    async def guest_by_cookie(self, value: str | None) -> GuestRow | None:
        """The guest a cookie signs in: a true signature, and then either a live session of an
        account or a guest without an account in its current session epoch (signing out raises it)."""
        proved = verify_guest(value, self.secret())
        if proved is None:
            return None
        session = session_hash(proved.session) if proved.session is not None else None
        guest = await self.store.cookie_guest(proved.guest_id, session)
        if guest is None or (session is None and guest.session_epoch != proved.epoch):
            return None
        return guest

    async def guest_of_cookie(self, value: str | None) -> str | None:
        """The id of the guest a cookie signs in, or None."""
        guest = await self.guest_by_cookie(value)
        return guest.id if guest is not None else None

    def cookie_for(self, guest: GuestRow) -> str:
        """The cookie of a guest without an account (an account's comes from `start_session`)."""
        return sign_guest(guest.id, self.secret(), guest.session_epoch)

    async def start_session(self, guest: GuestRow) -> str:
        """A new server-side session of an account (sign-up and sign-in): the cookie that proves it.
        Whatever cookie the browser held before proves nothing of the account."""
        token = new_session_token()
        await self.store.create_session(session_hash(token), guest.id, self.clock())
        return sign_guest(guest.id, self.secret(), session=token)

    async def sign_out(self, value: str | None) -> None:
        """End the session a cookie proves: kept or copied, it signs nobody in any more. A guest
        without an account has no other session to end: its cookies all stop working."""
        proved = verify_guest(value, self.secret())
        if proved is None:
            return
        if proved.session is not None:
            await self.store.end_session(session_hash(proved.session))
        elif await self.guest_by_cookie(value) is not None:
            await self.store.revoke_sessions(proved.guest_id)

    async def sign_out_everywhere(self, guest: GuestRow) -> None:
        """Make every cookie of this account stop working, on every device (this one included)."""
        if await self.store.get_account(guest.id) is None:
            raise Forbidden(
                "only an account can sign out everywhere: a guest without one would lose its matches"
            )
        await self.store.revoke_sessions(guest.id)

    def device_of(self, value: str | None) -> Device | None:
        """The browser a device cookie proves (it signed in to its accounts before), or None."""
        return verify_device(value, self.secret())

    def device_cookie(self, device: Device | None, guest_id: str) -> str:
        """The device cookie after `guest_id` signed in on it: that account first, then the earlier ones."""
        known = device.accounts if device is not None else ()
        accounts = (guest_id, *(a for a in known if a != guest_id))[:DEVICE_ACCOUNTS]
        return sign_device(
            Device(device.id if device is not None else new_device_id(), accounts), self.secret()
        )
