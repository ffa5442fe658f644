"""The lease keeper: the leases this process holds, renewed together by one heartbeat.

A lease is claimed when the process takes a live thing over, renewed every `heartbeat` seconds
(one statement for all of them) and released when the process lets it go or shuts down. A lease
missing from a renewal was lost (the process was paused or cut off past its expiry and another
took it): `on_lost` hears of it, and fencing has already refused every write made under it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable

from ..ports import Lease, LeaseStore, StoreError
from ..tasks import stop_task

__all__ = ["LeaseKeeper"]

log = logging.getLogger("ginrummy.cluster")


class LeaseKeeper:
    """Claims, renews and releases the leases of one process (`owner`)."""

    def __init__(
        self,
        store: LeaseStore,
        owner: str,
        *,
        ttl: float,
        heartbeat: float,
        on_lost: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self.owner = owner
        self.ttl = ttl
        self.heartbeat = heartbeat
        self.on_lost = on_lost
        self.clock = clock
        self.held: dict[str, Lease] = {}
        self._changed: set[str] = set()  # claimed or released while a renewal was under way
        self._renewed_at = clock()
        # When each lease claimed since the last renewal was claimed (a claim extends it too).
        self._claimed_at: dict[str, float] = {}
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    def start(self) -> None:
        """Start the heartbeat (once; also by the first claim, so that leases claimed while the
        process starts up, rebuilding its matches, are renewed from the first)."""
        if self._task is None and not self._closed:
            self._task = asyncio.get_running_loop().create_task(self._beat_forever())

    async def close(self, *, release: bool = True) -> None:
        """Stop the heartbeat and (unless told not to) give every lease up at once."""
        self._closed = True
        await stop_task(self._task)
        self._task = None
        if release:
            for lease in list(self.held.values()):
                with contextlib.suppress(StoreError):
                    await self.store.release_lease(lease)
        self.held.clear()
        self._claimed_at.clear()

    def lease(self, name: str) -> Lease | None:
        return self.held.get(name)

    def fresh(self, name: str) -> Lease | None:
        """The lease `name` if held and renewed (or claimed) less than its length ago by this process's clock.

        A process paused past its leases (SIGSTOP, a long stall) still lists them until its next
        heartbeat finds them gone: this refuses them at once, before anything is done under them.
        """
        lease = self.held.get(name)
        if lease is None:
            return None
        # A claim kept here is newer than the last renewal (a renewal drops the older ones).
        if self.clock() - self._claimed_at.get(name, self._renewed_at) >= self.ttl:
            return None
        return lease

    async def claim(self, name: str) -> Lease:
        """Take the lease `name` (or keep it); the lease as it stands says who holds it."""
        started = self.clock()
        lease = await self.store.claim_lease(name, self.owner, self.ttl)
        if lease.owner == self.owner:
            self.start()
            self.held[name] = lease
            self._claimed_at[name] = started
            self._changed.add(name)
        return lease

    async def adopt(self, prefix: str, limit: int, lapsed_for: float = 0.0) -> list[Lease]:
        """Take over up to `limit` leases named `prefix`... that their holders let run out (at
        least `lapsed_for` seconds ago)."""
        started = self.clock()
        taken = await self.store.claim_expired(self.owner, self.ttl, prefix, limit, lapsed_for)
        if taken:
            self.start()
        for lease in taken:
            self.held[lease.name] = lease
            self._claimed_at[lease.name] = started
            self._changed.add(lease.name)
        return taken

    async def release(self, name: str) -> None:
        lease = self.held.pop(name, None)
        self._claimed_at.pop(name, None)
        self._changed.add(name)
        if lease is not None:
            with contextlib.suppress(StoreError):
                await self.store.release_lease(lease)

    async def beat(self) -> None:
        """Renew every lease in one statement; report the ones that were lost."""
        self._changed.clear()
        started = self.clock()
        try:
            renewed = {lease.name: lease for lease in await self.store.renew_leases(self.owner, self.ttl)}
        except StoreError as exc:
            log.warning("the leases could not be renewed: %s", exc)
            if self.clock() - self._renewed_at > self.ttl:
                # Not renewed for longer than they last: they have run out in the database.
                self._lose([name for name in self.held if name not in self._changed])
            return
        took = self.clock() - started
        if took > self.heartbeat:
            log.warning(
                "renewing %d leases took %.2f s (the heartbeat is %g s)", len(renewed), took, self.heartbeat
            )
        self._renewed_at = started
        self._claimed_at = {name: at for name, at in self._claimed_at.items() if at > started}
        lost = [name for name in self.held if name not in renewed and name not in self._changed]
        for name, lease in renewed.items():
            if name in self.held and name not in self._changed:
                self.held[name] = lease
        self._lose(lost)

    def _lose(self, names: list[str]) -> None:
        for name in names:
            self.held.pop(name, None)
            self._claimed_at.pop(name, None)
            log.warning("lease %s was lost: another server took it over", name)
            try:
                self.on_lost(name)
            except Exception:
                log.exception("handling the loss of lease %s failed", name)

    async def _beat_forever(self) -> None:
        # At a steady rate: a slow renewal (a busy database) does not push every later one back.
        due = self.clock()
        while True:
            due = max(due + self.heartbeat, self.clock())
            await asyncio.sleep(due - self.clock())
            try:
                await self.beat()
            except Exception:
                log.exception("a lease heartbeat failed")
