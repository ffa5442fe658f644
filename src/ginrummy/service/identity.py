"""Signed guest identities: a cookie value is the guest id plus an HMAC-SHA256 of it with the server secret."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

__all__ = ["new_guest_id", "sign_guest", "verify_guest", "new_secret"]

_ID = re.compile(r"^[A-Za-z0-9_-]{8,32}$")


def new_secret() -> str:
    """A fresh server secret (256 random bits, hex)."""
    return secrets.token_hex(32)


def new_guest_id() -> str:
    """A fresh, unguessable guest id (URL-safe, no dots)."""
    return secrets.token_urlsafe(12)


def _signature(guest_id: str, secret: str) -> str:
    return hmac.new(secret.encode(), f"guest:{guest_id}".encode(), hashlib.sha256).hexdigest()


def sign_guest(guest_id: str, secret: str) -> str:
    """The cookie value that proves `guest_id`."""
    return f"{guest_id}.{_signature(guest_id, secret)}"


def verify_guest(value: str | None, secret: str) -> str | None:
    """The guest id a cookie value proves, or None when it is missing, malformed or forged."""
    if not value or len(value) > 128:
        return None
    guest_id, dot, signature = value.partition(".")
    if not dot or not _ID.match(guest_id):
        return None
    # compare_digest: the time taken must not tell how much of a forged signature was right.
    if not hmac.compare_digest(signature, _signature(guest_id, secret)):
        return None
    return guest_id
