"""Read-only sockets: a tournament's live page (/ws/t/ID) and a match's spectators (/ws/watch/ID).

Neither takes actions: the only message accepted is a ping. A spectator gets the public view of
the table (service/spectate.py), built from both seats' views; a tournament page gets standings,
the matches to watch and, for a player, its own next pairing.
"""

from __future__ import annotations

import contextlib
import logging

from starlette.websockets import WebSocket

from ..service import GameService, NotFound, Unavailable
from .ws import CLOSE_NOT_FOUND, CLOSE_TRY_AGAIN, COOKIE, SocketConnection, accept_socket, open_table, refuse

__all__ = ["tournament_socket", "watch_socket"]

log = logging.getLogger("ginrummy.server")


async def _drain(websocket: WebSocket, conn: SocketConnection) -> None:
    """Answer pings until the socket closes; anything else is ignored."""
    while True:
        message = await websocket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if message.get("text") == '{"type":"ping"}':
            conn.send_text('{"type":"pong"}')


async def watch_socket(websocket: WebSocket, match_id: str) -> None:
    """/ws/watch/<match_id>: anyone may watch; each message is the public view of the table."""
    if not await accept_socket(websocket, page_of="a table"):
        return
    opened = await open_table(websocket, match_id)
    if opened is None:
        return
    live = opened[0]
    conn = SocketConnection(websocket)
    live.watch(conn)
    try:
        await _drain(websocket, conn)
    except Exception:
        log.debug("spectator socket of %s failed", match_id, exc_info=True)
    finally:
        live.unwatch(conn)
        await conn.close()


async def tournament_socket(websocket: WebSocket, tournament_id: str) -> None:
    """/ws/t/<id>: standings and the viewer's own state, pushed on every change."""
    service: GameService = websocket.app.state.service
    if not await accept_socket(websocket, page_of="a tournament"):
        return
    try:
        arena = await service.tournaments.page(tournament_id)
    except NotFound as exc:
        await refuse(websocket, "not_found", exc.message, CLOSE_NOT_FOUND)
        return
    except Unavailable as exc:  # a cluster: its process is gone, it moves in a moment
        await refuse(websocket, "unavailable", exc.message, CLOSE_TRY_AGAIN)
        return
    guest_id = await service.cookies.guest_of_cookie(websocket.cookies.get(COOKIE))
    conn = SocketConnection(websocket)
    arena.connect(conn, guest_id)
    try:
        await _drain(websocket, conn)
    except Exception:
        log.debug("tournament socket of %s failed", tournament_id, exc_info=True)
    finally:
        arena.disconnect(conn)
        with contextlib.suppress(Exception):
            await conn.close()
