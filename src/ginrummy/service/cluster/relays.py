"""The relays of one process: its sockets of matches and tournaments another process runs, and, for
the ones it runs, the sockets other processes hold.

A socket of a match owned elsewhere talks to a `RemoteTable`: the moves and other calls of its
client go to the owner (calls on the owner's inbox, see `rpc`), and the states come back on the
match's channel, each seat's own and never older than one already shown (`tables`). At the owner,
`OwnerSeats` stand for the sockets of each seat on the other processes. Tournament pages are
relayed the same way (`pages`). A relay whose owner is gone, or that hears the thing changed
hands, closes its sockets: the pages reconnect, and find the new owner.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import Refusal, ServiceError, Unavailable
from ..ports import StoreError
from .ownership import MATCH, TOURNAMENT, Owner
from .pages import PageStandIn, TournamentRelay, tournament_channel
from .ports import BusDown, OwnedElsewhere
from .rpc import Call, CallFailed, Rpc, inbox
from .tables import HINT, WATCHERS, OwnerSeats, RemoteTable, match_channel

if TYPE_CHECKING:
    from ..live import LiveMatch
    from ..platform import GameService

__all__ = ["OWNER_GONE_POLL", "Relays"]

log = logging.getLogger("ginrummy.cluster")

#: Seconds between claims of a match whose owner is gone while a socket waits for its lease to run out.
OWNER_GONE_POLL = 0.25

R = TypeVar("R", RemoteTable, TournamentRelay)  # a relay of either kind


class Relays:
    """Both ends of every match and tournament page played across processes, for one process.

    The host of its `RemoteTable`s (`tables.TableHost`) and `TournamentRelay`s (`pages.RelayHost`).
    """

    def __init__(
        self,
        service: GameService,
        owner: Owner,
        rpc: Rpc,
        *,
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
    ) -> None:
        self.service = service
        self.owner = owner
        self.keeper = owner.keeper
        self.rpc = rpc
        self.bus = rpc.bus
        self.name = rpc.name
        self.spawn = spawn
        self.remote: dict[str, RemoteTable] = {}  # matches run elsewhere with sockets here
        self.seats: dict[str, OwnerSeats] = {}  # owned matches with sockets on other processes
        self.pages: dict[str, TournamentRelay] = {}  # tournaments run elsewhere with pages here
        self.stand_ins: dict[str, dict[str, PageStandIn]] = {}  # owned tournaments: pages elsewhere

    async def _listening(self, owner: str) -> int:
        """How many listen to `owner`'s inbox (0: that process is gone); `Unavailable` if the bus is down."""
        try:
            return (await self.bus.listeners([inbox(owner)]))[inbox(owner)]
        except BusDown:
            raise Unavailable("the servers cannot reach each other now; try again in a moment", 1.0) from None

    # -- tables owned elsewhere ------------------------------------------------

    async def open_table(self, match_id: str) -> LiveMatch | RemoteTable | None:
        """The table a socket of this match talks to: the match itself when this process owns it
        (or can take it), else a relay to its owner. An owner that is gone (killed: nobody listens
        to its inbox) is waited for until its lease runs out, and the match is taken over."""
        deadline = time.monotonic() + self.keeper.ttl + self.keeper.heartbeat
        while True:
            if match_id in self.service.live and self.keeper.fresh(MATCH + match_id) is None:
                # Held here but not renewed for a lease's length (this process stalled): another
                # may have taken it and moved on, so this copy may be old. Given up and claimed
                # again: rebuilt from the log if still ours, else relayed to the new owner.
                self.owner.evict(match_id, "its lease was not renewed in time")
            try:
                return await self.service.get_live(match_id)
            except OwnedElsewhere as exc:
                owner = exc.owner
            table = self._relay(match_id, owner)
            if table is not None:
                await table.ready.wait()
                return table
            if await self._listening(owner):
                row = await self.service.store.get_match(match_id)
                if row is None:
                    return None
                table = self._relay(match_id, owner)  # made meanwhile for another socket?
                if table is None:
                    table = self.remote[match_id] = RemoteTable(self, row, owner)
                    await self.bus.subscribe(match_channel(match_id), table.on_message)
                    table.ready.set()
                await table.ready.wait()
                return table
            if time.monotonic() > deadline:
                raise Unavailable("the server of this table is gone; it moves in a moment", 1.0)
            await asyncio.sleep(OWNER_GONE_POLL)

    def _relay(self, match_id: str, owner: str) -> RemoteTable | None:
        table = self.remote.get(match_id)
        return table if table is not None and table.owner == owner and not table.closed else None

    def drop_table(self, table: RemoteTable, reason: str) -> None:
        """Close a relay's sockets (their pages reconnect) and stop listening to its channel."""
        table.drop_sockets(reason)
        self.forget_table(table)

    def forget_table(self, table: RemoteTable) -> None:
        self._forget(self.remote, table, match_channel(table.id))

    def _forget(self, relays: dict[str, R], relay: R, channel: str) -> None:
        """The relay is not used again: out of `relays` (unless replaced there), and `channel` unheard."""
        relay.closed = True
        if relays.get(relay.id) is relay:
            del relays[relay.id]
            self.spawn(self.bus.unsubscribe(channel))

    def error_text(self, code: str, message: str) -> str:
        from ..live import error_message

        return error_message(code, message)

    async def call_owner(self, table: RemoteTable, op: str, args: dict[str, Any]) -> Refusal | None:
        """Forward a call to the owner of `table` and return its answer (a refusal or None)."""
        try:
            reply = await self.rpc.request(table.owner, table.id, op, args)
        except CallFailed as exc:
            log.warning("match %s: %s call to %s failed: %s", table.id, op, table.owner, exc)
            self.drop_table(table, "the server of this table did not answer")
            return Refusal(
                "unavailable",
                f"the server of this table did not answer within {self.rpc.timeout:g} s; "
                "if your move was taken, the table shows it when it reconnects",
            )
        if reply is None:
            return None
        code, text = reply
        if code == "moved":
            self.drop_table(table, text)
            return Refusal("unavailable", text)
        return Refusal(str(code), str(text))

    # -- at the owner: calls from the relays of its matches ---------------------

    async def answer(self, call: Call) -> Refusal | None:
        """Answer a relay's call about a match this process runs (a refusal, or None)."""
        try:
            return await self._answer(call)
        except StoreError:
            log.exception("match %s: a forwarded %s failed", call.get("m"), call.get("op"))
            return Refusal("server_error", "the server failed to handle this message; nothing changed")

    async def _answer(self, call: Call) -> Refusal | None:
        match_id, op, node = call["m"], call["op"], call["from"]
        live = self.service.live.get(match_id)
        if live is None and op != "close" and self.keeper.fresh(MATCH + match_id) is not None:
            # Ours and being rebuilt (just taken over): answer once it is, not "moved" (the
            # page would only reconnect to this same process).
            with contextlib.suppress(ServiceError, StoreError):
                live = await self.service.get_live(match_id)
        if live is None or live.closed or self.keeper.fresh(MATCH + match_id) is None:
            if op == "close":
                return None
            return Refusal("moved", "the table moved to another server; it reconnects")
        seats = self.seats.get(match_id)
        seat = call.get("seat", WATCHERS)
        if op == "open":
            if seats is None:
                seats = self.seats[match_id] = OwnerSeats(self.bus, match_id)
            seats.open(live, seat, node, max(1, int(call.get("count", 1))))
            return None
        if op == "count":
            if seats is not None:
                seats.count(live, node, max(1, int(call["count"])))
            return None
        if op == "close":
            if seats is not None:
                seats.close(live, seat, node)
            return None
        if op == "act":
            return await live.act(seat, call.get("action"), call.get("version"))
        if op == "abort":
            return await live.abort(seat)
        if op == "resign":
            return await live.resign(seat)
        if op == "react":
            return live.react(seat, call.get("emote"))
        if op == "back":
            live.back(seat)
            return None
        if op == "hint":
            hint = await live.hint(seat, call.get("version"))
            return Refusal(HINT, hint) if isinstance(hint, str) else hint
        return Refusal("bad_message", f"unknown call {op!r}")

    def let_go(self, name: str) -> None:
        """This process no longer runs the match or tournament of lease `name`: forget the sockets
        other processes hold of it."""
        if name.startswith(MATCH):
            self.seats.pop(name.removeprefix(MATCH), None)
        elif name.startswith(TOURNAMENT):
            self.stand_ins.pop(name.removeprefix(TOURNAMENT), None)

    # -- tournaments run elsewhere ---------------------------------------------

    async def tournament_page(self, tournament_id: str, owner: str) -> TournamentRelay:
        relay = self.pages.get(tournament_id)
        if relay is not None and not relay.closed and relay.owner == owner:
            return relay
        if not await self._listening(owner):
            raise Unavailable("the server of this tournament is gone; it moves in a moment", 1.0)
        relay = self.pages.get(tournament_id)  # made meanwhile for another page?
        if relay is None or relay.closed or relay.owner != owner:
            if relay is not None:
                self.drop_relay(relay, "the tournament moved to another server")
            relay = self.pages[tournament_id] = TournamentRelay(self, tournament_id, owner)
            await self.bus.subscribe(tournament_channel(tournament_id), relay.on_message)
        return relay

    def drop_relay(self, relay: TournamentRelay, reason: str) -> None:
        """Close a relay's page sockets (the pages reconnect) and stop listening to its channel."""
        relay.drop_sockets(reason)
        self.forget_relay(relay)

    def forget_relay(self, relay: TournamentRelay) -> None:
        self._forget(self.pages, relay, tournament_channel(relay.id))

    async def call_tournament_owner(self, relay: TournamentRelay, op: str, args: dict[str, Any]) -> bool:
        """Tell the owner of `relay`'s tournament about a page; False (the relay dropped) if it did not take it."""
        try:
            reply = await self.rpc.request(relay.owner, relay.id, op, {"t": relay.id, **args})
        except CallFailed as exc:
            log.warning("tournament %s: %s call to %s failed: %s", relay.id, op, relay.owner, exc)
            self.drop_relay(relay, "the server of this tournament did not answer")
            return False
        if "err" in reply:
            self.drop_relay(relay, str(reply["err"][2]))
            return False
        return True

    # -- at the owner: pages of its tournaments on other processes ---------------

    def page_opened(self, call: Call, guest_id: str | None) -> None:
        tournament_id = call["t"]
        tournament = self.service.tournaments.live.get(tournament_id)
        if tournament is None or TOURNAMENT + tournament_id not in self.keeper.held:
            raise Unavailable("the tournament moved to another server; it reconnects", 1.0)
        stand_in = PageStandIn(self.bus, tournament_id, call["page"], call["from"])
        self.stand_ins.setdefault(tournament_id, {})[call["page"]] = stand_in
        tournament.connect(stand_in, guest_id)

    def page_closed(self, call: Call) -> None:
        tournament_id = call["t"]
        pages = self.stand_ins.get(tournament_id)
        stand_in = pages.pop(call["page"], None) if pages is not None else None
        tournament = self.service.tournaments.live.get(tournament_id)
        if stand_in is not None and tournament is not None:
            tournament.disconnect(stand_in)

    # -- both ends at once -------------------------------------------------------

    def drop_all(self, reason: str) -> None:
        """Close every relayed socket here (the pages reconnect, to another process)."""
        for table in list(self.remote.values()):
            self.drop_table(table, reason)
        for relay in list(self.pages.values()):
            self.drop_relay(relay, reason)

    async def forget_gone(self) -> None:
        """Forget the sockets of processes that are gone, and drop the relays to them (every heartbeat)."""
        nodes = {node for seats in self.seats.values() for node in seats.all_nodes()}
        nodes |= {page.node for pages in self.stand_ins.values() for page in pages.values()}
        owners = {table.owner for table in self.remote.values()} | {r.owner for r in self.pages.values()}
        if not nodes and not owners:
            return
        try:
            listening = await self.bus.listeners(inbox(node) for node in nodes | owners)
        except BusDown:
            return
        gone = {node for node in nodes | owners if not listening.get(inbox(node))}
        for match_id, seats in list(self.seats.items()):
            for node in gone & seats.all_nodes():
                seats.forget(self.service.live.get(match_id), node)
        for table in list(self.remote.values()):
            if table.owner in gone:
                self.drop_table(table, "the server of this table is gone")
        for relay in list(self.pages.values()):
            if relay.owner in gone:
                self.drop_relay(relay, "the server of this tournament is gone")
        for tournament_id, pages in list(self.stand_ins.items()):
            tournament = self.service.tournaments.live.get(tournament_id)
            for page_id, page in list(pages.items()):
                if page.node in gone:
                    del pages[page_id]
                    if tournament is not None:
                        tournament.disconnect(page)

    def bus_back(self) -> None:
        """The bus lost messages while it was down: relayed pages reconnect for a fresh state.

        Each relay tells the owner its sockets are gone (they come back with the pages), and an
        owner forgets the sockets it knew on other processes (a relay's word of one closing may
        have been lost); the pages that reconnect are counted again as they open.
        """
        for table in list(self.remote.values()):
            for seat in list(table.conns):
                self.spawn(table.release(seat))
            self.drop_table(table, "the servers lost touch for a moment")
        for relay in list(self.pages.values()):
            self.drop_relay(relay, "the servers lost touch for a moment")  # each page's close is told
        for match_id, seats in list(self.seats.items()):
            live = self.service.live.get(match_id)
            for node in seats.all_nodes():
                seats.forget(live, node)
        for tournament_id, pages in list(self.stand_ins.items()):
            tournament = self.service.tournaments.live.get(tournament_id)
            for page in pages.values():
                if tournament is not None:
                    tournament.disconnect(page)
            pages.clear()
