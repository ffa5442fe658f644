"""The lease keeper's own judgement of its leases (on a real SQLite store, with a clock the test
moves): a lease counts as held only while it was renewed, or claimed, less than its length ago."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ginrummy.service.cluster import LeaseKeeper
from ginrummy.storage import SqlStore


def test_a_lease_is_fresh_for_its_length_after_its_claim_or_the_last_renewal(tmp_path: Path) -> None:
    now = [100.0]
    lost: list[str] = []

    async def body() -> list[tuple[bool, bool]]:
        store = SqlStore(f"sqlite:///{tmp_path / 'keeper.sqlite3'}")
        await store.start()
        # The database's own expiry is far off (30 s); only the keeper's clock moves.
        keeper = LeaseKeeper(store, "A", ttl=30.0, heartbeat=1.0, on_lost=lost.append, clock=lambda: now[0])
        seen: list[tuple[bool, bool]] = []

        def fresh() -> tuple[bool, bool]:
            return keeper.fresh("tournament:t1") is not None, keeper.fresh("tournament:t2") is not None

        await keeper.claim("tournament:t1")
        seen.append(fresh())  # t1 just claimed
        now[0] += 31.0  # no heartbeat for longer than a lease lasts (a stall, a pause)
        seen.append(fresh())
        await keeper.claim("tournament:t2")  # claimed now: it lasts from now, t1 still does not
        seen.append(fresh())
        now[0] += 1.0
        await keeper.beat()  # renews both
        seen.append(fresh())
        now[0] += 29.0
        seen.append(fresh())
        now[0] += 1.0
        seen.append(fresh())
        await keeper.close()
        return seen

    seen = asyncio.run(body())
    assert seen == [
        (True, False),
        (False, False),
        (False, True),
        (True, True),
        (True, True),
        (False, False),
    ]
    assert lost == []
