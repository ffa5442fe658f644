"""Errors of the web use cases: each has a stable code, a human message and an HTTP status."""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "BadRequest",
    "Conflict",
    "Forbidden",
    "NameTaken",
    "NotFinished",
    "NotFound",
    "RateLimited",
    "Refusal",
    "RoomFull",
    "SameAddress",
    "ServiceError",
    "TooLarge",
    "Unauthorized",
    "Unavailable",
    "WrongPassword",
    "encodable",
]


class Refusal(NamedTuple):
    """A move or message a table refused: the code the wire's error carries, and what was wrong."""

    code: str
    message: str


def encodable(text: str) -> str:
    """`text` as it can always be written as UTF-8: lone surrogates (which a client can send
    inside JSON escapes, and an error message may quote) become backslash escapes.

    >>> encodable("no field '\\ud800'") == "no field '\\\\ud800'"
    True
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class ServiceError(Exception):
    """A request the service refuses; nothing was changed."""

    code = "bad_request"
    status = 400

    def __init__(self, message: str) -> None:
        message = encodable(message)
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    code = "bad_request"
    status = 400


class Forbidden(ServiceError):
    code = "forbidden"
    status = 403


class SameAddress(Forbidden):
    """Rated play between two players of one address (or device) is refused (service/fairplay.py)."""

    code = "same_address"


class WrongPassword(Forbidden):
    """A sign-in whose name or password is wrong (one code for both: which one is not told)."""

    code = "wrong_password"


class Unauthorized(ServiceError):
    """A bot API call without a valid token (missing, malformed, never issued, or revoked)."""

    code = "invalid_token"
    status = 401


class NotFound(ServiceError):
    code = "not_found"
    status = 404


class RoomFull(ServiceError):
    code = "room_full"
    status = 409


class Conflict(ServiceError):
    """The request contradicts the current state (an account claimed twice, a pairing already made)."""

    code = "conflict"
    status = 409


class NameTaken(ServiceError):
    code = "name_taken"
    status = 409


class NotFinished(ServiceError):
    code = "not_finished"
    status = 409


class RateLimited(ServiceError):
    """Too many requests from one address; `retry_after` seconds until the next is accepted."""

    code = "rate_limited"
    status = 429

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class TooLarge(ServiceError):
    """A request body over the limit; it was not read past the limit."""

    code = "too_large"
    status = 413


class Unavailable(ServiceError):
    """The service cannot do it now (the database is busy); `retry_after` seconds until trying again helps."""

    code = "unavailable"
    status = 503

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after
