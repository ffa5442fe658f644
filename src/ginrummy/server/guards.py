"""ASGI guards in front of every route: body size, the Origin of changes, and the security headers."""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..service import TooLarge

__all__ = [
    "BODY_LIMIT",
    "CONTENT_SECURITY_POLICY",
    "BodyLimit",
    "OriginCheck",
    "SecurityHeaders",
    "origin_allowed",
]

#: Largest request body any route reads (every JSON body of the API is far smaller).
BODY_LIMIT = 16 * 1024

#: The pages load their scripts, styles and data from this server only (plain JS modules, no
#: inline script or style), talk to it alone, and may not be framed by another site (clickjacking).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    """A JSON error answered by a guard itself (the request never reached a route)."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                # The rest of the request was not read: the connection cannot be reused.
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse bodies over `limit` bytes with 413: at once by `Content-Length`, and while streaming
    (chunked bodies) as soon as the limit is passed, so no request is ever read whole first."""

    def __init__(self, app: ASGIApp, limit: int = BODY_LIMIT) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        too_large = f"request body is too large: {limit // 1024} KiB at most"
        length = Headers(scope=scope).get("content-length")
        if length is not None:
            if not length.strip().isdigit():
                await _refuse(send, 400, "bad_request", "Content-Length must be a whole number of bytes")
                return
            if int(length) > limit:
                await _refuse(send, 413, "too_large", too_large)
                return
        received = 0

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    # A ServiceError: the app's handler answers 413 (nothing more is read).
                    raise TooLarge(too_large)
            return message

        await self.app(scope, limited_receive, send)


def origin_allowed(origin: str | None, host: str, allowed: tuple[str, ...]) -> bool:
    """Whether a page of `origin` may act with a visitor's cookie: a listed origin, or (no list)
    a page of the host the request was sent to. No Origin: not a browser (tests, bots) — allowed."""
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    if allowed:
        return origin in allowed
    if origin == "null":  # sandboxed frames, file: pages
        return False
    return urlsplit(origin).netloc == host.strip().lower()


class OriginCheck:
    """Requests that change something (any method but GET/HEAD/OPTIONS) from another site's pages
    are refused with 403 before they reach a route: the guest cookie alone must not be enough."""

    def __init__(self, app: ASGIApp, allowed_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.allowed = allowed_origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in _SAFE_METHODS:
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            cross_site = origin is None and headers.get("sec-fetch-site") == "cross-site"
            if cross_site or not origin_allowed(origin, headers.get("host", ""), self.allowed):
                await _refuse(send, 403, "forbidden", "a page of another site may not do this")
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """Safe defaults on every HTTP response: no sniffing, no framing, the content security policy."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        api = scope["path"].startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("X-Content-Type-Options", "nosniff")
                headers.setdefault("Referrer-Policy", "same-origin")
                headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
                headers.setdefault("X-Frame-Options", "DENY")  # frame-ancestors for older browsers
                if api:
                    headers.setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, send_with_headers)
