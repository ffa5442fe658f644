"""Signed guest identities: a cookie value is the guest id plus an HMAC-SHA256 of it with the server secret.

An account that signed out everywhere has a session epoch above 0: its cookies then carry the
epoch too (`ID.EPOCH.SIG`, the epoch signed with the id), and a cookie of an older epoch no
longer signs anyone in.
"""

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


def sign_guest(guest_id: str, secret: str, epoch: int = 0) -> str:
    """The cookie value that proves `guest_id` (in session epoch `epoch`)."""
    if epoch:
        return f"{guest_id}.{epoch}.{_signature(f'{guest_id}:{epoch}', secret)}"
    return f"{guest_id}.{_signature(guest_id, secret)}"


def verify_guest(value: str | None, secret: str) -> tuple[str, int] | None:
    """The guest id and session epoch a cookie value proves, or None when it is missing,
    malformed or forged (whether the epoch is still current is the caller's to check)."""
    if not value or len(value) > 128:
        return None
    parts = value.split(".")
    if len(parts) == 2:
        guest_id, signature = parts
        epoch, signed = 0, guest_id
    elif len(parts) == 3 and parts[1].isdigit() and len(parts[1]) <= 9 and parts[1][0] != "0":
        guest_id, epoch_text, signature = parts
        epoch, signed = int(epoch_text), f"{guest_id}:{epoch_text}"
    else:
        return None
    if not _ID.match(guest_id):
        return None
    # compare_digest: the time taken must not tell how much of a forged signature was right.
    if not hmac.compare_digest(signature, _signature(signed, secret)):
        return None
    return guest_id, epoch
