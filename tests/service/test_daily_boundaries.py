"""Daily boundaries with the real wall clock moved by time-machine (the service's default clock,
`time.time`, untouched): today's board turns over at 00:00 UTC, the home countdown's target moves,
and the daily tournaments of the next 24 hours are scheduled as the day turns."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import time_machine
from test_leaderboards import people, play

from ginrummy.service import GameService
from ginrummy.storage import SqlStore

EVENING = datetime(2026, 12, 1, 23, 59, 50, tzinfo=UTC)
MIDNIGHT = datetime(2026, 12, 2, tzinfo=UTC).timestamp()


def test_the_day_turns_at_utc_midnight_on_the_wall_clock(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'days.sqlite3'}"
    with time_machine.travel(EVENING, tick=False) as traveller:

        async def main() -> None:
            service = GameService(SqlStore(url), secret="s" * 32)  # the default clock: time.time
            await service.start()
            try:
                ann, bob = await people(service, "Ann", "Bob")
                await play(service, 1, ann, bob, rated=True, winner=0)
                today = await service.boards.board("today", ann.id)
                assert today["until"] == MIDNIGHT and [line["name"] for line in today["lines"]] == [
                    "Ann",
                    "Bob",
                ]
                listed = {t["id"] for t in await service.tournaments.listed()}
                # The next 24 hours: tomorrow's four arenas and two Swiss; today's are over.
                assert listed == {
                    "daily-20261202-00",
                    "daily-20261202-06",
                    "daily-20261202-12",
                    "daily-20261202-18",
                    "daily-swiss-20261202-03",
                    "daily-swiss-20261202-15",
                }

                traveller.move_to(datetime(2026, 12, 2, 0, 0, 5, tzinfo=UTC))
                today = await service.boards.board("today", ann.id)
                assert today["lines"] == [] and today["until"] == MIDNIGHT + 86400
                rolling = await service.boards.board("rolling", ann.id)
                assert [line["name"] for line in rolling["lines"]] == ["Ann", "Bob"]  # yesterday still counts
                # The day turned: the next day's midnight arena enters the 24 hours.
                assert await service.tournaments.schedule_daily() == 1
                assert await service.store.get_tournament("daily-20261203-00") is not None
                arena = await service.tournaments.get("daily-20261202-00")
                await arena.wave()
                assert arena.row.status == "started"
                swiss = await service.tournaments.get("daily-swiss-20261202-03")
                await swiss.wave()
                assert swiss.row.status == "created"  # three hours to go
            finally:
                await service.close()

        asyncio.run(main())
