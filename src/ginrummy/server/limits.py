"""Rate limits: a token bucket per WebSocket connection, and per client address for HTTP calls."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from ..service import RateLimited

__all__ = ["AddressLimiter", "TokenBucket"]


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

    def charge(self, address: str, cost: float) -> None:
        """A penalty for `address` (it may leave the bucket in debt)."""
        if self.enabled:
            self._bucket(address).charge(cost)
