"""One server process of a cluster: its name, its leases, its bus, the tables it owns and relays.

A process owns a live match while it holds the match's lease (`match:ID` in the database). It
claims the lease before it rebuilds the match from the event log, so from then on it is the only
writer, and every event it appends is fenced by that lease's epoch: a process that lost the lease
(paused or cut off past its expiry) cannot write one more event. Sockets of a match owned elsewhere
are relayed (`RemoteTable`); calls go to the owner's inbox channel `gr:p:<owner>` and are answered
on the caller's. Every heartbeat the process renews its leases, adopts the matches whose owner let
the lease run out, and forgets the sockets of processes that are gone.

The same leases give quick pairing one process (`pool`: the others forward seeks and waits to it)
and each running tournament one process (`tournament:ID`: joins and the like are forwarded, its
page pushes relayed on `gr:t:ID`, see `pages`); both are adopted like matches when their holder
goes, the pool starting empty and a tournament rebuilt from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import logging
import os
import random
import secrets
import socket
import time
from typing import TYPE_CHECKING, Any

from ..errors import Forbidden, Refusal, ServiceError, Unavailable
from ..ports import Lease, LeaseLost, LeaseStore, Store, StoreError
from .leases import LeaseKeeper
from .pages import PageStandIn, TournamentRelay, tournament_channel
from .ports import Bus, BusDown, Droppable, OwnedElsewhere, TournamentElsewhere
from .tables import HINT, WATCHERS, OwnerSeats, RemoteTable, match_channel

if TYPE_CHECKING:
    from ..live import LiveMatch
    from ..platform import GameService

__all__ = ["ClusterConfig", "ClusterNode", "node_name"]

log = logging.getLogger("ginrummy.cluster")

MATCH = "match:"  # lease names of live matches
TOURNAMENT = "tournament:"  # lease names of running tournaments
POOL = "pool"  # the lease of quick pairing: its holder runs every pool of the site
HANDOVER = "gr:handover"  # a process shutting down names the matches it let go
HANDED_LEASES = "gr:handover:leases"  # ... and the other leases it let go (the pool, tournaments)
RENAMED = "gr:renamed"  # a guest took a new name on one process: every table shows it
LIVE = "gr:live"  # a process asks every other for the public matches it runs (the Watch list)
#: The live games gathered from the other processes are kept this long (seconds): the home page of
#: every visitor asks for them, and a broadcast with an answer from every process per visit costs.
LIVE_KEPT = 1.0
#: Seconds between claims of a match whose owner is gone while a socket waits for its lease to run out.
OWNER_GONE_POLL = 0.25
#: Service calls another process may ask the owner of a match (rooms and rematches), of the
#: pool (quick pairing) or of a tournament to make.
SERVICE_CALLS = frozenset(
    {
        *("join_room", "room_info", "rematch", "rematch_id"),
        *("seek", "wait_pool", "leave_pool", "robot_instead"),
        *("t_state", "t_act", "t_summary", "t_open", "t_close", "t_ended"),
    }
)
# Set while answering a forwarded call: it is never forwarded again (no call goes round in circles).
_answering = contextvars.ContextVar("answering", default=False)


def node_name() -> str:
    """A name no other process has had: host, process id and a random part (a restart gets a new one)."""
    return f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(3)}"  # ≤ 64: the owner column


def inbox(node: str) -> str:
    return f"gr:p:{node}"


class CallFailed(Exception):
    """The owner did not answer a call (gone, paused or cut off)."""


class _Gathering:
    """The answers of every other process to one broadcast question, complete once all came."""

    __slots__ = ("answers", "done", "expected")

    def __init__(self) -> None:
        self.answers: list[Any] = []
        self.expected: int | None = None  # known once the question is sent
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def add(self, answer: Any) -> None:
        self.answers.append(answer)
        self._check()

    def expect(self, count: int) -> None:
        self.expected = count
        self._check()

    def _check(self) -> None:
        if self.expected is not None and len(self.answers) >= self.expected and not self.done.done():
            self.done.set_result(None)


class ClusterConfig:
    """How a process takes part in a cluster (the server fills it from the environment)."""

    __slots__ = ("adopt_limit", "call_timeout", "heartbeat", "lease_seconds", "name")

    def __init__(
        self,
        *,
        name: str | None = None,
        lease_seconds: float = 3.0,
        heartbeat: float = 1.0,
        call_timeout: float = 5.0,
        adopt_limit: int = 50,
    ) -> None:
        if not 0 < heartbeat < lease_seconds:
            raise ValueError(
                f"the heartbeat ({heartbeat:g} s) must be shorter than the lease ({lease_seconds:g} s)"
            )
        self.name = name or node_name()
        self.lease_seconds = lease_seconds
        self.heartbeat = heartbeat
        self.call_timeout = call_timeout
        self.adopt_limit = adopt_limit


def _lease_store(store: Store) -> LeaseStore:
    for method in ("claim_lease", "renew_leases", "release_lease", "claim_expired"):
        if not callable(getattr(store, method, None)):
            raise TypeError(f"a cluster needs a store with leases; {type(store).__name__} has no {method}")
    return store  # type: ignore[return-value]  # checked just above


class ClusterNode:
    """The cluster layer of one process: `GameService.ownership` when a bus is configured."""

    def __init__(self, service: GameService, bus: Bus, config: ClusterConfig | None = None) -> None:
        self.service = service
        self.bus = bus
        self.config = config or ClusterConfig()
        self.name = self.config.name
        self.keeper = LeaseKeeper(
            _lease_store(service.store),
            self.name,
            ttl=self.config.lease_seconds,
            heartbeat=self.config.heartbeat,
            on_lost=self._lease_lost,
        )
        self.remote: dict[str, RemoteTable] = {}
        self.seats: dict[str, OwnerSeats] = {}  # owned matches with sockets on other processes
        self.relays: dict[str, TournamentRelay] = {}  # tournaments run elsewhere with pages here
        self.stand_ins: dict[str, dict[str, PageStandIn]] = {}  # owned tournaments: pages elsewhere
        self._calls: dict[int, asyncio.Future[Any]] = {}
        self._gatherings: dict[int, _Gathering] = {}
        self._live_kept: tuple[float, list[dict[str, Any]]] | None = None  # (when, the other games)
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._maintainer: asyncio.Task[None] | None = None
        self.handing_over = False
        self._pool_holder: str | None = None  # who held the pool's lease when last asked
        # A forwarded wait for a pairing is answered by the owner within this, well inside the timeout.
        self.wait_slice = self.config.call_timeout / 2
        service.ownership = self

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Join the cluster: listen on the bus, start the heartbeat (after `GameService.start`).

        The node is the service's `ownership` from its creation, so the matches the service
        rebuilds at start are claimed first, and those another process runs are left to it.
        """
        await self.bus.start()
        await self.bus.subscribe(inbox(self.name), self._on_inbox)
        await self.bus.subscribe(HANDOVER, self._on_handover)
        await self.bus.subscribe(HANDED_LEASES, self._on_handed_leases)
        await self.bus.subscribe(RENAMED, self._on_renamed)
        await self.bus.subscribe(LIVE, self._on_live_asked)
        self.bus.on_reconnect(self._bus_back)
        self.keeper.start()
        self._maintainer = asyncio.get_running_loop().create_task(self._maintain_forever())
        log.info(
            "cluster node %s: leases of %g s, heartbeat %g s",
            self.name,
            self.keeper.ttl,
            self.keeper.heartbeat,
        )

    async def hand_over(self) -> None:
        """Graceful shutdown: stop every owned match, give its lease up, and tell the others at once.

        The other processes claim the matches without waiting for the leases to run out (the ones
        with sockets through their pages reconnecting, the others by the hand-over message).
        """
        if self.handing_over:
            return
        self.handing_over = True
        if self._maintainer is not None:
            self._maintainer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._maintainer
            self._maintainer = None
        owned = list(self.service.live.values())
        for live in owned:
            await live.close()  # nothing more is written by this process
        others = [name for name in self.keeper.held if not name.startswith(MATCH)]
        self.service.pool.clear()  # the waiting pages join again, on the process taking the pool
        tournaments = [name.removeprefix(TOURNAMENT) for name in others if name.startswith(TOURNAMENT)]
        for tournament_id in tournaments:
            self.service.tournaments.evict(tournament_id, "this server is restarting")
        self.stand_ins.clear()
        await self.keeper.close(release=True)
        ids = [live.id for live in owned]
        for match_id in ids:
            self.bus.publish_soon(match_channel(match_id), "O|")
        for tournament_id in tournaments:
            self.bus.publish_soon(tournament_channel(tournament_id), "O|")
        with contextlib.suppress(BusDown):
            if ids:
                await self.bus.publish(HANDOVER, json.dumps(ids))
            if others:
                await self.bus.publish(HANDED_LEASES, json.dumps(others))
        for live in owned:
            self._drop_sockets(live, "this server is restarting")
        for table in list(self.remote.values()):
            self.drop_table(table, "this server is restarting")
        for relay in list(self.relays.values()):
            self.drop_relay(relay, "this server is restarting")
        log.warning("cluster node %s is shutting down: handed %d matches over", self.name, len(ids))

    async def close(self) -> None:
        await self.hand_over()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.bus.close()

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- ownership (the hooks GameService calls) ------------------------------

    async def claim(self, match_id: str) -> None:
        """Take the match's lease before rebuilding it; `OwnedElsewhere` when another process holds it."""
        if self.handing_over:
            raise Unavailable("this server is shutting down; try again in a moment", 1.0)
        lease = await self.keeper.claim(MATCH + match_id)
        if lease.owner != self.name:
            raise OwnedElsewhere(match_id, lease.owner)
        if lease.epoch > 1:
            # Taken over: relays of the old owner's sockets make their pages reconnect to us.
            self.bus.publish_soon(match_channel(match_id), f"O|{self.name}")

    def fence(self, match_id: str) -> Lease:
        lease = self.keeper.lease(MATCH + match_id)
        if lease is None:
            raise LeaseLost(f"match {match_id}: this server no longer holds its lease")
        return lease

    def lost(self, match_id: str) -> None:
        """An append was refused: another process owns the match now."""
        self._evict(match_id, "the table moved to another server")

    def unloaded(self, match_id: str) -> None:
        """The match was unloaded (finished or idle): let its lease go."""
        self.seats.pop(match_id, None)
        if MATCH + match_id in self.keeper.held:
            self._spawn(self.keeper.release(MATCH + match_id))

    def _lease_lost(self, name: str) -> None:
        if name.startswith(MATCH):
            self._evict(name.removeprefix(MATCH), "the table moved to another server")
        elif name == POOL:
            self._pool_holder = None
            self.service.pool.clear()  # its seekers wait on at the new holder, where their pages join
        elif name.startswith(TOURNAMENT):
            tournament_id = name.removeprefix(TOURNAMENT)
            self.stand_ins.pop(tournament_id, None)
            self.service.tournaments.evict(tournament_id, "the tournament moved to another server")

    def fence_of(self, name: str) -> Lease:
        lease = self.keeper.fresh(name)
        if lease is None:
            raise LeaseLost(f"{name}: this server no longer holds its lease")
        return lease

    # -- quick pairing ---------------------------------------------------------

    async def pool_owner(self) -> str | None:
        if POOL in self.keeper.held:
            return None
        holder = self._pool_holder
        if holder is None or holder == self.name:  # unknown, or ours and lost since
            holder = await self._claim_pool()
        return None if holder == self.name else holder

    async def _claim_pool(self) -> str:
        """Take the pool's lease if it is free (or ran out); who holds it now."""
        if self.handing_over:
            raise Unavailable("this server is shutting down; try again in a moment", 1.0)
        lease = await self.keeper.claim(POOL)
        if lease.owner == self.name and self._pool_holder != self.name:
            log.info("quick pairing runs on this server now (epoch %d)", lease.epoch)
            self.service.pool.begin()
        self._pool_holder = lease.owner
        return lease.owner

    def _on_handed_leases(self, text: str) -> None:
        if self.handing_over:
            return
        names = json.loads(text)
        for name in names:
            if name == POOL:
                self._spawn(self._claim_pool_soon())
            elif name.startswith(TOURNAMENT):
                self._spawn(self._take_tournament(name.removeprefix(TOURNAMENT), spread=0.2 * len(names)))

    def renamed(self, guest_id: str, name: str) -> None:
        self.bus.publish_soon(RENAMED, json.dumps({"node": self.name, "guest": guest_id, "name": name}))

    def _on_renamed(self, text: str) -> None:
        news = json.loads(text)
        if news["node"] != self.name:  # the process that renamed showed it already
            self.service.renamed(news["guest"], news["name"])

    # -- tournaments -----------------------------------------------------------

    async def claim_tournament(self, tournament_id: str) -> None:
        """Take the tournament's lease before rebuilding it; `TournamentElsewhere` when another holds it."""
        if self.handing_over:
            raise Unavailable("this server is shutting down; try again in a moment", 1.0)
        lease = await self.keeper.claim(TOURNAMENT + tournament_id)
        if lease.owner != self.name:
            raise TournamentElsewhere(tournament_id, lease.owner)
        if lease.epoch > 1:
            # Taken over: relays of the old owner's pages make them reconnect to us.
            self.bus.publish_soon(tournament_channel(tournament_id), f"O|{self.name}")

    def tournament_gone(self, tournament_id: str) -> None:
        self.stand_ins.pop(tournament_id, None)
        if TOURNAMENT + tournament_id in self.keeper.held:
            self._spawn(self.keeper.release(TOURNAMENT + tournament_id))

    async def _take_tournament(self, tournament_id: str, *, spread: float = 0.0) -> None:
        """Run a tournament whose lease was let go or ran out, unless another process was quicker."""
        if spread:
            await asyncio.sleep(random.random() * spread)
        try:
            await self.service.tournaments.take(tournament_id)
        except (TournamentElsewhere, Unavailable):
            return  # another process took it first, or this one is shutting down
        except Exception:
            log.exception("tournament %s could not be taken over", tournament_id)

    async def tournament_page(self, tournament_id: str, owner: str) -> TournamentRelay:
        relay = self.relays.get(tournament_id)
        if relay is not None and not relay.closed and relay.owner == owner:
            return relay
        try:
            listening = (await self.bus.listeners([inbox(owner)]))[inbox(owner)]
        except BusDown:
            raise Unavailable("the servers cannot reach each other now; try again in a moment", 1.0) from None
        if not listening:
            raise Unavailable("the server of this tournament is gone; it moves in a moment", 1.0)
        relay = self.relays.get(tournament_id)  # made meanwhile for another page?
        if relay is None or relay.closed or relay.owner != owner:
            if relay is not None:
                self.drop_relay(relay, "the tournament moved to another server")
            relay = self.relays[tournament_id] = TournamentRelay(self, tournament_id, owner)
            await self.bus.subscribe(tournament_channel(tournament_id), relay.on_message)
        return relay

    def drop_relay(self, relay: TournamentRelay, reason: str) -> None:
        """Close a relay's page sockets (the pages reconnect) and stop listening to its channel."""
        relay.drop_sockets(reason)
        self.forget_relay(relay)

    def forget_relay(self, relay: TournamentRelay) -> None:
        relay.closed = True
        if self.relays.get(relay.id) is relay:
            del self.relays[relay.id]
            self._spawn(self.bus.unsubscribe(tournament_channel(relay.id)))

    async def call_tournament_owner(self, relay: TournamentRelay, op: str, args: dict[str, Any]) -> bool:
        """Tell the owner of `relay`'s tournament about a page; False (the relay dropped) if it did not take it."""
        try:
            reply = await self._request(relay.owner, relay.id, op, {"t": relay.id, **args})
        except CallFailed as exc:
            log.warning("tournament %s: %s call to %s failed: %s", relay.id, op, relay.owner, exc)
            self.drop_relay(relay, "the server of this tournament did not answer")
            return False
        if "err" in reply:
            self.drop_relay(relay, str(reply["err"][2]))
            return False
        return True

    def tell_tournament(self, tournament_id: str, op: str, **args: Any) -> None:
        self._spawn(self._tell(TOURNAMENT + tournament_id, tournament_id, op, {"t": tournament_id, **args}))

    def _page_opened(self, call: dict[str, Any], guest_id: str | None) -> None:
        tournament_id = call["t"]
        tournament = self.service.tournaments.live.get(tournament_id)
        if tournament is None or TOURNAMENT + tournament_id not in self.keeper.held:
            raise Unavailable("the tournament moved to another server; it reconnects", 1.0)
        stand_in = PageStandIn(self.bus, tournament_id, call["page"], call["from"])
        self.stand_ins.setdefault(tournament_id, {})[call["page"]] = stand_in
        tournament.connect(stand_in, guest_id)

    def _page_closed(self, call: dict[str, Any]) -> None:
        tournament_id = call["t"]
        pages = self.stand_ins.get(tournament_id)
        stand_in = pages.pop(call["page"], None) if pages is not None else None
        tournament = self.service.tournaments.live.get(tournament_id)
        if stand_in is not None and tournament is not None:
            tournament.disconnect(stand_in)

    async def _claim_pool_soon(self) -> None:
        await asyncio.sleep(random.random() * 0.2)  # not every process at the same instant
        with contextlib.suppress(Unavailable, StoreError):
            await self._claim_pool()

    def _evict(self, match_id: str, reason: str) -> None:
        live = self.service.live.pop(match_id, None)
        self.seats.pop(match_id, None)
        self.keeper.held.pop(MATCH + match_id, None)
        if live is None:
            return
        log.warning("match %s: no longer ours (%s)", match_id, reason)
        live.closed = True
        self._spawn(live.close())
        self._drop_sockets(live, reason)

    @staticmethod
    def _drop_sockets(live: LiveMatch, reason: str) -> None:
        for conn in [*(c for seat in live.conns.by_seat for c in seat), *live.conns.watchers]:
            if isinstance(conn, Droppable):
                conn.drop(reason)

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
                self._evict(match_id, "its lease was not renewed in time")
            try:
                return await self.service.get_live(match_id)
            except OwnedElsewhere as exc:
                owner = exc.owner
            table = self._relay(match_id, owner)
            if table is not None:
                await table.ready.wait()
                return table
            try:
                listening = (await self.bus.listeners([inbox(owner)]))[inbox(owner)]
            except BusDown:
                raise Unavailable(
                    "the servers cannot reach each other now; try again in a moment", 1.0
                ) from None
            if listening:
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
        table.closed = True
        if self.remote.get(table.id) is table:
            del self.remote[table.id]
            self._spawn(self.bus.unsubscribe(match_channel(table.id)))

    def error_text(self, code: str, message: str) -> str:
        from ..live import error_message

        return error_message(code, message)

    async def _request(self, owner: str, match_id: str, op: str, args: dict[str, Any]) -> Any:
        """Send a call to `owner`'s inbox and wait for its answer; `CallFailed` when none comes."""
        call_id = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        message = json.dumps({"id": call_id, "from": self.name, "m": match_id, "op": op, **args})
        try:
            if not await self.bus.publish(inbox(owner), message):
                raise CallFailed("nobody listens")
            return await asyncio.wait_for(future, self.config.call_timeout)
        except BusDown as exc:
            raise CallFailed(str(exc)) from None
        except TimeoutError:
            raise CallFailed(f"no answer within {self.config.call_timeout:g} s") from None
        finally:
            self._calls.pop(call_id, None)

    async def call_owner(self, table: RemoteTable, op: str, args: dict[str, Any]) -> Refusal | None:
        """Forward a call to the owner of `table` and return its answer (a refusal or None)."""
        try:
            reply = await self._request(table.owner, table.id, op, args)
        except CallFailed as exc:
            log.warning("match %s: %s call to %s failed: %s", table.id, op, table.owner, exc)
            self.drop_table(table, "the server of this table did not answer")
            return Refusal(
                "unavailable",
                f"the server of this table did not answer within {self.config.call_timeout:g} s; "
                "if your move was taken, the table shows it when it reconnects",
            )
        if reply is None:
            return None
        code, text = reply
        if code == "moved":
            self.drop_table(table, text)
            return Refusal("unavailable", text)
        return Refusal(str(code), str(text))

    async def forward(self, owner: str, match_id: str, op: str, args: dict[str, Any]) -> Any:
        if _answering.get():
            raise Unavailable("the table is moving between servers; try again in a moment", 1.0)
        try:
            reply = await self._request(owner, match_id, op, args)
        except CallFailed as exc:
            log.warning("match %s: %s call to %s failed: %s", match_id, op, owner, exc)
            raise Unavailable("the server of this table did not answer; try again in a moment", 1.0) from None
        if "err" in reply:
            code, status, message = reply["err"]
            error = ServiceError(message)
            error.code, error.status = str(code), int(status)
            raise error
        return reply["ok"]

    def tell(self, match_id: str, op: str, **args: Any) -> None:
        self._spawn(self._tell(MATCH + match_id, match_id, op, args))

    async def _tell(self, name: str, subject: str, op: str, args: dict[str, Any]) -> None:
        """Send `op` to the holder of the lease `name` (when it is another process)."""
        lease = await self.keeper.store.get_lease(name)
        if lease is None or lease.owner == self.name:
            return
        message = {"id": 0, "from": self.name, "m": subject, "op": op, **args}  # id 0: no answer
        with contextlib.suppress(BusDown):
            await self.bus.publish(inbox(lease.owner), json.dumps(message))

    # -- live games (the Watch list) ---------------------------------------------

    async def live_elsewhere(self) -> list[dict[str, Any]]:
        """The public matches the other processes run, as each lists its own; a process that does
        not answer within the call timeout is left out (its matches show again on the next ask)."""
        now = time.monotonic()
        kept = self._live_kept
        if kept is not None and now - kept[0] < LIVE_KEPT:
            return kept[1]
        call_id = next(self._ids)
        gathering = self._gatherings[call_id] = _Gathering()
        try:
            listeners = await self.bus.publish(LIVE, json.dumps({"id": call_id, "from": self.name}))
            gathering.expect(listeners - 1)  # every listener but this process answers
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(gathering.done, self.config.call_timeout)
        except BusDown:
            return []
        finally:
            del self._gatherings[call_id]
        games = [game for answer in gathering.answers for game in answer]
        self._live_kept = (time.monotonic(), games)
        return games

    def _on_live_asked(self, text: str) -> None:
        data = json.loads(text)
        if data["from"] != self.name and not self.handing_over:
            self._spawn(self._answer_live(data))

    async def _answer_live(self, question: dict[str, Any]) -> None:
        try:
            games = await self.service.local_live_games()
        except StoreError:
            log.warning("the live games could not be listed for %s", question["from"], exc_info=True)
            games = []
        self.bus.publish_soon(inbox(question["from"]), json.dumps({"re": question["id"], "r": games}))

    # -- calls from other processes --------------------------------------------

    def _on_inbox(self, text: str) -> None:
        data = json.loads(text)
        if "re" in data:
            gathering = self._gatherings.get(data["re"])
            if gathering is not None:
                gathering.add(data["r"])
                return
            future = self._calls.get(data["re"])
            if future is not None and not future.done():
                future.set_result(data["r"])
            return
        self._spawn(self._serve(data))

    async def _serve(self, call: dict[str, Any]) -> None:
        answer: Any
        if call["op"] in SERVICE_CALLS:
            answer = await self._answer_service(call)
        else:
            try:
                answer = await self._answer(call)
            except StoreError:
                log.exception("match %s: a forwarded %s failed", call.get("m"), call.get("op"))
                answer = ("server_error", "the server failed to handle this message; nothing changed")
        if call["id"]:
            self.bus.publish_soon(inbox(call["from"]), json.dumps({"re": call["id"], "r": answer}))

    async def _answer_service(self, call: dict[str, Any]) -> dict[str, Any]:
        """A service call forwarded here: {"ok": value} or {"err": [code, status, message]}."""
        _answering.set(True)  # this task's own context: what it calls is not forwarded again
        service = self.service
        try:
            guest = await service.store.get_guest(call["guest"]) if call.get("guest") else None
            if call.get("guest") and guest is None:
                raise Forbidden("no such guest")
            op = call["op"]
            if op == "room_info":
                return {"ok": await service.room_info(guest, call["code"])}
            viewer = guest.id if guest is not None else None
            if op == "t_state":
                return {"ok": await service.tournaments.state(call["t"], viewer)}
            if op == "t_summary":
                return {"ok": await service.tournaments.summary(call["t"])}
            if op == "t_open":
                self._page_opened(call, viewer)
                return {"ok": None}
            if op == "t_close":
                self._page_closed(call)
                return {"ok": None}
            if op == "t_ended":
                service.tournaments.match_over(call["t"], call["match"], call["result"], call["at"])
                return {"ok": None}
            if op == "rematch_id":
                live = service.live.get(call["m"])
                if live is not None:
                    live.rematch_id = call["rematch"]
                    live.broadcast()
                return {"ok": None}
            assert guest is not None
            if op == "join_room":
                return {"ok": await service.join_room(guest, call["code"], call.get("address"))}
            if op == "seek":
                return {"ok": await service.seek(guest, call["body"], call.get("address"))}
            if op == "wait_pool":
                return {"ok": await service.wait_for_pairing(guest, float(call["wait"]))}
            if op == "leave_pool":
                return {"ok": await service.stop_seeking(guest)}
            if op == "robot_instead":
                return {"ok": await service.robot_instead(guest)}
            if op == "t_act":
                return {
                    "ok": await service.tournaments.act(call["t"], call["verb"], guest, call.get("address"))
                }
            return {"ok": await service.rematch(guest, call["match"])}
        except ServiceError as exc:
            return {"err": [exc.code, exc.status, exc.message]}
        except StoreError:
            log.exception("match %s: a forwarded %s failed", call.get("m"), call.get("op"))
            return {"err": ["unavailable", 503, "the server is busy; try again in a moment"]}

    async def _answer(self, call: dict[str, Any]) -> Refusal | None:
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

    def _on_handover(self, text: str) -> None:
        if self.handing_over:
            return
        self._spawn(self._take(json.loads(text), spread=0.2))

    async def _take(self, match_ids: list[str], *, spread: float = 0.0) -> None:
        """Rebuild matches whose lease is free, unless another process was quicker."""
        for match_id in match_ids:
            if spread:
                await asyncio.sleep(random.random() * spread / max(1, len(match_ids)))
            if match_id in self.service.live:
                continue
            try:
                row = await self.service.store.get_match(match_id)
                if row is None or row.status == "over":
                    continue
                await self.service.get_live(match_id)
            except (OwnedElsewhere, Unavailable):
                continue
            except Exception:
                log.exception("match %s could not be taken over", match_id)

    # -- every heartbeat -------------------------------------------------------

    async def _maintain_forever(self) -> None:
        while True:
            await asyncio.sleep(self.keeper.heartbeat)
            try:
                await self.maintain()
            except Exception:
                log.exception("cluster maintenance failed")

    async def maintain(self) -> None:
        """Adopt matches whose owner let the lease run out, take the pool's lease if it is free,
        adopt tournaments whose owner let the lease run out, and forget sockets of processes that
        are gone."""
        # A match with a page waiting for it is claimed by the process holding that page's socket
        # (it tries every OWNER_GONE_POLL): played there, not relayed, and the rebuilds of a killed
        # process's matches spread over the processes its pages reconnected to. The others
        # (nobody looking) are adopted a heartbeat after their lease ran out.
        adopted = await self.keeper.adopt(MATCH, self.config.adopt_limit, lapsed_for=self.keeper.heartbeat)
        # Side by side: the reads of every rebuild share the database's round trips, and a page
        # waiting for one of them does not wait for all the others before it.
        await asyncio.gather(*(self._adopted(lease) for lease in adopted))
        if POOL not in self.keeper.held and not self.handing_over:
            await self._claim_pool()  # one statement: learns who runs the pool, or takes it over
        for lease in await self.keeper.adopt(TOURNAMENT, self.config.adopt_limit):
            tournament_id = lease.name.removeprefix(TOURNAMENT)
            log.info(
                "tournament %s: taken over from a server that is gone (epoch %d)", tournament_id, lease.epoch
            )
            await self._take_tournament(tournament_id)
        nodes = {node for seats in self.seats.values() for node in seats.all_nodes()}
        nodes |= {page.node for pages in self.stand_ins.values() for page in pages.values()}
        owners = {table.owner for table in self.remote.values()} | {r.owner for r in self.relays.values()}
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
        for relay in list(self.relays.values()):
            if relay.owner in gone:
                self.drop_relay(relay, "the server of this tournament is gone")
        for tournament_id, pages in list(self.stand_ins.items()):
            tournament = self.service.tournaments.live.get(tournament_id)
            for page_id, page in list(pages.items()):
                if page.node in gone:
                    del pages[page_id]
                    if tournament is not None:
                        tournament.disconnect(page)

    async def _adopted(self, lease: Lease) -> None:
        """Rebuild a match whose lease this process adopted (or let the lease go if it is over)."""
        match_id = lease.name.removeprefix(MATCH)
        try:
            row = await self.service.store.get_match(match_id)
        except StoreError:
            log.warning("match %s: could not be read to take it over", match_id, exc_info=True)
            return
        if row is None or row.status == "over":
            await self.keeper.release(lease.name)
            return
        log.info("match %s: taken over from a server that is gone (epoch %d)", match_id, lease.epoch)
        await self._take([match_id])

    async def _bus_back(self) -> None:
        """The bus lost messages while it was down: relayed pages reconnect for a fresh state.

        Each relay tells the owner its sockets are gone (they come back with the pages), and an
        owner forgets the sockets it knew on other processes (a relay's word of one closing may
        have been lost); the pages that reconnect are counted again as they open.
        """
        for table in list(self.remote.values()):
            for seat in list(table.conns):
                self._spawn(table.release(seat))
            self.drop_table(table, "the servers lost touch for a moment")
        for relay in list(self.relays.values()):
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
        await self.service.tournaments.reconcile()  # ends of matches told while it was down
