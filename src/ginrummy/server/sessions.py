"""The seated sockets of this process by the cookie that opened them, so that signing out ends them.

A socket is let in by its cookie once, when it opens. Signing out ends the cookie's session (or,
everywhere, every session of the account), and a socket it opened must not go on showing that
player's cards or moving for them: the sign-out closes this process's sockets of that guest whose
cookies stopped working at once, and every `recheck` seconds each process asks again whether the cookies of its
open sockets still sign their guest in, which ends the sockets a sign-out on another server process
of the site left open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Protocol

from ..service import StoreError, error_message

__all__ = ["CLOSE_SIGNED_OUT", "SeatSockets", "SIGNED_OUT"]

log = logging.getLogger("ginrummy.server")

#: The close code of a socket whose session ended: the page stops reconnecting (4403, forbidden).
CLOSE_SIGNED_OUT = 4403
SIGNED_OUT = "this browser is signed out of that player; sign in again to play"


class Closable(Protocol):
    def send_text(self, text: str) -> None: ...

    def finish(self, code: int, reason: str) -> None: ...


class SeatSockets:
    """Open seated sockets by cookie and guest. `signs_in(cookie)` is the guest a cookie signs in
    now (`Cookies.guest_of_cookie`)."""

    def __init__(self, signs_in: Callable[[str | None], Awaitable[str | None]], recheck: float) -> None:
        self.signs_in = signs_in
        self.recheck = recheck
        self.open: dict[Closable, tuple[str, str]] = {}  # socket -> (cookie, guest id)

    def add(self, conn: Closable, cookie: str, guest_id: str) -> None:
        self.open[conn] = (cookie, guest_id)

    def remove(self, conn: Closable) -> None:
        self.open.pop(conn, None)

    async def sweep(self, guest_id: str | None = None) -> int:
        """Close the sockets (of `guest_id`, or all) whose cookie no longer signs their guest in;
        how many. A socket is told why before it closes."""
        guests: dict[str, str | None] = {}
        for cookie, guest in list(self.open.values()):
            if cookie not in guests and guest_id in (None, guest):
                guests[cookie] = await self.signs_in(cookie)
        ended = [conn for conn, (c, g) in list(self.open.items()) if c in guests and guests[c] != g]
        for conn in ended:
            self.open.pop(conn, None)
            conn.send_text(error_message("signed_out", SIGNED_OUT))
            conn.finish(CLOSE_SIGNED_OUT, "signed out")
        return len(ended)

    async def run(self) -> None:
        """Sweep every `recheck` seconds until cancelled (a store error waits for the next sweep)."""
        while True:
            await asyncio.sleep(self.recheck)
            with contextlib.suppress(StoreError):
                ended = await self.sweep()
                if ended:
                    log.info("closed %d socket(s) of signed-out sessions", ended)
