"""Leaderboard windows across UTC midnight and the 30-day edge, statistics and ratings, on the real store."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from compete_helpers import finished_match

from ginrummy.service import GameService
from ginrummy.service.leaderboards import bucket_keys
from ginrummy.service.ports import GuestRow, MatchRow, SeatRow
from ginrummy.storage import SqlStore

DAY = 86400
MIDNIGHT = 20_000 * DAY  # 2024-10-04 00:00:00 UTC


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'boards.sqlite3'}"
    return str(request.getfixturevalue("postgres_url"))


def run(url: str, clock: Clock, body: Callable[[GameService], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        service = GameService(SqlStore(url), clock=clock, secret="s" * 32)
        await service.start()
        try:
            return await body(service)
        finally:
            await service.close()

    return asyncio.run(main())


async def people(service: GameService, *names: str) -> list[GuestRow]:
    made = []
    for name in names:
        guest = GuestRow(f"id-{name.lower()}-0000", name, service.clock())
        await service.store.create_guest(guest)
        made.append(guest)
    return made


async def play(
    service: GameService, number: int, first: GuestRow, second: GuestRow | str, *, rated: bool, winner: int
) -> None:
    """Store a finished match between `first` (seat 0) and `second` (a person, or a robot level)."""
    match = finished_match(number, winner=winner)
    other = SeatRow(1, second.id) if isinstance(second, GuestRow) else SeatRow(1, robot_level=second)
    row = MatchRow(
        id=f"match-{number}",
        kind="online" if isinstance(second, GuestRow) else "robot",
        status="playing",
        rules=match.rules.to_json(),
        seed=str(match.seed),
        seats=(SeatRow(0, first.id), other),
        created_at=service.clock() - 600,
        rated=rated,
    )
    await service.store.create_match(row)
    assert match.result is not None
    now = service.clock()
    await service.store.finish_match(
        row.id, match.result.to_json(), now, service.outcome_of(match, row.seats, rated, now)
    )


def names(board: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(line["name"], line["rank"], line["wins"]) for line in board["lines"]]


def test_todays_board_turns_over_at_utc_midnight_and_the_30_day_board_rolls(db_url: str) -> None:
    clock = Clock(MIDNIGHT - 10)  # 23:59:50

    async def body(service: GameService) -> None:
        ann, bob, cy = await people(service, "Ann", "Bob", "Cy")
        await play(service, 1, ann, bob, rated=True, winner=0)
        await play(service, 2, ann, cy, rated=True, winner=0)
        await play(service, 3, bob, cy, rated=True, winner=1)
        await play(service, 4, cy, "expert", rated=False, winner=0)  # robots never count
        await play(service, 5, bob, cy, rated=False, winner=0)  # casual matches never count
        today = await service.boards.board("today", bob.id)
        assert names(today) == [("Ann", 1, 2), ("Cy", 2, 1), ("Bob", 3, 0)]
        assert today["until"] == MIDNIGHT and today["me"]["name"] == "Bob" and today["me"]["matches"] == 2
        points = {line["name"]: line["points"] for line in today["lines"]}
        assert all(points[n] > 0 for n in ("Ann", "Cy"))

        clock.now = MIDNIGHT + 5  # 00:00:05 the next day: a new, empty daily board
        assert (await service.boards.board("today", bob.id))["lines"] == []
        assert (await service.boards.board("today", bob.id))["me"] is None
        await play(service, 6, bob, ann, rated=True, winner=0)
        assert names(await service.boards.board("today", None)) == [("Bob", 1, 1), ("Ann", 2, 0)]
        rolling = await service.boards.board("rolling", cy.id)
        first, second, third = rolling["lines"]
        assert (first["name"], first["rank"], first["wins"]) == ("Ann", 1, 2)
        assert {second["name"], third["name"]} == {"Bob", "Cy"} and second["wins"] == third["wins"] == 1
        # Equal wins: more points first, and equal points share the rank.
        assert second["points"] >= third["points"] and second["rank"] == 2
        assert third["rank"] == (2 if second["points"] == third["points"] else 3)
        assert rolling["me"]["name"] == "Cy" and rolling["me"]["matches"] == 2

        # At 23:59:50 on the 30th day the first day is still in the window; ten seconds later it has left.
        clock.now = MIDNIGHT - 10 + 29 * DAY
        assert {
            line["name"]: line["wins"] for line in (await service.boards.board("rolling", None))["lines"]
        } == {
            "Ann": 2,
            "Bob": 1,
            "Cy": 1,
        }
        clock.now = MIDNIGHT + 29 * DAY + 5
        assert names(await service.boards.board("rolling", None)) == [("Bob", 1, 1), ("Ann", 2, 0)]

    run(db_url, clock, body)


def test_your_own_rank_is_given_outside_the_top_hundred(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import ginrummy.service.leaderboards as boards

    monkeypatch.setattr(boards, "BOARD_SIZE", 3)  # a short board, so few matches reach past it
    clock = Clock(MIDNIGHT + 3600)

    async def body(service: GameService) -> None:
        crowd = await people(service, "P1", "P2", "P3", "P4", "P5", "P6")
        number = 100
        for i, winner in enumerate(crowd[:4]):
            for _ in range(4 - i):  # P1 wins 4, P2 3, P3 2, P4 1
                number += 1
                await play(service, number, winner, crowd[5], rated=True, winner=0)
        for board in ("today", "rolling"):
            data = await service.boards.board(board, crowd[3].id)
            assert [line["name"] for line in data["lines"]] == ["P1", "P2", "P3"]
            assert data["me"]["rank"] == 4 and data["me"]["wins"] == 1
            loser = await service.boards.board(board, crowd[5].id)
            assert loser["me"]["rank"] == 5 and loser["me"]["wins"] == 0 and loser["me"]["matches"] == 10
            assert (await service.boards.board(board, crowd[4].id))["me"] is None  # never played

    run(db_url, clock, body)


def test_ratings_history_and_statistics_come_from_rated_matches_only(db_url: str) -> None:
    clock = Clock(MIDNIGHT + 100)

    async def body(service: GameService) -> None:
        ann, bob = await people(service, "Ann", "Bob")
        await play(service, 1, ann, bob, rated=True, winner=0)
        clock.now += 3600
        await play(service, 2, ann, bob, rated=True, winner=0)
        clock.now += 60
        await play(service, 3, ann, "novice", rated=False, winner=1)
        profile = await service.history.profile(ann.id)
        assert profile["rating"]["games"] == 2 and profile["rating"]["rating"] > 1500
        assert profile["rating"]["provisional"] is True and profile["rating"]["ranked"] is False
        assert [p["match_id"] for p in profile["history"]] == ["match-1", "match-2"]
        assert profile["history"][1]["rating"] > profile["history"][0]["rating"] > 1500
        stats = profile["stats"]
        assert (stats["matches"], stats["won"], stats["lost"]) == (3, 2, 1)
        assert stats["win_rate"] == pytest.approx(2 / 3)
        assert (
            stats["knocks"] >= 1
            and stats["knock_deadwood"] is not None
            and 0 <= stats["knock_deadwood"] <= 10
        )
        assert [m["outcome"] for m in profile["matches"]] == ["lost", "won", "won"]
        bob_profile = await service.history.profile(bob.id)
        assert bob_profile["rating"]["rating"] < 1500
        assert abs(bob_profile["rating"]["rating"] - 1500) == pytest.approx(
            abs(profile["rating"]["rating"] - 1500), abs=2
        )
        # Not ranked on the rating board while provisional.
        assert (await service.boards.board("rating", ann.id))["lines"] == []

        # Finishing a match twice (a restart repeating it) counts it once.
        again = finished_match(1, winner=0)
        assert again.result is not None
        row = await service.store.get_match("match-1")
        assert row is not None
        await service.store.finish_match(
            row.id, again.result.to_json(), clock.now, service.outcome_of(again, row.seats, True, clock.now)
        )
        assert (await service.history.profile(ann.id))["rating"]["games"] == 2
        assert (await service.boards.board("today", ann.id))["me"]["wins"] == 2

    run(db_url, clock, body)


def test_a_settled_rating_is_on_the_rating_board_until_it_decays(db_url: str) -> None:
    clock = Clock(MIDNIGHT)

    async def body(service: GameService) -> None:
        ann, bob, cy = await people(service, "Ann", "Bob", "Cy")
        number = 0
        # 40 games each with mixed results: enough for the deviations to fall under 75.
        for i in range(60):
            for first, second, winner in ((ann, bob, i % 3 == 0), (bob, cy, i % 2), (cy, ann, i % 2)):
                number += 1
                clock.now += 1
                await play(service, number, first, second, rated=True, winner=int(winner))
        board = await service.boards.board("rating", cy.id)
        assert {line["name"] for line in board["lines"]} == {"Ann", "Bob", "Cy"}
        shown = [line["rating"] for line in board["lines"]]
        assert shown == sorted(shown, reverse=True) and [line["rank"] for line in board["lines"]] == [1, 2, 3]
        assert all(line["deviation"] <= 75 for line in board["lines"])
        assert board["me"]["name"] == "Cy"
        clock.now += 3 * 365 * DAY  # years without a rated game: the deviations grew past 75
        assert (await service.boards.board("rating", cy.id))["lines"] == []
        assert (await service.boards.board("rating", cy.id))["me"] is None

    run(db_url, clock, body)


def test_a_day_counts_in_its_own_board_and_the_30_rolling_windows_that_contain_it() -> None:
    keys = bucket_keys(20_000)
    assert (1, 20_000) in keys and (1, 19_999) not in keys
    assert sorted(last for span, last in keys if span == 30) == list(range(20_000, 20_030))
    assert all(span in (1, 30) for span, _ in keys)
