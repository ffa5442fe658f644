"""Errors of the web use cases: each has a stable code, a human message and an HTTP status."""

from __future__ import annotations

__all__ = ["BadRequest", "Forbidden", "NotFinished", "NotFound", "RateLimited", "RoomFull", "ServiceError"]


class ServiceError(Exception):
    """A request the service refuses; nothing was changed."""

    code = "bad_request"
    status = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class BadRequest(ServiceError):
    code = "bad_request"
    status = 400


class Forbidden(ServiceError):
    code = "forbidden"
    status = 403


class NotFound(ServiceError):
    code = "not_found"
    status = 404


class RoomFull(ServiceError):
    code = "room_full"
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
