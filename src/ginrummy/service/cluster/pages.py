"""Both ends of a tournament page whose socket is on a process that does not own the tournament.

The owner's `TournamentLive` builds every message for every page (the whole state, the deltas,
the viewer's own part) exactly as for a socket of its own; a page on another process is, at the
owner, a `PageStandIn` that publishes those messages on the tournament's channel as
`<page id>|<text>`, and the relay on the page's process hands each one unread to that page's
socket. `O|<owner>` on the channel says the tournament changed hands: the relays close their
sockets and the pages reconnect (tournament.js does by itself), finding the new owner.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import TYPE_CHECKING, Any, Protocol

from .ports import Bus, Droppable

if TYPE_CHECKING:
    from ..live import Connection

__all__ = ["PageStandIn", "RelayHost", "TournamentRelay", "tournament_channel"]


class RelayHost(Protocol):
    """What a tournament page's relay uses of its process's relays (`relays.Relays`)."""

    @property
    def name(self) -> str:
        """The process's node name."""

    async def call_tournament_owner(self, relay: TournamentRelay, op: str, args: dict[str, Any]) -> bool:
        """Tell the tournament's owner about a page; False if it did not take it."""

    def drop_relay(self, relay: TournamentRelay, reason: str) -> None:
        """Close the relay's page sockets (the pages reconnect) and forget it."""

    def forget_relay(self, relay: TournamentRelay) -> None:
        """Stop listening to the relay's channel."""


log = logging.getLogger("ginrummy.cluster")


def tournament_channel(tournament_id: str) -> str:
    return f"gr:t:{tournament_id}"


class PageStandIn:
    """At the owner: one page socket held by another process (`node`), as one connection."""

    __slots__ = ("bus", "channel", "node", "prefix")

    def __init__(self, bus: Bus, tournament_id: str, page: str, node: str) -> None:
        self.bus = bus
        self.channel = tournament_channel(tournament_id)
        self.prefix = f"{page}|"
        self.node = node

    def send_text(self, text: str) -> None:
        self.bus.publish_soon(self.channel, self.prefix + text)


class TournamentRelay:
    """On a process that does not own the tournament: its page sockets here, fed by the owner.

    Offers what the page socket handler uses of a `TournamentLive` (`connect`, `disconnect`).
    """

    _ids = itertools.count(1)

    def __init__(self, node: RelayHost, tournament_id: str, owner: str) -> None:
        self.node = node
        self.id = tournament_id
        self.owner = owner
        self.pages: dict[str, Connection] = {}  # page id -> its socket
        self._page_of: dict[Connection, str] = {}
        self.closed = False
        self._tasks: set[asyncio.Task[None]] = set()

    def on_message(self, text: str) -> None:
        head, _, body = text.partition("|")
        if head == "O":
            if body != self.owner:
                self.node.drop_relay(self, "the tournament moved to another server")
            return
        conn = self.pages.get(head)
        if conn is not None:
            conn.send_text(body)

    def connect(self, conn: Connection, guest_id: str | None) -> None:
        page = f"{self.node.name}.{next(self._ids)}"
        self.pages[page] = conn
        self._page_of[conn] = page
        # The owner sends the page its whole state on the channel; a refusal drops the relay.
        self._spawn(self._call("t_open", page=page, guest=guest_id))

    def disconnect(self, conn: Connection) -> None:
        page = self._page_of.pop(conn, None)
        if page is None:
            return
        self.pages.pop(page, None)
        self._spawn(self._call("t_close", page=page))
        if not self.pages:
            self.node.forget_relay(self)

    def drop_sockets(self, reason: str) -> None:
        """Close every page socket (the pages reconnect); the relay is not used again."""
        self.closed = True
        for conn in list(self.pages.values()):
            if isinstance(conn, Droppable):
                conn.drop(reason)

    async def _call(self, op: str, **args: Any) -> bool:
        """Tell the owner; False (and the relay dropped) when it did not answer or refused."""
        return await self.node.call_tournament_owner(self, op, args)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
