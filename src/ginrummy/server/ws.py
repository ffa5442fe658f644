"""The match WebSocket: authenticates the seat, relays actions to the live match, limits abuse."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque

from starlette.types import Message
from starlette.websockets import WebSocket, WebSocketState

from ..service import GameService, StoreBusy, Unavailable, error_message
from ..service.cluster.ports import Table
from .guards import origin_allowed
from .jsonin import JsonInputError
from .jsonin import loads as json_loads
from .limits import SocketGuard, TokenBucket
from .sessions import SeatSockets

__all__ = [
    "Refusals",
    "SocketConnection",
    "TokenBucket",
    "accept_socket",
    "frame_text",
    "handle_message",
    "match_socket",
    "open_table",
    "refuse",
    "socket_address",
]

log = logging.getLogger("ginrummy.server")

COOKIE = "gr_guest"
OUTBOX_LIMIT = 256  # queued messages a client may fall behind before it is dropped (it reconnects)
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_TRY_AGAIN = 1013
FLOOD_CLOSE = 200  # messages refused in a row before a socket is closed


class SocketConnection:
    """A socket seen by the live match: messages are queued and written by one pump task."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        # A deque and one wake-up future: lighter than asyncio.Queue for a single consumer.
        self.outbox: deque[str | None] = deque()
        self._wake: asyncio.Future[None] | None = None
        self.closed = False
        self.close_code = (CLOSE_TRY_AGAIN, "too slow; reconnect")  # sent when the pump stops
        self.task = asyncio.get_running_loop().create_task(self._pump())

    def send_text(self, text: str) -> None:
        if self.closed:
            return
        if len(self.outbox) >= OUTBOX_LIMIT:
            # Too slow to keep up: drop it; the page reconnects and gets a fresh state.
            self.closed = True
            self._put(None)
            return
        self._put(text)

    def finish(self, code: int, reason: str) -> None:
        """Close the socket with `code` once everything queued before has been sent."""
        if self.closed:
            return
        self.closed = True
        self.close_code = (code, reason[:120])
        self._put(None)

    def drop(self, reason: str) -> None:
        """Close the socket after what is queued (the page reconnects): the table moved elsewhere."""
        self.finish(CLOSE_TRY_AGAIN, reason)

    def _put(self, item: str | None) -> None:
        self.outbox.append(item)
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def _pump(self) -> None:
        ws = self.websocket
        outbox = self.outbox
        loop = asyncio.get_running_loop()
        try:
            while True:
                if not outbox:
                    self._wake = loop.create_future()
                    await self._wake
                    self._wake = None
                    continue
                text = outbox.popleft()
                if text is None:
                    break
                await ws.send_text(text)
            if self.closed and ws.application_state == WebSocketState.CONNECTED:
                code, reason = self.close_code
                await ws.close(code=code, reason=reason)
        except Exception:  # the client went away: the receive loop sees the disconnect
            self.closed = True

    async def close(self) -> None:
        self.closed = True
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.task


async def refuse(
    websocket: WebSocket, code: str, message: str, close_code: int, *, join: str | None = None
) -> None:
    """Send a socket its refusal (with the room's join link where there is one) and close it."""
    with contextlib.suppress(Exception):
        text = error_message(code, message)
        if join is not None:
            text = json.dumps({**json.loads(text), "join_url": join}, ensure_ascii=False)
        await websocket.send_text(text)
        await websocket.close(code=close_code, reason=message[:120])


def socket_address(websocket: WebSocket) -> str:
    """The client's address, as the socket guard counts it."""
    return websocket.client.host if websocket.client is not None else "unknown"


async def accept_socket(websocket: WebSocket, *, page_of: str | None) -> bool:
    """Accept the socket if its address may open one more; with `page_of` (what the socket
    opens, said in the refusal), only from a page of this site. False: refused and closed."""
    guard: SocketGuard = websocket.app.state.socket_guard
    await websocket.accept()
    refused = guard.may_open(socket_address(websocket))
    if refused is not None:
        await refuse(websocket, "rate_limited", refused, CLOSE_TRY_AGAIN)
        return False
    if page_of is None:
        return True
    headers = websocket.headers
    if not origin_allowed(
        headers.get("origin"), headers.get("host", ""), websocket.app.state.settings.allowed_origins
    ):
        await refuse(
            websocket, "forbidden", f"this page may not open {page_of} of another site", CLOSE_FORBIDDEN
        )
        return False
    return True


def frame_text(message: Message, limit: int, conn: SocketConnection) -> str | None:
    """A received frame's text, or None after telling `conn` why it is refused: a binary frame,
    or more than `limit` bytes."""
    text = message.get("text")
    if text is None:
        raw = message.get("bytes") or b""
        if len(raw) > limit:
            conn.send_text(error_message("too_large", f"message too large: {limit} bytes at most"))
        else:
            conn.send_text(error_message("bad_message", "send JSON text frames, not binary ones"))
        return None
    if len(text) > limit or len(text.encode()) > limit:
        conn.send_text(error_message("too_large", f"message too large: {limit} bytes at most"))
        return None
    return str(text)


async def open_table(
    websocket: WebSocket, match_id: str, *, cookie: str | None = None
) -> tuple[Table, str | None] | None:
    """The table of `match_id` and the guest of `cookie` (None without one), or None after
    refusing the socket: no such match, a busy store, or a match moving between processes."""
    service: GameService = websocket.app.state.service
    try:
        guest_id = None if cookie is None else await service.cookies.guest_of_cookie(cookie)
        live = await service.open_table(match_id)
    except StoreBusy:
        await refuse(websocket, "unavailable", "the server is busy; reconnect in a moment", CLOSE_TRY_AGAIN)
        return None
    except Unavailable as exc:  # in a cluster: the match is moving between processes
        await refuse(websocket, "unavailable", str(exc), CLOSE_TRY_AGAIN)
        return None
    if live is None:
        await refuse(websocket, "not_found", f"no match {match_id!r}", CLOSE_NOT_FOUND)
        return None
    return live, guest_id


class Refusals:
    """The messages of one socket refused in a row (over its rate): each refusal is said at most
    once a second (a flood must not make us flood back), and past FLOOD_CLOSE in a row the
    socket is a flood."""

    def __init__(self) -> None:
        self.in_a_row = 0
        self._said = 0.0

    def refused(self, conn: SocketConnection, text: str) -> bool:
        """Count a refused message, telling `conn` with `text` unless told within the second;
        True once the socket is a flood."""
        self.in_a_row += 1
        if self.in_a_row > FLOOD_CLOSE:
            return True
        now = time.monotonic()
        if now - self._said >= 1.0:
            self._said = now
            conn.send_text(text)
        return False

    def passed(self) -> None:
        """A message within the rate: the count starts again."""
        self.in_a_row = 0


async def match_socket(websocket: WebSocket, match_id: str) -> None:
    """/ws/<match_id>: only the two seated players may connect; each sees only its own seat."""
    settings = websocket.app.state.settings
    guard: SocketGuard = websocket.app.state.socket_guard
    address = socket_address(websocket)
    # A page on another site must not use a visitor's cookie to play for them.
    if not await accept_socket(websocket, page_of="a table"):
        return
    cookie = websocket.cookies.get(COOKIE)
    opened = await open_table(websocket, match_id, cookie=cookie)
    if opened is None:
        return
    live, guest_id = opened
    seat = live.seat_of(guest_id) if guest_id is not None else None
    if guest_id is None or seat is None:
        # Say why, and the way in when there is one: a room still waiting for its second player
        # can be joined through its link (whoever has the table's address was sent it by the host).
        code, reason = (
            ("no_guest", "this browser has no guest identity yet; open the room link or the home page")
            if guest_id is None
            else ("not_seated", "you are not seated at this table")
        )
        join = live.room_code if live.status == "waiting" and live.room_code else None
        await refuse(websocket, code, reason, CLOSE_FORBIDDEN, join=f"/r/{join}" if join else None)
        return
    refused = guard.open(guest_id, address)
    if refused is not None:
        await refuse(websocket, "too_many_sockets", refused, CLOSE_TRY_AGAIN)
        return
    conn = SocketConnection(websocket)
    live.connect(seat, conn)
    # Signing out closes it (server/sessions.py); the cookie let `guest_id` in, so it is a string.
    seat_sockets: SeatSockets = websocket.app.state.seat_sockets
    seat_sockets.add(conn, cookie or "", guest_id)
    bucket = guard.bucket(guest_id)  # shared by all the guest's sockets
    limit = settings.max_message
    refusals = Refusals()
    too_many = error_message(
        "rate_limited", f"too many messages: at most {settings.rate_per_second:g} per second"
    )
    flooded = False
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if not bucket.take():
                if refusals.refused(conn, too_many):
                    # Far past the limit and still sending: not a page, a flood. Reading it costs
                    # the server for everyone; the socket is closed (a page would reconnect).
                    flooded = True
                    break
                continue
            refusals.passed()
            text = frame_text(message, limit, conn)
            if text is None:
                continue
            try:
                reply = await handle_message(live, seat, text)
            except Exception:
                log.exception("match %s: a message of seat %d could not be handled", match_id, seat)
                reply = error_message(
                    "server_error", "the server failed to handle this message; nothing changed"
                )
            if reply is not None:
                conn.send_text(reply)
    except Exception:
        log.exception("match %s: socket of seat %d failed", match_id, seat)
    finally:
        seat_sockets.remove(conn)
        guard.close(guest_id, address)
        live.disconnect(seat, conn)
        await conn.close()
        if flooded:
            with contextlib.suppress(Exception):
                await websocket.close(code=1008, reason="too many messages")


async def handle_message(live: Table, seat: int, text: str) -> str | None:
    """One message of a seated player (a person's page or a bot): the reply to send, if any."""
    try:
        data = json_loads(text)
    except JsonInputError as exc:
        return error_message("bad_message", f"bad message: {exc}")
    if not isinstance(data, dict):
        return error_message("bad_message", 'message must be a JSON object with a "type"')
    kind = data.get("type")
    if kind == "ping":
        return '{"type":"pong"}'
    if kind == "action":
        if "action" not in data:
            return error_message("bad_message", 'an action message needs an "action" object')
        refused = await live.act(seat, data["action"], data.get("version"))
        return error_message(*refused) if refused is not None else None
    if kind in ("abort", "resign"):
        # Matches with strangers only: abort is free until both have moved, resigning loses.
        refused = await (live.abort(seat) if kind == "abort" else live.resign(seat))
        return error_message(*refused) if refused is not None else None
    if kind == "react":
        refused = live.react(seat, data.get("emote"))
        return error_message(*refused) if refused is not None else None
    if kind == "back":
        live.back(seat)
        return None
    if kind == "hint":
        # Casual matches only: the expert's move for this seat's turn, from this seat's view.
        hint = await live.hint(seat, data.get("version"))
        return hint if isinstance(hint, str) else error_message(*hint)
    return error_message(
        "bad_message",
        f'unknown message type {kind!r}; expected "action", "hint", "react", "back", "abort", "resign" or "ping"',
    )
