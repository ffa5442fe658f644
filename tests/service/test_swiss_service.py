"""A Swiss tournament in the real service and store: rounds, a bye, the next round after the gap,
rebuilt from the database alone, paired once however many processes try, late joining closing."""

from __future__ import annotations

import asyncio

import pytest
from test_leaderboards import MIDNIGHT, Clock, db_url, people, run  # noqa: F401  (db_url: a fixture)

from ginrummy.service import Forbidden, GameService
from ginrummy.service.tournaments import SwissLive


def test_swiss_rounds_byes_restart_and_late_joining(db_url: str) -> None:  # noqa: F811
    clock = Clock(MIDNIGHT + 3600)

    async def body(service: GameService) -> None:
        ann, bob, cy, dee, eve = await people(service, "Ann", "Bob", "Cy", "Dee", "Eve")
        swiss = await service.tournaments.create(
            ann.id, {"format": "swiss", "rounds": 3, "robots": False, "starts_in": 1}
        )
        assert isinstance(swiss, SwissLive)
        for guest in (ann, bob, cy):
            await swiss.join(guest.id, guest.name)
        await swiss.wave()
        assert swiss.row.status == "created" and swiss.row.round == 0  # not before its start
        clock.now += 61
        await swiss.wave()
        assert swiss.row.status == "started" and swiss.row.round == 1
        (match_id,) = set(swiss.current.values())
        ((_, bye),) = swiss.byes  # three players: one bye, a point without a match
        assert bye not in swiss.current and swiss.cells[bye][0].mark == "B"

        # Everything is in the database: a fresh object rebuilds the same round.
        row = await service.store.get_tournament(swiss.id)
        assert row is not None and row.round == 1 and row.rounds == 3
        again = SwissLive(service, row)
        await again.load()
        assert again.current == swiss.current and again.byes == swiss.byes
        assert [s.guest_id for s in again.standings] == [s.guest_id for s in swiss.standings]
        # Another process pairing round 1 again writes nothing.
        assert not await service.store.start_round(swiss.id, 1, [], [ann.id])
        assert await service.store.tournament_byes(swiss.id) == swiss.byes

        await swiss.join(dee.id, dee.name)  # round 1 of 3: joining is still open
        live = await service.get_live(match_id)
        assert await live.resign(0) is None  # before both moved: aborted, nothing to either
        for _ in range(500):  # the match's end reaches the tournament in a task of its own
            async with swiss.lock:
                if not swiss.current:
                    break
            await asyncio.sleep(0.01)
        assert not swiss.current
        assert {swiss.cells[g][0].kind for g in swiss.players if g != bye} <= {"aborted", "absent"}
        await swiss.wave()
        assert swiss.row.round == 1  # the gap between rounds has not passed
        clock.now += service.config.swiss_round_gap + 1
        await swiss.wave()
        assert swiss.row.round == 2 and len(set(swiss.current.values())) == 2  # four players now
        assert [c.kind for c in swiss.cells[dee.id]] == ["absent", "playing"]
        with pytest.raises(Forbidden, match="more than half"):
            await swiss.join(eve.id, eve.name)

    run(db_url, clock, body)


def test_daily_swiss_tournaments_are_scheduled_once_each(db_url: str) -> None:  # noqa: F811
    clock = Clock(MIDNIGHT + 3600)  # 01:00 UTC

    async def body(service: GameService) -> None:
        assert await service.tournaments.schedule_daily() == 0  # made at start already
        listed = {t["id"]: t for t in await service.tournaments.listed()}
        day = "20241004"
        assert f"daily-swiss-{day}-03" in listed and f"daily-swiss-{day}-15" in listed
        daily = listed[f"daily-swiss-{day}-03"]
        assert daily["format"] == "swiss" and daily["rounds"] == service.config.daily_swiss_rounds
        assert daily["starts_at"] == MIDNIGHT + 3 * 3600 and daily["rated"] and daily["listed"]

    run(db_url, clock, body)
