"""Leases and fenced appends in the SQL store (SQLite and a real PostgreSQL): one owner per live
match, an epoch that grows at each hand-over, and no event written by a process that lost it."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from ginrummy.service.ports import EventRow, GuestRow, Lease, LeaseLost, MatchRow, SeatRow
from ginrummy.storage import SqlStore, make_engine


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'leases.sqlite3'}"
    url: str = request.getfixturevalue("postgres_url")
    return url


def _match(match_id: str) -> MatchRow:
    return MatchRow(
        id=match_id,
        kind="robot",
        status="playing",
        rules={"preset": "classic"},
        seed="s" * 64,
        seats=(SeatRow(0, "g1"), SeatRow(1, robot_level="casual")),
        created_at=1.0,
    )


async def _started(url: str, *match_ids: str) -> SqlStore:
    store = SqlStore(url)
    await store.start()
    if match_ids:
        await store.create_guest(GuestRow("g1", "Anna", 0.0))
        for match_id in match_ids:
            await store.create_match(_match(match_id))
    return store


def _pass(seq: int) -> EventRow:
    return EventRow(seq, seq % 2, {"type": "pass"})


def _epochs(url: str, match_id: str) -> list[tuple[int, int | None]]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sa.text("SELECT seq, epoch FROM events WHERE match_id = :m ORDER BY seq"), {"m": match_id}
            )
            return [(row.seq, row.epoch) for row in rows]
    finally:
        engine.dispose()


def test_a_lease_is_taken_kept_by_its_owner_and_refused_to_another(db_url: str) -> None:
    async def body() -> tuple[Lease, Lease, Lease, Lease | None]:
        store = await _started(db_url)
        try:
            first = await store.claim_lease("match:m1", "A", 30)
            again = await store.claim_lease("match:m1", "A", 60)
            other = await store.claim_lease("match:m1", "B", 30)
            return first, again, other, await store.get_lease("match:m1")
        finally:
            await store.close()

    first, again, other, stored = asyncio.run(body())
    assert (first.owner, first.epoch) == ("A", 1)
    assert (again.owner, again.epoch) == ("A", 1) and again.expires_at > first.expires_at + 20
    assert other == again  # B is told who holds it
    assert stored == again
    assert abs(first.expires_at - 30 - time.time()) < 5  # the database's clock, in unix seconds


def test_a_stale_owner_cannot_append_after_the_lease_changed_hands(db_url: str) -> None:
    async def body() -> tuple[Lease, Lease, Any]:
        store = await _started(db_url, "m1")
        try:
            old = await store.claim_lease("match:m1", "A", 0.3)
            await store.append_event("m1", _pass(1), fence=old)
            await asyncio.sleep(0.5)
            new = await store.claim_lease("match:m1", "B", 30)
            refused = None
            try:
                await store.append_event("m1", _pass(2), fence=old)
            except LeaseLost as exc:
                refused = exc
            await store.append_event("m1", _pass(2), fence=new)
            return old, new, refused
        finally:
            await store.close()

    old, new, refused = asyncio.run(body())
    assert (old.epoch, new.epoch, new.owner) == (1, 2, "B")
    assert isinstance(refused, LeaseLost) and "no longer holds" in str(refused)
    assert _epochs(db_url, "m1") == [(1, 1), (2, 2)]  # each event names the epoch it was written under


def test_a_lease_run_out_fences_even_before_anyone_takes_it_and_a_renewal_restores_it(db_url: str) -> None:
    async def body() -> tuple[Any, list[Lease], list[tuple[int, int]]]:
        store = await _started(db_url, "m1")
        try:
            lease = await store.claim_lease("match:m1", "A", 0.2)
            await asyncio.sleep(0.4)
            try:
                await store.append_event("m1", _pass(1), fence=lease)
                refused = None
            except LeaseLost as exc:
                refused = exc
            renewed = await store.renew_leases("A", 30)
            await store.append_event("m1", _pass(1), fence=renewed[0])
            return refused, renewed, [(e.seq, e.seat) for e in await store.events("m1")]
        finally:
            await store.close()

    refused, renewed, stored = asyncio.run(body())
    assert isinstance(refused, LeaseLost)
    assert [(lease.name, lease.epoch) for lease in renewed] == [("match:m1", 1)]  # nobody took it
    assert stored == [(1, 1)]


def test_fenced_and_unfenced_appends_batched_together_fail_only_where_the_lease_is_lost(db_url: str) -> None:
    async def body() -> list[Any]:
        store = await _started(db_url, "kept", "lost", "plain")
        try:
            kept = await store.claim_lease("match:kept", "A", 30)
            lost = await store.claim_lease("match:lost", "A", 30)
            await store.release_lease(lost)
            return await asyncio.gather(
                *[store.append_event("kept", _pass(seq), fence=kept) for seq in (1, 2, 3)],
                *[store.append_event("lost", _pass(seq), fence=lost) for seq in (1, 2)],
                *[store.append_event("plain", _pass(seq)) for seq in (1, 2)],
                return_exceptions=True,
            )
        finally:
            await store.close()

    outcomes = asyncio.run(body())
    assert outcomes[:3] == [None, None, None]
    assert all(isinstance(o, LeaseLost) for o in outcomes[3:5])
    assert outcomes[5:] == [None, None]
    assert _epochs(db_url, "kept") == [(1, 1), (2, 1), (3, 1)]
    assert _epochs(db_url, "lost") == []
    assert _epochs(db_url, "plain") == [(1, None), (2, None)]


def test_released_leases_are_taken_at_once_and_lapsed_ones_by_one_process_each(db_url: str) -> None:
    async def body() -> Any:
        stores = [await _started(db_url) for _ in range(3)]
        a, b, c = stores
        try:
            for i in range(12):
                await a.claim_lease(f"match:{i}", "A", 0.2)
            await a.claim_lease("tournament:t", "A", 0.2)
            released = await a.claim_lease("match:gone", "A", 30)
            await a.release_lease(released)
            await asyncio.sleep(0.4)
            taken = await asyncio.gather(
                b.claim_expired("B", 30, "match:", 5),
                c.claim_expired("C", 30, "match:", 5),
                b.claim_expired("B", 30, "match:", 5),
                c.claim_expired("C", 30, "match:", 5),
            )
            rest = await a.claim_expired("A2", 30, "match:", 100)
            kept_by_a = await a.renew_leases("A", 30)
            freed = await c.claim_lease("match:gone", "C", 30)
            return taken, rest, kept_by_a, freed
        finally:
            for store in stores:
                await store.close()

    taken, rest, kept_by_a, freed = asyncio.run(body())
    names = [lease.name for batch in [*taken, rest] for lease in batch]
    assert sorted(names) == sorted(f"match:{i}" for i in range(12))  # each exactly once
    assert all(lease.epoch == 2 for batch in taken for lease in batch)
    assert [lease.name for lease in kept_by_a] == ["tournament:t"]  # other prefixes are left alone
    assert (freed.owner, freed.epoch) == ("C", 2)  # given up: no wait for it to run out


def test_only_a_lease_still_held_can_be_released(db_url: str) -> None:
    async def body() -> tuple[bool, bool, Lease | None]:
        store = await _started(db_url)
        try:
            lease = await store.claim_lease("match:m", "A", 0.1)
            await asyncio.sleep(0.3)
            await store.claim_lease("match:m", "B", 30)
            stale = await store.release_lease(lease)
            current = await store.get_lease("match:m")
            assert current is not None
            return stale, await store.release_lease(current), await store.get_lease("match:m")
        finally:
            await store.close()

    stale, released, after = asyncio.run(body())
    assert (stale, released, after) == (False, True, None)
