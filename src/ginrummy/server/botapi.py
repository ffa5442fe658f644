"""The bot API (docs/bots-online.md): bot accounts and their tokens, challenges, and the two sockets a
bot plays through (its event stream and one socket per game), authenticated by `Bearer` token.

A bot's game socket carries exactly the messages a person's table page gets (`state` with the
seat's VIEW, `error`, `reaction`), built by the same LiveMatch for the same seat: a bot sees what a
person in its seat would see, nothing more. Every call of a token, HTTP or WebSocket, spends from one
bucket per bot (`BotLimiter`); a revoked or replaced token closes the bot's sockets at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request, Response
from starlette.websockets import WebSocket

from ..service import GameService, GuestRow, RateLimited, ServiceError, StoreBusy, error_message
from ..service.bots import BotIdentity
from ..service.ratings import BOT_POOL
from .jsonin import JsonInputError
from .jsonin import loads as json_loads
from .limits import SocketGuard, TokenBucket
from .ws import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_TRY_AGAIN,
    Refusals,
    SocketConnection,
    accept_socket,
    frame_text,
    handle_message,
    refuse,
)

__all__ = ["BotLimiter", "bot_game", "bot_stream", "install"]

log = logging.getLogger("ginrummy.server")

CLOSE_UNAUTHORIZED = 4401  # the token is missing, wrong, revoked or replaced: reconnecting will not help
CLOSE_RATE = 4429  # far past the bot's rate limit
#: A socket reads its token's hash again at its first message this long after the last reading: a
#: token revoked through another server process is refused within this time. (Revoked through
#: this process, its sockets are closed at once.)
RECHECK_SECONDS = 1.0


class BotLimiter:
    """One token bucket per bot: `rate` calls a second on average, `burst` at once, shared by its
    HTTP requests and the messages of all its sockets."""

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    def refused(self, bot_id: str) -> RateLimited | None:
        """None when the call may go on; else the error saying how long to wait."""
        bucket = self.buckets.get(bot_id)
        if bucket is None:
            if len(self.buckets) > 10_000:
                self.buckets = {k: b for k, b in self.buckets.items() if not b.full}
            bucket = self.buckets[bot_id] = TokenBucket(self.rate, self.burst, self.clock)
        if bucket.take():
            return None
        wait = bucket.wait_for()
        return RateLimited(
            f"too many calls with this bot token: at most {self.rate:g} a second ({self.burst} at once); "
            f"try again in {wait:.1f} s",
            wait,
        )


def _service(scope: Request | WebSocket) -> GameService:
    service: GameService = scope.app.state.service
    return service


def _limiter(scope: Request | WebSocket) -> BotLimiter:
    limiter: BotLimiter = scope.app.state.bot_limiter
    return limiter


def _refusal(exc: ServiceError) -> str:
    text = error_message(exc.code, exc.message)
    if isinstance(exc, RateLimited):
        data = json.loads(text)
        data["retry_after"] = round(exc.retry_after, 2)
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text


def install(
    app: FastAPI,
    *,
    guest: Callable[[Request, Response], Awaitable[GuestRow]],
    spend: Callable[[Request, float], None],
    json_body: Callable[[Request], Awaitable[dict[str, Any]]],
) -> None:
    """Add the bot routes to `app`, with the app's own guest, rate-limit and body helpers."""
    settings = app.state.settings
    app.state.bot_limiter = BotLimiter(settings.bot_rate_per_second, settings.bot_rate_burst)

    async def signed_in(request: Request, response: Response) -> GuestRow:
        return await guest(request, response)

    async def bot_of(request: Request) -> BotIdentity:
        """The bot the request's token proves, after its rate limit; else 401 or 429."""
        try:
            identity = await _service(request).bots.authenticate(request.headers.get("authorization"))
        except ServiceError:
            spend(request, 1.0)  # a wrong token costs its address, as a failed sign-in does
            raise
        refused = _limiter(request).refused(identity.id)
        if refused is not None:
            raise refused
        return identity

    # -- the owner's side: bots and their tokens ---------------------------------

    @app.get("/api/bots")
    async def my_bots(request: Request, response: Response) -> dict[str, Any]:
        me = await signed_in(request, response)
        svc = _service(request)
        bots = await svc.bots.mine(me)
        for bot in bots:
            bot["online"] = svc.challenges.online(bot["id"])
        return {"bots": bots}

    @app.get("/api/bots/online")
    async def online_bots(request: Request) -> dict[str, Any]:
        """The bots connected now, to challenge (never mixed into people's leaderboards)."""
        return {"bots": await _service(request).challenges.online_bots()}

    @app.post("/api/bots")
    async def create_bot(request: Request, response: Response) -> dict[str, Any]:
        """{"name": "..."}: a new bot account and its token, shown this once."""
        spend(request, 5.0)
        me = await signed_in(request, response)
        body = await json_body(request)
        bot, token = await _service(request).bots.create(me, body.get("name"))
        bot["online"] = False
        return {"bot": bot, "token": token}

    @app.post("/api/bots/{bot_id}/token")
    async def new_token(bot_id: str, request: Request, response: Response) -> dict[str, Any]:
        """A new token (shown this once); the one before is refused from now on."""
        spend(request, 1.0)
        me = await signed_in(request, response)
        return {"token": await _service(request).bots.issue_token(me, bot_id)}

    @app.delete("/api/bots/{bot_id}/token")
    async def revoke_token(bot_id: str, request: Request, response: Response) -> dict[str, Any]:
        spend(request, 1.0)
        me = await signed_in(request, response)
        await _service(request).bots.revoke(me, bot_id)
        return {"ok": True}

    # -- the challenger's side ---------------------------------------------------

    @app.post("/api/players/{guest_id}/challenge")
    async def challenge(guest_id: str, request: Request, response: Response) -> dict[str, Any]:
        """{"preset", "target", "turn_seconds", "rated"}: challenge the bot `guest_id`."""
        spend(request, 1.0)
        me = await signed_in(request, response)
        return await _service(request).challenges.create(me, guest_id, await json_body(request))

    @app.get("/api/challenges/{challenge_id}")
    async def get_challenge(
        challenge_id: str, request: Request, response: Response, wait: float = 0.0
    ) -> dict[str, Any]:
        """The challenge; with `wait`, a long poll that answers as soon as the bot has decided."""
        me = await signed_in(request, response)
        return await _service(request).challenges.wait(challenge_id, me.id, max(0.0, min(wait, 30.0)))

    @app.delete("/api/challenges/{challenge_id}")
    async def cancel_challenge(challenge_id: str, request: Request, response: Response) -> dict[str, Any]:
        me = await signed_in(request, response)
        return _service(request).challenges.cancel(challenge_id, me.id)

    # -- the bot's side (Authorization: Bearer <token>) ---------------------------

    @app.get("/api/bot/account")
    async def bot_account(request: Request) -> dict[str, Any]:
        identity = await bot_of(request)
        svc = _service(request)
        return {
            "id": identity.id,
            "name": identity.name,
            "bot": True,
            "owner_id": identity.bot.owner_id,
            "pool": BOT_POOL,
            "rating": await svc.boards.rating_of(identity.id, BOT_POOL),
            "online": svc.challenges.online(identity.id),
        }

    @app.get("/api/bot/games")
    async def bot_games(request: Request) -> dict[str, Any]:
        identity = await bot_of(request)
        return {"games": await _service(request).challenges.ongoing(identity.id)}

    @app.post("/api/bot/challenges/{challenge_id}/accept")
    async def bot_accept(challenge_id: str, request: Request) -> dict[str, Any]:
        identity = await bot_of(request)
        return {"game": await _service(request).challenges.accept(identity.id, challenge_id)}

    @app.post("/api/bot/challenges/{challenge_id}/decline")
    async def bot_decline(challenge_id: str, request: Request) -> dict[str, Any]:
        identity = await bot_of(request)
        body = await json_body(request)
        return {
            "challenge": _service(request).challenges.decline(identity.id, challenge_id, body.get("reason"))
        }

    app.add_api_websocket_route("/api/bot/stream", bot_stream)
    app.add_api_websocket_route("/api/bot/game/{match_id}", bot_game)


# -- the sockets ---------------------------------------------------------------------


async def _open(websocket: WebSocket) -> BotIdentity | None:
    """Accept the socket and authenticate its token; None (the socket refused and closed) if not."""
    if not await accept_socket(websocket, page_of=None):  # a program, not a page: no origin
        return None
    try:
        return await _service(websocket).bots.authenticate(websocket.headers.get("authorization"))
    except StoreBusy:
        await refuse(websocket, "unavailable", "the server is busy; reconnect in a moment", CLOSE_TRY_AGAIN)
    except ServiceError as exc:
        await refuse(websocket, exc.code, exc.message, CLOSE_UNAUTHORIZED)
    return None


def _on_revoked(conn: SocketConnection) -> Callable[[str], None]:
    def revoked(message: str) -> None:
        conn.send_text(error_message("token_revoked", f"{message}; this connection is closed"))
        conn.finish(CLOSE_UNAUTHORIZED, "token revoked")

    return revoked


async def _messages(
    websocket: WebSocket,
    conn: SocketConnection,
    identity: BotIdentity,
    handle: Callable[[str], Awaitable[str | None]],
) -> None:
    """Read the bot's messages until it goes: each spends from its bucket, and the stored token is
    read again at most every RECHECK_SECONDS (revoked in another process: refused and closed)."""
    service = _service(websocket)
    limiter = _limiter(websocket)
    limit = websocket.app.state.settings.max_message
    checked = time.monotonic()
    refusals = Refusals()
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect" or conn.closed:
            return
        refused = limiter.refused(identity.id)
        if refused is not None:
            if refusals.refused(conn, _refusal(refused)):
                conn.send_text(error_message("rate_limited", "far past the rate limit: closed"))
                conn.finish(CLOSE_RATE, "too many messages")
                return
            continue
        refusals.passed()
        text = frame_text(message, limit, conn)
        if text is None:
            continue
        try:
            if time.monotonic() - checked >= RECHECK_SECONDS:
                await service.bots.confirm(identity)
                checked = time.monotonic()
        except StoreBusy:
            conn.send_text(error_message("unavailable", "the server is busy; nothing changed, try again"))
            continue
        except ServiceError as exc:
            conn.send_text(error_message("token_revoked", f"{exc.message}; this connection is closed"))
            conn.finish(CLOSE_UNAUTHORIZED, "token revoked")
            return
        try:
            reply = await handle(text)
        except ServiceError as exc:
            reply = _refusal(exc)
        except Exception:
            log.exception("bot %s: a message could not be handled", identity.id)
            reply = error_message("server_error", "the server failed to handle this message; nothing changed")
        if reply is not None:
            conn.send_text(reply)


async def bot_stream(websocket: WebSocket) -> None:
    """/api/bot/stream: the bot's events (challenges, games starting and ending); it answers
    challenges here with {"type": "accept"|"decline", "challenge": ID}."""
    identity = await _open(websocket)
    if identity is None:
        return
    service = _service(websocket)
    conn = SocketConnection(websocket)
    unwatch = service.bots.watch(identity.id, _on_revoked(conn))

    async def handle(text: str) -> str | None:
        try:
            data = json_loads(text)
        except JsonInputError as exc:
            return error_message("bad_message", f"bad message: {exc}")
        kind = data.get("type") if isinstance(data, dict) else None
        if not isinstance(data, dict):
            return error_message("bad_message", 'message must be a JSON object with a "type"')
        if kind == "ping":
            return '{"type":"pong"}'
        if kind == "accept":
            await service.challenges.accept(identity.id, data.get("challenge"))
            return None  # the game_start event follows on every stream of the bot
        if kind == "decline":
            service.challenges.decline(identity.id, data.get("challenge"), data.get("reason"))
            return None
        return error_message(
            "bad_message", f'unknown message type {kind!r}; expected "accept", "decline" or "ping"'
        )

    try:
        await service.challenges.attach(identity.id, identity.name, conn)
        await _messages(websocket, conn, identity, handle)
    except Exception:
        log.exception("bot %s: event stream failed", identity.id)
    finally:
        unwatch()
        service.challenges.detach(identity.id, conn)
        await _drain(conn)


async def bot_game(websocket: WebSocket, match_id: str) -> None:
    """/api/bot/game/<match_id>: the bot's seat at one match, the table page's protocol exactly."""
    identity = await _open(websocket)
    if identity is None:
        return
    service = _service(websocket)
    guard: SocketGuard = websocket.app.state.socket_guard
    address = websocket.client.host if websocket.client is not None else "unknown"
    try:
        live = await service.get_live(match_id)
    except StoreBusy:
        await refuse(websocket, "unavailable", "the server is busy; reconnect in a moment", CLOSE_TRY_AGAIN)
        return
    if live is None:
        await refuse(websocket, "not_found", f"no match {match_id!r}", CLOSE_NOT_FOUND)
        return
    seat = live.seat_of(identity.id)
    if seat is None:
        await refuse(websocket, "not_seated", "this bot is not seated at this match", CLOSE_FORBIDDEN)
        return
    refused = guard.open(identity.id, address)
    if refused is not None:
        await refuse(websocket, "too_many_sockets", refused, CLOSE_TRY_AGAIN)
        return
    conn = SocketConnection(websocket)
    unwatch = service.bots.watch(identity.id, _on_revoked(conn))
    live.connect(seat, conn)
    try:
        await _messages(websocket, conn, identity, lambda text: handle_message(live, seat, text))
    except Exception:
        log.exception("match %s: the bot's socket failed", match_id)
    finally:
        unwatch()
        guard.close(identity.id, address)
        live.disconnect(seat, conn)
        await _drain(conn)


async def _drain(conn: SocketConnection) -> None:
    """Let what is queued (a last error, the close) go out, then stop the pump."""
    if conn.closed and not conn.task.done():
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(conn.task), 2.0)
    await conn.close()
