"""Quick pairing ("Play online"): one pool per game, rules and target, rated or casual.

Whoever waits in a pool is paired with the closest rating first: each wave sorts the seekers by
rating and repeatedly pairs the two with the smallest difference that both accept.
A seeker accepts a difference up to `base_range` points, widening by `widen_per_second` for each
second waited (Lichess's pools widen the same way), so nobody waits long for a perfect match.
After `robot_after` seconds the page may offer a robot instead. The pool lives in memory: a
seeker that stops asking for news (`stale_after`) is dropped, and after a restart the waiting
pages join again by themselves (nothing was played yet). A pairing is stored before anyone is
told of it, so a page that had not heard of its pairing when the pool's process stopped learns
it when it joins again: for `notice_window` seconds after a pool starts running on a process,
a seeker's join first looks for an online match of theirs made that long ago or less and still
being played. In a cluster one process runs the pool (it holds the lease `pool`); the others
forward every call to it (`service.cluster`). A rated pool never pairs two seekers its `apart`
test keeps apart (one client address: service/fairplay.py); they wait for somebody else.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["PairingConfig", "PairingPool", "PoolKey", "Seek", "pair_closest"]


@dataclass(frozen=True, slots=True)
class PoolKey:
    """Which pool: the game, the rules (a preset name), the target score, rated or casual."""

    game: str
    preset: str
    target: int
    rated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class PairingConfig:
    base_range: float = 100.0
    widen_per_second: float = 20.0
    max_range: float = 1000.0  # after (max-base)/widen seconds anyone may meet anyone within this
    robot_after: float = 20.0
    stale_after: float = 10.0  # the page asks for news every few seconds; a closed page stops
    # A pool process's lease (3 s) plus the page's reconnect pause is well inside this.
    notice_window: float = 30.0


@dataclass(slots=True, eq=False)
class Seek:
    """One person waiting in a pool."""

    id: str
    guest_id: str
    key: PoolKey
    rating: float
    since: float
    seen: float
    match_id: str | None = None
    address: str | None = None  # the client address it seeks from (None: not known)
    #: Set when the seek ends (paired or dropped); waiters wake on it.
    done: asyncio.Event = field(default_factory=asyncio.Event)

    def accepts(self, difference: float, now: float, config: PairingConfig) -> bool:
        waited = max(0.0, now - self.since)
        limit = min(config.max_range, config.base_range + config.widen_per_second * waited)
        return difference <= limit


#: True when two seekers must not be paired with each other.
Apart = Callable[["Seek", "Seek"], bool]


def pair_closest(
    seeks: list[Seek], now: float, config: PairingConfig, apart: Apart | None = None
) -> list[tuple[Seek, Seek]]:
    """Pairs of the pool, closest ratings first, each pair within both seekers' ranges.

    The closest acceptable pair need not be two neighbours in rating order (a neighbour who
    just arrived may have a narrower range than the two around it), so every pair within the
    first seeker's range is a candidate: each seeker looks up the ratings above its own only as
    far as its range reaches. Candidates are taken closest first, nobody twice; two seekers
    `apart` says must not meet are no candidate.
    """
    order = sorted(seeks, key=lambda s: (s.rating, s.since, s.id))
    candidates = []
    for i, a in enumerate(order):
        for j in range(i + 1, len(order)):
            b = order[j]
            gap = b.rating - a.rating
            if not a.accepts(gap, now, config):
                break  # the ratings above are further still
            if b.accepts(gap, now, config) and not (apart is not None and apart(a, b)):
                candidates.append((gap, i, j))
    candidates.sort()
    taken = [False] * len(order)
    pairs = []
    for _gap, i, j in candidates:
        if not (taken[i] or taken[j]):
            taken[i] = taken[j] = True
            pairs.append((order[i], order[j]))
    return pairs


#: Starts the match of a pair; returns its id.
StartMatch = Callable[[PoolKey, Seek, Seek], Awaitable[str]]


class PairingPool:
    """Every pool of the server: join, wait for a pairing, leave; `wave()` pairs (called each second)."""

    def __init__(
        self,
        start_match: StartMatch,
        clock: Callable[[], float],
        config: PairingConfig | None = None,
        *,
        rated_apart: Apart | None = None,
    ):
        self.start_match = start_match
        self.clock = clock
        self.config = config or PairingConfig()
        self.rated_apart = rated_apart  # who must not meet in a rated pool
        self.seeks: dict[str, Seek] = {}  # seek id -> seek
        self.by_guest: dict[str, Seek] = {}
        self._lock = asyncio.Lock()
        self.began = clock()  # when the pool started running here (the process, or its lease)

    def begin(self) -> None:
        """The pool starts running on this process (it took the lease over): empty, and for
        `notice_window` seconds joins look for pairings the last process made."""
        self.clear()
        self.began = self.clock()

    def recently_began(self) -> bool:
        return self.clock() - self.began < self.config.notice_window

    def paired_before(self, guest_id: str, key: PoolKey, rating: float, match_id: str) -> Seek:
        """Remember that `guest_id` was paired into `match_id` (by the process that ran the pool
        before), so its page is told as if it had waited here."""
        now = self.clock()
        seek = Seek(secrets.token_urlsafe(9), guest_id, key, rating, now, now, match_id)
        seek.done.set()
        self.leave(guest_id)
        self.by_guest[guest_id] = seek
        return seek

    def join(self, guest_id: str, key: PoolKey, rating: float, address: str | None = None) -> Seek:
        """Wait in `key`'s pool (leaving any other pool first), seeking from `address`."""
        old = self.by_guest.get(guest_id)
        if old is not None and old.match_id is None:
            if old.key == key:
                old.seen = self.clock()
                old.address = address
                return old
            self.leave(guest_id)
        now = self.clock()
        seek = Seek(secrets.token_urlsafe(9), guest_id, key, rating, now, now, address=address)
        self.seeks[seek.id] = seek
        self.by_guest[guest_id] = seek
        return seek

    def leave(self, guest_id: str) -> bool:
        """Stop waiting; False if this guest was not waiting."""
        seek = self.by_guest.get(guest_id)
        if seek is None or seek.match_id is not None:
            return False
        self._drop(seek)
        return True

    def clear(self) -> None:
        """Forget every seeker (this process stopped running the pool): their waits end as "gone"."""
        for seek in list(self.by_guest.values()) + list(self.seeks.values()):
            self._drop(seek)
        self.by_guest.clear()

    def _drop(self, seek: Seek) -> None:
        self.seeks.pop(seek.id, None)
        if self.by_guest.get(seek.guest_id) is seek:
            del self.by_guest[seek.guest_id]
        seek.done.set()

    def status(self, seek: Seek) -> dict[str, Any]:
        now = self.clock()
        waited = max(0.0, now - seek.since)
        config = self.config
        return {
            "seek": seek.id,
            "state": "paired" if seek.match_id else ("waiting" if seek.id in self.seeks else "gone"),
            "match_id": seek.match_id,
            "url": f"/m/{seek.match_id}" if seek.match_id else None,
            "waited": waited,
            "range": min(config.max_range, config.base_range + config.widen_per_second * waited),
            "robot_offer": waited >= config.robot_after,
            "waiting": sum(1 for s in self.seeks.values() if s.key == seek.key),
            "pool": {"preset": seek.key.preset, "target": seek.key.target, "rated": seek.key.rated},
        }

    async def wave(self) -> int:
        """Drop stale seekers and pair every pool; returns the number of matches started."""
        async with self._lock:
            now = self.clock()
            for seek in list(self.seeks.values()):
                if seek.match_id is None and now - seek.seen > self.config.stale_after:
                    self._drop(seek)
            pools: dict[PoolKey, list[Seek]] = {}
            for seek in self.seeks.values():
                if seek.match_id is None:
                    pools.setdefault(seek.key, []).append(seek)
            started = 0
            for key, seeks in pools.items():
                for a, b in pair_closest(seeks, now, self.config, self.rated_apart if key.rated else None):
                    match_id = await self.start_match(key, a, b)
                    for seek in (a, b):
                        seek.match_id = match_id
                        self.seeks.pop(seek.id, None)
                        seek.done.set()
                    started += 1
            # A paired seek is remembered (by guest) until the guest asks once more, so its page
            # learns the match; a fresh join replaces it.
            return started

    async def wait(self, seek: Seek, timeout: float) -> dict[str, Any]:
        """The seek's status once it is paired or dropped, or after `timeout` seconds."""
        seek.seen = self.clock()
        if seek.match_id is None and seek.id in self.seeks:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(seek.done.wait(), timeout)
        seek.seen = self.clock()
        return self.status(seek)
