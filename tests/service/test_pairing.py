"""Quick pairing: the closest ratings are paired first, ranges widen with the wait, nobody is paired twice."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from ginrummy.service.pairing import PairingConfig, PairingPool, PoolKey, Seek, pair_closest

KEY = PoolKey("gin", "classic", 100, True)
CONFIG = PairingConfig()


def seek(n: int, rating: float, since: float = 0.0, key: PoolKey = KEY) -> Seek:
    return Seek(f"s{n}", f"g{n}", key, rating, since, since)


def test_the_closest_two_are_paired_first_and_far_ratings_wait() -> None:
    pool = [seek(0, 1500), seek(1, 1590), seek(2, 1510), seek(3, 2100)]
    assert [(a.id, b.id) for a, b in pair_closest(pool, 0.0, CONFIG)] == [("s0", "s2")]
    # After 10 s the range is 100 + 20 * 10 = 300: 1590 is no partner for 2100 yet (510), at 21 s it is.
    assert {frozenset((a.id, b.id)) for a, b in pair_closest(pool, 10.0, CONFIG)} == {frozenset(("s0", "s2"))}
    assert {frozenset((a.id, b.id)) for a, b in pair_closest(pool, 21.0, CONFIG)} == {
        frozenset(("s0", "s2")),
        frozenset(("s1", "s3")),
    }


def test_a_pair_needs_both_ranges() -> None:
    # The newcomer accepts only 100, the old hand accepts anything within 1000.
    old, new = seek(0, 1500, since=0), seek(1, 1750, since=99)
    assert pair_closest([old, new], 100.0, CONFIG) == []
    assert len(pair_closest([old, new], 107.6, CONFIG)) == 1  # 100 + 20 * 8.6 > 250


@given(
    st.lists(st.tuples(st.floats(600, 2800), st.floats(0, 60)), max_size=60),
    st.floats(0, 120),
)
def test_pairings_are_valid(entries: list[tuple[float, float]], now: float) -> None:
    pool = [seek(i, rating, since=min(since, now)) for i, (rating, since) in enumerate(entries)]
    pairs = pair_closest(pool, now, CONFIG)
    seen = [s.id for pair in pairs for s in pair]
    assert len(seen) == len(set(seen))  # nobody in two matches
    for a, b in pairs:
        assert a is not b and a.guest_id != b.guest_id  # no self-pairing
        gap = abs(a.rating - b.rating)
        assert a.accepts(gap, now, CONFIG) and b.accepts(gap, now, CONFIG)
    # Nobody left waiting could have been paired with a rating neighbour also left waiting.
    left = sorted((s for s in pool if s.id not in seen), key=lambda s: s.rating)
    for a, b in zip(left, left[1:], strict=False):
        gap = b.rating - a.rating
        assert not (a.accepts(gap, now, CONFIG) and b.accepts(gap, now, CONFIG))
    # The closest acceptable pair of the whole pool is always made.
    candidates = [
        (abs(a.rating - b.rating), a.id, b.id)
        for i, a in enumerate(pool)
        for b in pool[i + 1 :]
        if a.accepts(abs(a.rating - b.rating), now, CONFIG)
        and b.accepts(abs(a.rating - b.rating), now, CONFIG)
    ]
    if candidates:
        best = min(c[0] for c in candidates)
        assert any(abs(abs(a.rating - b.rating) - best) < 1e-9 for a, b in pairs)


def test_the_pool_pairs_waves_offers_a_robot_after_20_seconds_and_drops_the_silent() -> None:
    async def body() -> None:
        now = [0.0]
        started: list[tuple[str, str]] = []

        async def start(key: PoolKey, a: Seek, b: Seek) -> str:
            started.append((a.guest_id, b.guest_id))
            return f"m{len(started)}"

        pool = PairingPool(start, lambda: now[0])
        ann = pool.join("ann", KEY, 1500)
        assert pool.status(ann)["robot_offer"] is False
        casual = pool.join("bob", PoolKey("gin", "classic", 100, False), 1500)  # another pool
        assert await pool.wave() == 0
        now[0] = 19.0
        assert pool.status(ann)["robot_offer"] is False
        now[0] = 20.0
        ann.seen = casual.seen = 20.0
        assert pool.status(ann)["robot_offer"] is True
        cy = pool.join("cy", KEY, 1900)  # 400 away: ann's range is 100 + 20*20 = 500, cy's only 100
        assert await pool.wave() == 0
        now[0] = 35.0
        for s in (ann, casual, cy):
            s.seen = 35.0
        assert await pool.wave() == 1
        assert [sorted(pair) for pair in started] == [["ann", "cy"]]
        waited = await pool.wait(ann, timeout=0.1)
        assert waited["state"] == "paired" and waited["url"] == "/m/m1"
        # Joining again from the same guest replaces the paired seek; a silent seeker is dropped.
        now[0] = 50.0
        assert await pool.wave() == 0
        assert pool.status(casual)["state"] == "gone"
        assert pool.leave("bob") is False

    asyncio.run(body())
