"""Which process owns each live thing: the leases of its matches, of quick pairing and of tournaments.

A process owns a live match while it holds the match's lease (`match:ID` in the database). It
claims the lease before it rebuilds the match from the event log, so from then on it is the only
writer, and every event it appends is fenced by that lease's epoch: a process that lost the lease
(paused or cut off past its expiry) cannot write one more event. Every heartbeat the process adopts
the matches whose owner let the lease run out; a process shutting down names the ones it let go
(`gr:handover`), and the others take them at once.

The same leases give quick pairing one process (`pool`: the others forward seeks and waits to it)
and each running tournament one process (`tournament:ID`); both are adopted like matches when
their holder goes, the pool starting empty and a tournament rebuilt from the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from ..errors import Unavailable
from ..ports import Lease, LeaseLost, LeaseStore, Store, StoreError
from .leases import LeaseKeeper
from .pages import tournament_channel
from .ports import Droppable, OwnedElsewhere, TournamentElsewhere
from .rpc import Rpc
from .tables import match_channel

if TYPE_CHECKING:
    from ..live import LiveMatch
    from ..platform import GameService

__all__ = ["HANDED_LEASES", "HANDOVER", "MATCH", "POOL", "TOURNAMENT", "Owner", "drop_sockets"]

log = logging.getLogger("ginrummy.cluster")

MATCH = "match:"  # lease names of live matches
TOURNAMENT = "tournament:"  # lease names of running tournaments
POOL = "pool"  # the lease of quick pairing: its holder runs every pool of the site
HANDOVER = "gr:handover"  # a process shutting down names the matches it let go
HANDED_LEASES = "gr:handover:leases"  # ... and the other leases it let go (the pool, tournaments)


def _lease_store(store: Store) -> LeaseStore:
    for method in ("claim_lease", "renew_leases", "release_lease", "claim_expired"):
        if not callable(getattr(store, method, None)):
            raise TypeError(f"a cluster needs a store with leases; {type(store).__name__} has no {method}")
    return store  # type: ignore[return-value]  # checked just above


def drop_sockets(live: LiveMatch, reason: str) -> None:
    """Close the match's sockets here (their pages reconnect, and find its new owner)."""
    for conn in [*(c for seat in live.conns.by_seat for c in seat), *live.conns.watchers]:
        if isinstance(conn, Droppable):
            conn.drop(reason)


class Owner:
    """The leases of one process: taking, keeping, fencing and letting go what it runs.

    `let_go` hears the name of each lease of a match or tournament this process no longer runs
    (the relays forget the sockets other processes hold of it).
    """

    def __init__(
        self,
        service: GameService,
        rpc: Rpc,
        *,
        lease_seconds: float,
        heartbeat: float,
        adopt_limit: int,
        spawn: Callable[[Coroutine[Any, Any, Any]], None],
        let_go: Callable[[str], None],
    ) -> None:
        self.service = service
        self.rpc = rpc
        self.bus = rpc.bus
        self.name = rpc.name
        self.adopt_limit = adopt_limit
        self.spawn = spawn
        self.let_go = let_go
        self.keeper = LeaseKeeper(
            _lease_store(service.store),
            self.name,
            ttl=lease_seconds,
            heartbeat=heartbeat,
            on_lost=self._lease_lost,
        )
        self.handing_over = False  # set once this process began to shut down: it takes nothing more
        self._pool_holder: str | None = None  # who held the pool's lease when last asked

    # -- matches -------------------------------------------------------------

    async def _claim(self, name: str, channel: str | None = None) -> Lease:
        """Claim the lease `name` (refused while shutting down); the lease as it stands says who
        holds it. Taken over from another process, the relays of the old owner's sockets listening
        on `channel` hear it changed hands: their pages reconnect to this process."""
        if self.handing_over:
            raise Unavailable("this server is shutting down; try again in a moment", 1.0)
        lease = await self.keeper.claim(name)
        if channel is not None and lease.owner == self.name and lease.epoch > 1:
            self.bus.publish_soon(channel, f"O|{self.name}")
        return lease

    async def claim(self, match_id: str) -> None:
        """Take the match's lease before rebuilding it; `OwnedElsewhere` when another process holds it."""
        lease = await self._claim(MATCH + match_id, match_channel(match_id))
        if lease.owner != self.name:
            raise OwnedElsewhere(match_id, lease.owner)

    def fence(self, match_id: str) -> Lease:
        lease = self.keeper.lease(MATCH + match_id)
        if lease is None:
            raise LeaseLost(f"match {match_id}: this server no longer holds its lease")
        return lease

    def lost(self, match_id: str) -> None:
        """An append was refused: another process owns the match now."""
        self.evict(match_id, "the table moved to another server")

    def unloaded(self, match_id: str) -> None:
        """The match was unloaded (finished or idle): let its lease go."""
        self.let_go(MATCH + match_id)
        if MATCH + match_id in self.keeper.held:
            self.spawn(self.keeper.release(MATCH + match_id))

    def evict(self, match_id: str, reason: str) -> None:
        """Stop running the match here at once (its sockets here reconnect)."""
        live = self.service.live.pop(match_id, None)
        self.let_go(MATCH + match_id)
        self.keeper.held.pop(MATCH + match_id, None)
        if live is None:
            return
        log.warning("match %s: no longer ours (%s)", match_id, reason)
        live.closed = True
        self.spawn(live.close())
        drop_sockets(live, reason)

    def _lease_lost(self, name: str) -> None:
        if name.startswith(MATCH):
            self.evict(name.removeprefix(MATCH), "the table moved to another server")
        elif name == POOL:
            self._pool_holder = None
            self.service.pool.clear()  # its seekers wait on at the new holder, where their pages join
        elif name.startswith(TOURNAMENT):
            tournament_id = name.removeprefix(TOURNAMENT)
            self.let_go(name)
            self.service.tournaments.evict(tournament_id, "the tournament moved to another server")

    def fence_of(self, name: str) -> Lease:
        lease = self.keeper.fresh(name)
        if lease is None:
            raise LeaseLost(f"{name}: this server no longer holds its lease")
        return lease

    async def tell(self, name: str, subject: str, op: str, args: dict[str, Any]) -> None:
        """Send `op` to the holder of the lease `name` (when it is another process)."""
        lease = await self.keeper.store.get_lease(name)
        if lease is None or lease.owner == self.name:
            return
        await self.rpc.send(lease.owner, subject, op, args)

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
        lease = await self._claim(POOL)
        if lease.owner == self.name and self._pool_holder != self.name:
            log.info("quick pairing runs on this server now (epoch %d)", lease.epoch)
            self.service.pool.begin()
        self._pool_holder = lease.owner
        return lease.owner

    async def _claim_pool_soon(self) -> None:
        await asyncio.sleep(random.random() * 0.2)  # not every process at the same instant
        with contextlib.suppress(Unavailable, StoreError):
            await self._claim_pool()

    # -- tournaments -----------------------------------------------------------

    async def claim_tournament(self, tournament_id: str) -> None:
        """Take the tournament's lease before rebuilding it; `TournamentElsewhere` when another holds it."""
        lease = await self._claim(TOURNAMENT + tournament_id, tournament_channel(tournament_id))
        if lease.owner != self.name:
            raise TournamentElsewhere(tournament_id, lease.owner)

    def tournament_gone(self, tournament_id: str) -> None:
        self.let_go(TOURNAMENT + tournament_id)
        if TOURNAMENT + tournament_id in self.keeper.held:
            self.spawn(self.keeper.release(TOURNAMENT + tournament_id))

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

    # -- taking over what other processes let go -------------------------------

    def on_handover(self, text: str) -> None:
        if self.handing_over:
            return
        self.spawn(self._take(json.loads(text), spread=0.2))

    def on_handed_leases(self, text: str) -> None:
        if self.handing_over:
            return
        names = json.loads(text)
        for name in names:
            if name == POOL:
                self.spawn(self._claim_pool_soon())
            elif name.startswith(TOURNAMENT):
                self.spawn(self._take_tournament(name.removeprefix(TOURNAMENT), spread=0.2 * len(names)))

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

    async def adopt(self) -> None:
        """Adopt matches whose owner let the lease run out, take the pool's lease if it is free,
        and adopt tournaments whose owner let the lease run out (every heartbeat)."""
        # A match with a page waiting for it is claimed by the process holding that page's socket
        # (it tries every relays.OWNER_GONE_POLL): played there, not relayed, and the rebuilds of a
        # killed process's matches spread over the processes its pages reconnected to. The others
        # (nobody looking) are adopted a heartbeat after their lease ran out.
        adopted = await self.keeper.adopt(MATCH, self.adopt_limit, lapsed_for=self.keeper.heartbeat)
        # Side by side: the reads of every rebuild share the database's round trips, and a page
        # waiting for one of them does not wait for all the others before it.
        await asyncio.gather(*(self._adopted(lease) for lease in adopted))
        if POOL not in self.keeper.held and not self.handing_over:
            await self._claim_pool()  # one statement: learns who runs the pool, or takes it over
        for lease in await self.keeper.adopt(TOURNAMENT, self.adopt_limit):
            tournament_id = lease.name.removeprefix(TOURNAMENT)
            log.info(
                "tournament %s: taken over from a server that is gone (epoch %d)", tournament_id, lease.epoch
            )
            await self._take_tournament(tournament_id)

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
