"""Rate limits: token buckets per guest for WebSocket messages, per address for HTTP calls and socket openings."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from ..service import RateLimited

__all__ = ["AddressLimiter", "SocketGuard", "TokenBucket"]


class TokenBucket:
    """`rate` messages per second on average, `burst` at once."""

    __slots__ = ("rate", "burst", "tokens", "last", "clock")

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.last = clock()

    def _refill(self) -> None:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now

    def take(self, cost: float = 1.0) -> bool:
        """Spend `cost` tokens if there are that many; False (nothing spent) otherwise."""
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def charge(self, cost: float) -> None:
        """Spend `cost` tokens even if that leaves the bucket in debt (a penalty)."""
        self._refill()
        self.tokens -= cost

    def wait_for(self, cost: float = 1.0) -> float:
        """Seconds until `cost` tokens are there."""
        self._refill()
        return max(0.0, (cost - self.tokens) / self.rate)

    @property
    def full(self) -> bool:
        self._refill()
        return self.tokens >= self.burst


class AddressLimiter:
    """HTTP calls that create or change something, limited per client address.

    Each address has a bucket of `burst` requests refilled at `per_minute`; a request that
    finds it empty is refused with 429 before anything is done. A failed room join costs
    extra (`charge`), so room codes cannot be guessed at speed. `per_minute` 0 turns the
    limit off. Idle addresses are forgotten once their bucket is full again.
    """

    PRUNE_AT = 10_000

    def __init__(self, per_minute: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = per_minute / 60.0
        self.burst = burst
        self.clock = clock
        self.buckets: dict[str, TokenBucket] = {}

    @property
    def enabled(self) -> bool:
        return self.rate > 0

    def _bucket(self, address: str) -> TokenBucket:
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= self.PRUNE_AT:
                self.buckets = {a: b for a, b in self.buckets.items() if not b.full}
            bucket = self.buckets[address] = TokenBucket(self.rate, self.burst, self.clock)
        return bucket

    def spend(self, address: str, cost: float = 1.0) -> None:
        """Spend `cost` for `address`, or raise RateLimited saying how long to wait."""
        if not self.enabled:
            return
        bucket = self._bucket(address)
        if not bucket.take(cost):
            wait = math.ceil(bucket.wait_for(cost))
            raise RateLimited(f"too many requests from your address; try again in {wait} s", wait)

    def check(self, address: str, refusal: str) -> None:
        """Raise RateLimited (`refusal`, then how long to wait) unless `address` could spend 1 now;
        nothing is spent (the caller charges what succeeded)."""
        if self.enabled:
            wait = math.ceil(self._bucket(address).wait_for(1.0))
            if wait > 0:
                raise RateLimited(f"{refusal}; try again in {wait} s", wait)

    def charge(self, address: str, cost: float) -> None:
        """A penalty for `address` (it may leave the bucket in debt)."""
        if self.enabled:
            self._bucket(address).charge(cost)


class SocketGuard:
    """Match sockets, limited so one guest or address cannot crowd out the others.

    - Opening: each address gets `open_burst` sockets at once, refilled at `open_rate` per second
      (a page reconnecting now and then never notices; a flood of handshakes is refused early).
    - Open at once: at most `per_guest` sockets per guest (its tabs) and `per_address` per address
      (guests behind one home router or school network).
    - Messages: one bucket per guest for all its sockets together, so more sockets never mean
      more messages: `rate` per second, `burst` at once.
    """

    def __init__(
        self,
        *,
        per_guest: int,
        per_address: int,
        open_rate: float,
        open_burst: int,
        rate: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_guest = per_guest
        self.per_address = per_address
        self.opens = AddressLimiter(open_rate * 60.0, open_burst, clock)
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.by_guest: dict[str, int] = {}
        self.by_address: dict[str, int] = {}
        self.buckets: dict[str, TokenBucket] = {}

    def may_open(self, address: str) -> str | None:
        """Spend one opening for `address`; a refusal's reason when it has opened too many lately."""
        try:
            self.opens.spend(address)
        except RateLimited as exc:
            return f"too many connections opened from your address; try again in {exc.retry_after:g} s"
        return None

    def open(self, guest_id: str, address: str) -> str | None:
        """Count a socket of `guest_id` from `address` as open, or say why it may not be."""
        if self.by_guest.get(guest_id, 0) >= self.per_guest:
            return f"this table is open in {self.per_guest} places already; close one and reload"
        if self.by_address.get(address, 0) >= self.per_address:
            return f"{self.per_address} tables are open from your address already"
        self.by_guest[guest_id] = self.by_guest.get(guest_id, 0) + 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        if guest_id not in self.buckets:
            self.buckets[guest_id] = TokenBucket(self.rate, self.burst, self.clock)
        return None

    def close(self, guest_id: str, address: str) -> None:
        """A socket counted by `open` closed."""
        for counts, key in ((self.by_guest, guest_id), (self.by_address, address)):
            left = counts.get(key, 0) - 1
            if left > 0:
                counts[key] = left
            else:
                counts.pop(key, None)
        if guest_id not in self.by_guest:
            bucket = self.buckets.get(guest_id)
            # A guest coming back before its bucket refilled keeps its debt (no reset by reconnecting).
            if bucket is not None and (bucket.full or len(self.buckets) > AddressLimiter.PRUNE_AT):
                del self.buckets[guest_id]

    def bucket(self, guest_id: str) -> TokenBucket:
        """The message bucket all of the guest's sockets share."""
        return self.buckets[guest_id]
