"""Fair play's rules (`service/fairplay.py`) against its one port in memory: which players are kept
apart, which rated results are recorded for the operator and with what evidence, how the records
are grouped by pair, and that a failing store loses a record, never the match's end.

`test_fair_play.py` runs the same rules through the real service and SQL store."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from ginrummy.service.errors import SameAddress
from ginrummy.service.fairplay import ONE_SIDED, QUICK_LOSS, QUICK_MOVES, SERIES, SERIES_SECONDS, FairPlay
from ginrummy.service.ports import FlagRow, StoreError
from ginrummy.service.ratings import GAME

DAY = 86400.0
NOW = 100 * DAY
HOME = "203.0.113.7"
ELSEWHERE = "198.51.100.20"


class MemoryFairPlay:
    """`FairPlayStore` in memory: addresses seen, rated results between two people, flags."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, float]] = []  # (guest, address, at)
        self.results: list[tuple[str, str, str, str, float]] = []  # (match, game, winner, loser, at)
        self.raised: list[FlagRow] = []
        self.fail = False

    def won(self, match_id: str, winner: str, loser: str, at: float, game: str = GAME) -> None:
        self.results.append((match_id, game, winner, loser, at))

    async def note_address(self, guest_id: str, address: str, at: float) -> None:
        self.seen.append((guest_id, address, at))

    async def guests_seen_at(self, address: str, since: float) -> list[str]:
        return sorted({g for g, a, at in self.seen if a == address and at >= since})

    async def shared_addresses(self, first: str, second: str) -> list[str]:
        of = {g: {a for h, a, _ in self.seen if h == g} for g in (first, second)}
        return sorted(of[first] & of[second])

    async def head_to_head(self, first: str, second: str, game: str, since: float) -> list[tuple[str, float]]:
        if self.fail:
            raise StoreError("the database went away")
        met = [r for r in self.results if r[1] == game and r[4] >= since and {r[2], r[3]} == {first, second}]
        return [
            (m, 1.0 if winner == first else 0.0) for m, _, winner, _, _ in sorted(met, key=lambda r: r[4])
        ]

    async def add_flag(self, flag: FlagRow) -> None:
        if not any((f.match_id, f.kind) == (flag.match_id, flag.kind) for f in self.raised):
            self.raised.append(flag)

    async def flags(self, limit: int) -> list[FlagRow]:
        return sorted(self.raised, key=lambda f: -f.at)[:limit]


def run(body: Callable[[FairPlay, MemoryFairPlay], Awaitable[Any]], **options: Any) -> Any:
    async def main() -> Any:
        store = MemoryFairPlay()
        fair = FairPlay(store, lambda: NOW, **options)
        try:
            return await body(fair, store)
        finally:
            await fair.close()

    return asyncio.run(main())


def test_two_players_of_one_known_address_are_kept_apart_unless_the_site_allows_it() -> None:
    fair = FairPlay(MemoryFairPlay(), lambda: NOW)
    assert fair.apart(HOME, HOME)
    assert not fair.apart(HOME, ELSEWHERE)
    # An address the server could not tell links nobody.
    assert not fair.apart("unknown", "unknown") and not fair.apart(None, None) and not fair.apart("", "")
    fair.rated_same_address = True
    assert not fair.apart(HOME, HOME)


def test_an_event_refuses_a_second_player_of_an_address_seen_since_it_began() -> None:
    async def body(fair: FairPlay, store: MemoryFairPlay) -> None:
        await fair.entered("ann", HOME)
        await fair.entered("cy", "unknown")  # not remembered: nothing to link
        assert [(g, a) for g, a, _ in store.seen] == [("ann", HOME)]
        players = {"ann", "bob"}
        with pytest.raises(SameAddress, match="rated tournament"):
            await fair.refuse_same_address("bob", HOME, players, since=NOW - 60)
        # Ann herself, another address, an unknown one, a player not in the event, an entry
        # before the event began: none is refused.
        await fair.refuse_same_address("ann", HOME, players, since=NOW - 60)
        await fair.refuse_same_address("bob", ELSEWHERE, players, since=NOW - 60)
        await fair.refuse_same_address("bob", "unknown", players, since=NOW - 60)
        await fair.refuse_same_address("bob", HOME, {"bob", "dee"}, since=NOW - 60)
        await fair.refuse_same_address("bob", HOME, players, since=NOW + 1)
        fair.rated_same_address = True
        await fair.refuse_same_address("bob", HOME, players, since=NOW - 60)

    run(body)


def test_a_match_given_up_after_few_moves_between_linked_players_is_recorded_with_its_evidence() -> None:
    async def body(fair: FairPlay, store: MemoryFairPlay) -> None:
        for guest in ("ann", "bob"):
            await fair.entered(guest, HOME)
        await fair.entered("cy", ELSEWHERE)
        few = [3, QUICK_MOVES - 4]  # one move short of "quick" no longer holding
        fair.match_over("m1", ("ann", "bob"), {"winner": 1, "ended": "resigned", "moves": few}, NOW)
        await fair.settled()
        assert store.raised == [
            FlagRow(
                "m1", QUICK_LOSS, "bob", "ann", NOW, {"ended": "resigned", "moves": few, "addresses": [HOME]}
            )
        ]
        store.raised.clear()
        # Not recorded: enough moves, a match played to its end, players never seen on one
        # address, a drawn or aborted match.
        enough = [QUICK_MOVES // 2, QUICK_MOVES - QUICK_MOVES // 2]
        fair.match_over("m2", ("ann", "bob"), {"winner": 0, "ended": "abandoned", "moves": enough}, NOW)
        fair.match_over("m3", ("ann", "bob"), {"winner": 0, "ended": "target", "moves": [1, 1]}, NOW)
        fair.match_over("m4", ("ann", "cy"), {"winner": 0, "ended": "resigned", "moves": [1, 1]}, NOW)
        fair.match_over("m5", ("ann", "bob"), {"winner": None, "ended": "resigned", "moves": [1, 1]}, NOW)
        await fair.settled()
        assert store.raised == []

    run(body)


def test_the_same_winner_of_every_recent_rated_match_of_a_pair_is_recorded() -> None:
    async def body(fair: FairPlay, store: MemoryFairPlay) -> None:
        old = NOW - SERIES_SECONDS - DAY
        store.won("m0", "bob", "ann", old)  # outside the window: not part of the series
        for n in range(1, SERIES):
            store.won(f"m{n}", "ann", "bob", NOW - n * DAY)
        store.won("other", "ann", "bob", NOW, game="rummy")  # another game's rating
        fair.match_over(f"m{SERIES - 1}", ("ann", "bob"), {"winner": 0, "ended": "target"}, NOW)
        await fair.settled()
        assert store.raised == []  # SERIES - 1 wins: not yet a series
        store.won(f"m{SERIES}", "ann", "bob", NOW)
        fair.match_over(f"m{SERIES}", ("ann", "bob"), {"winner": 0, "ended": "target"}, NOW)
        await fair.settled()
        matches = [f"m{n}" for n in range(SERIES - 1, 0, -1)] + [f"m{SERIES}"]
        evidence = {"won": SERIES, "of": SERIES, "days": SERIES_SECONDS / DAY, "matches": matches}
        assert store.raised == [FlagRow(f"m{SERIES}", ONE_SIDED, "ann", "bob", NOW, evidence)]
        # One win of Bob's inside the window breaks the series.
        store.raised.clear()
        store.won("b", "bob", "ann", NOW - DAY / 2)
        store.won("last", "ann", "bob", NOW + 1)
        fair.match_over("last", ("ann", "bob"), {"winner": 0, "ended": "target"}, NOW + 1)
        await fair.settled()
        assert store.raised == []

    run(body)


def test_records_are_grouped_by_pair_the_most_recorded_pair_first() -> None:
    async def body(fair: FairPlay, store: MemoryFairPlay) -> None:
        for match_id, winner, loser, at in (
            ("a", "ann", "bob", 1.0),
            ("b", "bob", "ann", 2.0),  # the same pair, the other way round
            ("c", "cy", "dee", 5.0),
            ("d", "eve", "fay", 3.0),
        ):
            await store.add_flag(FlagRow(match_id, QUICK_LOSS, winner, loser, at, {}))
        await store.add_flag(FlagRow("a", QUICK_LOSS, "ann", "bob", 9.0, {}))  # the same record again
        pairs = await fair.suspicious_pairs()
        assert [(p.first, p.second, [f.match_id for f in p.flags]) for p in pairs] == [
            ("ann", "bob", ["b", "a"]),
            ("cy", "dee", ["c"]),  # of the pairs with one record each, the newest first
            ("eve", "fay", ["d"]),
        ]
        assert [p.first for p in await fair.suspicious_pairs(limit=1)] == ["cy"]

    run(body)


def test_a_failing_store_loses_the_record_and_says_so_but_never_the_end_of_the_match(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def body(fair: FairPlay, store: MemoryFairPlay) -> None:
        store.fail = True
        fair.match_over("m1", ("ann", "bob"), {"winner": 0, "ended": "target"}, NOW)
        await fair.settled()  # no exception reaches the match
        assert store.raised == []

    with caplog.at_level(logging.ERROR, logger="ginrummy.service"):
        run(body)
    assert "match m1: its fair-play records could not be made" in caplog.text
