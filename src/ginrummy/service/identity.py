"""Signed identities: the guest cookie (a guest id, or an account's server-side session) and the device cookie.

A guest cookie is the guest id plus an HMAC-SHA256 of it with the server secret. A guest that was
signed out has a session epoch above 0: its cookies then carry the epoch too (`ID.EPOCH.SIG`, the
epoch signed with the id), and a cookie of an older epoch no longer signs anyone in.

An account signs in by sessions only: its cookie is `ID.sTOKEN.SIG`, where the token names a
session row the server keeps (by the token's SHA-256), so signing out ends that one session, and a
guest cookie made before the guest became an account no longer proves it (no session fixation).

The device cookie remembers which accounts signed in on a browser before (`DEVICE.G1,G2.SIG`): a
correct password from such a device is not refused because others failed to guess it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import NamedTuple

__all__ = [
    "DEVICE_ACCOUNTS",
    "Device",
    "Proof",
    "new_device_id",
    "new_guest_id",
    "new_secret",
    "new_session_token",
    "session_hash",
    "sign_device",
    "sign_guest",
    "verify_device",
    "verify_guest",
]

_ID = re.compile(r"^[A-Za-z0-9_-]{8,32}$")
_TOKEN = re.compile(r"^s[A-Za-z0-9_-]{32}$")
#: The accounts a device cookie remembers, most recent first (a shared family computer has a few).
DEVICE_ACCOUNTS = 5


class Proof(NamedTuple):
    """What a guest cookie proves: the guest, its session epoch, and the account session's token (if any)."""

    guest_id: str
    epoch: int
    session: str | None = None


class Device(NamedTuple):
    """A browser that signed in before: its own id and the accounts it signed in to."""

    id: str
    accounts: tuple[str, ...]


def new_secret() -> str:
    """A fresh server secret (256 random bits, hex)."""
    return secrets.token_hex(32)


def new_guest_id() -> str:
    """A fresh, unguessable guest id (URL-safe, no dots)."""
    return secrets.token_urlsafe(12)


def new_session_token() -> str:
    """A fresh account session token (192 random bits; the leading 's' tells it from an epoch)."""
    return "s" + secrets.token_urlsafe(24)


def new_device_id() -> str:
    return secrets.token_urlsafe(12)


def session_hash(token: str) -> str:
    """What the server stores of a session token: a stolen database signs nobody in."""
    return hashlib.sha256(token.encode()).hexdigest()


def _signature(message: str, secret: str) -> str:
    return hmac.new(secret.encode(), f"guest:{message}".encode(), hashlib.sha256).hexdigest()


def sign_guest(guest_id: str, secret: str, epoch: int = 0, *, session: str | None = None) -> str:
    """The cookie value that proves `guest_id` (in session epoch `epoch`, or in account `session`)."""
    if session is not None:
        return f"{guest_id}.{session}.{_signature(f'{guest_id}:session:{session}', secret)}"
    if epoch:
        return f"{guest_id}.{epoch}.{_signature(f'{guest_id}:{epoch}', secret)}"
    return f"{guest_id}.{_signature(guest_id, secret)}"


def verify_guest(value: str | None, secret: str) -> Proof | None:
    """What a cookie value proves, or None when it is missing, malformed or forged (whether the
    epoch or the session is still current is the caller's to check)."""
    if not value or len(value) > 160:
        return None
    parts = value.split(".")
    session = None
    if len(parts) == 2:
        guest_id, signature = parts
        epoch, signed = 0, guest_id
    elif len(parts) == 3 and parts[1].isdigit() and len(parts[1]) <= 9 and parts[1][0] != "0":
        guest_id, epoch_text, signature = parts
        epoch, signed = int(epoch_text), f"{guest_id}:{epoch_text}"
    elif len(parts) == 3 and _TOKEN.match(parts[1]):
        guest_id, session, signature = parts
        epoch, signed = 0, f"{guest_id}:session:{session}"
    else:
        return None
    if not _ID.match(guest_id):
        return None
    # compare_digest: the time taken must not tell how much of a forged signature was right.
    if not hmac.compare_digest(signature, _signature(signed, secret)):
        return None
    return Proof(guest_id, epoch, session)


def _device_signature(device_id: str, accounts: str, secret: str) -> str:
    return hmac.new(secret.encode(), f"device:{device_id}:{accounts}".encode(), hashlib.sha256).hexdigest()


def sign_device(device: Device, secret: str) -> str:
    """The device cookie value: the device id, the accounts it signed in to, and their signature."""
    accounts = ",".join(device.accounts[:DEVICE_ACCOUNTS])
    return f"{device.id}.{accounts}.{_device_signature(device.id, accounts, secret)}"


def verify_device(value: str | None, secret: str) -> Device | None:
    """The device a cookie value proves, or None when it is missing, malformed or forged."""
    if not value or len(value) > 400:
        return None
    parts = value.split(".")
    if len(parts) != 3 or not _ID.match(parts[0]):
        return None
    device_id, accounts, signature = parts
    ids = tuple(accounts.split(",")) if accounts else ()
    if len(ids) > DEVICE_ACCOUNTS or not all(_ID.match(i) for i in ids):
        return None
    if not hmac.compare_digest(signature, _device_signature(device_id, accounts, secret)):
        return None
    return Device(device_id, ids)
