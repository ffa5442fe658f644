"""Both ends of a table played across processes: the relay on a process that holds sockets of a
match it does not own, and the owner's stand-ins for those sockets.

On the per-match channel the owner publishes `S<seat>|<text>` (a message for that seat's sockets),
`W|<text>` (for spectators) and `O|<owner>` (the match changed hands). Every message is built by
the owner's `LiveMatch` for that seat or for spectators, exactly as for a socket of its own: a relay
forwards it unread to its sockets of that seat, so no seat ever receives another seat's view.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol

from ..errors import Refusal
from ..ports import MatchRow, MatchStatus
from .ports import Bus, Droppable

if TYPE_CHECKING:
    from ..live import Connection, LiveMatch

__all__ = ["ChannelSeat", "OwnerSeats", "RemoteTable", "TableHost", "match_channel"]


class TableHost(Protocol):
    """What a relayed table uses of its process's relays (`relays.Relays`)."""

    async def call_owner(self, table: RemoteTable, op: str, args: dict[str, Any]) -> Refusal | None:
        """Forward a call to the owner of `table`; its refusal, or None."""

    def drop_table(self, table: RemoteTable, reason: str) -> None:
        """Close the relay's sockets (their pages reconnect) and forget it."""

    def forget_table(self, table: RemoteTable) -> None:
        """Stop listening to the relay's channel."""

    def error_text(self, code: str, message: str) -> str:
        """An error message for a socket."""


log = logging.getLogger("ginrummy.cluster")

WATCHERS = -1  # the "seat" of spectators in presence and on the channel
HINT = "hint"  # the code of an owner's answer that is a hint, not a refusal: ("hint", message text)


def match_channel(match_id: str) -> str:
    return f"gr:m:{match_id}"


_STATE_HEADS = ('{"type":"state","version":', '{"type":"spectate","version":')


def state_version(text: str) -> int | None:
    """The version of a state (or spectator state) message as the owner's `LiveMatch` writes it
    (its first two keys), or None for any other message."""
    for head in _STATE_HEADS:
        if text.startswith(head):
            end = len(head)
            while end < len(text) and text[end].isdigit():
                end += 1
            return int(text[len(head) : end]) if end > len(head) else None
    return None


class ChannelSeat:
    """At the owner: every socket of one seat (or the spectators) on other processes, as one connection."""

    __slots__ = ("bus", "channel", "prefix", "spectators")

    def __init__(self, bus: Bus, match_id: str, seat: int) -> None:
        self.bus = bus
        self.channel = match_channel(match_id)
        self.prefix = "W|" if seat == WATCHERS else f"S{seat}|"
        #: The spectators' sockets it stands for, on every other process (`LiveMatch.spectators`).
        self.spectators = 0

    def send_text(self, text: str) -> None:
        self.bus.publish_soon(self.channel, self.prefix + text)


class OwnerSeats:
    """At the owner: which other processes hold sockets of each seat of one owned match."""

    def __init__(self, bus: Bus, match_id: str) -> None:
        self.bus = bus
        self.match_id = match_id
        self.nodes: dict[int, set[str]] = {}
        self.conns: dict[int, ChannelSeat] = {}
        self.watching: dict[str, int] = {}  # node -> how many spectators' sockets it holds

    def open(self, live: LiveMatch, seat: int, node: str, count: int = 1) -> None:
        """`node` holds a socket of `seat` now (`count` of them for the spectators): it gets the
        current state on the channel."""
        nodes = self.nodes.setdefault(seat, set())
        nodes.add(node)
        conn = self.conns.get(seat)
        if seat == WATCHERS:
            self.watching[node] = count
        if conn is None:
            conn = self.conns[seat] = ChannelSeat(self.bus, self.match_id, seat)
            if seat == WATCHERS:
                conn.spectators = sum(self.watching.values())
                live.watch(conn)
            else:
                live.connect(seat, conn)  # the first one: the whole table hears the seat is back
        elif seat == WATCHERS:
            conn.spectators = sum(self.watching.values())
            conn.send_text(live.spectator_text())
            live.spectators_changed()
        else:
            conn.send_text(live.state_text(seat))

    def count(self, live: LiveMatch, node: str, count: int) -> None:
        """`node` holds `count` spectators' sockets now (it still holds one: it said so)."""
        conn = self.conns.get(WATCHERS)
        if conn is None or node not in self.nodes.get(WATCHERS, ()):
            return
        self.watching[node] = count
        conn.spectators = sum(self.watching.values())
        live.spectators_changed()

    def close(self, live: LiveMatch | None, seat: int, node: str) -> None:
        """`node` closed its last socket of `seat`."""
        nodes = self.nodes.get(seat)
        if nodes is None or node not in nodes:
            return
        nodes.discard(node)
        if seat == WATCHERS:
            self.watching.pop(node, None)
            if nodes and live is not None:
                self.conns[seat].spectators = sum(self.watching.values())
                live.spectators_changed()
        if nodes:
            return
        del self.nodes[seat]
        conn = self.conns.pop(seat)
        if live is None:
            return
        if seat == WATCHERS:
            live.unwatch(conn)
        else:
            live.disconnect(seat, conn)

    def forget(self, live: LiveMatch | None, node: str) -> None:
        """`node` is gone (killed): it holds no sockets any more."""
        for seat in list(self.nodes):
            self.close(live, seat, node)

    def all_nodes(self) -> set[str]:
        return set().union(*self.nodes.values()) if self.nodes else set()


class RemoteTable:
    """On a process that does not own the match: its sockets of that match, relayed to the owner.

    Offers what the WebSocket handlers use of a `LiveMatch`. Actions and the other calls go to the
    owner through the bus and are answered by it; when the owner cannot be reached, or the match
    changes hands, the relay closes its sockets and the pages reconnect (and find the new owner).
    """

    def __init__(self, node: TableHost, row: MatchRow, owner: str) -> None:
        self.node = node
        self.id = row.id
        self.owner = owner
        self.status: MatchStatus = row.status
        self.room_code = row.room_code
        self._guests = {s.guest_id: s.seat for s in row.seats if s.guest_id is not None}
        self.conns: dict[int, set[Connection]] = {}
        self._last: dict[int, str] = {}  # the last state of each seat, for a second socket of it
        self._version: dict[int, int] = {}  # the version of that state
        self.closed = False
        self.ready = asyncio.Event()  # set once it listens to the match's channel
        self._tasks: set[asyncio.Task[None]] = set()

    def seat_of(self, guest_id: str) -> int | None:
        return self._guests.get(guest_id)

    # -- from the owner ------------------------------------------------------

    def on_message(self, text: str) -> None:
        head, _, body = text.partition("|")
        if head == "O":
            if body != self.owner:
                self.node.drop_table(self, "the table moved to another server")
            return
        seat = WATCHERS if head == "W" else int(head[1:])
        version = state_version(body)
        if version is not None:
            if version < self._version.get(seat, -1):
                # An older copy than one already sent (a process that lost the match and has not
                # heard yet publishes on the same channel): never shown to a socket.
                log.info(
                    "match %s: dropped a state of version %d after %d", self.id, version, self._version[seat]
                )
                return
            self._version[seat] = version
            self._last[seat] = body
        for conn in list(self.conns.get(seat, ())):
            conn.send_text(body)

    # -- sockets -------------------------------------------------------------

    def _add(self, seat: int, conn: Connection) -> None:
        conns = self.conns.setdefault(seat, set())
        conns.add(conn)
        if len(conns) == 1:
            self._spawn(self._open(seat))
            return
        if seat in self._last:
            conn.send_text(self._last[seat])
        if seat == WATCHERS:  # the owner counts every spectator, wherever its socket is
            self._spawn(self._call_quietly("count", count=len(conns)))

    def _remove(self, seat: int, conn: Connection) -> None:
        conns = self.conns.get(seat)
        if conns is None:
            return
        conns.discard(conn)
        if conns:
            if seat == WATCHERS:
                self._spawn(self._call_quietly("count", count=len(conns)))
            return
        del self.conns[seat]
        self._last.pop(seat, None)
        self._version.pop(seat, None)
        if not self.closed:
            self._spawn(self._call_quietly("close", seat=seat))
        if not self.conns:
            self.node.forget_table(self)

    def connect(self, seat: int, conn: Connection) -> None:
        self._add(seat, conn)

    def disconnect(self, seat: int, conn: Connection) -> None:
        self._remove(seat, conn)

    def watch(self, conn: Connection) -> None:
        self._add(WATCHERS, conn)

    def unwatch(self, conn: Connection) -> None:
        self._remove(WATCHERS, conn)

    def sockets(self) -> list[Connection]:
        return [conn for conns in self.conns.values() for conn in conns]

    def drop_sockets(self, reason: str) -> None:
        """Close every socket (the pages reconnect); the table is not used again."""
        self.closed = True
        for conn in self.sockets():
            if isinstance(conn, Droppable):
                conn.drop(reason)

    # -- calls to the owner --------------------------------------------------

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _open(self, seat: int) -> None:
        # The spectators say how many they are by the time the call leaves (more may have come).
        count = {"count": len(self.conns.get(seat, ()))} if seat == WATCHERS else {}
        refused = await self._call("open", seat=seat, **count)
        if refused is not None:
            for conn in list(self.conns.get(seat, ())):
                conn.send_text(self.node.error_text(*refused))

    async def release(self, seat: int) -> None:
        """Tell the owner this process holds no socket of `seat` any more (even once the table closed)."""
        await self.node.call_owner(self, "close", {"seat": seat})

    async def _call_quietly(self, op: str, **args: Any) -> None:
        await self.node.call_owner(self, op, args)  # also after the table closed: "close" must go

    async def _call(self, op: str, **args: Any) -> Refusal | None:
        """Ask the owner; a refusal as (code, message). An owner that cannot answer drops the table."""
        if self.closed:
            return Refusal("unavailable", "this table is reconnecting; try again in a moment")
        return await self.node.call_owner(self, op, args)

    async def act(self, seat: int, data: Any, version: Any) -> Refusal | None:
        return await self._call("act", seat=seat, action=data, version=version)

    async def abort(self, seat: int) -> Refusal | None:
        return await self._call("abort", seat=seat)

    async def resign(self, seat: int) -> Refusal | None:
        return await self._call("resign", seat=seat)

    def react(self, seat: int, emote: Any) -> Refusal | None:
        self._spawn(self._answer_later(seat, "react", emote=emote))
        return None

    async def hint(self, seat: int, version: Any) -> str | Refusal:
        # The owner answers a hint as the refusal-shaped pair ("hint", message text).
        answer = await self._call("hint", seat=seat, version=version)
        if answer is None:
            return Refusal("unavailable", "no hint came back; ask again in a moment")
        return answer[1] if answer[0] == HINT else answer

    def back(self, seat: int) -> None:
        self._spawn(self._call_quietly("back", seat=seat))

    async def _answer_later(self, seat: int, op: str, **args: Any) -> None:
        refused = await self._call(op, seat=seat, **args)
        if refused is not None:
            for conn in list(self.conns.get(seat, ())):
                conn.send_text(self.node.error_text(*refused))
