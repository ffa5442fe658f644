"""The single writer of a match (`service/action_log.py`) against an in-memory `EventStore`.

The log depends on one narrow port (append and read back a match's moves), so its promises are
checked here without a database: a match rebuilt from its stored moves is the match that was
played; a move the store refused changed nothing; a log with a gap or a move that does not
replay is refused, never half loaded.
"""

from __future__ import annotations

import asyncio
import random

import pytest

from ginrummy.rules import Rules
from ginrummy.service.action_log import ActionLog
from ginrummy.service.ports import EventRow, EventStore, Lease, MatchRow, SeatRow, StoreError


class MemoryEvents:
    """An `EventStore` in memory, with the real store's refusal of a sequence number stored twice;
    `fail_at`: the sequence number whose append fails as a broken database would."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.log: dict[str, list[EventRow]] = {}
        self.fail_at = fail_at

    async def append_event(self, match_id: str, event: EventRow, fence: Lease | None = None) -> None:
        events = self.log.setdefault(match_id, [])
        if event.seq == self.fail_at:
            self.fail_at = None  # the next try goes through
            raise StoreError("the database went away")
        if any(e.seq == event.seq for e in events):
            raise StoreError(f"event {event.seq} of {match_id} exists already")
        events.append(event)

    async def events(self, match_id: str) -> list[EventRow]:
        return sorted(self.log.get(match_id, []), key=lambda e: e.seq)


def _row(preset: str, seed: int) -> MatchRow:
    rules = Rules.preset(preset)
    return MatchRow(
        id=f"m-{preset}-{seed}",
        kind="room",
        status="playing",
        rules=rules.replace(target=25).to_json(),
        seed=str(seed),
        seats=tuple(SeatRow(seat, guest_id=f"g{seat}") for seat in range(rules.players)),
        created_at=0.0,
    )


async def _play(log: ActionLog, rng: random.Random, moves: int) -> None:
    for _ in range(moves):
        game = log.game
        if game.is_over:
            return
        seat = rng.choice(game.seats_to_act)
        await log.append(seat, rng.choice(game.legal_actions(seat)), auto=rng.random() < 0.3)


def _store(store: MemoryEvents) -> EventStore:
    return store  # the fake is checked against the port it stands in for


@pytest.mark.parametrize("preset", ["classic", "oklahoma", "gin3", "gin4_teams", "rummy"])
def test_a_match_rebuilt_from_its_moves_is_the_match_that_was_played(preset: str) -> None:
    async def body() -> None:
        for seed in range(3):
            store = MemoryEvents()
            row = _row(preset, 1000 + seed)
            log = ActionLog.fresh(row, _store(store))
            await _play(log, random.Random(seed), 400)
            again = await ActionLog.rebuild(row, store)
            assert again.version == log.version == len(store.log[row.id]) > 0
            assert again.game.record().to_json() == log.game.record().to_json()
            assert (again.played, again.acted, again.absent()) == (log.played, log.acted, log.absent())
            assert again.game.is_over == log.game.is_over

    asyncio.run(body())


def test_a_move_the_store_refused_changed_nothing() -> None:
    async def body() -> None:
        store = MemoryEvents(fail_at=6)
        row = _row("classic", 7)
        log = ActionLog.fresh(row, store)
        rng = random.Random(3)
        await _play(log, rng, 5)
        before = (log.version, log.game.record().to_json(), list(log.played), list(log.acted))
        seat = log.game.seats_to_act[0]
        action = log.game.legal_actions(seat)[0]
        with pytest.raises(StoreError, match="went away"):
            await log.append(seat, action)
        assert (log.version, log.game.record().to_json(), log.played, log.acted) == before
        await log.append(seat, action)  # the same move, tried again, is stored once
        assert log.version == 6 == len(store.log[row.id])
        assert (await ActionLog.rebuild(row, store)).game.record().to_json() == log.game.record().to_json()

    asyncio.run(body())


def test_a_log_with_a_gap_or_a_move_that_does_not_replay_is_refused() -> None:
    async def body() -> None:
        store = MemoryEvents()
        row = _row("gin3", 11)
        log = ActionLog.fresh(row, store)
        await _play(log, random.Random(5), 12)
        events = store.log[row.id]
        gap = MemoryEvents()
        gap.log[row.id] = [e for e in events if e.seq != 4]
        with pytest.raises(StoreError, match="event 4 is missing"):
            await ActionLog.rebuild(row, gap)
        wrong = MemoryEvents()
        first = events[0]
        wrong.log[row.id] = [EventRow(1, (first.seat + 1) % 3, first.action), *events[1:]]
        with pytest.raises(StoreError, match="event 1 does not replay"):
            await ActionLog.rebuild(row, wrong)

    asyncio.run(body())
