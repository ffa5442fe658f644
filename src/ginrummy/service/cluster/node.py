"""One server process of a cluster: its name, and the parts it is made of, started and stopped together.

A `ClusterNode` is the service's `ownership` (`ports.Ownership`) when a bus is configured. It
composes the calls between processes (`rpc.Rpc`: its inbox `gr:p:<name>`), the leases of what it
runs (`ownership.Owner`: matches, quick pairing, tournaments) and the relays of the sockets it
holds of things another process runs (`relays.Relays`). It answers the service calls the other
processes forward to it, tells them of a rename, and gathers their live games for the Watch list.
Every heartbeat it adopts the matches whose owner let the lease run out and forgets the sockets of
processes that are gone; shutting down, it hands over everything it runs at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from ..errors import Forbidden
from ..ports import Lease, StoreError
from ..tasks import stop_task
from .ownership import HANDED_LEASES, HANDOVER, MATCH, TOURNAMENT, Owner, drop_sockets
from .pages import TournamentRelay, tournament_channel
from .ports import Bus, BusDown
from .relays import Relays
from .rpc import Call, Rpc, inbox, service_answer
from .tables import RemoteTable, match_channel

if TYPE_CHECKING:
    from ..live import LiveMatch
    from ..platform import GameService

__all__ = ["ClusterConfig", "ClusterNode", "node_name"]

log = logging.getLogger("ginrummy.cluster")

RENAMED = "gr:renamed"  # a guest took a new name on one process: every table shows it
LIVE = "gr:live"  # a process asks every other for the public matches it runs (the Watch list)
#: The live games gathered from the other processes are kept this long (seconds): the home page of
#: every visitor asks for them, and a broadcast with an answer from every process per visit costs.
LIVE_KEPT = 1.0
#: Service calls another process may ask the owner of a match (rooms and rematches), of the
#: pool (quick pairing) or of a tournament to make.
SERVICE_CALLS = frozenset(
    {
        *("join_room", "room_info", "rematch", "rematch_id"),
        *("seek", "wait_pool", "leave_pool", "robot_instead"),
        *("t_state", "t_act", "t_summary", "t_open", "t_close", "t_ended"),
    }
)


def node_name() -> str:
    """A name no other process has had: host, process id and a random part (a restart gets a new one)."""
    return f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(3)}"  # ≤ 64: the owner column


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


class ClusterNode:
    """The cluster layer of one process: `GameService.ownership` when a bus is configured."""

    def __init__(self, service: GameService, bus: Bus, config: ClusterConfig | None = None) -> None:
        self.service = service
        self.bus = bus
        self.config = config or ClusterConfig()
        self.name = self.config.name
        self._tasks: set[asyncio.Task[Any]] = set()
        self.rpc = Rpc(bus, self.name, timeout=self.config.call_timeout, serve=self._serve, spawn=self._spawn)
        self.owner = Owner(
            service,
            self.rpc,
            lease_seconds=self.config.lease_seconds,
            heartbeat=self.config.heartbeat,
            adopt_limit=self.config.adopt_limit,
            spawn=self._spawn,
            let_go=lambda name: self.relays.let_go(name),
        )
        self.keeper = self.owner.keeper
        self.relays = Relays(service, self.owner, self.rpc, spawn=self._spawn)
        self._live_kept: tuple[float, list[dict[str, Any]]] | None = None  # (when, the other games)
        self._maintainer: asyncio.Task[None] | None = None
        # A forwarded wait for a pairing is answered by the owner within this, well inside the timeout.
        self.wait_slice = self.config.call_timeout / 2
        service.ownership = self

    @property
    def handing_over(self) -> bool:
        """Set once this process began to shut down (or, in tests, to stand for a killed one)."""
        return self.owner.handing_over

    @handing_over.setter
    def handing_over(self, value: bool) -> None:
        self.owner.handing_over = value

    # -- lifecycle -----------------------------------------------------------

    async def start(self) -> None:
        """Join the cluster: listen on the bus, start the heartbeat (after `GameService.start`).

        The node is the service's `ownership` from its creation, so the matches the service
        rebuilds at start are claimed first, and those another process runs are left to it.
        """
        await self.bus.start()
        await self.bus.subscribe(inbox(self.name), self.rpc.on_inbox)
        await self.bus.subscribe(HANDOVER, self.owner.on_handover)
        await self.bus.subscribe(HANDED_LEASES, self.owner.on_handed_leases)
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
        await stop_task(self._maintainer)
        self._maintainer = None
        owned = list(self.service.live.values())
        for live in owned:
            await live.close()  # nothing more is written by this process
        others = [name for name in self.keeper.held if not name.startswith(MATCH)]
        self.service.pool.clear()  # the waiting pages join again, on the process taking the pool
        tournaments = [name.removeprefix(TOURNAMENT) for name in others if name.startswith(TOURNAMENT)]
        for tournament_id in tournaments:
            self.service.tournaments.evict(tournament_id, "this server is restarting")
        self.relays.stand_ins.clear()
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
            drop_sockets(live, "this server is restarting")
        self.relays.drop_all("this server is restarting")
        log.warning("cluster node %s is shutting down: handed %d matches over", self.name, len(ids))

    async def close(self) -> None:
        await self.hand_over()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.bus.close()

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- the hooks GameService calls (ports.Ownership), each met by the part it belongs to --

    async def claim(self, match_id: str) -> None:
        await self.owner.claim(match_id)

    def fence(self, match_id: str) -> Lease:
        return self.owner.fence(match_id)

    def lost(self, match_id: str) -> None:
        self.owner.lost(match_id)

    def unloaded(self, match_id: str) -> None:
        self.owner.unloaded(match_id)

    def fence_of(self, name: str) -> Lease:
        return self.owner.fence_of(name)

    async def pool_owner(self) -> str | None:
        return await self.owner.pool_owner()

    async def claim_tournament(self, tournament_id: str) -> None:
        await self.owner.claim_tournament(tournament_id)

    def tournament_gone(self, tournament_id: str) -> None:
        self.owner.tournament_gone(tournament_id)

    async def forward(self, owner: str, match_id: str, op: str, args: dict[str, Any]) -> Any:
        return await self.rpc.forward(owner, match_id, op, args)

    def tell(self, match_id: str, op: str, **args: Any) -> None:
        self._spawn(self.owner.tell(MATCH + match_id, match_id, op, args))

    def tell_tournament(self, tournament_id: str, op: str, **args: Any) -> None:
        self._spawn(
            self.owner.tell(TOURNAMENT + tournament_id, tournament_id, op, {"t": tournament_id, **args})
        )

    async def open_table(self, match_id: str) -> LiveMatch | RemoteTable | None:
        return await self.relays.open_table(match_id)

    async def tournament_page(self, tournament_id: str, owner: str) -> TournamentRelay:
        return await self.relays.tournament_page(tournament_id, owner)

    def renamed(self, guest_id: str, name: str) -> None:
        self.bus.publish_soon(RENAMED, json.dumps({"node": self.name, "guest": guest_id, "name": name}))

    def _on_renamed(self, text: str) -> None:
        news = json.loads(text)
        if news["node"] != self.name:  # the process that renamed showed it already
            self.service.tables.renamed(news["guest"], news["name"])

    # -- live games (the Watch list) ---------------------------------------------

    async def live_elsewhere(self) -> list[dict[str, Any]]:
        """The public matches the other processes run, as each lists its own; a process that does
        not answer within the call timeout is left out (its matches show again on the next ask)."""
        now = time.monotonic()
        kept = self._live_kept
        if kept is not None and now - kept[0] < LIVE_KEPT:
            return kept[1]
        try:
            answers = await self.rpc.gather(LIVE)
        except BusDown:
            return []
        games = [game for answer in answers for game in answer]
        self._live_kept = (time.monotonic(), games)
        return games

    def _on_live_asked(self, text: str) -> None:
        data = json.loads(text)
        if data["from"] != self.name and not self.handing_over:
            self._spawn(self._answer_live(data))

    async def _answer_live(self, question: Call) -> None:
        try:
            games = await self.service.local_live_games()
        except StoreError:
            log.warning("the live games could not be listed for %s", question["from"], exc_info=True)
            games = []
        self.rpc.answer(question, games)

    # -- calls from other processes --------------------------------------------

    async def _serve(self, call: Call) -> Any:
        if call["op"] in SERVICE_CALLS:
            return await service_answer(call, self._service_call)
        return await self.relays.answer(call)

    async def _service_call(self, call: Call) -> Any:
        """Run a service call forwarded here (see `SERVICE_CALLS`): its value."""
        service = self.service
        guest = await service.store.get_guest(call["guest"]) if call.get("guest") else None
        if call.get("guest") and guest is None:
            raise Forbidden("no such guest")
        op = call["op"]
        if op == "room_info":
            return await service.rooms.room_info(guest, call["code"])
        viewer = guest.id if guest is not None else None
        if op == "t_state":
            return await service.tournaments.state(call["t"], viewer)
        if op == "t_summary":
            return await service.tournaments.summary(call["t"])
        if op == "t_open":
            self.relays.page_opened(call, viewer)
            return None
        if op == "t_close":
            self.relays.page_closed(call)
            return None
        if op == "t_ended":
            service.tournaments.match_over(call["t"], call["match"], call["result"], call["at"])
            return None
        if op == "rematch_id":
            live = service.live.get(call["m"])
            if live is not None:
                live.rematch_id = call["rematch"]
                live.broadcast()
            return None
        assert guest is not None
        if op == "join_room":
            return await service.rooms.join_room(guest, call["code"], call.get("address"))
        if op == "seek":
            return await service.seeking.seek(guest, call["body"], call.get("address"))
        if op == "wait_pool":
            return await service.seeking.wait_for_pairing(guest, float(call["wait"]))
        if op == "leave_pool":
            return await service.seeking.stop_seeking(guest)
        if op == "robot_instead":
            return await service.seeking.robot_instead(guest)
        if op == "t_act":
            return await service.tournaments.act(call["t"], call["verb"], guest, call.get("address"))
        return await service.rooms.rematch(guest, call["match"])

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
        await self.owner.adopt()
        await self.relays.forget_gone()

    async def _bus_back(self) -> None:
        """The bus lost messages while it was down: relayed pages reconnect for a fresh state
        (`Relays.bus_back`), and the ends of matches told meanwhile are read again."""
        self.relays.bus_back()
        await self.service.tournaments.reconcile()  # ends of matches told while it was down
